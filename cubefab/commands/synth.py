"""``cubefab synth TARGET TOPO ... [--device D]``: LUT4 count and logic depth from yosys
``synth_<family>`` (iCE40, ECP5 or Gowin: :mod:`cubefab.tools.devices`).

Targets are listed in :data:`TARGETS` (``route``: the route unit of one node);
another target is one entry there.
"""

import os

from ..cli import add_json_option, emit, format_table, add_force_option
from ..tools.devices import DEVICES
from ..progress import working
from ..build.synth import synthesize_logic
from ..build.verilog import route_unit_verilog
from .verilog import Target, route_options, build_route_unit, register_targets
from . import fpga
from .fpga import check_tools, check_workdir, claim_workdir
from .router_targets import add_device_option
from .tool_runs import add_timeout_option, deadline, tool_errors


__all__ = ["register", "TARGETS", "synth_options", "report_cost"]


def synth_options(configure):
    """``configure`` plus the options every synth target shares."""
    def options(parser):
        configure(parser)
        parser.add_argument("--workdir", default=None, metavar="DIR",
                            help="where yosys runs and leaves its files and log "
                                 "(default: build/synth/<design>)")
        add_timeout_option(parser)
        add_json_option(parser)
        add_force_option(parser)
    return options


def report_cost(args, what, verilog, default_workdir, extra=None):
    """Synthesise ``verilog`` (top module ``top``) for ``--device`` and print its cost."""
    workdir = claim_workdir(args, default_workdir)
    device = DEVICES[args.device]
    with tool_errors(args), working(f"yosys {device.family.synth} of the {what}"):
        cost = synthesize_logic(verilog, "top", workdir, deadline=deadline(args),
                                device=args.device)
    document = dict(extra or {}, design=what, lut4=cost.lut4, depth=cost.depth,
                    carry=cost.carry, cells=cost.cells, workdir=workdir,
                    tool=f"yosys {device.family.synth}", device=args.device,
                    family=device.family.name,
                    depth_measure="cells on the longest input-to-output path (yosys ltp -noff)")
    table = format_table(["design", "LUT4", "depth", "carry"],
                         [[what, cost.lut4, cost.depth, cost.carry]])
    emit(args, document, f"{table}\nyosys log: {os.path.join(workdir, 'synth.log')}")


def _route(args, topology):
    check_tools("yosys")
    check_workdir(args)
    unit = build_route_unit(args, topology)
    params = "_".join(f"{k}{v}" for k, v in topology.params.items())
    default = os.path.join("build", "synth",
                           f"route_{topology.name}_{params}_{unit.algorithm}_{unit.node}"
                           + ("" if args.device == "hx8k" else f"_{args.device}"))
    report_cost(args, f"{topology.label} {unit.algorithm} route unit of node {unit.node}",
                route_unit_verilog(unit), default,
                {"topology": topology.label, "algorithm": unit.algorithm, "node": unit.node,
                 "unit": type(unit).__name__})


def _route_options(parser):
    route_options(parser)
    add_device_option(parser)


#: ``cubefab synth`` targets by name.
TARGETS = {
    "route": Target("LUT4s and depth of the route unit of one node", _route_options,
                    _route),
    "router": Target("FPGA resources and Fmax (place and route) of one node's router",
                     fpga.router_synth_options, fpga.synth_router),
    "fabric": Target("FPGA resources and Fmax (place and route) of a whole fabric",
                     fpga.fabric_synth_options, fpga.synth_fabric),
}


def register(sub):
    register_targets(sub, "synth", "LUT4 count, depth, resources and Fmax from yosys and "
                     "nextpnr (iCE40, ECP5, Gowin)",
                     "Synthesise with yosys synth_<family> (and place and route with "
                     "nextpnr) and report the cost.", TARGETS, synth_options)
