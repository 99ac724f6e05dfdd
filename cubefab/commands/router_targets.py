"""The ``router`` and ``fabric`` targets of ``cubefab verilog`` (listed in its TARGETS)."""

import dataclasses

from ..build.verilog import verilog_text
from ..cli import CliError, parse_address
from ..hdl.flit import payload_width_for
from ..hdl.config import BUFFERS, TURNS, FabricConfig, RouterConfig
from ..hdl.fabric import Fabric
from ..hdl.router import Router
from .sim import router_options, router_params


__all__ = ["router_target_options", "fabric_target_options", "router_config",
           "router_verilog", "fabric_verilog"]


def router_target_options(parser):
    parser.add_argument("--node", type=parse_address, required=True, metavar="A",
                        help="address of the node whose router is generated")
    fabric_target_options(parser)


def fabric_target_options(parser):
    router_options(parser)
    parser.add_argument("--flit-width", type=int, default=None, metavar="BITS",
                        help="bits of a flit on a link, header included (head, tail, "
                             "vc, dest, src): sets the payload to what is left; "
                             "instead of --payload-width")
    parser.add_argument("--buffer", default="registers", choices=list(BUFFERS),
                        help="flit storage of the input buffers: registers (default) or "
                             "memory (block RAM on FPGAs; same timing)")
    parser.add_argument("--turns", default=TURNS[0], choices=TURNS,
                        help="reference (default): connect only the turns reference "
                             "routes make at the node; all: any input to any output")


def router_config(args, topology):
    """The :class:`RouterConfig` of the router and fabric targets' options for
    ``topology``."""
    config = RouterConfig.for_topology(topology, **router_params(args), buffer=args.buffer,
                                       turns=args.turns)
    if args.flit_width is not None:
        if args.payload_width is not None:
            raise CliError("give --flit-width or --payload-width, not both")
        config = dataclasses.replace(config, payload_width=payload_width_for(
            topology.address_bits, args.flit_width, config.vcs))
    return config


def router_verilog(args, topology):
    """The Verilog of the router the options name, and what it is (in words)."""
    router = Router(router_config(args, topology), args.node)
    return (verilog_text(router, args.top),
            f"{topology.label} router of node {router.node} ({router.config.vcs} VCs)")


def fabric_verilog(args, topology):
    """The Verilog of the fabric the options name, and what it is (in words)."""
    fabric = Fabric(FabricConfig(router_config(args, topology)))
    return (verilog_text(fabric, args.top),
            f"{topology.label} fabric ({topology.num_nodes} routers, "
            f"{fabric.config.router.vcs} VCs)")
