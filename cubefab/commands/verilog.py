"""``cubefab verilog TARGET TOPO ...``: Verilog of the hardware.

Targets are listed in :data:`TARGETS`; ``route`` writes the combinational route
unit of one node (docs/conventions.md interface). Another target is one entry there.
"""

import re
from typing import Callable, NamedTuple

from ..cli import (add_json_option, CliError, _Parser, add_topology_command, emit, parse_address,
                   add_force_option, input_errors)
from .. import files
from ..build.verilog import route_unit_verilog
from ..hdl.route import route_unit
from .router_options import add_algorithm_option
from .router_targets import (router_target_options, interface_fabric_options,
                             router_verilog, fabric_verilog)


__all__ = ["register", "register_targets", "TARGETS", "Target", "route_options",
           "build_route_unit"]


class Target(NamedTuple):
    """A ``cubefab verilog`` / ``cubefab synth`` target: help text, options and the
    handler ``handler(args, topology)``."""
    help: str
    configure: Callable
    handler: Callable


def route_options(parser):
    """The options that name a route unit: ``--node`` and ``--algorithm``."""
    parser.add_argument("--node", type=parse_address, required=True, metavar="A",
                        help="address of the node whose route unit is generated")
    add_algorithm_option(parser)


def build_route_unit(args, topology):
    """The route unit that ``--node``/``--algorithm`` name (bad input: CliError)."""
    with input_errors():
        topology.check_node(args.node, "--node")
        topology.check_algorithm(args.algorithm)
    return route_unit(topology, args.node, args.algorithm)


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_$]{0,127}\Z")


def check_output_args(args):
    """``--top`` is a Verilog identifier and ``-o`` a file that may be written."""
    if not _IDENTIFIER.match(args.top):
        raise CliError(f"--top must be a Verilog identifier (a letter or _, then letters, "
                       f"digits, _ or $; at most 128), not {args.top!r}")
    files.check_output(args.output)


def _output_options(configure):
    def options(parser):
        configure(parser)
        parser.add_argument("-o", "--output", required=True, metavar="FILE",
                            help="Verilog file to write")
        parser.add_argument("--top", default="top", metavar="NAME",
                            help="name of the top module (default: top)")
        add_json_option(parser)
        add_force_option(parser)
    return options


def _write(args, topology, text, what, extra=None):
    files.write_text(args.output, text)
    document = {"path": args.output, "top": args.top, "topology": topology.label,
                "bytes": len(text.encode()), **(extra or {})}
    emit(args, document, f"wrote {what} to {args.output} (top module {args.top})")


def _route(args, topology):
    check_output_args(args)
    unit = build_route_unit(args, topology)
    text = route_unit_verilog(unit, args.top)
    _write(args, topology, text,
           f"{topology.label} {unit.algorithm} route unit of node {unit.node}")


def _router(args, topology):
    check_output_args(args)
    _write(args, topology, *router_verilog(args, topology))


def _fabric(args, topology):
    check_output_args(args)
    _write(args, topology, *fabric_verilog(args, topology))


#: ``cubefab verilog`` targets by name.
TARGETS = {
    "route": Target("the combinational route unit of one node", route_options, _route),
    "router": Target("the router of one node", router_target_options, _router),
    "fabric": Target("a whole fabric: one router per node, every link wired (with "
                     "--interface axi-stream: an AXI4-Stream endpoint at every node)",
                     interface_fabric_options, _fabric),
}


def register_targets(sub, command, help, description, targets, options):
    """Add ``cubefab COMMAND TARGET TOPO ...``: one sub-command per entry of ``targets``
    (a dict of :class:`Target`), each with ``options(target.configure)`` as its options."""
    parser = sub.add_parser(command, help=help, description=description)
    subparsers = parser.add_subparsers(dest="target", metavar="TARGET", parser_class=_Parser)
    subparsers.required = True
    for name, target in targets.items():
        add_topology_command(subparsers, name, target.help, target.handler,
                             options(target.configure))
    return parser


def register(sub):
    register_targets(sub, "verilog", "write Verilog of a route unit, router or fabric",
                     "Write Verilog of the hardware.", TARGETS, _output_options)
