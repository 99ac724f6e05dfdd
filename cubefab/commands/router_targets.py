"""The ``router`` and ``fabric`` targets of ``cubefab verilog`` (listed in its TARGETS)."""

from ..cli import CliError, parse_address, int_range, input_errors
from ..progress import working
from ..hdl.flit import payload_width_for
from ..hdl.fabric import Fabric
from ..hdl.router import BUFFERS, TURNS, Router
from ..topology.deadlock import required_vcs
from .sim import router_options, router_params, check_router_args
from .limits import MAX_FLIT_WIDTH


__all__ = ["router_target_options", "fabric_target_options", "router_build_params",
           "build_router", "build_fabric", "write_router", "write_fabric"]


def router_target_options(parser):
    parser.add_argument("--node", type=parse_address, required=True, metavar="A",
                        help="address of the node whose router is generated")
    fabric_target_options(parser)


def fabric_target_options(parser):
    router_options(parser)
    parser.add_argument("--flit-width", type=int_range(1, MAX_FLIT_WIDTH), default=None,
                        metavar="BITS",
                        help="bits of a flit on a link, header included (head, tail, "
                             "vc, dest, src): sets the payload to what is left; "
                             "instead of --payload-width")
    parser.add_argument("--buffer", default="registers", choices=list(BUFFERS),
                        help="flit storage of the input buffers: registers (default) or "
                             "memory (block RAM on FPGAs; same timing)")
    parser.add_argument("--turns", default=TURNS[0], choices=TURNS,
                        help="reference (default): connect only the turns reference "
                             "routes make at the node; all: any input to any output")


def router_build_params(args, topology):
    """The :class:`Router` (and :class:`Fabric`) keyword arguments of the router and
    fabric targets' options for ``topology``."""
    params = dict(router_params(args), buffer=args.buffer, turns=args.turns)
    if args.flit_width is not None:
        if args.payload_width is not None:
            raise CliError("give --flit-width or --payload-width, not both")
        with input_errors("--flit-width: "):
            algorithm = topology.check_algorithm(args.algorithm)
            vcs = args.vcs or required_vcs(topology, algorithm) * args.vcs_per_class
            params["payload_width"] = payload_width_for(topology.address_bits,
                                                        args.flit_width, vcs)
        args.payload_width = params["payload_width"]
    return params


def checked_params(args, topology, routers, what):
    """:func:`router_build_params`, after the options are checked against each other
    and the memory ``routers`` routers take (CliError)."""
    params = router_build_params(args, topology)
    args.estimate = check_router_args(args, topology, routers, what, buffer=args.buffer,
                                      turns=args.turns)
    return params


def build_router(args, topology):
    """The router of ``--node`` that the options describe (bad input: CliError)."""
    with input_errors():
        node = topology.check_node(args.node, "--node")
    params = checked_params(args, topology, 1, f"the {topology.label} router")
    with input_errors():
        return Router(topology, node, **params)


def build_fabric(args, topology):
    """The fabric that the options describe (bad input: CliError)."""
    params = checked_params(args, topology, topology.num_nodes,
                            f"the {topology.label} fabric")
    with input_errors():
        return Fabric(topology, **params)


def write_router(args, topology):
    from ..build.verilog import verilog_text
    from .verilog import _write, check_output_args
    check_output_args(args)
    router = build_router(args, topology)
    with working(f"Verilog of the {topology.label} router", args.estimate):
        text = verilog_text(router, args.top)
    _write(args, topology, text,
           f"{topology.label} router of node {router.node} ({router.vcs} VCs)")


def write_fabric(args, topology):
    from ..build.verilog import verilog_text
    from .verilog import _write, check_output_args
    check_output_args(args)
    fabric = build_fabric(args, topology)
    with working(f"Verilog of the {topology.label} fabric", args.estimate):
        text = verilog_text(fabric, args.top)
    _write(args, topology, text,
           f"{topology.label} fabric ({topology.num_nodes} routers, {fabric.vcs} VCs)")
