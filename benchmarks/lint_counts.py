"""What users' linters say of cubefab's Verilog, beside Amaranth's own output.

    python benchmarks/lint_counts.py [--only NAME ...] [--json FILE]

For every kind of top cubefab generates (route unit, router with a constant and with a
strapped address, fabric, AXI4-Stream fabric, self-checking fabric, board top), at the
sizes the tests use and at Q(4), prints the findings of ``verilator --lint-only -Wall``
(by warning code) and of slang (pyslang, elaboration and analysis), for the Verilog
:func:`cubefab.hdl.emit.emit_verilog` writes (``cubefab``) and for
:func:`amaranth.back.verilog.convert` of the same design (``amaranth``, what cubefab
wrote before). Each file is named after its top module (Verilator's DECLFILENAME).
"""

import argparse
import collections
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from amaranth.back import verilog as amaranth_verilog   # noqa: E402
from amaranth.hdl import Module                          # noqa: E402

from cubefab.build.axi_stream import axi_stream_ports     # noqa: E402
from cubefab.build.board import selfcheck_board_top       # noqa: E402
from cubefab.hdl.config import FabricConfig, RouterConfig  # noqa: E402
from cubefab.hdl.emit import emit_verilog                 # noqa: E402
from cubefab.hdl.endpoint import EndpointFabric           # noqa: E402
from cubefab.hdl.fabric import Fabric                     # noqa: E402
from cubefab.hdl.modes import Adaptive                    # noqa: E402
from cubefab.hdl.ports import component_ports             # noqa: E402
from cubefab.hdl.route import route_unit                  # noqa: E402
from cubefab.hdl.router import Router                     # noqa: E402
from cubefab.hdl.selfcheck import SelfCheckingFabric      # noqa: E402
from cubefab.tools.lint import slang_lint, verilator_lint  # noqa: E402
from cubefab.topology import Hypercube, Metacube          # noqa: E402


def _component(make):
    """A design factory for a ``wiring.Component``: the design and its ports."""
    def build():
        design = make()
        ports = component_ports(design)
        if "request" in ports and hasattr(design, "algorithm"):
            del ports["request"]        # the route unit's top: dest, src, here, port
        return design, list(ports.values())
    return build


def _axis(topology, width, **router):
    def build():
        fabric = EndpointFabric(FabricConfig.for_topology(topology, **router), width, 16)
        m = Module()
        m.submodules.fabric = fabric
        return m, axi_stream_ports(fabric, m)
    return build


def _board():
    top = selfcheck_board_top(Hypercube(2), "icestick")
    leds = top.leds
    return top, [leds.fail, leds.passing, leds.activity]


#: name -> factory of (design, ports).
DESIGNS = {
    "q2_route_n0": _component(lambda: route_unit(Hypercube(2), 0)),
    "mc12_route_n5_paper": _component(lambda: route_unit(Metacube(1, 2), 5, "paper")),
    "q2_router_n0": _component(lambda: Router(RouterConfig.for_topology(Hypercube(2)), 0)),
    "q4_router_n0": _component(lambda: Router(RouterConfig.for_topology(Hypercube(4)), 0)),
    "q4_router_strapped": _component(
        lambda: Router(RouterConfig.for_topology(Hypercube(4)), None)),
    "q3_fabric": _component(lambda: Fabric(FabricConfig.for_topology(Hypercube(3)))),
    "q2_axis_fabric": _axis(Hypercube(2), 32),
    "mc11_adaptive_axis_fabric": _axis(Metacube(1, 1), 16, routing=Adaptive(1)),
    "q4_axis_fabric": _axis(Hypercube(4), 32),
    "q2_selfcheck_fabric": _component(lambda: SelfCheckingFabric(Hypercube(2))),
    "q2_board_top": _board,
}


def texts(name):
    """``{emitter: Verilog}`` of design ``name``, top module ``cubefab_<name>``."""
    top = f"cubefab_{name}"
    design, ports = DESIGNS[name]()
    old = amaranth_verilog.convert(design, name=top, ports=ports, emit_src=False)
    design, ports = DESIGNS[name]()
    return top, {"amaranth": old, "cubefab": emit_verilog(design, top, ports)}


def lint(top, text, work):
    path = os.path.join(work, f"{top}.v")
    with open(path, "w") as f:
        f.write(text)
    return {"verilator": collections.Counter(f.code for f in verilator_lint(path, top)),
            "slang": collections.Counter(f.code for f in slang_lint(path, top))}


def _summary(counts):
    total = sum(counts.values())
    return f"{total}" + (f" ({', '.join(f'{c} {n}' for c, n in counts.most_common())})"
                         if total else "")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=sorted(DESIGNS), metavar="NAME")
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    results = {}
    with tempfile.TemporaryDirectory() as work:
        for name in args.only or DESIGNS:
            top, versions = texts(name)
            for emitter, text in versions.items():
                found = lint(top, text, os.path.join(work, emitter) if os.makedirs(
                    os.path.join(work, emitter), exist_ok=True) is None else work)
                results[f"{name}/{emitter}"] = {k: dict(v) for k, v in found.items()}
                print(f"{name:26s} {emitter:9s} verilator -Wall {_summary(found['verilator'])}; "
                      f"slang {_summary(found['slang'])}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
