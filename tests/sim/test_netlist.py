"""The self-checking fabric's post-synthesis netlist against its RTL (``sim
--netlist``): identical counters and latency histograms, and a changed cell caught."""

from argparse import Namespace

import pytest

from cubefab.commands.sim import sizing_device
from cubefab.tools.devices import FAMILIES
from cubefab.tools.netlist import invert_lut, simulation_synth_command
from cubefab.sim.verilator_netlist import Netlist, run_differences
from cubefab.topology import Hypercube, Metacube
from tests.helpers import needs_family, needs_simulator, run_fabric_of

needs_verilator = needs_simulator("verilator")


def test_invert_lut_inverts_one_truth_table():
    netlist = {"modules": {"top": {"cells": {
        "b": {"type": "SB_LUT4", "parameters": {"LUT_INIT": "0000000011110000"}},
        "a": {"type": "SB_LUT4", "parameters": {"LUT_INIT": "1000000000000001"}},
        "f": {"type": "SB_DFF", "parameters": {}}}}}}
    assert invert_lut(netlist, "top", FAMILIES["ice40"], 3) == "b"   # 3 mod 2: "b"
    cells = netlist["modules"]["top"]["cells"]
    assert cells["b"]["parameters"]["LUT_INIT"] == "1111111100001111"
    assert cells["a"]["parameters"]["LUT_INIT"] == "1000000000000001"


def test_invert_lut_needs_a_lut():
    with pytest.raises(ValueError, match="no LUT"):
        invert_lut({"modules": {"top": {"cells": {}}}}, "top", FAMILIES["gowin"], 0)


def test_differences_leave_out_the_timing():
    rtl = {"delivered": 5, "latency_histogram": [[3, 5]], "seconds": 1.0}
    net = {"delivered": 5, "latency_histogram": [[3, 4], [4, 1]], "seconds": 9.0,
           "netlist": "hx8k"}
    assert run_differences(rtl, net) == {"latency_histogram": [[[3, 5]], [[3, 4], [4, 1]]]}
    assert run_differences(rtl, dict(rtl, seconds=2.0, netlist="hx8k")) == {}


def test_netlist_names_a_device_and_a_lut():
    with pytest.raises(ValueError, match="Device must be one of"):
        Netlist("ecp5")
    with pytest.raises(ValueError, match="non-negative integer"):
        Netlist("hx8k", mutate=-1)


def test_block_rams_are_simulated_where_yosys_models_them():
    assert simulation_synth_command("hx8k", "n") == ("synth_ice40 -top n", True)
    assert simulation_synth_command("lfe5u-85f", "n") == (
        "synth_ecp5 -top n -nowidelut -nobram", False)
    assert simulation_synth_command("gw2a-18", "n")[0] == (
        "proc; memory -nomap; memory_map; synth_gowin -family gw2a -top n -noiopads "
        "-nowidelut -nobram")


#: A short run: every counter and the latency histogram are compared.
RUN = dict(rate=0.2, cycles=300, drain=600, seed=3, opt="-O1")


def _compare(topology, device, tmp_path, mutate=None, **hardware):
    rtl = run_fabric_of(topology, **RUN, **hardware)
    net = run_fabric_of(topology, netlist=Netlist(device, mutate=mutate,
                                                  workdir=str(tmp_path)),
                        **RUN, **hardware)
    assert rtl["delivered"] > 0
    return rtl, net, run_differences(rtl, net)


#: One device of each family, each test skipped where its flow is missing.
FAMILY_DEVICES = [pytest.param(device, marks=needs_family(device))
                  for device in ("hx8k", "lfe5u-25f", "gw1nr-9")]


@pytest.mark.slow
@needs_verilator
@pytest.mark.parametrize("device", FAMILY_DEVICES)
def test_register_buffer_netlist_matches_the_rtl(tmp_path, device):
    rtl, net, differences = _compare(Hypercube(2), device, tmp_path, buffer="registers")
    assert rtl["buffer"] == "registers"
    assert differences == {} and net["netlist"] == device and net["ok"]


@pytest.mark.slow
@needs_verilator
@pytest.mark.parametrize("device", FAMILY_DEVICES)
def test_memory_buffer_netlist_matches_the_rtl(tmp_path, device):
    rtl, net, differences = _compare(Hypercube(1), device, tmp_path)
    assert rtl["buffer"] == "memory"
    assert differences == {}
    # (each test run has its own build cache, in which only this test builds this
    # netlist: its synthesis runs here and leaves the netlist in tmp_path)
    if device == "hx8k":       # the buffers are the iCE40's block RAMs in the netlist
        assert "SB_RAM40_4K" in (tmp_path / "netlist.v").read_text()


@pytest.mark.slow
@needs_verilator
@needs_family("lfe5u-25f")
def test_lut_ram_buffer_netlist_matches_the_rtl(tmp_path):
    rtl, net, differences = _compare(Hypercube(1), "lfe5u-25f", tmp_path,
                                     buffer="distributed")
    assert rtl["buffer"] == "distributed"
    assert differences == {}
    # the buffers are ECP5 LUT RAM in the netlist, simulated by yosys' model
    assert "TRELLIS_DPR16X4" in (tmp_path / "netlist.v").read_text()


@pytest.mark.slow
@needs_verilator
@needs_family("hx8k")
def test_metacube_netlist_matches_the_rtl(tmp_path):
    _, _, differences = _compare(Metacube(1, 1), "hx8k", tmp_path)
    assert differences == {}


@pytest.mark.slow
@needs_verilator
@needs_family("hx8k")
def test_a_changed_cell_is_caught(tmp_path):
    rtl, net, differences = _compare(Hypercube(1), "hx8k", tmp_path, mutate=0)
    assert differences, "a netlist with an inverted LUT ran like the RTL"


def test_sim_netlist_refuses_the_amaranth_engine(cli):
    r = cli("sim", "hypercube", "-n", 1, "--netlist", "hx8k", "--engine", "amaranth")
    assert r.status == 2 and "--netlist" in r.err and "Traceback" not in r.err


def test_sim_netlist_refuses_an_unknown_device(cli):
    r = cli("sim", "hypercube", "-n", 1, "--netlist", "ecp5")
    assert r.status == 2 and "--netlist" in r.err


def test_sim_sizes_its_routers_for_the_netlist_device_unless_told():
    assert sizing_device(Namespace(device=None, netlist="lfe5u-25f")) == "lfe5u-25f"
    assert sizing_device(Namespace(device="up5k", netlist="lfe5u-25f")) == "up5k"
    assert sizing_device(Namespace(device=None, netlist=None)) == "hx8k"


@pytest.mark.slow
@needs_verilator
@needs_family("lfe5u-25f")
def test_sim_netlist_runs_the_design_synth_builds_for_its_device(cli):
    # synth --device lfe5u-25f builds LUT-RAM buffers; the netlist run is of them
    r = cli("sim", "hypercube", "-n", 1, "--netlist", "lfe5u-25f", "--cycles", 300,
            "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["buffer"] == "distributed" and doc["buffer_auto"] is True
    assert doc["netlist_check"]["identical"] is True and doc["ok"] is True
