"""``cubefab sim TOPO ...``: a self-checking fabric under synthetic load, every flit checked."""

from ..cli import CliError, add_topology_command, emit, format_table
from ..progress import Progress
from ..sim.selfcheck_run import CHECKS, DEFAULT_ROUTER, ENGINES, run_selfcheck
from ..topology.patterns import PATTERNS


__all__ = ["register", "router_options", "router_params", "PAYLOAD_DEFAULT"]


#: Default ``--payload-width``.
PAYLOAD_DEFAULT = 16


def router_options(parser):
    """Router parameters shared by the commands that build a fabric."""
    parser.add_argument("--algorithm", default=None, metavar="NAME",
                        help="routing algorithm (default: the topology's first)")
    parser.add_argument("--vcs", type=int, default=None, metavar="N",
                        help="virtual channels per link (default: what deadlock "
                             "freedom needs)")
    parser.add_argument("--depth", type=int, default=4, metavar="N",
                        help="buffer depth per input VC in flits (default 4)")
    parser.add_argument("--vcs-per-class", type=int, default=1, metavar="N",
                        help="VCs per VC class, a power of two; a flow keeps one VC of "
                             "each class (default 1)")
    parser.add_argument("--payload-width", type=int, default=None, metavar="BITS",
                        help=f"payload bits per flit (default {PAYLOAD_DEFAULT})")


def router_params(args):
    return {"algorithm": args.algorithm, "vcs": args.vcs, "depth": args.depth,
            "vcs_per_class": args.vcs_per_class,
            "payload_width": (PAYLOAD_DEFAULT if args.payload_width is None
                              else args.payload_width)}


def _options(parser):
    parser.add_argument("--traffic", default="uniform", choices=PATTERNS,
                        help="traffic pattern (default uniform)")
    parser.add_argument("--rate", type=float, default=0.1, metavar="R",
                        help="offered load, flits per node per cycle, 0..1 (default 0.1)")
    parser.add_argument("--cycles", type=int, default=1000, metavar="N",
                        help="measured cycles, during which packets are created "
                             "(default 1000)")
    parser.add_argument("--warmup", type=int, default=0, metavar="N",
                        help="cycles before the measured ones (default 0)")
    parser.add_argument("--packet-flits", type=int, default=1, metavar="L",
                        help="flits per packet (default 1)")
    parser.add_argument("--seed", type=int, default=1, metavar="S")
    parser.add_argument("--hotspot", type=int, default=None, metavar="A",
                        help="hot node of --traffic hotspot (default: dense index 0)")
    parser.add_argument("--hotspot-fraction", type=float, default=0.1, metavar="F")
    parser.add_argument("--drain", type=int, default=None, metavar="N",
                        help="most cycles to wait for outstanding packets afterwards "
                             "(default 20 x nodes + 2000; the run ends once all arrived)")
    parser.add_argument("--engine", default="amaranth", choices=ENGINES,
                        help="simulation engine (default amaranth); both simulate the "
                             "same design and give the same results")
    parser.add_argument("--vcd", default=None, metavar="FILE",
                        help="write a VCD waveform (amaranth engine)")
    router_options(parser)
    parser.set_defaults(depth=DEFAULT_ROUTER["depth"],
                        vcs_per_class=DEFAULT_ROUTER["vcs_per_class"])
    parser.add_argument("--json", action="store_true")


def _fmt(value, digits=4):
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


#: The rows of the text table of ``cubefab sim``.
ROWS = ("injected", "delivered", "in_flight") + CHECKS + (
    "avg_latency", "p50_latency", "p90_latency", "p99_latency", "max_latency",
    "offered", "throughput", "drain_cycles", "cycles_per_second")


def _sim(args, topology):
    if args.cycles < 1:
        raise CliError(f"--cycles must be >= 1, not {args.cycles}")
    if args.drain is not None and args.drain < 0:
        raise CliError(f"--drain must be >= 0, not {args.drain}")
    drain = 20 * topology.num_nodes + 2000 if args.drain is None else args.drain
    params = router_params(args)
    if args.payload_width is None:
        del params["payload_width"]      # the self-checking packets' default
    progress = Progress(f"sim {topology.label}", unit="cycles")
    try:
        doc = run_selfcheck(
            topology, engine=args.engine, rate=args.rate, cycles=args.cycles,
            warmup=args.warmup, drain=drain, seed=args.seed,
            hotspot_fraction=args.hotspot_fraction, pattern=args.traffic,
            packet_flits=args.packet_flits, hotspot=args.hotspot, vcd=args.vcd,
            progress=progress.update, **params)
    finally:
        progress.close()
    rows = [[key, _fmt(doc[key])] for key in ROWS]
    problems = [f"{doc[k]} {k}" for k in ("checker_errors",) + CHECKS if doc[k]]
    if doc["ok"]:
        verdict = ("ok: every packet delivered once, intact, in order, on its reference "
                   "route and VCs")
    else:
        verdict = "FAILED: " + (", ".join(problems) if problems else
                                f"{doc['undelivered']} packets undelivered after the drain")
    text = "\n".join([
        f"{topology.label}, {doc['algorithm']} routing, {doc['vcs']} VC(s) x {doc['depth']} "
        f"flits; {args.traffic} traffic at {args.rate} flits/node/cycle, "
        f"{args.packet_flits}-flit packets, {args.cycles} cycles ({doc['engine']})",
        format_table(["measure", "value"], rows), verdict])
    emit(args, doc, text)
    return 0 if doc["ok"] else 1


def register(sub):
    add_topology_command(sub, "sim", "simulate a self-checking router fabric under load "
                         "and check every flit", _sim, _options)
