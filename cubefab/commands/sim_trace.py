"""``cubefab sim TOPO --trace FILE``: a netrace trace's packets through the fabric, closed
loop, every packet checked (:mod:`cubefab.sim.trace_run`)."""

import os

from ..cli import CliError, emit, format_table, input_errors, int_range
from .. import files
from ..progress import Progress, build_stages
from ..sim.netrace import NetraceError, read_trace
from ..sim.trace_plan import TraceCheckError, TracePlan
from ..sim.trace_run import PERCENTILES, run_trace
from ..hdl.config import FabricConfig
from ..tools.verilator import cache_root, verilator_missing_reason
from .router_options import router_config


__all__ = ["add_trace_options", "trace_given", "run_trace_command"]

#: The options of synthetic traffic, which a trace replaces: ``(dest, option)``.
SYNTHETIC = (("traffic", "--traffic"), ("rate", "--rate"),
             ("broadcast_fraction", "--broadcast-fraction"),
             ("multicast_group", "--multicast-group"), ("packet_flits", "--packet-flits"),
             ("cycles", "--cycles"), ("warmup", "--warmup"), ("hotspot", "--hotspot"),
             ("hotspot_fraction", "--hotspot-fraction"), ("drain", "--drain"),
             ("vcd", "--vcd"), ("netlist", "--netlist"), ("faults", "--faults"),
             ("faulty_links", "--faulty-links"), ("fail_links", "--fail-link"),
             ("waypoints", "--waypoints"), ("broadcast_vcs", "--broadcast-vcs"),
             ("broadcast_model", "--broadcast-model"), ("interface", "--interface"))

#: The options that go with ``--trace`` only: ``(dest, option)``.
TRACE_ONLY = (("trace_region", "--trace-region"), ("trace_packets", "--trace-packets"),
              ("trace_log", "--trace-log"), ("ignore_dependencies", "--ignore-dependencies"))


def add_trace_options(parser):
    """Add ``--trace`` and the options that go with it; call after every other option
    of ``cubefab sim`` (their defaults tell which the user gave)."""
    group = parser.add_argument_group("trace-driven runs (instead of synthetic traffic)")
    group.add_argument("--trace", default=None, metavar="FILE",
                       help="run the packets of a netrace trace (.tra.bz2), closed loop: "
                            "each no earlier than its trace cycle and after the packets "
                            "it depends on are delivered; trace node i is the network's "
                            "i-th node in address order")
    group.add_argument("--trace-region", type=int_range(0, 2**32 - 1), default=None,
                       metavar="R", help="only the packets of region R (default: the "
                                         "whole trace)")
    group.add_argument("--trace-packets", type=int_range(1, 2**32), default=None,
                       metavar="N", help="only the first N packets by id (default: all)")
    group.add_argument("--trace-log", default=None, metavar="FILE.csv",
                       help="write one CSV row per packet: id, src, dst, type, flits, "
                            "trace_cycle, inject_cycle, deliver_cycle (default: none)")
    group.add_argument("--ignore-dependencies", action="store_true",
                       help="inject each packet at its trace cycle, whatever was "
                            "delivered (default: closed loop)")
    defaults = {dest: parser.get_default(dest) for dest, _ in SYNTHETIC + TRACE_ONLY}
    parser.set_defaults(trace_option_defaults=defaults)


def _given(args, options):
    defaults = args.trace_option_defaults
    return [option for dest, option in options
            if hasattr(args, dest) and getattr(args, dest) != defaults.get(dest)]


def trace_given(args):
    """Whether the options ask for a trace-driven run; CliError for trace options
    without ``--trace``, or ``--trace`` with options of synthetic traffic."""
    if args.trace is None:
        stray = _given(args, TRACE_ONLY)
        if stray:
            raise CliError(f"{stray[0]} needs --trace FILE")
        return False
    clash = _given(args, SYNTHETIC)
    if clash:
        raise CliError(f"--trace replaces synthetic traffic: leave out {', '.join(clash)}")
    return True


def _plan(args, topology, layout):
    """The :class:`TracePlan` the options describe (CliError naming the option)."""
    try:
        trace = read_trace(args.trace)
    except NetraceError as error:
        raise CliError(f"--trace {args.trace}: {error}") from None
    if args.trace_region is not None and args.trace_region >= len(trace.regions):
        count = len(trace.regions)
        raise CliError(f"--trace-region must be at most {count - 1} "
                       f"({os.path.basename(args.trace)} has {count} "
                       f"region{'s' * (count != 1)}), not {args.trace_region}")
    with input_errors("--trace: "):
        return TracePlan(trace, topology, layout, region=args.trace_region,
                         packets=args.trace_packets,
                         ignore_dependencies=args.ignore_dependencies)


def _engine(args):
    if args.engine != "auto":
        return args.engine
    return "verilator" if verilator_missing_reason() is None else "amaranth"


def run_trace_command(args, topology):
    """Run ``cubefab sim`` with ``--trace``; returns the exit status (0, or 1 when a
    check failed)."""
    router = router_config(args, topology, routers=topology.num_nodes)
    if args.trace_log is not None:
        files.check_output(args.trace_log)
    plan = _plan(args, topology, router.layout)
    engine = _engine(args)
    with input_errors():
        config = FabricConfig(router)
    doc = {"command": "sim", "topology": topology.label, "router": router.as_dict(),
           "engine": engine, "trace_file": os.path.basename(args.trace)}
    bar = Progress(f"trace packets through {topology.label}", unit="packets delivered")
    try:
        with input_errors():
            result = run_trace(plan, config, engine=engine, progress=bar.update,
                               build_progress=build_stages(f"the {topology.label} trace "
                                                           f"fabric", cache_root()))
    except TraceCheckError as error:
        bar.close()
        doc.update(ok=False, error=str(error))
        emit(args, doc, f"check failed: {error}")
        return 1
    finally:
        bar.close()
    if args.trace_log is not None:
        files.write_text(args.trace_log, result.log_csv())
    doc.update(ok=True, trace=result.doc())
    emit(args, doc, _text(doc, plan, args.trace_log))
    return 0


def _text(doc, plan, log):
    trace = doc["trace"]
    where = "whole trace" if trace["region"] is None else f"region {trace['region']}"
    lines = [f"trace    {trace['benchmark']} ({doc['trace_file']}, {where}): "
             f"{trace['packets']:,} packets, dependencies "
             f"{'kept' if trace['dependencies'] else 'ignored'}",
             f"network  {doc['topology']}, {doc['engine']} engine",
             f"cycles   {trace['cycles']:,} against the trace's {trace['trace_cycles']:,}"
             + (f" (x{trace['ratio']:.4f})" if trace["ratio"] else "")
             + f"; {trace['cycles_per_second']:,.0f} cycles/s (build excluded)",
             "checks   every packet delivered once, at its node, intact", ""]
    rows = [(name, s["count"], f"{s['mean']:.1f}", *(f"{s[f'p{q}']:g}" for q in PERCENTILES),
             s["max"]) for name, s in trace["latency"].items()]
    lines.append("latency from trace cycle to delivery, cycles:")
    lines.append(format_table(("type", "packets", "mean", *(f"p{q}" for q in PERCENTILES),
                               "max"), rows))
    if log:
        lines.append(f"\nwrote {log}")
    return "\n".join(lines)
