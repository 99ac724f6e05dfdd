"""``cubefab sim TOPO ...``: a whole fabric under synthetic load, checked packet by packet."""

import contextlib

from ..cli import (CliError, add_topology_command, emit, format_table, int_range,
                   fraction, parse_address, add_force_option, input_errors)
from .. import files
from ..progress import Progress
from ..sim import ENGINES, engine_class
from ..sim.patterns import PATTERNS
from ..sim.traffic import Traffic
from ..sim.verilator_engine import VerilatorError, verilator_missing_reason
from .limits import (MAX_VCS, MAX_DEPTH, MAX_PAYLOAD_WIDTH, MAX_PACKET_FLITS, MAX_CYCLES,
                     MAX_SEED, check_hardware, check_traffic, check_vcs_per_class,
                     check_channel_graph)


__all__ = ["register", "router_options", "router_params", "check_router_args",
           "check_engine", "PAYLOAD_DEFAULT"]


#: Default ``--payload-width``.
PAYLOAD_DEFAULT = 16


def router_options(parser):
    """Router parameters shared by the commands that build a fabric."""
    parser.add_argument("--algorithm", default=None, metavar="NAME",
                        help="routing algorithm (default: the topology's first)")
    parser.add_argument("--vcs", type=int_range(1, MAX_VCS), default=None, metavar="N",
                        help="virtual channels per link (default: what deadlock "
                             "freedom needs)")
    parser.add_argument("--depth", type=int_range(1, MAX_DEPTH), default=4, metavar="N",
                        help="buffer depth per input VC in flits (default 4)")
    parser.add_argument("--vcs-per-class", type=int_range(1, MAX_VCS), default=1,
                        metavar="N", help="VCs per VC class, a power of two; a flow keeps "
                        "one VC of each class (default 1)")
    parser.add_argument("--payload-width", type=int_range(1, MAX_PAYLOAD_WIDTH),
                        default=None, metavar="BITS",
                        help=f"payload bits per flit (default {PAYLOAD_DEFAULT})")


def check_engine(name):
    """The engine class named ``name``; CliError when it is unknown or its tools
    (Verilator, make, a C++ compiler) are missing."""
    with input_errors():
        cls = engine_class(name)
    if name == "verilator":
        reason = verilator_missing_reason()
        if reason:
            raise CliError(f"--engine verilator cannot run: {reason}; "
                           f"use --engine amaranth")
    return cls


def check_router_args(args, topology, routers, what, buffer="registers", turns="reference"):
    """Check the router options against each other and the memory the hardware of
    ``routers`` routers would take (CliError); returns the estimated seconds."""
    if turns == "reference" or args.vcs is None:
        # the turns, and the VCs deadlock freedom needs, come from every route's hops
        check_channel_graph(topology, 1, f"the reference routes of {topology.label} "
                            f"({topology.num_nodes:,} nodes)")
    check_vcs_per_class(args.vcs_per_class, args.vcs)
    with input_errors():
        topology.check_algorithm(args.algorithm)
    payload = PAYLOAD_DEFAULT if args.payload_width is None else args.payload_width
    return check_hardware(what, topology, routers, algorithm=args.algorithm, vcs=args.vcs,
                   vcs_per_class=args.vcs_per_class, depth=args.depth,
                   payload_width=payload, buffer=buffer)


def router_params(args):
    return {"algorithm": args.algorithm, "vcs": args.vcs, "depth": args.depth,
            "vcs_per_class": args.vcs_per_class,
            "payload_width": (PAYLOAD_DEFAULT if args.payload_width is None
                              else args.payload_width)}


def _options(parser):
    parser.add_argument("--traffic", default="uniform", choices=PATTERNS,
                        help="traffic pattern (default uniform)")
    parser.add_argument("--rate", type=fraction, default=0.1, metavar="R",
                        help="offered load, flits per node per cycle, 0..1 (default 0.1)")
    parser.add_argument("--cycles", type=int_range(0, MAX_CYCLES), default=1000, metavar="N",
                        help="cycles during which packets are created (default 1000)")
    parser.add_argument("--packet-flits", type=int_range(1, MAX_PACKET_FLITS), default=1,
                        metavar="L", help="flits per packet (default 1)")
    parser.add_argument("--seed", type=int_range(0, MAX_SEED), default=1, metavar="S")
    parser.add_argument("--hotspot", type=parse_address, default=None, metavar="A",
                        help="hot node of --traffic hotspot (default: dense index 0)")
    parser.add_argument("--hotspot-fraction", type=fraction, default=0.1, metavar="F")
    parser.add_argument("--drain", type=int_range(0, MAX_CYCLES), default=None, metavar="N",
                        help="most cycles to wait for outstanding packets afterwards "
                             "(default: until delivered or the watchdog fires)")
    parser.add_argument("--engine", default="amaranth", metavar="NAME",
                        help=f"simulation engine ({', '.join(sorted(ENGINES))}; "
                             f"default amaranth)")
    parser.add_argument("--no-trace", action="store_true",
                        help="do not watch every link (faster; routes are not checked)")
    parser.add_argument("--vcd", default=None, metavar="FILE", help="write a VCD waveform")
    router_options(parser)
    parser.add_argument("--json", action="store_true")
    add_force_option(parser)


def _fmt(value, digits=4):
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


def _sim(args, topology):
    cls = check_engine(args.engine)
    check_router_args(args, topology, topology.num_nodes, f"the {topology.label} fabric")
    check_traffic(topology)
    if args.vcd is not None:
        files.check_output(args.vcd)
    with input_errors():
        traffic = Traffic(topology, args.traffic, args.rate, args.packet_flits, args.seed,
                          hotspot=args.hotspot, hotspot_fraction=args.hotspot_fraction)
    with files.output_path(args.vcd) if args.vcd else contextlib.nullcontext() as vcd:
        with input_errors():
            engine = cls(topology, trace_hops=not args.no_trace, vcd=vcd,
                         **router_params(args))
        progress = Progress(f"sim {topology.label}", unit="cycles")
        try:
            result = engine.run(traffic, args.cycles, drain=args.drain,
                                progress=progress.update)
        except VerilatorError as exc:
            raise CliError(f"verilator failed: {str(exc).splitlines()[0]}") from None
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
