"""``cubefab sim TOPO ...``: a whole fabric under synthetic load, checked packet by packet."""

from ..cli import CliError, add_topology_command, emit, format_table
from ..progress import Progress
from ..sim import ENGINES, engine_class
from ..sim.engine_choice import AUTO_RULE, choose_engine
from ..sim.patterns import PATTERNS
from ..sim.selfcheck_run import selfcheck_config, verilator_model
from ..sim.traffic import Traffic
from ..sim.verilator_engine import VerilatorUnavailable, verilator_missing_reason


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
                        help="cycles during which packets are created (default 1000)")
    parser.add_argument("--packet-flits", type=int, default=1, metavar="L",
                        help="flits per packet (default 1)")
    parser.add_argument("--seed", type=int, default=1, metavar="S")
    parser.add_argument("--hotspot", type=int, default=None, metavar="A",
                        help="hot node of --traffic hotspot (default: dense index 0)")
    parser.add_argument("--hotspot-fraction", type=float, default=0.1, metavar="F")
    parser.add_argument("--drain", type=int, default=None, metavar="N",
                        help="most cycles to wait for outstanding packets afterwards "
                             "(default: until delivered or the watchdog fires)")
    parser.add_argument("--engine", default="auto", metavar="NAME",
                        help=f"simulation engine: auto, {', '.join(sorted(ENGINES))}. "
                             f"auto (default) picks {AUTO_RULE}; --vcd needs amaranth")
    parser.add_argument("--no-trace", action="store_true",
                        help="do not watch every link (faster; routes are not checked)")
    parser.add_argument("--vcd", default=None, metavar="FILE", help="write a VCD waveform")
    router_options(parser)
    parser.add_argument("--json", action="store_true")


def _fmt(value, digits=4):
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


def _sim(args, topology):
    if args.cycles < 0:
        raise CliError(f"--cycles must be >= 0, not {args.cycles}")
    if args.drain is not None and args.drain < 0:
        raise CliError(f"--drain must be >= 0, not {args.drain}")
    if args.engine != "auto" and args.engine not in ENGINES:
        raise CliError(f"engine must be one of auto, {', '.join(sorted(ENGINES))}, "
                       f"not {args.engine!r}")
    if args.engine == "auto":
        args.engine = _auto_engine(args, topology)
    cls = engine_class(args.engine)
    traffic = Traffic(topology, args.traffic, args.rate, args.packet_flits, args.seed,
                      hotspot=args.hotspot, hotspot_fraction=args.hotspot_fraction)
    engine = cls(topology, trace_hops=not args.no_trace, vcd=args.vcd, **router_params(args))
    progress = Progress(f"sim {topology.label}", unit="cycles")
    try:
        result = engine.run(traffic, args.cycles, drain=args.drain, progress=progress.update)
    except VerilatorUnavailable as exc:
        raise CliError(f"{exc}; or use --engine amaranth") from None
    finally:
        progress.close()
    doc = result.as_dict()
    rows = [[key, _fmt(doc[key])] for key in (
        "injected", "delivered", "lost", "pending", "duplicated", "corrupted",
        "hop_mismatches", "vc_mismatches", "avg_latency", "p50_latency", "p99_latency",
        "max_latency", "avg_network_latency", "avg_hops", "offered", "throughput",
        "drain_cycles", "cycles_per_second")]
    verdict = _verdict(doc) if result.ok else (
        "NO PROGRESS (watchdog)" if result.stalled else "FAILED")
    text = "\n".join([
        f"{topology.label}, {doc['algorithm']} routing, {doc['vcs']} VC(s) x {doc['depth']} "
        f"flits; {args.traffic} traffic at {args.rate} flits/node/cycle, "
        f"{args.packet_flits}-flit packets, {args.cycles} cycles ({doc['engine']})",
        format_table(["measure", "value"], rows), verdict] + doc["errors"][:5])
    emit(args, doc, text)
    return 0 if result.ok else 1


def _auto_engine(args, topology):
    """The engine ``--engine auto`` runs (:func:`~cubefab.sim.engine_choice.choose_engine`):
    never Verilator for a VCD, which only Amaranth writes."""
    if args.vcd is not None:
        return "amaranth"
    params = router_params(args)
    config = selfcheck_config(
        topology, pattern=args.traffic, packet_flits=args.packet_flits,
        hotspot=args.hotspot, payload_width=max(32, params.pop("payload_width")), **params)
    engine, _ = choose_engine(topology.num_nodes, args.cycles,
                              cached=verilator_model(topology, config).cached,
                              available=verilator_missing_reason() is None)
    return engine


def _verdict(doc):
    """What a passing run showed: the scoreboard's checks, or the hardware checkers'."""
    if doc["duplicated"] is None:   # the self-checking fabric's own checkers
        return ("ok: every packet delivered; the hardware checkers found no wrong "
                "destination, corrupted flit or out-of-order packet")
    route = ", on its reference route" if doc["hop_mismatches"] is not None else ""
    return f"ok: every packet delivered once, intact, in order{route}"


def register(sub):
    add_topology_command(sub, "sim", "simulate a router fabric under load and check every "
                         "packet", _sim, _options)
