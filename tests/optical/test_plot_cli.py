"""Plots and the ``cubefab optical`` command."""

import os

import pytest

from cubefab.optical import dlh_layout, hypercube_layout, plot_layout


JSON_KEYS = {"plane_rows", "plane_cols", "plane_l", "plane_r", "row_shifts", "col_shifts",
             "shifts", "images", "spurious"}


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_plot_dlh_with_highlight(tmp_path, suffix):
    path = tmp_path / f"dlh{suffix}"
    assert plot_layout(dlh_layout(4, 3), path, highlight=5) == str(path)
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG") if suffix == ".png" else b"<svg" in data[:2000]
    if suffix == ".svg":
        assert b"(1, 7)" in data or b"(1,&#x20;7)" in data     # block labels drawn


def test_plot_large_plane_without_labels(tmp_path):
    path = tmp_path / "q10.png"
    plot_layout(hypercube_layout(10), path)
    assert path.stat().st_size > 1000


def test_plot_bad_input(tmp_path):
    with pytest.raises(ValueError, match=".png, .svg or .pdf"):
        plot_layout(hypercube_layout(3), tmp_path / "x.jpg")
    with pytest.raises(ValueError):
        plot_layout(hypercube_layout(3), tmp_path / "x.png", highlight=8)


def test_cli_hypercube_json(cli):
    doc = cli("optical", "hypercube", "-n", 5, "--json").json()
    assert JSON_KEYS <= set(doc)
    assert doc["plane_rows"] == doc["plane_cols"] == 4
    assert doc["plane_l"][:4] == [0, 3, 10, 9] and doc["plane_r"][:4] == [1, 2, 11, 8]
    assert [0, 0] in doc["shifts"] and len(doc["shifts"]) == doc["images"] == 9
    assert doc["row_shifts"] == [-3, -1, 1, 3] and doc["spurious"] == 0 and doc["valid"]


def test_cli_dlh_json_has_empty_cells(cli):
    doc = cli("optical", "dlh", "-m", 4, "-d", 3, "--json").json()
    assert JSON_KEYS <= set(doc)
    assert len(doc["plane_l"]) == doc["plane_rows"] * doc["plane_cols"] == 5 * 23
    assert doc["plane_l"][2] is None                         # the gap column
    assert [0, 21] in doc["shifts"] and doc["images"] == 11 and doc["spurious"] == 0
    assert doc["growth"] == {"images_next": 11, "changed": [[0, -21], [0, 21]],
                             "added": [[0, -27], [0, 27]]}


def test_cli_folded_ring_growth_changes_nothing(cli):
    result = cli("optical", "dlh", "-m", 3, "-d", 2, "--ring", "folded")
    assert result.status == 0 and "shifts that change: none" in result.out


def test_cli_paper_recipe_reports_spurious(cli):
    result = cli("optical", "hypercube", "-n", 6, "--construction", "paper")
    assert result.status == 1    # an invalid layout is a failed check
    assert "INVALID" in result.out and "64 spurious images" in result.out


def test_cli_plot(cli, tmp_path):
    path = tmp_path / "q4.svg"
    doc = cli("optical", "hypercube", "-n", 4, "--json", "--plot", path,
              "--highlight", "0b0101").json()
    assert doc["plot"] == str(path) and path.exists()


@pytest.mark.parametrize("args", [
    ("optical", "hypercube", "-n", 0),
    ("optical", "hypercube", "-n", 15),
    ("optical", "dlh", "-m", 1, "-d", 3),
    ("optical", "dlh", "-m", 4, "-d", 3, "--ring", "spiral"),
    ("optical", "hypercube", "-n", 3, "--highlight", 8),
    ("optical", "hypercube", "-n", 3, "--plot", "out.jpg"),
    ("optical", "mcube", "-k", 3),
])
def test_cli_errors(cli, args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)     # where a relative --plot would be written
    result = cli(*args)
    assert result.status == 2
    assert result.err.startswith("error:") and len(result.err.strip().splitlines()) == 1
    assert result.out == "" and os.listdir(tmp_path) == []
