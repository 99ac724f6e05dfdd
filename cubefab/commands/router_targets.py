"""The ``router`` and ``fabric`` targets of ``cubefab verilog`` (listed in its TARGETS)."""

import dataclasses

from ..build.pnr import DEVICES
from ..build.verilog import verilog_text
from ..cli import CliError, parse_address, int_range, input_errors
from ..hdl.flit import payload_efficiency, payload_width_for
from ..hdl.config import (AUTO_MEMORY_DEPTH, BLOCK_RAMS, BUFFER_CHOICES, TURNS,
                          FabricConfig, RouterConfig)
from ..hdl.fabric import Fabric
from ..hdl.router import Router
from ..progress import working
from .fault_options import add_waypoints_option, fault_waypoints
from .limits import MAX_FLIT_WIDTH, MAX_VCS
from .sim import router_options, router_params, check_router_args


__all__ = ["router_target_options", "fabric_target_options", "router_config",
           "build_router", "build_fabric", "router_verilog", "fabric_verilog",
           "buffer_words", "efficiency", "EFFICIENCY_LENGTHS"]


#: Packet lengths (flits) whose payload efficiency the targets report.
EFFICIENCY_LENGTHS = (1, 2, 4, 8)


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
    parser.add_argument("--buffer", default="auto", choices=BUFFER_CHOICES,
                        help="flit storage of the input buffers: registers, memory (block "
                             "RAM on FPGAs; same timing) or auto (default): memory when "
                             f"buffers hold at least {AUTO_MEMORY_DEPTH} flits and the "
                             "design's block RAMs fit the device's (synth: --device; "
                             f"otherwise the HX8K's {BLOCK_RAMS}), registers otherwise")
    parser.add_argument("--turns", default=TURNS[0], choices=TURNS,
                        help="reference (default): connect only the turns reference "
                             "routes make at the node; all: any input to any output")
    add_waypoints_option(parser)
    parser.add_argument("--broadcast-vcs", type=int_range(1, MAX_VCS), default=None,
                        metavar="N", help="replicating routers (broadcast packets "
                        "copied along the trees) with N broadcast VCs per link "
                        "(default: none)")
    parser.add_argument("--broadcast-model", choices=("all-port", "one-port"),
                        default=None, help="with --broadcast-vcs: all-port replication "
                        "(the default) or one-port (copies one at a time, in the "
                        "schedule's order)")


def router_config(args, topology):
    """The :class:`RouterConfig` of the router and fabric targets' options for
    ``topology`` (bad input: CliError)."""
    if args.flit_width is not None and args.payload_width is not None:
        raise CliError("give --flit-width or --payload-width, not both")
    params = router_params(args, topology)
    waypoints = fault_waypoints(args, topology, params["adaptive_vcs"])
    with input_errors():
        broadcast = ({"broadcast_vcs": args.broadcast_vcs} if args.broadcast_vcs
                     else {})
        if args.broadcast_model is not None:
            broadcast["broadcast_model"] = args.broadcast_model
        config = RouterConfig.for_topology(topology, **params, buffer=args.buffer,
                                           turns=args.turns, fault_waypoints=waypoints,
                                           block_ram_budget=block_ram_budget(args),
                                           **broadcast)
    if args.flit_width is not None and waypoints:
        # the header holds the waypoints too
        header = config.layout.size - config.payload_width
        if args.flit_width <= header:
            raise CliError(f"--flit-width must be at least {header + 1} bits for a "
                           f"{header}-bit header with {waypoints} waypoint(s), not "
                           f"{args.flit_width}")
        config = dataclasses.replace(config, payload_width=args.flit_width - header)
        args.payload_width = config.payload_width
    elif args.flit_width is not None:
        with input_errors("--flit-width: "):
            config = dataclasses.replace(config, payload_width=payload_width_for(
                topology.address_bits, args.flit_width, config.link_vcs,
                config.class_width, config.broadcast, config.layout.next_port_bits))
        args.payload_width = config.payload_width
    return config


def block_ram_budget(args):
    """The block RAMs the ``auto`` buffer rule sizes for: those of ``--device`` (the
    synthesis targets), else :data:`~cubefab.hdl.config.BLOCK_RAMS`."""
    device = getattr(args, "device", None)   # Verilog targets have no device
    return BLOCK_RAMS if device is None else DEVICES[device][3]


def _checked_config(args, topology, routers, what):
    """:func:`router_config`, after the options are checked against each other and the
    memory ``routers`` routers take (CliError); sets ``args.estimate`` (seconds)."""
    if args.flit_width is not None and args.payload_width is not None:
        raise CliError("give --flit-width or --payload-width, not both")
    # sizes first: the configuration computes the VCs from every route of the network
    args.estimate = check_router_args(args, topology, routers, what, buffer=args.buffer,
                                      turns=args.turns)
    return router_config(args, topology)


def build_router(args, topology):
    """The router of ``--node`` that the options describe (bad input: CliError)."""
    with input_errors():
        node = topology.check_node(args.node, "--node")
    config = _checked_config(args, topology, 1, f"the {topology.label} router")
    with input_errors():
        return Router(config, node)


def build_fabric(args, topology):
    """The fabric that the options describe (bad input: CliError)."""
    config = _checked_config(args, topology, topology.num_nodes,
                             f"the {topology.label} fabric")
    with input_errors():
        return Fabric(FabricConfig(config))


def efficiency(config):
    """The payload efficiency (payload bits per link bit,
    :func:`~cubefab.hdl.flit.payload_efficiency`) of packets of
    :data:`EFFICIENCY_LENGTHS` flits on the links of ``config``: ``{flits: value}``."""
    return {flits: round(payload_efficiency(config.layout, flits), 4)
            for flits in EFFICIENCY_LENGTHS}


def _efficiency_text(config):
    where = "the head flit" if config.header == "head" else "every flit"
    values = efficiency(config)
    return (f"header in {where}; payload efficiency "
            + ", ".join(f"{v:.3g}" for v in values.values())
            + f" for {'/'.join(map(str, values))}-flit packets")


def router_verilog(args, topology):
    """The Verilog of the router the options name, what it is (in words), and its
    JSON keys: its buffers (``buffer``, ``buffer_auto``) and payload efficiency
    (``payload_efficiency``, :func:`efficiency`)."""
    router = build_router(args, topology)
    with working(f"Verilog of the {topology.label} router", args.estimate):
        text = verilog_text(router, args.top)
    return text, (f"{topology.label} router of node {router.node} ({_vcs(router.config)}, "
                  f"{buffer_words(router.config)}; {_efficiency_text(router.config)})"), \
        _json_keys(router.config)


def buffer_words(config):
    """The input buffers of a router configuration, in words: their storage, and
    whether the ``auto`` rule chose it."""
    return f"{config.storage} buffers" + (" (auto)" if config.buffer_auto else "")


def _json_keys(config):
    """The JSON keys that say which input buffers a configuration has and the payload
    efficiency of its links."""
    return {"buffer": config.storage, "buffer_auto": config.buffer_auto,
            "payload_efficiency": {str(k): v for k, v in efficiency(config).items()}}


def _vcs(config):
    """The VCs of a router configuration, in words."""
    if config.adaptive:
        return f"{config.vcs} escape + {config.adaptive_vcs} adaptive VCs"
    if config.fault_waypoints:
        return (f"{config.link_vcs} VCs: {config.phases} waypoint phases x {config.vcs}, "
                f"{config.fault_waypoints} waypoint(s)")
    if config.broadcast:
        model = "" if config.broadcast_model == "all-port" else f", {config.broadcast_model}"
        return f"{config.vcs} + {config.broadcast_vcs} broadcast VCs{model}"
    return f"{config.vcs} VCs"


def fabric_verilog(args, topology):
    """The Verilog of the fabric the options name, what it is (in words), and its
    JSON keys (as :func:`router_verilog`'s)."""
    fabric = build_fabric(args, topology)
    config = fabric.config.router
    with working(f"Verilog of the {topology.label} fabric", args.estimate):
        text = verilog_text(fabric, args.top)
    return text, (f"{topology.label} fabric ({topology.num_nodes} routers, "
                  f"{_vcs(config)}, {buffer_words(config)}; {_efficiency_text(config)})"), \
        _json_keys(config)
