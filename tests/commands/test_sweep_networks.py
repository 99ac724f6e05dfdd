"""`cubefab sweep NETWORK... `: several networks (compare's FAMILY:P=V syntax) and router
variants in one sweep: the curves of every network x variant with their labels, the
text and CSV naming the network, one figure drawn as `cubefab plot` draws it, bad
networks as one error line; the single-network form still as it was."""

import contextlib
import csv
import io
import json

import pytest

from cubefab.cli import main

#: Two tiny networks (2 and 4 nodes), two variants, two loads: 8 short Amaranth runs.
NETWORKS = ("hypercube:n=1", "foldedcube:n=2")
RUN = ("--rates", "0.2,0.9", "--engine", "amaranth", "--cycles", "40", "--warmup", "10",
       "--jobs", "1", "--algorithm", "default", "--adaptive")


def run(*args):
    """``(status, stdout)`` of ``cubefab ARGS`` run here."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main([str(a) for a in args])
    return status, out.getvalue()


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """The JSON document of the sweep, and the figure its --plot drew."""
    path = tmp_path_factory.mktemp("sweep") / "sweep.png"
    status, out = run("sweep", *NETWORKS, *RUN, "--plot", path, "--json")
    assert status == 0
    return json.loads(out), path


def test_a_curve_per_network_and_variant(swept):
    doc, _ = swept
    assert [(c["network"], c["variant"], c["topology"], c["algorithm"], c["adaptive_vcs"] > 0)
            for c in doc["curves"]] == [
        ("hypercube:n=1", "default routing", "Q(1)", "ecube", False),
        ("hypercube:n=1", "adaptive", "Q(1)", "ecube", True),
        ("foldedcube:n=2", "default routing", "FQ(2)", "fold-ecube", False),
        ("foldedcube:n=2", "adaptive", "FQ(2)", "fold-ecube", True)]
    for curve in doc["curves"]:
        assert curve["ok"] and [p["rate"] for p in curve["points"]] == [0.2, 0.9]
        assert curve["router"]["routers"] == {"Q(1)": 2, "FQ(2)": 4}[curve["topology"]]
        assert curve["router"]["algorithm"] == curve["algorithm"]


def test_the_plot_is_the_figure_plot_draws_of_the_json(swept, tmp_path, cli):
    doc, drawn = swept
    saved = tmp_path / "sweep.json"
    saved.write_text(json.dumps(doc))
    again = tmp_path / "again.png"
    assert cli("plot", saved, "-o", again).status == 0
    assert again.read_bytes() == drawn.read_bytes()


def test_text_and_csv_name_the_network(cli):
    one_load = (*RUN[:-3], "--rates", "0.2")       # one variant: the default routing
    r = cli("sweep", *NETWORKS, *one_load)
    assert r.status == 0
    assert "hypercube:n=1 = Q(1), uniform traffic, ecube routing" in r.out
    assert "foldedcube:n=2 = FQ(2), uniform traffic, fold-ecube routing" in r.out
    r = cli("sweep", *NETWORKS, *one_load, "--csv")
    rows = list(csv.DictReader(io.StringIO(r.out)))
    assert [(row["network"], row["topology"]) for row in rows] == [
        ("hypercube:n=1", "Q(1)"), ("foldedcube:n=2", "FQ(2)")]


def test_one_network_of_the_topology_form_keeps_its_document(cli):
    r = cli("sweep", "hypercube", "-n", 1, *RUN[:-3])
    assert r.status == 0 and "hypercube:n=1 = Q(1)" in r.out
    r = cli("sweep", "hypercube", "-n", 1, *RUN[:-3], "--json")
    doc = r.json()
    assert "curves" not in doc and doc["network"] == "hypercube:n=1"


def test_one_network_of_the_networks_form_is_a_list_of_curves(cli):
    r = cli("sweep", "metacube:m=1,k=0", *RUN[:-3], "--rates", "0.2", "--json")
    assert r.status == 0, r.err
    (curve,) = r.json()["curves"]
    assert curve["network"] == "metacube:k=0,m=1"   # compare's spelling, in order


def assert_one_error_line(result, *words):
    lines = result.err.strip().splitlines()
    assert result.status == 2 and len(lines) == 1, result.err
    assert lines[0].startswith("error: ") and all(w in lines[0] for w in words), lines[0]


@pytest.mark.parametrize("networks, words", [
    (("hypercube:n=1", "hypercub:n=2"), ["'hypercub:n=2' is not a network", "FAMILY:P=V"]),
    (("hypercube:n=x",), ["'hypercube:n=x' is not a network", "hypercube:n=N"]),
    (("hypercube:n=1", "hypercube:n=99"), ["'hypercube:n=99'", "[1, 62]"]),
    (("dualcube:m=1", "metacube:k=1,m=1"), ["'metacube:k=1,m=1'", "same network as "
                                            "'dualcube:m=1'"]),
], ids=["family", "value", "range", "twice"])
def test_a_bad_network_is_one_error_line_naming_it(cli, networks, words):
    assert_one_error_line(cli("sweep", *networks, "--rates", "0.2"), *words)


def test_a_variant_one_network_lacks_names_the_network(cli):
    r = cli("sweep", "hypercube:n=1", "foldedcube:n=2", "--rates", "0.2", "--algorithm",
            "ecube")
    assert_one_error_line(r, "foldedcube:n=2: algorithm must be one of", "'ecube'")
