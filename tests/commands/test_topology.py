"""`cubefab info`, `edges`, `route` per conventions.md."""

import json
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
    (["info", "dlh", "-m", 1, "-d", 2], "m must be an integer >= 2"),
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
