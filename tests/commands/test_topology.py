"""`cubefab info`, `edges`, `route` per conventions.md."""

import json
import re
import subprocess
import sys

import pytest


def test_info_json_keys(cli):
    r = cli("info", "metacube", "-k", 1, "-m", 2, "--json")
    assert r.status == 0
    doc = r.json()
    for key in ["nodes", "degree", "links", "diameter", "average_distance",
                "average_distance_with_self", "address_bits"]:
        assert key in doc
    assert doc["nodes"] == 32 and doc["diameter"] == 6 and doc["address_bits"] == 5
    assert doc["paper"]["diameter"]["value"] == 6


def test_info_table(cli):
    r = cli("info", "dlh", "-m", 4, "-d", 3)
    assert r.status == 0
    assert "DLH(4,3)" in r.out and "paper 2.09091" in r.out


def test_info_mc23(cli):
    r = cli("info", "metacube", "-k", 2, "-m", 3, "--json")
    doc = r.json()
    assert doc["nodes"] == 16384 and doc["diameter"] == 16
    assert doc["average_distance_exact"] == "51072/5461"


def test_info_mc44_by_structure(cli):
    doc = cli("info", "metacube", "-k", 4, "-m", 4, "--json").json()
    assert doc["method"] == "structure" and doc["nodes"] == 2 ** 68
    assert doc["diameter"] == 80 and sum(doc["distance_distribution"]) == 2 ** 68
    assert doc["average_distance_with_self_exact"] == "433198539056870554787/9223372036854775808"


def test_info_text_names_the_method(cli):
    r = cli("info", "dualcube", "-m", 3)
    assert r.status == 0 and "method: structure (dual-cube closed form" in r.out
    r = cli("info", "mcube", "-k", 6)
    assert r.status == 0 and "method: bfs (BFS from each source, in-process)" in r.out


def test_info_method_bfs_agrees_with_structure(cli):
    a = cli("info", "metacube", "-k", 2, "-m", 2, "--json").json()
    b = cli("info", "metacube", "-k", 2, "-m", 2, "--method", "bfs", "--json").json()
    assert (a["method"], b["method"]) == ("structure", "bfs")
    for key in ["pair_distance_distribution", "diameter", "average_distance_exact"]:
        assert a[key] == b[key]


@pytest.mark.parametrize("args,match", [
    (["metacube", "-k", 5, "-m", 1], r"MC\(5,1\) needs BFS \(no structural method is known "
                                     r"for it\), and BFS of its 137,438,953,472 nodes \(10 bytes "
                                     r"per node\) would need about 1,310,720 MiB of memory; the "
                                     r"limit is [0-9,]+ MiB of memory"),
    (["mcube", "-k", 6, "--method", "structure"], "Mcube\\(6\\) has no structural method"),
    (["metacube", "-k", 2, "-m", 1, "--method", "exact"], "invalid choice"),
    (["mcube", "-k", 6, "--workers", 0], "must be an integer from 1"),
])
def test_info_refusals_are_one_error_line(cli, args, match):
    r = cli("info", *args)
    assert r.status == 2 and r.out == ""
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert re.search(match, lines[0]), lines[0]


def test_info_bfs_memory_limit(cli, monkeypatch):
    """info's BFS and sim's fabric are refused by one rule, in one wording
    (cubefab.memory)."""
    monkeypatch.setenv("CUBEFAB_MEMORY_LIMIT_MB", "1")
    r = cli("info", "hypercube", "-n", 20, "--method", "bfs")
    assert r.status == 2
    assert r.err.strip() == ("error: Q(20) needs BFS (method bfs was asked for), and BFS of its 1,048,576 nodes (10 bytes per node) "
                             "would need about 10 MiB of memory; the limit is 1 MiB of "
                             "memory (use a smaller network)")
    r = cli("sim", "hypercube", "-n", 6, "--engine", "amaranth")
    assert r.status == 2
    assert r.err.startswith("error: the Q(6) self-checking fabric")
    assert "MiB of memory; the limit is 1 MiB of memory" in r.err


def test_memory_limit_variable_must_be_a_number(cli, monkeypatch):
    monkeypatch.setenv("CUBEFAB_MEMORY_LIMIT_MB", "lots")
    for args in (("info", "mcube", "-k", 6), ("paths", "mcube", "-k", 6, "--src", 0,
                                              "--dst", 5)):
        r = cli(*args)
        assert r.status == 2 and r.err.count("\n") == 1
        assert r.err.startswith("error: CUBEFAB_MEMORY_LIMIT_MB must be a positive integer")


def test_edges_lines(cli):
    r = cli("edges", "dualcube", "-m", 1)
    lines = r.out.strip().splitlines()
    assert len(lines) == 8
    pairs = [tuple(map(int, l.split())) for l in lines]
    assert all(u < v for u, v in pairs) and len(set(pairs)) == 8


def test_route_accepts_binary_and_hex(cli):
    r = cli("route", "metacube", "-k", 2, "-m", 3, "--src", "0", "--dst",
            "0b00001110101011", "--algorithm", "paper", "--json")
    doc = r.json()
    assert doc["hops"] == 11 and doc["path"][0] == 0 and doc["path"][-1] == 939
    r2 = cli("route", "metacube", "-k", 2, "-m", 3, "--src", "0x0", "--dst", "0x3ab", "--json")
    assert r2.json()["path"][-1] == 939 and r2.json()["hops"] == r2.json()["distance"]


@pytest.mark.parametrize("args,match", [
    (["route", "dlh", "-m", 4, "-d", 3, "--src", 0, "--dst", 5000], "dst must be in [0, 255]"),
    (["route", "dlh", "-m", 4, "-d", 3, "--src", 0, "--dst", 0b00101000], "not a node"),
    (["route", "metacube", "-k", 1, "-m", 2, "--src", "zz", "--dst", 1], "invalid address"),
    (["route", "metacube", "-k", 1, "-m", 2, "--src", 0, "--dst", 1, "--algorithm", "x"],
     "algorithm must be one of"),
    (["info", "metacube", "-k", 2], "required"),
    (["info", "dlh", "-m", 1, "-d", 2], "argument -m: must be an integer from 2 to 60, not '1'"),
    (["info", "torus"], "invalid choice"),
    (["nosuchcommand"], "invalid choice"),
])
def test_bad_input_one_error_line(cli, args, match):
    r = cli(*args)
    assert r.status == 2
    assert r.out == ""
    lines = r.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and match in lines[0]


def test_python_dash_m_entry_point():
    out = subprocess.run([sys.executable, "-m", "cubefab", "route", "hypercube", "-n", "3",
                          "--src", "0", "--dst", "7", "--json"],
                         capture_output=True, text=True, check=True).stdout
    assert json.loads(out)["path"] == [0, 1, 3, 7]


def test_info_bisection_and_cost(cli):
    doc = cli("info", "dualcube", "-m", 2, "--json").json()
    assert doc["cost"] == 18 == doc["paper"]["cost"]["value"]
    b = doc["bisection"]
    assert (b["value"], b["lower"], b["upper"], b["method"], b["exact_by"]) == \
        (8, 8, 8, "exact", "bounds")
    assert doc["paper"]["bisection"]["value"] == 8
    assert "dual-cube.txt" in doc["paper"]["bisection"]["source"]
    r = cli("info", "metacube", "-k", 2, "-m", 1)
    assert "bisection: 8 (exact: the lower bound equals the cut)" in r.out
    assert "bisection = 8  [metacube.txt Table 2: 2^n/8]" in r.out


def test_info_bisection_of_a_huge_network(cli):
    doc = cli("info", "metacube", "-k", 4, "-m", 4, "--json").json()
    assert doc["bisection"]["value"] == 2 ** 63 == doc["paper"]["bisection"]["value"]
    assert doc["cost"] == 8 * 80
