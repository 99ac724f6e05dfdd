"""``cubefab sweep``: latency-throughput curves of the self-checking fabric."""

import sys

from ..cli import CliError, add_topology_command, emit, format_table
from ..progress import Progress
from ..topology.patterns import PATTERNS
from ..sim.selfcheck_run import DEFAULT_ROUTER, ENGINES
from ..sim.sweep import parse_rates, plot_sweep, sweep, sweep_csv


__all__ = ["register"]


def register(sub):
    add_topology_command(sub, "sweep", "latency and accepted throughput against offered "
                         "load, beside the channel-load bound", _sweep, _options)


def _options(parser):
    parser.add_argument("--traffic", default="uniform", choices=PATTERNS)
    parser.add_argument("--rates", required=True, metavar="A:B:STEP",
                        help="offered loads in flits/node/cycle: a:b:step or r1,r2,...")
    parser.add_argument("--algorithm", action="append", metavar="NAME",
                        help="routing algorithm (repeat to compare several)")
    parser.add_argument("--engine", default="verilator", choices=ENGINES)
    parser.add_argument("--cycles", type=int, default=2000, help="measured cycles per run")
    parser.add_argument("--warmup", type=int, default=500, help="cycles before measuring")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--packet-flits", type=int, default=1, metavar="L")
    parser.add_argument("--vcs", type=int, default=None, help="virtual channels "
                        "(default: what deadlock freedom needs)")
    parser.add_argument("--depth", type=int, default=DEFAULT_ROUTER["depth"],
                        help=f"flits per VC buffer (default {DEFAULT_ROUTER['depth']})")
    parser.add_argument("--vcs-per-class", type=int, default=DEFAULT_ROUTER["vcs_per_class"],
                        metavar="N", help="VCs per VC class, a power of two (default "
                        f"{DEFAULT_ROUTER['vcs_per_class']}; a flow keeps one VC of each class)")
    parser.add_argument("--hotspot-fraction", type=float, default=0.1)
    parser.add_argument("--jobs", type=int, default=1, metavar="N",
                        help="parallel simulation processes")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true")
    out.add_argument("--csv", action="store_true")
    parser.add_argument("--plot", metavar="FILE", help="write the curves (PNG, SVG, PDF)")


def _sweep(args, topology):
    try:
        rates = parse_rates(args.rates)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    algorithms = args.algorithm or [None]
    for name in algorithms:
        topology.check_algorithm(name)
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
        try:
            plot_sweep(results, args.plot)
        except OSError as exc:
            raise CliError(f"cannot write {args.plot}: {exc.strerror}") from None
    if args.csv:
        sys.stdout.write(sweep_csv(results))
        return _status(results)
    doc = results[0] if len(results) == 1 else {"curves": results}
    emit(args, doc, _text(results, args.plot))
    return _status(results)


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
