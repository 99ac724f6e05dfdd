"""The ``router`` and ``fabric`` targets of ``cubefab verilog`` (listed in its TARGETS)."""

from ..build.axi_stream import axi_stream_verilog
from ..build.manifest import verilog_ports
from ..build.pnr import DEVICES
from ..build.verilog import verilog_text
from ..cli import parse_address, input_errors
from ..hdl.flit import DEFAULT_HEADER, payload_efficiency
from ..hdl.options import STORAGE_WORDS, buffer_words, describe
from ..hdl.config import HARDWARE_DEFAULTS, FabricConfig
from ..hdl.endpoint import EndpointFabric, MessageFormat
from ..hdl.fabric import Fabric
from ..hdl.router import Router
from ..progress import working
from .endpoint_options import add_interface_options, check_window, endpoint_parameters
from .limits import check_hardware
from .router_options import add_router_options, router_config


__all__ = ["router_target_options", "fabric_target_options", "add_device_option",
           "add_sizing_device_option", "DEVICE_HELP", "DEVICE_PARTS", "sized_options",
           "auto_settings",
           "build_router", "build_fabric", "router_verilog", "fabric_verilog",
           "interface_fabric_options", "build_endpoint_fabric",
           "buffer_words", "STORAGE_WORDS", "efficiency", "EFFICIENCY_LENGTHS"]


#: Packet lengths (flits) whose payload efficiency the targets report.
EFFICIENCY_LENGTHS = (1, 2, 4, 8)


def router_target_options(parser):
    parser.add_argument("--node", type=parse_address, required=True, metavar="A",
                        help="address of the node whose router is generated")
    fabric_target_options(parser)


#: What the router and fabric targets' ``--help`` says of the routers ``sim`` runs.
SIMULATED_ROUTER = (
    "The router cubefab sim and sweep simulate: the same router options with the same "
    "defaults, and the --buffer that sim --json reports as buffer (its fabric's routers "
    "keep their buffers in block RAM only when those of the whole fabric fit the "
    "HX8K's).")


def fabric_target_options(parser):
    add_router_options(parser, HARDWARE_DEFAULTS)
    parser.epilog = SIMULATED_ROUTER


def interface_fabric_options(parser):
    """The fabric options and the endpoint options (``--interface``, ...)."""
    fabric_target_options(parser)
    add_interface_options(parser)


#: What ``--device`` says of the devices: each one's part.
DEVICE_PARTS = "; ".join(f"{name}: {device.label}" for name, device in DEVICES.items())

#: What ``--device`` says of the devices: the default and each one's part.
DEVICE_HELP = ("default hx8k: iCE40HX8K in the ct256 package; "
               + "; ".join(f"{name}: {device.label}" for name, device in DEVICES.items()
                           if name != "hx8k"))


def add_device_option(parser, purpose="FPGA device", default="hx8k", default_help=None):
    """``--device``: a key of :data:`~cubefab.tools.devices.DEVICES` (``default``,
    ``hx8k`` unless given; ``default_help`` says what a default other than ``hx8k``
    is); ``purpose``, what the command does with it, starts its help."""
    said = DEVICE_HELP if default_help is None else f"default {default_help}; {DEVICE_PARTS}"
    parser.add_argument("--device", default=default, choices=sorted(DEVICES),
                        help=f"{purpose} ({said})")


def add_sizing_device_option(parser, default="hx8k", default_help=None):
    """``--device``, the part whose block RAMs and LUT RAM the ``auto`` buffer rule
    sizes the design for (``default``, ``hx8k`` unless given; ``default_help`` as for
    :func:`add_device_option`): the design ``synth --device`` builds."""
    add_device_option(parser, "the FPGA device the design is sized for, as synth "
                              "--device builds it: the auto buffer rule's block RAMs "
                              "and LUT RAM", default, default_help)


def sized_options(configure):
    """``configure``'s options and ``--device`` (:func:`add_sizing_device_option`:
    ``cubefab verilog`` writes the design ``synth --device`` builds)."""
    def options(parser):
        configure(parser)
        add_sizing_device_option(parser)
    return options


def auto_settings(args):
    """What the ``auto`` buffer rule sizes for (``block_ram_budget``,
    ``memory_depth``, ``distributed_depth``): ``--device``'s, else (a command without
    one: ``sweep``) the iCE40 HX8K's (:data:`~cubefab.hdl.config.BLOCK_RAMS`)."""
    device = getattr(args, "device", None)
    return {} if device is None else DEVICES[device].auto_settings


def _checked_config(args, topology, routers, what):
    """The configuration of ``routers`` routers the options describe, and the
    estimated seconds to elaborate them (CliError when they would not fit)."""
    config = router_config(args, topology, routers=routers,
                           **auto_settings(args))
    return config, check_hardware(what, config, routers)


def build_router(args, topology):
    """The router of ``--node`` that the options describe, and the estimated seconds
    of its elaboration (bad input: CliError)."""
    with input_errors():
        node = topology.check_node(args.node, "--node")
    config, seconds = _checked_config(args, topology, 1, f"the {topology.label} router")
    with input_errors():
        return Router(config, node), seconds


def build_fabric(args, topology):
    """The fabric that the options describe, and the estimated seconds of its
    elaboration (bad input: CliError)."""
    config, seconds = _checked_config(args, topology, topology.num_nodes,
                                      f"the {topology.label} fabric")
    with input_errors():
        return Fabric(FabricConfig(config)), seconds


def build_endpoint_fabric(args, topology):
    """The fabric the options describe with AXI4-Stream endpoints
    (``--interface axi-stream``), or None for ``--interface flits``; and the estimated
    seconds of its elaboration (bad input: CliError)."""
    endpoints = endpoint_parameters(args)
    if endpoints is None:
        return None, 0
    config, seconds = _checked_config(args, topology, topology.num_nodes,
                                      f"the {topology.label} fabric")
    check_window(endpoints, config)
    with input_errors("--interface axi-stream: "):
        MessageFormat(config, **endpoints)   # refused before a component exists
    return EndpointFabric(FabricConfig(config), **endpoints), seconds


def efficiency(config):
    """The payload efficiency (payload bits per link bit,
    :func:`~cubefab.hdl.flit.payload_efficiency`) of packets of
    :data:`EFFICIENCY_LENGTHS` flits on the links of ``config``: ``{flits: value}``."""
    return {flits: round(payload_efficiency(config.layout, flits), 4)
            for flits in EFFICIENCY_LENGTHS}


def _efficiency_text(config):
    where = "the head flit" if config.header == DEFAULT_HEADER else "every flit"
    values = efficiency(config)
    return (f"header in {where}; payload efficiency "
            + ", ".join(f"{v:.3g}" for v in values.values())
            + f" for {'/'.join(map(str, values))}-flit packets")


def router_verilog(args, topology):
    """The Verilog of the router the options name, what it is (in words), and its
    JSON keys: its buffers (``buffer``, ``buffer_auto``) and payload efficiency
    (``payload_efficiency``, :func:`efficiency`)."""
    router, seconds = build_router(args, topology)
    with working(f"Verilog of the {topology.label} router", seconds):
        text = verilog_text(router, args.top)
    return text, (f"{topology.label} router of node {router.node} "
                  f"({describe(router.config)}; {_efficiency_text(router.config)})"), \
        _json_keys(router.config)


def _json_keys(config):
    """The JSON keys that say which input buffers a configuration has and the payload
    efficiency of its links."""
    return {"buffer": config.storage, "buffer_auto": config.buffer_auto,
            "payload_efficiency": {str(k): v for k, v in efficiency(config).items()},
            "router": config.as_dict()}


def fabric_verilog(args, topology):
    """The Verilog of the fabric the options name, what it is (in words), and its
    JSON keys (as :func:`router_verilog`'s; with ``--interface axi-stream`` also
    ``interface``, ``parameters`` and ``ports``)."""
    wrapped, seconds = build_endpoint_fabric(args, topology)
    if wrapped is not None:
        return _endpoint_fabric_verilog(args, topology, wrapped, seconds)
    fabric, seconds = build_fabric(args, topology)
    config = fabric.config.router
    with working(f"Verilog of the {topology.label} fabric", seconds):
        text = verilog_text(fabric, args.top)
    return text, (f"{topology.label} fabric ({topology.num_nodes} routers, "
                  f"{describe(config)}; {_efficiency_text(config)})"), \
        _json_keys(config)


def _endpoint_fabric_verilog(args, topology, wrapped, seconds):
    """:func:`fabric_verilog` for ``--interface axi-stream``."""
    config, fmt = wrapped.config.router, wrapped.fmt
    with working(f"Verilog of the {topology.label} AXI4-Stream fabric", seconds):
        text = axi_stream_verilog(wrapped, args.top)
    parameters = {"data_width": fmt.data_width, "max_beats": fmt.max_beats,
                  "address_bits": fmt.address_bits, "count_width": fmt.count_width,
                  "acknowledged": fmt.acknowledged, "window": fmt.window,
                  "packing": fmt.packing, "parts": fmt.parts,
                  "dropped_width": len(wrapped.dropped[0]),
                  "buffer_beats": wrapped.injectors[0].buffer_beats}
    keys = {**_json_keys(config), "interface": "axi-stream", "parameters": parameters,
            "ports": verilog_ports(text, args.top)}
    return text, (f"{topology.label} fabric with AXI4-Stream endpoints ({topology.num_nodes} "
                  f"nodes, {fmt.data_width}-bit tdata, messages of at most "
                  f"{fmt.max_beats} beats; {describe(config)})"), keys
