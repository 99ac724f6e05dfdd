"""`cubefab paths` and `cubefab broadcast`."""

import os

import pytest

from cubefab.topology import Metacube
from cubefab.topology.paths import check_disjoint_paths


def test_paths_json_keys(cli):
    r = cli("paths", "metacube", "-k", 2, "-m", 2, "--src", 0, "--dst", "0b0001011101",
            "--json")
    assert r.status == 0
    doc = r.json()
    assert doc["src"] == 0 and doc["dst"] == 93
    assert len(doc["paths"]) == 4 and doc["verified"]
    assert doc["lengths"] == [11, 13, 11, 11] and doc["longest"] == 13
    assert doc["bound"] == 5 + 4 + 2 + 5
    assert not check_disjoint_paths(Metacube(2, 2), 0, 93, doc["paths"])
    assert "path" not in doc


def test_paths_with_faults(cli):
    r = cli("paths", "dualcube", "-m", 2, "--src", 0, "--dst", 7, "--faults", "1,16,3",
            "--json")
    doc = r.json()
    assert r.status == 0 and doc["found"] and doc["guaranteed"] is False
    assert doc["path"][0] == 0 and doc["path"][-1] == 7
    assert not {1, 16, 3} & set(doc["path"]) and doc["fault_method"] == "search"


def test_paths_with_a_tolerated_fault(cli):
    r = cli("paths", "dlh", "-m", 4, "-d", 3, "--src", 0, "--dst", 3, "--faults", "1",
            "--faulty-links", "0-2", "--json")
    doc = r.json()
    assert doc["found"] and doc["guaranteed"] and doc["fault_method"] == "disjoint-paths"
    assert doc["faulty_links"] == [[0, 2]] and 1 not in doc["path"]


def test_paths_clear_failure(cli):
    r = cli("paths", "metacube", "-k", 2, "-m", 2, "--src", 0, "--dst", 5,
            "--faults", "1,2,256,512", "--json")
    assert r.status == 1
    doc = r.json()
    assert doc["path"] is None and doc["found"] is False
    assert doc["message"].startswith("no fault-free path found")
    text = cli("paths", "metacube", "-k", 2, "-m", 2, "--src", 0, "--dst", 5,
               "--faults", "1,2,256,512")
    assert "no fault-free path found" in text.out


def test_paths_text_table(cli):
    r = cli("paths", "hypercube", "-n", 3, "--src", 0, "--dst", 7)
    assert r.status == 0
    assert "3 disjoint paths 0 -> 7" in r.out and "verified disjoint" in r.out


@pytest.mark.parametrize("args, message", [
    (("--src", 3, "--dst", 3), "different"),
    (("--src", 0, "--dst", 1024), "[0, 1023]"),
    (("--src", 0, "--dst", 5, "--faults", "0"), "source 0 is faulty"),
    (("--src", 0, "--dst", 5, "--faulty-links", "0-3"), "not adjacent"),
    (("--src", 0, "--dst", 5, "--faulty-links", "0"), "invalid link"),
    (("--src", 0, "--dst", 5, "--plot", "out.jpg"), "--plot out.jpg: plot file must end in .png, .svg or .pdf"),
])
def test_paths_errors(cli, args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)     # where a relative --plot would be written
    r = cli("paths", "metacube", "-k", 2, "-m", 2, *args)
    assert r.status == 2
    assert r.err.startswith("error:") and message in r.err
    assert r.err.count("\n") == 1 and os.listdir(tmp_path) == []


@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_paths_plot(cli, tmp_path, suffix):
    out = tmp_path / f"paths.{suffix}"
    r = cli("paths", "dlh", "-m", 4, "-d", 3, "--src", 0, "--dst", 157, "--faults", 1,
            "--plot", out)
    assert r.status == 0 and out.stat().st_size > 1000


def test_broadcast_json_keys(cli):
    r = cli("broadcast", "metacube", "-k", 2, "-m", 1, "--src", 5, "--json")
    assert r.status == 0
    doc = r.json()
    assert doc["num_steps"] == len(doc["steps"]) == 9 and doc["paper_steps"] == 9
    assert doc["valid"] and doc["model"] == "one-port"
    assert doc["lower_bounds"] == {"eccentricity": 8, "log2_nodes": 6, "lower_bound": 8}
    assert all(len(t) == 2 for step in doc["steps"] for t in step)
    assert sum(len(step) for step in doc["steps"]) == 63


def test_broadcast_all_port_dlh(cli):
    doc = cli("broadcast", "dlh", "-m", 4, "-d", 3, "--src", 0, "--model", "all-port",
              "--json").json()
    assert doc["algorithm"] == "flood" and doc["num_steps"] == 8 and doc["paper_steps"] == 8
    assert doc["lower_bounds"]["log2_nodes"] is None


def test_broadcast_text(cli):
    r = cli("broadcast", "dualcube", "-m", 2, "--src", 0)
    assert r.status == 0
    assert "steps 6, paper 6" in r.out and "valid schedule" in r.out
    assert "0>16" in r.out


def test_broadcast_plot(cli, tmp_path):
    out = tmp_path / "tree.svg"
    r = cli("broadcast", "metacube", "-k", 2, "-m", 2, "--src", 0, "--plot", out)
    assert r.status == 0 and out.read_text().startswith("<?xml")


@pytest.mark.parametrize("args, message", [
    (("--src", 0, "--model", "two-port"), "invalid choice"),
    (("--src", 0, "--algorithm", "nope"), "must be one of"),
    (("--src", "x"), "invalid address"),
])
def test_broadcast_errors(cli, args, message):
    r = cli("broadcast", "hypercube", "-n", 3, *args)
    assert r.status == 2 and r.err.startswith("error:") and message in r.err


def test_plot_refuses_large_networks(cli, tmp_path):
    r = cli("broadcast", "metacube", "-k", 2, "-m", 3, "--src", 0, "--plot",
            tmp_path / "big.png")
    assert r.status == 2 and "up to 1024 nodes" in r.err
    assert os.listdir(tmp_path) == []


def test_paths_by_flow_beyond_the_memory_limit_are_refused_before_working(cli, monkeypatch):
    # the Mcube has no paper construction: its paths come from a minimum-cost flow
    monkeypatch.setenv("CUBEFAB_MEMORY_LIMIT_MB", "100")
    r = cli("paths", "mcube", "-k", 13, "--src", 0, "--dst", 5)
    assert r.status == 2 and r.err.startswith("error: disjoint paths by flow on Mcube(13)")
    assert "MiB of memory" in r.err and r.err.count("\n") == 1
