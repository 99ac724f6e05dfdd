"""`cubefab plot RESULT.json -o FIG`: a saved result's figure in each format, the
caption switch, the file rules (no overwrite without --force, nothing partial), and
bad input as one error line."""

import json
import pathlib
import shutil

import pytest

from cubefab.figures import style

DATA = pathlib.Path(__file__).parent.parent / "figures" / "data"

#: The first bytes of each format.
MAGIC = {".png": b"\x89PNG", ".pdf": b"%PDF", ".svg": b"<?xml"}


def assert_one_error_line(result, *words):
    lines = result.err.strip().splitlines()
    assert result.status == 2 and len(lines) == 1, result.err
    assert lines[0].startswith("error: ") and all(w in lines[0] for w in words), lines[0]


@pytest.mark.parametrize("name, suffix", [("sweep_two_networks", ".pdf"),
                                          ("compare_nodes64", ".svg"),
                                          ("trace_q6", ".png")])
def test_each_result_in_a_format(cli, tmp_path, name, suffix):
    path = tmp_path / f"fig{suffix}"
    r = cli("plot", DATA / f"{name}.json", "-o", path)
    assert r.status == 0 and r.out == f"plot written to {path}\n", r.err
    assert path.read_bytes().startswith(MAGIC[suffix])


def test_json_says_what_was_drawn(cli, tmp_path):
    path = tmp_path / "fig.pdf"
    r = cli("plot", DATA / "compare_nodes64.json", "-o", path, "--json")
    assert r.json() == {"command": "plot", "result": str(DATA / "compare_nodes64.json"),
                        "kind": "compare", "file": str(path), "caption": True}


def test_no_caption_leaves_the_parameters_out(cli, tmp_path):
    with_caption, without = tmp_path / "a.svg", tmp_path / "b.svg"
    assert cli("plot", DATA / "trace_q6.json", "-o", with_caption).status == 0
    assert cli("plot", DATA / "trace_q6.json", "-o", without, "--no-caption").status == 0
    assert "dependencies kept" in with_caption.read_text()
    assert "dependencies kept" not in without.read_text()


def test_an_existing_file_is_replaced_only_with_force(cli, tmp_path):
    path = tmp_path / "fig.png"
    path.write_bytes(b"someone's figure")
    r = cli("plot", DATA / "trace_q6.json", "-o", path)
    assert_one_error_line(r, "--force")
    assert path.read_bytes() == b"someone's figure"
    assert cli("plot", DATA / "trace_q6.json", "-o", path, "--force").status == 0
    assert path.read_bytes().startswith(MAGIC[".png"])
    assert cli("plot", DATA / "trace_q6.json", "-o", path).status == 0   # its own file


@pytest.mark.parametrize("content, words", [
    (None, ["cannot read", "No such file"]),
    ("{not json", ["is not a cubefab result: not JSON"]),
    (json.dumps({"points": 3}), ["not a result of cubefab sweep, compare or sim --trace"]),
    (json.dumps({"curves": [{"points": [], "bound": {}}]}),
     ["is not a complete sweep result", "cubefab sweep"]),
], ids=["missing", "not-json", "not-a-result", "damaged"])
def test_bad_input_is_one_error_line_and_no_file(cli, tmp_path, content, words):
    source = tmp_path / "result.json"
    if content is not None:
        source.write_text(content)
    out = tmp_path / "out" / "fig.png"
    r = cli("plot", source, "-o", out)
    assert_one_error_line(r, str(source), *words)
    assert not out.exists() and not any(out.parent.glob(".fig.png*"))


def test_an_unknown_suffix_is_refused_before_reading(cli, tmp_path):
    r = cli("plot", tmp_path / "missing.json", "-o", tmp_path / "fig.jpg")
    assert_one_error_line(r, "-o", "fig.jpg", ".png, .svg or .pdf")


def test_ctrl_c_while_writing_leaves_no_file(cli, tmp_path, monkeypatch):
    def interrupted(fig, *args, **kwargs):
        pathlib.Path(args[0]).write_bytes(b"half a figure")
        raise KeyboardInterrupt
    monkeypatch.setattr(style.plt.Figure, "savefig", interrupted)
    shutil.copy(DATA / "trace_q6.json", tmp_path)
    r = cli("plot", tmp_path / "trace_q6.json", "-o", tmp_path / "fig.pdf")
    assert r.status == 130 and r.err == "error: interrupted\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["trace_q6.json"]
