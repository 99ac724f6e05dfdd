"""The ``router`` and ``fabric`` targets of ``cubefab verilog`` (listed in its TARGETS)."""

from ..cli import parse_address
from ..hdl.fabric import Fabric
from ..hdl.router import BUFFERS, TURNS, Router
from .sim import router_options, router_params


__all__ = ["router_target_options", "fabric_target_options", "router_build_params",
           "write_router", "write_fabric"]


def router_target_options(parser):
    parser.add_argument("--node", type=parse_address, required=True, metavar="A",
                        help="address of the node whose router is generated")
    fabric_target_options(parser)


def fabric_target_options(parser):
    router_options(parser)
    parser.add_argument("--buffer", default="registers", choices=list(BUFFERS),
                        help="flit storage of the input buffers: registers (default) or "
                             "memory (block RAM on FPGAs; same timing)")
    parser.add_argument("--turns", default=TURNS[0], choices=TURNS,
                        help="reference (default): connect only the turns reference "
                             "routes make at the node; all: any input to any output")


def router_build_params(args):
    """The :class:`Router` (and :class:`Fabric`) keyword arguments of the router and
    fabric targets' options."""
    return dict(router_params(args), buffer=args.buffer, turns=args.turns)


def write_router(args, topology):
    from ..build.verilog import verilog_text
    from .verilog import _write
    router = Router(topology, args.node, **router_build_params(args))
    _write(args, topology, verilog_text(router, args.top),
           f"{topology.label} router of node {router.node} ({router.vcs} VCs)")


def write_fabric(args, topology):
    from ..build.verilog import verilog_text
    from .verilog import _write
    fabric = Fabric(topology, **router_build_params(args))
    _write(args, topology, verilog_text(fabric, args.top),
           f"{topology.label} fabric ({topology.num_nodes} routers, {fabric.vcs} VCs)")
