"""The generated AXI4-Stream fabric under cocotb and cocotbext-axi (the field's own
verification tools) in Icarus Verilog: tests/build/axi_stream_bench.py."""

import importlib.util
import os
import shutil
import xml.etree.ElementTree as ElementTree

import pytest

from cubefab.build.axi_stream import axi_stream_verilog
from cubefab.hdl.config import FabricConfig
from cubefab.hdl.endpoint import EndpointFabric
from cubefab.topology import Hypercube, Metacube


def _missing():
    for module in ("cocotb", "cocotb_tools", "cocotbext.axi"):
        if importlib.util.find_spec(module.split(".")[0]) is None or (
                "." in module and importlib.util.find_spec(module) is None):
            return f"{module} is not installed (pip install cubefab[test])"
    if shutil.which("iverilog") is None or shutil.which("vvp") is None:
        return "Icarus Verilog is not installed (apt-get install iverilog)"
    return None


needs_cocotb = pytest.mark.skipif(_missing() is not None, reason=_missing() or "")


def run_bench(tmp_path, monkeypatch, topology, width, max_beats, messages, too_long, seed,
              **router):
    """Write the fabric's Verilog, run the cocotb bench on it in Icarus, and assert
    that it passed."""
    from cocotb_tools.runner import get_runner
    fabric = EndpointFabric(FabricConfig.for_topology(topology, **router), width, max_beats)
    source = tmp_path / "axis_fabric.v"
    source.write_text(axi_stream_verilog(fabric, "axis_fabric"))
    runner = get_runner("icarus")
    # -g2005 after the runner's -g2012: with SystemVerilog semantics Icarus initialises
    # Amaranth's `reg x = 0` before time 0 without an event, so the `always @*` blocks
    # that Yosys triggers with it never run until an input changes (outputs stay X)
    runner.build(sources=[source], hdl_toplevel="axis_fabric", build_dir=tmp_path / "sim",
                 timescale=("1ns", "1ps"), build_args=["-g2005"])
    here = os.path.dirname(os.path.abspath(__file__))
    monkeypatch.syspath_prepend(here)    # the runner passes sys.path to the simulator
    env = {"AXIS_NODES": ",".join(str(int(a)) for a in topology.nodes()),
           "AXIS_WIDTH": str(width), "AXIS_MAX_BEATS": str(max_beats),
           "AXIS_MESSAGES": str(messages), "AXIS_TOO_LONG": str(too_long),
           "AXIS_SEED": str(seed)}
    results = runner.test(test_module="axi_stream_bench", hdl_toplevel="axis_fabric",
                          test_dir=tmp_path, extra_env=env,
                          results_xml=str(tmp_path / "results.xml"))
    cases = ElementTree.parse(results).getroot().iter("testcase")
    failures = [c.get("name") for c in cases
                if c.find("failure") is not None or c.find("error") is not None]
    assert not failures, f"cocotb failed: {failures} (log in {tmp_path})"
    assert any(True for _ in ElementTree.parse(results).getroot().iter("testcase"))


@needs_cocotb
@pytest.mark.parametrize("width", [8, pytest.param(32, marks=pytest.mark.slow)])
def test_q2_every_pair_in_order_under_backpressure(tmp_path, monkeypatch, width):
    """W = 8: narrower than the 16-bit payload (count field); 32: two flits a beat."""
    run_bench(tmp_path, monkeypatch, Hypercube(2), width, 4, 6, 2, seed=width)


@needs_cocotb
@pytest.mark.slow
def test_mc11_long_run(tmp_path, monkeypatch):
    run_bench(tmp_path, monkeypatch, Metacube(1, 1), 24, 8, 40, 5, seed=11)
