"""Every ``--json`` of a command that builds routers holds ``router``: exactly
``RouterConfig.as_dict()`` of the router built, the one serialisation
(cubefab.hdl.options.router_dict); and the library's defaults are the command line's."""

import pytest

from cubefab.cli import build_parser, topology_from_args
from cubefab.commands.sim import _sim_design
from cubefab.hdl.config import (HARDWARE_DEFAULTS, Adaptive, Broadcast, FabricConfig,
                                RouterConfig)
from cubefab.sim.run_spec import SelfCheckRun
from cubefab.tools.process import ToolMissing, find_tool
from cubefab.topology import DLH, Hypercube


#: Router options every command below takes, so that the router does not depend on
#: the defaults of the command's kind of design.
OPTIONS = ("--depth", "2", "--payload-width", "40", "--vcs-per-class", "1")


def library_router(topology, fabric, **options):
    """``as_dict()`` of the router the library builds for ``options`` (of every router
    of a fabric with ``fabric``)."""
    config = RouterConfig.for_topology(topology, **options)
    return (FabricConfig(config).router if fabric else config).as_dict()


LIBRARY = dict(depth=2, payload_width=40, vcs_per_class=1, buffer="registers")

#: (command line before the options, its network, whether it builds a fabric, what the
#: library is told, the tools it needs): one per command that builds routers.
COMMANDS = [
    (("sim", "hypercube", "-n", "2", "--cycles", "10", "--engine", "amaranth", *OPTIONS),
     Hypercube(2), True, dict(LIBRARY, buffer="auto"), ()),
    (("sim", "hypercube", "-n", "2", "--cycles", "10", "--engine", "amaranth",
      "--adaptive", "--hop", "lookahead", *OPTIONS), Hypercube(2), True,
     dict(LIBRARY, buffer="auto", hop="lookahead", routing=Adaptive(1)), ()),
    (("sweep", "hypercube", "-n", "2", "--rates", "0.1", "--cycles", "10", "--warmup", "0",
      "--engine", "amaranth", "--jobs", "1", *OPTIONS),
     Hypercube(2), True, dict(LIBRARY, buffer="auto"), ()),
    (("verilog", "router", "hypercube", "-n", "2", "--node", "1", "--buffer", "registers",
      "--broadcast-vcs", "1", *OPTIONS), Hypercube(2), False,
     dict(LIBRARY, replication=Broadcast(1)), ()),
    (("verilog", "fabric", "hypercube", "-n", "1", "--buffer", "registers", *OPTIONS),
     Hypercube(1), True, LIBRARY, ()),
    (("synth", "router", "hypercube", "-n", "1", "--node", "0", "--no-pnr",
      "--buffer", "registers", *OPTIONS), Hypercube(1), False, LIBRARY, ("yosys",)),
    (("export", "booksim", "hypercube", "-n", "2", "--depth", "2"), Hypercube(2), False,
     dict(depth=2), ()),
    (("deadlock", "hypercube", "-n", "2", "--vcs-per-class", "1"), Hypercube(2), False,
     dict(depth=HARDWARE_DEFAULTS.depth, payload_width=HARDWARE_DEFAULTS.payload_width,
          vcs_per_class=1), ()),
]


def _id(entry):
    return " ".join(entry[0][:2])


@pytest.mark.parametrize("argv, topology, fabric, library, tools", COMMANDS,
                         ids=[f"{_id(c)}-{i}" for i, c in enumerate(COMMANDS)])
def test_every_json_holds_the_router_built(cli, tmp_path, argv, topology, fabric, library,
                                           tools):
    for tool in tools:
        try:
            find_tool(tool)
        except ToolMissing as exc:
            pytest.skip(f"{tool} not installed: {exc}")
    out = (("-o", tmp_path / "design.v") if argv[0] == "verilog" else
           ("--workdir", tmp_path / "synth") if argv[0] == "synth" else
           ("-o", tmp_path / "booksim") if argv[0] == "export" else ())
    r = cli(*argv, *out, "--json")
    assert r.status == 0, r.err
    assert r.json()["router"] == library_router(topology, fabric, **library)


def test_a_run_of_flat_keywords_builds_the_router_of_the_command_line():
    """The library's default broadcast VCs are the command line's: a fault-tolerant
    router floods one tree on one broadcast VC (SelfCheckRun.of gave it what the
    fault-free trees need, which such a router refuses)."""
    run = SelfCheckRun.of(DLH(2, 1), fault_waypoints=2, broadcast_fraction=0.2)
    args = build_parser().parse_args(["sim", "dlh", "-m", "2", "-d", "1", "--waypoints",
                                      "2", "--broadcast-fraction", "0.2"])
    design, _, _ = _sim_design(args, topology_from_args(args))
    assert run.design.router == design.router and design.router.broadcast_vcs == 1
    assert run.design.router.as_dict() == design.router.as_dict()
