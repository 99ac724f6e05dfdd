"""``cubefab sweep``: latency-throughput curves of the self-checking fabric."""

import sys

from ..cli import (CliError, add_topology_command, emit, format_table, int_range, fraction,
                   add_force_option, input_errors)
from .. import files
from ..progress import Progress
from ..sim import register_engine
from ..sim.patterns import PATTERNS
from ..sim.selfcheck_run import ENGINES
from ..sim.sweep import SWEEP_ROUTER, parse_rates, plot_sweep, sweep, sweep_csv
from .limits import (MAX_VCS, MAX_DEPTH, MAX_PACKET_FLITS, MAX_CYCLES, MAX_JOBS, MAX_SEED,
                     check_channel_graph, check_hardware, check_traffic,
                     check_vcs_per_class)
from .sim import check_engine


__all__ = ["register"]


def register(sub):
    # cubefab sim --engine verilator: the self-checking fabric compiled by Verilator
    # (registered here, before cubefab.commands.sim builds its --engine help).
    register_engine("verilator", "cubefab.sim.selfcheck_run:VerilatorEngine")
    add_topology_command(sub, "sweep", "latency and accepted throughput against offered "
                         "load, beside the channel-load bound", _sweep, _options)


def _options(parser):
    parser.add_argument("--traffic", default="uniform", choices=PATTERNS)
    parser.add_argument("--rates", required=True, metavar="A:B:STEP",
                        help="offered loads in flits/node/cycle: a:b:step or r1,r2,...")
    parser.add_argument("--algorithm", action="append", metavar="NAME",
                        help="routing algorithm (repeat to compare several)")
    parser.add_argument("--engine", default="verilator", choices=ENGINES)
    parser.add_argument("--cycles", type=int_range(1, MAX_CYCLES), default=2000,
                        help="measured cycles per run")
    parser.add_argument("--warmup", type=int_range(0, MAX_CYCLES), default=500,
                        help="cycles before measuring")
    parser.add_argument("--seed", type=int_range(0, MAX_SEED), default=1)
    parser.add_argument("--packet-flits", type=int_range(1, MAX_PACKET_FLITS), default=1,
                        metavar="L")
    parser.add_argument("--vcs", type=int_range(1, MAX_VCS), default=None,
                        help="virtual channels (default: what deadlock freedom needs)")
    parser.add_argument("--depth", type=int_range(1, MAX_DEPTH), default=SWEEP_ROUTER["depth"],
                        help=f"flits per VC buffer (default {SWEEP_ROUTER['depth']})")
    parser.add_argument("--vcs-per-class", type=int_range(1, MAX_VCS),
                        default=SWEEP_ROUTER["vcs_per_class"],
                        metavar="N", help="VCs per VC class, a power of two (default "
                        f"{SWEEP_ROUTER['vcs_per_class']}; a flow keeps one VC of each class)")
    parser.add_argument("--hotspot-fraction", type=fraction, default=0.1)
    parser.add_argument("--jobs", type=int_range(1, MAX_JOBS), default=1, metavar="N",
                        help="parallel simulation processes")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true")
    out.add_argument("--csv", action="store_true")
    parser.add_argument("--plot", metavar="FILE", help="write the curves (PNG, SVG, PDF)")
    add_force_option(parser)


#: Most offered loads in one sweep.
MAX_RATES = 1000


def _rates(text):
    """The offered loads of ``--rates`` (at most :data:`MAX_RATES`), or CliError."""
    parts = text.replace(":", ",").split(",")
    allowed = "a:b:step (0 < step, a <= b) or r1,r2,... with every rate in (0, 1]"
    number = fraction
    try:
        values = [number(p) for p in parts]
    except Exception:
        raise CliError(f"--rates must be {allowed}, not {text!r}") from None
    if ":" in text and len(values) == 3 and values[2] > 0 and values[1] >= values[0] \
            and (values[1] - values[0]) / values[2] >= MAX_RATES:
        raise CliError(f"--rates {text} gives more than {MAX_RATES} loads; the limit is "
                       f"{MAX_RATES} (use a larger step)")
    if ":" not in text and len(values) > MAX_RATES:
        raise CliError(f"--rates lists {len(values)} loads; the limit is {MAX_RATES}")
    with input_errors():
        return parse_rates(text)


def _sweep(args, topology):
    rates = _rates(args.rates)
    algorithms = args.algorithm or [None]
    with input_errors():
        for name in algorithms:
            topology.check_algorithm(name)
    _check(args, topology, algorithms)
    results = []
    for name in algorithms:
        label = f"sweep {topology.label} {args.traffic} {topology.check_algorithm(name)}"
        bar = Progress(label, unit="runs")

        def building(stage, bar=bar):
            if bar.enabled:
                bar.stream.write(f"\r{bar.label}: Verilator build ({stage})...\x1b[K")
                bar.stream.flush()

        results.append(sweep(
            topology, rates, traffic=args.traffic, engine=args.engine, algorithm=name,
            cycles=args.cycles, warmup=args.warmup, seed=args.seed, jobs=args.jobs,
            packet_flits=args.packet_flits, vcs=args.vcs, depth=args.depth,
            vcs_per_class=args.vcs_per_class,
            hotspot_fraction=args.hotspot_fraction, progress=bar.update,
            build_progress=building))
        bar.close()
    if args.plot:
        with files.output_path(args.plot) as tmp:
            plot_sweep(results, tmp)
    if args.csv:
        sys.stdout.write(sweep_csv(results))
        return _status(results)
    doc = results[0] if len(results) == 1 else {"curves": results}
    emit(args, doc, _text(results, args.plot))
    return _status(results)


def _check(args, topology, algorithms):
    """Every option checked before the first run (CliError)."""
    check_engine(args.engine)
    check_vcs_per_class(args.vcs_per_class, args.vcs)
    check_channel_graph(topology, 1, f"the reference routes of {topology.label}")
    for name in algorithms:
        check_hardware(f"the {topology.label} self-checking fabric", topology,
                       2 * topology.num_nodes, algorithm=name, vcs=args.vcs,
                       vcs_per_class=args.vcs_per_class, depth=args.depth,
                       payload_width=16)
    check_traffic(topology)
    if args.plot is not None:
        if not args.plot.lower().endswith((".png", ".svg", ".pdf")):
            raise CliError(f"--plot file must end in .png, .svg or .pdf, not {args.plot!r}")
        files.check_output(args.plot)


def _status(results):
    return 0 if all(r["ok"] for r in results) else 1


def _text(results, plot):
    blocks = []
    for r in results:
        b = r["bound"]
        rows = [[f"{p['rate']:.3f}", f"{p['offered']:.4f}", f"{p['throughput']:.4f}",
                 "-" if p["avg_latency"] is None else f"{p['avg_latency']:.2f}",
                 p["errors"]] for p in r["points"]]
        sat = r["saturation_throughput"]
        blocks.append("\n".join([
            f"{r['topology']} {r['traffic']} traffic, {r['algorithm']} routing, "
            f"{r['engine']} engine, {r['cycles']} cycles after {r['warmup']} warm-up",
            format_table(["rate", "offered", "accepted", "avg latency", "errors"], rows),
            f"average hops {b['average_hops']:.4f}; channel-load bound "
            f"{b['saturation_bound']:.4f} ({b['limited_by']}; max channel load "
            f"{b['max_channel_load']:.4f})",
            f"saturation throughput {sat:.4f} = "
            f"{100 * r['fraction_of_bound']:.1f}% of the bound"
            + (f", saturates at offered {r['saturation_rate']}" if r["saturation_rate"]
               else ", not saturated in the range"),
            "errors: none" if r["ok"] else "ERRORS FOUND by the checkers",
        ]))
    if plot:
        blocks.append(f"plot: {plot}")
    return "\n\n".join(blocks)
