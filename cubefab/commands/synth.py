"""``cubefab synth TARGET TOPO ...``: LUT4 count and logic depth from yosys ``synth_ice40``.

Targets are listed in :data:`TARGETS` (``route``: the route unit of one node);
another target is one entry there.
"""

import os

from ..cli import add_json_option, CliError, emit, format_table, add_force_option
from ..build.pnr import ToolFailed, ToolMissing
from ..progress import working
from ..build.synth import synthesize_logic
from ..build.verilog import route_unit_verilog
from .verilog import Target, route_options, build_route_unit, register_targets
from . import fpga
from .fpga import check_tools, check_workdir, claim_workdir


__all__ = ["register", "TARGETS", "synth_options", "report_cost"]


def synth_options(configure):
    """``configure`` plus the options every synth target shares."""
    def options(parser):
        configure(parser)
        parser.add_argument("--workdir", default=None, metavar="DIR",
                            help="where yosys runs and leaves its files and log "
                                 "(default: build/synth/<design>)")
        add_json_option(parser)
        add_force_option(parser)
    return options


def report_cost(args, what, verilog, default_workdir, extra=None):
    """Synthesise ``verilog`` (top module ``top``) and print its cost."""
    workdir = claim_workdir(args, default_workdir)
    try:
        with working(f"yosys synth_ice40 of the {what}"):
            cost = synthesize_logic(verilog, "top", workdir)
    except (ToolMissing, ToolFailed) as exc:
        raise CliError(str(exc).splitlines()[0]) from None
    document = dict(extra or {}, design=what, lut4=cost.lut4, depth=cost.depth,
                    carry=cost.carry, cells=cost.cells, workdir=workdir,
                    tool="yosys synth_ice40",
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
                           f"route_{topology.name}_{params}_{unit.algorithm}_{unit.node}")
    report_cost(args, f"{topology.label} {unit.algorithm} route unit of node {unit.node}",
                route_unit_verilog(unit), default,
                {"topology": topology.label, "algorithm": unit.algorithm, "node": unit.node,
                 "unit": type(unit).__name__})


#: ``cubefab synth`` targets by name.
TARGETS = {
    "route": Target("LUT4s and depth of the route unit of one node", route_options, _route),
    "router": Target("iCE40 resources and Fmax (place and route) of one node's router",
                     fpga.router_synth_options, fpga.synth_router),
    "fabric": Target("iCE40 resources and Fmax (place and route) of a whole fabric",
                     fpga.fabric_synth_options, fpga.synth_fabric),
}


def register(sub):
    register_targets(sub, "synth", "LUT4 count and logic depth from yosys synth_ice40",
                     "Synthesise with yosys synth_ice40 and report the cost.", TARGETS,
                     synth_options)
