"""The ``router`` and ``fabric`` targets of ``cubefab synth`` (listed in its TARGETS):
FPGA resources and Fmax after place and route, on any device of
:data:`~cubefab.tools.devices.DEVICES` (iCE40, ECP5, Gowin).

The design is synthesised (yosys ``synth_<family>``) inside a
:class:`~cubefab.build.harness.TimingHarness`, which registers every port bit, so
that nextpnr's Fmax covers every path into and out of it as in a fabric, and so
that designs with more port bits than the device has pins place at all. LUT4s,
flip-flops, carry and RAM cells are the design's own (the harness is synthesised
as a separate module and counted apart); logic cells are nextpnr's, harness
included. The report has the same keys on every family; the family's own cell counts
are under ``cells``.
"""

import hashlib
import json
import os
import shutil

from amaranth.back import verilog as amaranth_verilog

from .. import files
from ..cli import CliError, emit, format_table, int_range
from ..tools.devices import CELL_KINDS, DEVICES
from ..build.pnr import ToolMissing, find_tool, implement
from ..build.run_time import implementation_stages, expect_synthesis
from ..hdl.flit import DEFAULT_HEADER
from ..hdl.options import ALL_PORT, BUFFERED, hardware_words
from ..build.harness import TimingHarness
from ..build.module_costs import PARTS, module_costs, part_summary
from ..progress import Stages
from .router_targets import (router_target_options, interface_fabric_options, build_router,
                             add_device_option,
                             build_fabric, build_endpoint_fabric)
from .limits import MAX_SEED
from .tool_runs import deadline, tool_errors


__all__ = ["router_synth_options", "fabric_synth_options", "synth_router", "synth_fabric",
           "implementation_table", "report_implementation", "check_tools", "check_workdir",
           "claim_workdir", "parts_table", "design_folder"]


def check_tools(*names):
    """Raise CliError naming the first of the tools ``names`` that is missing."""
    for name in names:
        try:
            command = find_tool(name)
        except ToolMissing as exc:
            raise CliError(str(exc).splitlines()[0]) from None
        if shutil.which(command) is None:     # e.g. YOSYS=/a/path/that/is/not/there
            raise CliError(f"{name}: {command} is not an executable program (check the "
                           f"environment variable that names it, or install the tool)")


def check_workdir(args):
    """Check ``--workdir`` (before the work): a directory cubefab may fill."""
    if args.workdir is not None:
        files.check_directory(args.workdir)


def claim_workdir(args, default_workdir):
    """The work directory (``--workdir`` or the default), claimed for the tools."""
    workdir = args.workdir or default_workdir
    files.claim_directory(workdir)
    return workdir


def _device_options(parser):
    add_device_option(parser)
    parser.add_argument("--seed", type=int_range(0, MAX_SEED), default=1, metavar="S",
                        help="nextpnr placement seed (default 1)")
    parser.add_argument("--no-pnr", action="store_true",
                        help="synthesis only: resources without place and route")


def router_synth_options(parser):
    router_target_options(parser)
    _device_options(parser)


def fabric_synth_options(parser):
    interface_fabric_options(parser)
    _device_options(parser)
    parser.add_argument("--by-part", action="store_true",
                        help="also each node's cost by part (router: buffers, allocators, "
                             "crossbar, output unit, route units; endpoint: injection "
                             "store and logic, ejection, reorder), mean and largest over "
                             "the nodes, from a second yosys synthesis that keeps the "
                             "hierarchy (JSON: parts)")


def implementation_table(rows):
    """Text table of ``(label, ImplementationReport)`` rows."""
    lines = []
    for label, r in rows:
        lc = "-" if r.logic_cells is None else f"{r.logic_cells}/{r.logic_cells_available}"
        if r.fits is False:
            lc = (f"does not fit ({r.logic_cells_available})" if r.logic_cells is None
                  else f"{r.logic_cells}/{r.logic_cells_available}, does not fit")
        fmax = "-" if r.fmax_mhz is None else f"{r.fmax_mhz:.1f}"
        lines.append([label, r.lut4, r.ff, r.carry, r.ram, r.dram, lc, fmax])
    return format_table(["design", "LUT4", "FF", "carry", "RAM", "LUT RAM",
                         "LCs (with harness)", "Fmax MHz"], lines)


def parts_table(summary):
    """Text table of a :func:`~cubefab.build.module_costs.part_summary`: per part,
    the mean (and largest) LUT4s, flip-flops, block and distributed RAMs of a node."""
    rows = []
    for part in (*PARTS, "node"):
        mean, most = summary[part]["mean"], summary[part]["max"]
        if part != "node" and not any(most.values()):
            continue
        rows.append([part.replace("_", " "), *(f"{mean[k]:g} ({most[k]})"
                                               for k in CELL_KINDS)])
    return format_table(["part of a node", "LUT4", "FF", "carry", "RAM", "DRAM"], rows)


def _by_part(args, component, workdir, limit):
    """The cost of each part of ``component``'s nodes (``--by-part``): its
    :func:`~cubefab.build.module_costs.part_summary` and the text that shows it."""
    family = DEVICES[args.device].family
    costs = module_costs(component, args.device, os.path.join(workdir, "parts"), limit)
    summary = part_summary(costs)
    return summary, (f"cost of a node by part, mean (largest) over the nodes, yosys "
                     f"{family.synth} -noflatten (log: "
                     f"{os.path.join(workdir, 'parts', 'hierarchy.log')}):\n"
                     + parts_table(summary))


def design_folder(stem, parameters):
    """The default work folder of a design: ``stem`` (readable: the design and device)
    and a digest of its ``parameters`` (the report's, which name every option that
    changes the design), so that designs that differ only in an option the stem does
    not name (buffer depth, payload or flit width ...) are not built in one folder."""
    text = json.dumps(parameters, sort_keys=True, default=str)
    return f"{stem}_{hashlib.sha256(text.encode()).hexdigest()[:8]}"


def report_implementation(args, what, component, default_workdir, extra=None,
                          seconds=None):
    """Implement ``component`` in a timing harness on ``args.device`` and print
    the report (``--json``: one document); ``seconds``: the estimated seconds of its
    elaboration. Each stage (Verilog, yosys, nextpnr) is reported on stderr with the
    time left (:class:`~cubefab.progress.Stages`); ``--timeout`` limits them all.
    With ``--by-part`` (fabrics) the cost of each part of a node too (``parts``).
    ``default_workdir`` is the stem of the work folder without ``--workdir``
    (:func:`design_folder` of it and ``extra``)."""
    workdir = claim_workdir(args, design_folder(default_workdir, extra or {}))
    limit = deadline(args)
    by_part = getattr(args, "by_part", False)
    stages = Stages(f"the {what} on {args.device}",
                    implementation_stages(args.device, seconds, pnr=not args.no_pnr,
                                          parts=by_part))
    with tool_errors(args):
        # with source locations: nextpnr's critical path then names the Python lines
        with stages.stage("verilog"):
            text = amaranth_verilog.convert(TimingHarness(component), name="top")
            expect_synthesis(stages, len(text), args.device)
        report = implement(text, "top", args.device, workdir, seed=args.seed,
                           pnr=not args.no_pnr, submodule="dut", deadline=limit,
                           stages=stages)
        parts = None
        if by_part:
            with stages.stage("parts"):
                parts = _by_part(args, component, workdir, limit)
    family = DEVICES[args.device].family
    document = dict(extra or {}, design=what, **report.as_dict(), stages=stages.summary(),
                    tools=f"yosys {family.synth}{family.synth_options}"
                          f"{' ' + report.synth_options if report.synth_options else ''} "
                          f"+ {family.nextpnr} --timing-allow-fail",
                    method="design between registers (TimingHarness); cell counts are "
                           "the design's own, logic cells include the harness")
    if parts is not None:
        document["parts"] = parts[0]
    lines = [implementation_table([(what, report)])]
    if report.synth_options:
        lines.append(f"synthesised with {report.synth_options}: the first netlist had no "
                     f"legal placement")
    path = report.critical_path
    if path:
        lines.append(f"critical path: {path['total_ns']} ns = {path['logic_ns']} logic + "
                     f"{path['routing_ns']} routing, {path['logic_levels']} logic cells, "
                     f"{path['start']} -> {path['end']}")
        if path["sources"]:
            lines.append("  through " + ", ".join(path["sources"][:6]))
    if report.fits is False:
        lines.append(_shortfall(what, report, args.device))
    lines.append(f"logs: {os.path.join(workdir, 'synth.log')}"
                 + ("" if args.no_pnr or report.fits is False else
                    f", {os.path.join(workdir, 'pnr.log')}"))
    if parts is not None:
        lines.append(parts[1])
    emit(args, document, "\n".join(lines))


def _shortfall(what, report, device):
    """The line saying that ``what`` (its
    :class:`~cubefab.build.pnr.ImplementationReport` ``report``)
    does not fit ``device``, with the logic cells it was packed into."""
    available = report.logic_cells_available
    if report.logic_cells is None:
        return f"{what} needs more than the {available} logic cells of {device}"
    return (f"{what} needs {report.logic_cells} logic cells (with the harness), "
            f"{100 * report.logic_cells / available:.0f} % of the {available} of {device}")


def _stem(topology, config=None):
    """The name of a design's work folder (a one-port replicating router's apart)."""
    stem = f"{topology.name}_" + "_".join(f"{k}{v}" for k, v in topology.params.items())
    if config is not None and config.broadcast_model != ALL_PORT:
        stem += "_" + config.broadcast_model.replace("-", "")
    if config is not None and config.header != DEFAULT_HEADER:
        stem += f"_header{config.header}"
    if config is not None and config.hop != BUFFERED:
        stem += f"_{config.hop}"
    if config is not None and config.link_stages:
        stem += f"_links{config.link_stages}"
    return stem


#: The router fields a synthesis report also shows at its top level, as it always has
#: (those left out of ``as_dict`` at their defaults only when not).
_TOP_LEVEL = ("vcs", "adaptive_vcs", "depth", "payload_width", "buffer", "buffer_auto",
              "turns", "broadcast_vcs", "broadcast_model", "multicast", "header", "hop")


def _parameters(config):
    """The router parameters a synthesis report shows: ``router``, the configuration's
    :meth:`~cubefab.hdl.config.RouterConfig.as_dict`, the fields of
    :data:`_TOP_LEVEL` also at the top level, and the flit width; a waypoint router's
    waypoints, VCs per link and turns (every one connected)."""
    fields = config.as_dict()
    out = {name: fields[name] for name in _TOP_LEVEL if name in fields}
    out.update(flit_width=config.layout.size, router=fields)
    if config.fault_waypoints:   # waypoint routing: VCs per phase, every turn connected
        out.update(fault_waypoints=config.fault_waypoints, link_vcs=config.link_vcs,
                   turns="all")
    return out


def _check(args):
    check_tools("yosys", *(() if args.no_pnr else (DEVICES[args.device].family.nextpnr,)))
    check_workdir(args)


def synth_router(args, topology):
    _check(args)
    router, seconds = build_router(args, topology)
    report_implementation(
        args, f"{topology.label} router of node {router.node} "
              f"({hardware_words(router.config)})", router,
        os.path.join("build", "synth", f"router_{_stem(topology, router.config)}_{router.node}"
                     f"_{args.device}"),
        {"topology": topology.label, "node": router.node,
         **_parameters(router.config), "ports": topology.degree + 1}, seconds)


def synth_fabric(args, topology):
    _check(args)
    wrapped, seconds = build_endpoint_fabric(args, topology)
    if wrapped is not None:
        return _synth_endpoint_fabric(args, topology, wrapped, seconds)
    fabric, seconds = build_fabric(args, topology)
    report_implementation(
        args, f"{topology.label} fabric ({hardware_words(fabric.config.router)})", fabric,
        os.path.join("build", "synth", f"fabric_{_stem(topology, fabric.config.router)}"
                     f"_{args.device}"),
        {"topology": topology.label, "nodes": topology.num_nodes,
         **_parameters(fabric.config.router)}, seconds)


def _synth_endpoint_fabric(args, topology, wrapped, seconds):
    """:func:`synth_fabric` with ``--interface axi-stream``: the fabric with its
    AXI4-Stream endpoints (docs/endpoints.md)."""
    config, fmt = wrapped.config.router, wrapped.fmt
    report_implementation(
        args, f"{topology.label} fabric with AXI4-Stream endpoints ({fmt.data_width}-bit "
        f"tdata{f', {fmt.packing} packing' if fmt.packing != 'auto' else ''}, "
        f"{hardware_words(config)})", wrapped,
        os.path.join("build", "synth", f"fabric_{_stem(topology, config)}_axis"
                     f"{fmt.data_width}x{fmt.max_beats}"
                     f"{f'w{fmt.window}' if fmt.window > 1 else ''}"
                     f"{fmt.packing[0] if fmt.packing != 'auto' else ''}_{args.device}"),
        {"topology": topology.label, "nodes": topology.num_nodes, **_parameters(config),
         "interface": "axi-stream", "data_width": fmt.data_width,
         "max_beats": fmt.max_beats, "window": fmt.window, "packing": fmt.packing},
        seconds)
