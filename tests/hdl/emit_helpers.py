"""The generated tops that must lint clean, the linters, and the Yosys equivalence check
of :func:`cubefab.hdl.emit.emit_verilog` against Amaranth's own Verilog backend."""

import functools
import json
import os
import re
import subprocess
import tempfile
from unittest import mock

import pytest
from amaranth.back import verilog
from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from cubefab.build import axi_stream, verilog as build_verilog
from cubefab.build.axi_stream import axi_stream_verilog
from cubefab.build.board import selfcheck_board_top
from cubefab.build.verilog import route_unit_verilog, verilog_text
from cubefab.hdl.config import FabricConfig, RouterConfig
from cubefab.hdl.emit import emit_verilog
from cubefab.hdl.endpoint import EndpointFabric
from cubefab.hdl.fabric import Fabric
from cubefab.hdl.modes import Adaptive, Broadcast, Waypoints
from cubefab.hdl.route import MetacubeRoute, route_unit
from cubefab.hdl.route.multicast import MulticastChildren
from cubefab.hdl.router import Router
from cubefab.hdl.selfcheck import SelfCheckingFabric
from cubefab.tools.lint import (slang_lint, slang_missing_reason, verilator_lint,
                                verilator_lint_missing_reason)
from cubefab.topology.dlh import DLH
from cubefab.topology.hypercube import Hypercube
from cubefab.topology.metacube import Metacube


def _board_top(name):
    top = selfcheck_board_top(Hypercube(2), "icestick")
    # a BoardTop is no Component: with no platform, its ports are its status lamps
    return emit_verilog(top, name, [top.leds.fail, top.leds.passing, top.leds.activity])


def _router(topology, node=0, **config):
    return Router(RouterConfig.for_topology(topology, **config), node)


def _axis(topology, width=32, **config):
    return EndpointFabric(FabricConfig.for_topology(topology, **config), width, 16)


class LongChain(wiring.Component):
    """A 200-entry lookup by ``m.Switch``: a ``?:`` chain longer than the emitter
    writes in one expression (:data:`~cubefab.hdl._emit_cells.CHAIN_LIMIT`)."""

    def __init__(self):
        super().__init__({"select": In(8), "value": Out(8)})

    def elaborate(self, platform):
        m = Module()
        with m.Switch(self.select):
            for case in range(200):
                with m.Case(case):
                    m.d.comb += self.value.eq((case * 37 + 11) % 256)
        return m


#: Every kind of generated top, by test id: ``name -> Verilog text of module name``.
TOPS = {
    "route_q3": lambda n: route_unit_verilog(route_unit(Hypercube(3), 5), n),
    "route_paper": lambda n: route_unit_verilog(MetacubeRoute(Metacube(2, 2), 3, "paper"), n),
    "route_straps": lambda n: route_unit_verilog(route_unit(DLH(4, 3)), n),
    "router_q3": lambda n: verilog_text(_router(Hypercube(3)), n),
    "router_q4": lambda n: verilog_text(_router(Hypercube(4)), n),
    "router_q4_straps": lambda n: verilog_text(_router(Hypercube(4), None), n),
    "router_q2_lut_ram": lambda n: verilog_text(_router(Hypercube(2), buffer="distributed"),
                                                n),
    "router_adaptive": lambda n: verilog_text(_router(Hypercube(3), routing=Adaptive(1)), n),
    "router_broadcast": lambda n: verilog_text(
        _router(Hypercube(3), replication=Broadcast(1)), n),
    "router_waypoint": lambda n: verilog_text(_router(Hypercube(3), routing=Waypoints(1)), n),
    "fabric_q3": lambda n: verilog_text(Fabric(FabricConfig.for_topology(Hypercube(3))), n),
    "axis_q2": lambda n: axi_stream_verilog(_axis(Hypercube(2)), n),
    "selfcheck_q2": lambda n: verilog_text(SelfCheckingFabric(Hypercube(2)), n),
    "board_icestick": _board_top,
    "axis_mc11_adaptive": lambda n: axi_stream_verilog(
        _axis(Metacube(1, 1), routing=Adaptive(1)), n),
    "axis_q4": lambda n: axi_stream_verilog(_axis(Hypercube(4)), n),
    "long_chain": lambda n: verilog_text(LongChain(), n),
    "multicast_q3": lambda n: verilog_text(MulticastChildren(Hypercube(3), None), n),
}
#: The tops that take more than a few seconds to generate or lint.
SLOW_TOPS = ("axis_mc11_adaptive", "axis_q4")


def top_params(tops=None):
    """pytest parameters of ``tops`` (default all), the slow ones marked slow."""
    return [pytest.param(top, marks=[pytest.mark.slow] if top in SLOW_TOPS else [])
            for top in (tops or TOPS)]


@functools.lru_cache(maxsize=None)
def top_text(top):
    """The Verilog of ``top`` (module named ``top``), made once per process."""
    return TOPS[top](top)


# -- linters -----------------------------------------------------------------------

def _linted(lint, missing, text, top):
    """The findings of ``lint`` (a :mod:`cubefab.tools.lint` linter) on ``text``
    written to ``<top>.v`` (as DECLFILENAME wants), as text lines; skips with the
    reason when the linter is missing."""
    reason = missing()
    if reason is not None:
        pytest.skip(reason)
    with tempfile.TemporaryDirectory(prefix="cubefab-lint-") as work:
        path = os.path.join(work, f"{top}.v")
        with open(path, "w") as f:
            f.write(text)
        return [str(finding) for finding in lint(path, top)]


def verilator_warnings(text, top):
    """The findings of ``verilator --lint-only -Wall`` on ``text``."""
    return _linted(verilator_lint, verilator_lint_missing_reason, text, top)


def slang_diagnostics(text, top):
    """slang's diagnostics (elaboration and analysis) on ``text``."""
    return _linted(slang_lint, slang_missing_reason, text, top)


# -- equivalence -------------------------------------------------------------------

def _design_call(top):
    """The ``(design, name, ports)`` that ``top`` hands to the emitter, from a fresh
    elaboration of it (a design is converted once)."""
    calls = []

    def grab(design, name, ports, *, made_by=None):
        calls.append((design, name, ports))
        return ""
    with mock.patch.object(build_verilog, "emit_verilog", grab), \
            mock.patch.object(axi_stream, "emit_verilog", grab):
        TOPS[top](top)
    return calls[0]


_TOKEN = re.compile(r"(?<!\S)\\([^\s$]\S*)")
_NOTE = re.compile(r"^  (?:reg|wire) (?:\[\d+:0\] )?(\w+);  // bits ([\d:, ]+) of (\S+)$",
                   re.MULTILINE)


def _plain_gold(text, whole):
    """Gold's flattened names (``\\a.b$3``) as the emitter writes them (``a__b_3``),
    where that is unambiguous and the emitter did not keep only some of their bits."""
    names = set(_TOKEN.findall(text))
    target = {n: re.sub(r"\W", "_", n.replace(".", "__")).strip("_") for n in names}
    counts = {}
    for plain in target.values():
        counts[plain] = counts.get(plain, 0) + 1
    keep = {n: t for n, t in target.items()
            if counts[t] == 1 and (t == n or t not in names) and n not in whole}
    text = _TOKEN.sub(lambda m: "\\" + keep.get(m[1], m[1]), text)
    return re.sub(r'"\\\\([^"]+)"', lambda m: '"\\\\' + keep.get(m[1], m[1]) + '"', text)


def _spec_bits(spec):
    bits = []
    for run in reversed(spec.split(", ")):
        high, _, low = run.partition(":")
        bits += range(int(low or high), int(high) + 1)
    return bits


def _partial_nets(gate):
    """``equiv_add`` commands pairing each gate net that holds some bits of a design
    signal (its declaration's note says which) with those bits of gold's signal."""
    adds, whole = [], set()
    for name, spec, signal in _NOTE.findall(gate):
        whole.add(signal)
        adds += [f"equiv_add -try \\{signal}_gold[{bit}] \\{name}_gate[{k}]"
                 for k, bit in enumerate(_spec_bits(spec))]
    return adds, whole


_PREPARE = "proc; flatten; opt_clean"
_MEMORIES = "memory_nordff; memory_map; opt_clean"


def _yosys(script, work):
    from cubefab.build.pnr import ToolMissing, find_tool
    try:
        yosys = find_tool("yosys")
    except ToolMissing as missing:
        pytest.skip(str(missing))
    with open(os.path.join(work, "script.ys"), "w") as f:
        f.write(script)
    result = subprocess.run([yosys, "-q", "-s", "script.ys"], cwd=work,
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]


def equivalence_status(top, seq=2):
    """Prove the emitted Verilog of ``top`` equal to Amaranth's ``verilog.convert``
    of the same design with Yosys: signals of the same name (registers and memory
    words included) paired with ``$equiv`` cells, proven by ``equiv_simple`` and
    ``equiv_induct`` (induction over ``seq`` cycles; an X of gold matches anything).
    Returns the text of ``equiv_status`` and the registers whose initial value differs
    from gold's (the base case)."""
    gate = top_text(top)
    design, name, ports = _design_call(top)
    gold = verilog.convert(design, name=name, ports=ports, emit_src=False)
    adds, whole = _partial_nets(gate)
    with tempfile.TemporaryDirectory(prefix="cubefab-equiv-") as work:
        for file, text in (("gold.v", gold), ("gate.v", gate)):
            with open(os.path.join(work, file), "w") as f:
                f.write(text)
        _yosys(f"read_verilog gold.v; hierarchy -top {name}; {_PREPARE}; "
               f"write_rtlil gold.il\n", work)
        with open(os.path.join(work, "gold.il")) as f:
            renamed = _plain_gold(f.read(), whole)
        with open(os.path.join(work, "gold.il"), "w") as f:
            f.write(renamed)
        _yosys("\n".join([
            f"read_rtlil gold.il; {_MEMORIES}; write_json gold.json",
            f"rename {name} gold; design -stash gold",
            f"read_verilog gate.v; hierarchy -top {name}; {_PREPARE}; {_MEMORIES}",
            "write_json gate.json",
            f"rename {name} gate; design -stash gate",
            "design -copy-from gold -as gold gold; design -copy-from gate -as gate gate",
            "equiv_make gold gate equiv", "hierarchy -top equiv",
            "cd equiv", *adds, "cd ..",
            f"equiv_simple -undef -seq {seq}", f"equiv_induct -undef -seq {seq}",
            "tee -o status.txt equiv_status", ""]), work)
        mismatches = _init_mismatches(work, gate)
        with open(os.path.join(work, "status.txt")) as f:
            return f.read(), mismatches


def _inits(path):
    with open(path) as f:
        module = next(iter(json.load(f)["modules"].values()))
    return {name: net["attributes"]["init"][::-1]
            for name, net in module["netnames"].items()
            if isinstance(net.get("attributes", {}).get("init"), str)}


def _init_mismatches(work, gate):
    """Registers of the gate whose initial value differs from gold's signal of that
    name (the base case of the induction); an X of gold matches anything."""
    gold, mine = _inits(os.path.join(work, "gold.json")), _inits(os.path.join(work,
                                                                             "gate.json"))
    partial = {name: (signal, _spec_bits(spec)) for name, spec, signal in
               _NOTE.findall(gate)}
    mismatches = []
    for name, init in mine.items():
        signal, bits = partial.get(name, (name, range(len(init))))
        if signal not in gold:
            continue
        expected = [gold[signal][bit] for bit in bits]
        if any(e in "01" and e != v for e, v in zip(expected, init)):
            mismatches.append((name, init, "".join(expected)))
    return mismatches
