"""``cubefab sim TOPO ...``: a self-checking fabric under synthetic load, every flit checked."""

import contextlib

from ..cli import (CliError, add_topology_command, emit, format_table, int_range,
                   fraction, parse_address, add_force_option, input_errors)
from .. import files
from ..hdl.config import HOPS
from ..hdl.flit import HEADERS
from ..progress import Progress
from ..sim.engine_choice import AUTO_RULE, choose_engine
from ..sim.selfcheck_run import (CHECKS, DEFAULT_ROUTER, ENGINES, SELFCHECK_PAYLOAD,
                                 broadcast_hardware, run_selfcheck, selfcheck_config)
from ..sim.verilator_engine import VerilatorUnavailable, verilator_missing_reason
from ..topology.fault_routing import DEFAULT_WAYPOINTS
from ..topology.patterns import PATTERNS
from .fault_options import (add_fault_options, add_waypoints_option, failing_link_list,
                            fault_waypoints)
from .limits import (MAX_VCS, MAX_DEPTH, MAX_PAYLOAD_WIDTH, MAX_PACKET_FLITS, MAX_CYCLES,
                     MAX_SEED, check_fabric, check_hardware, check_vcs_per_class,
                     check_channel_graph)


__all__ = ["register", "router_options", "router_params", "check_router_args",
           "check_engine", "adaptive_options", "adaptive_vcs", "PAYLOAD_DEFAULT"]


#: Default ``--payload-width``.
PAYLOAD_DEFAULT = 16


def router_options(parser, payload_default=f"{PAYLOAD_DEFAULT}"):
    """Router parameters shared by the commands that build a fabric; a command that
    changes a default with ``parser.set_defaults`` has it shown in ``--help`` too."""
    parser.add_argument("--algorithm", default=None, metavar="NAME",
                        help="routing algorithm (default: the topology's first)")
    parser.add_argument("--vcs", type=int_range(1, MAX_VCS), default=None, metavar="N",
                        help="virtual channels per link (default: what deadlock "
                             "freedom needs)")
    parser.add_argument("--depth", type=int_range(1, MAX_DEPTH), default=4, metavar="N",
                        help="buffer depth per input VC in flits (default %(default)s)")
    parser.add_argument("--vcs-per-class", type=int_range(1, MAX_VCS), default=1,
                        metavar="N", help="VCs per VC class, a power of two; a flow keeps "
                        "one VC of each class (default %(default)s)")
    parser.add_argument("--payload-width", type=int_range(1, MAX_PAYLOAD_WIDTH),
                        default=None, metavar="BITS",
                        help=f"payload bits per flit (default {payload_default})")
    parser.add_argument("--header", default="every", choices=HEADERS,
                        help="where a packet's routing information (dest, src, class) "
                             "travels: in every flit (default) or in the head flit only, "
                             "body flits carrying payload in every bit but the flit type "
                             "and VC")
    parser.add_argument("--hop", default=HOPS[0], choices=HOPS,
                        help="how a flit crosses a router: buffered (default; 2 cycles a "
                             "hop) or lookahead (next router's port in the head flit, "
                             "empty buffers bypassed: 1 cycle a hop at zero load; "
                             "deterministic unicast routers)")
    adaptive_options(parser)


def adaptive_options(parser, repeatable=False):
    """``--adaptive`` and ``--adaptive-vcs`` (``repeatable``: ``--adaptive [NAME]``
    adds an adaptive curve, as ``--algorithm NAME`` a deterministic one)."""
    if repeatable:
        parser.add_argument("--adaptive", action="append", nargs="?", const="",
                            metavar="NAME", help="an adaptive curve of routing NAME "
                            "(default: the topology's first); repeatable, beside "
                            "--algorithm")
    else:
        parser.add_argument("--adaptive", action="store_true",
                            help="adaptive minimal routing over escape VCs (Duato); the "
                                 "Mcube's mroute always runs so")
    parser.add_argument("--adaptive-vcs", type=int_range(1, MAX_VCS), default=None,
                        metavar="N", help="adaptive VCs per link beside the escape VCs, a "
                        "power of two (default: --vcs-per-class)")


def adaptive_vcs(args, topology, algorithm=None, adaptive=None):
    """The ``adaptive_vcs`` the options ask for ``algorithm`` (default ``--algorithm``):
    0 for deterministic routing, else ``--adaptive-vcs`` (default ``--vcs-per-class``)
    with ``--adaptive`` (``adaptive``, when given) or an algorithm that is deadlock-free
    only adaptively (:func:`~cubefab.topology.adaptive.needs_adaptive`). Bad combinations:
    CliError."""
    from ..topology.adaptive import escape_algorithm, needs_adaptive
    adaptive = args.adaptive if adaptive is None else adaptive
    with input_errors():
        algorithm = topology.check_algorithm(args.algorithm if algorithm is None
                                             else algorithm)
    count = args.vcs_per_class if args.adaptive_vcs is None else args.adaptive_vcs
    if count & (count - 1):
        raise CliError(f"--adaptive-vcs must be a power of two, not {count}")
    if adaptive:
        with input_errors("--adaptive: "):
            escape_algorithm(topology, algorithm)
        return count
    if needs_adaptive(topology, algorithm):
        return count
    if args.adaptive_vcs is not None and not args.adaptive:
        raise CliError("--adaptive-vcs needs --adaptive")
    return 0


def check_engine(name):
    """CliError when the engine ``name`` cannot run here (Verilator, make or a C++
    compiler missing)."""
    if name == "verilator":
        reason = verilator_missing_reason()
        if reason:
            raise CliError(f"--engine verilator cannot run: {reason}; "
                           f"use --engine amaranth")


def check_router_args(args, topology, routers, what, buffer="registers", turns="reference",
                      engine=None):
    """Check the router options against each other and the memory the hardware of
    ``routers`` routers would take (CliError); returns the estimated seconds. With an
    ``engine``, the cost is that of a self-checking fabric run in it
    (:func:`~cubefab.commands.limits.check_fabric`)."""
    if turns == "reference" or args.vcs is None:
        # the turns, and the VCs deadlock freedom needs, come from every route's hops
        check_channel_graph(topology, 1, f"the reference routes of {topology.label} "
                            f"({topology.num_nodes:,} nodes)")
    check_vcs_per_class(args.vcs_per_class, args.vcs)
    with input_errors():
        topology.check_algorithm(args.algorithm)
    payload = PAYLOAD_DEFAULT if args.payload_width is None else args.payload_width
    waypoints = getattr(args, "waypoints", None)
    if waypoints is None and (getattr(args, "faults", None)
                              or getattr(args, "faulty_links", None)):
        waypoints = DEFAULT_WAYPOINTS
    router = dict(algorithm=args.algorithm, vcs=args.vcs, vcs_per_class=args.vcs_per_class,
                  depth=args.depth, payload_width=payload, buffer=buffer,
                  adaptive_vcs=adaptive_vcs(args, topology), phases=1 + (waypoints or 0))
    if engine is not None:
        return check_fabric(what, topology, engine, **router)
    return check_hardware(what, topology, routers, **router)


def router_params(args, topology):
    return {"algorithm": args.algorithm, "vcs": args.vcs, "depth": args.depth,
            "vcs_per_class": args.vcs_per_class,
            "adaptive_vcs": adaptive_vcs(args, topology),
            "payload_width": (PAYLOAD_DEFAULT if args.payload_width is None
                              else args.payload_width),
            "header": args.header,
            **({"hop": args.hop} if args.hop != HOPS[0] else {})}


def _options(parser):
    parser.add_argument("--traffic", default="uniform", choices=PATTERNS + ("broadcast",),
                        help="traffic pattern (default uniform); broadcast: every packet "
                             "a broadcast, replicated by the routers")
    parser.add_argument("--broadcast-fraction", type=fraction, default=0.0, metavar="F",
                        help="share of packets that are broadcasts, mixed into the "
                             "pattern (default 0); counters then count copies")
    parser.add_argument("--broadcast-vcs", type=int_range(1, MAX_VCS), default=None,
                        metavar="N", help="broadcast VCs per link of replicating routers "
                        "(default: what deadlock freedom needs, when there are broadcasts)")
    parser.add_argument("--broadcast-model", choices=("all-port", "one-port"),
                        default=None, help="replication of the routers: all-port (the "
                        "default) or one-port (copies one at a time in the schedule's "
                        "order; amaranth engine only)")
    parser.add_argument("--multicast-group", type=parse_address, default=None,
                        metavar="MASK",
                        help="broadcasts go only to their source's group: the nodes "
                             "sharing the source's address bits under MASK (a subcube; "
                             "multicast routers, amaranth engine only)")
    parser.add_argument("--rate", type=fraction, default=0.1, metavar="R",
                        help="offered load, flits per node per cycle, 0..1 (default 0.1)")
    parser.add_argument("--cycles", type=int_range(1, MAX_CYCLES), default=1000, metavar="N",
                        help="measured cycles, during which packets are created "
                             "(default 1000)")
    parser.add_argument("--warmup", type=int_range(0, MAX_CYCLES), default=0, metavar="N",
                        help="cycles before the measured ones (default 0)")
    parser.add_argument("--packet-flits", type=int_range(1, MAX_PACKET_FLITS), default=1,
                        metavar="L",
                        help="flits per packet (default 1)")
    parser.add_argument("--seed", type=int_range(0, MAX_SEED), default=1, metavar="S")
    parser.add_argument("--hotspot", type=parse_address, default=None, metavar="A",
                        help="hot node of --traffic hotspot (default: dense index 0)")
    parser.add_argument("--hotspot-fraction", type=fraction, default=0.1, metavar="F")
    parser.add_argument("--drain", type=int_range(0, MAX_CYCLES), default=None, metavar="N",
                        help="most cycles to wait for outstanding packets afterwards "
                             "(default 20 x nodes + 2000; the run ends once all arrived)")
    parser.add_argument("--engine", default="auto", choices=("auto",) + ENGINES,
                        help="simulation engine; both simulate the same design and give "
                             f"the same results. auto (default) picks {AUTO_RULE}, and "
                             "amaranth for --vcd")
    parser.add_argument("--vcd", default=None, metavar="FILE",
                        help="write a VCD waveform (amaranth engine)")
    add_fault_options(parser, nodes_help="faulty nodes: fault-tolerant routers route "
                      "around them by waypoints (tables loaded at run time); traffic only "
                      "between healthy nodes")
    parser.add_argument("--fail-link", type=failing_link_list, action="extend", default=[],
                        metavar="U-V@CYCLE", dest="fail_links",
                        help="a link that fails while traffic runs, before run cycle "
                             "CYCLE (from the first warm-up cycle; repeatable, or a comma "
                             "list; fault-tolerant routers): the table entries that "
                             "change are rewritten, what it drops or cuts is counted")
    add_waypoints_option(parser)
    router_options(parser, payload_default=f"{SELFCHECK_PAYLOAD}: a 24-bit creation "
                   "timestamp, an 8-bit sequence number and 8 check bits")
    parser.set_defaults(depth=DEFAULT_ROUTER["depth"],
                        vcs_per_class=DEFAULT_ROUTER["vcs_per_class"])
    parser.add_argument("--json", action="store_true")
    add_force_option(parser)


def _fmt(value, digits=4):
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


#: The rows of the text table of ``cubefab sim``.
ROWS = ("injected", "delivered", "in_flight", "unroutable") + CHECKS + (
    "avg_latency", "p50_latency", "p90_latency", "p99_latency", "max_latency",
    "offered", "throughput", "drain_cycles", "cycles_per_second")


#: The rows a run with links failing mid-run adds.
FAILURE_ROWS = ("lost_to_fault", "dropped", "cut", "table_changes", "reaction_cycles",
                "late_losses", "last_lost_created")


def _sim(args, topology):
    check_engine(args.engine)
    what = f"the {topology.label} self-checking fabric"
    check_router_args(args, topology, 1, what)   # the options, and one router's cost
    if args.hotspot is not None:
        with input_errors():
            topology.check_node(args.hotspot, "--hotspot")
    if args.vcd is not None:
        files.check_output(args.vcd)
    drain = 20 * topology.num_nodes + 2000 if args.drain is None else args.drain
    params = router_params(args, topology)
    if args.payload_width is None:
        del params["payload_width"]      # the self-checking packets' default
    waypoints = fault_waypoints(args, topology, params["adaptive_vcs"],
                                wanted=bool(args.fail_links))
    if waypoints:
        params["fault_waypoints"] = waypoints
    hardware = dict(pattern=args.traffic, packet_flits=args.packet_flits,
                    hotspot=args.hotspot, **params)
    if args.broadcast_vcs is not None:
        hardware["broadcast_vcs"] = args.broadcast_vcs
    if args.broadcast_model is not None:
        if args.traffic != "broadcast" and not args.broadcast_fraction \
                and args.broadcast_vcs is None:
            raise CliError("--broadcast-model needs broadcasts (--traffic broadcast, "
                           "--broadcast-fraction or --broadcast-vcs)")
        if args.broadcast_model == "one-port" and args.engine == "verilator":
            raise CliError("--broadcast-model one-port needs --engine amaranth (the "
                           "verilator engine runs address-strapped routers, and one-port "
                           "routers need constant node addresses)")
        hardware["broadcast_model"] = args.broadcast_model
    if args.multicast_group is not None:
        if args.traffic != "broadcast" and not args.broadcast_fraction:
            raise CliError("--multicast-group needs broadcasts to send to the groups "
                           "(--traffic broadcast or --broadcast-fraction)")
        if args.engine == "verilator" or args.broadcast_model == "one-port":
            raise CliError("--multicast-group needs --engine amaranth and the all-port "
                           "model (multicast routers have constant node addresses)")
        hardware["multicast_group"] = args.multicast_group
    if args.traffic == "broadcast" and args.broadcast_fraction:
        raise CliError("--broadcast-fraction mixes broadcasts into a unicast pattern; "
                       "--traffic broadcast is broadcasts only")
    with input_errors():        # the configuration's own checks (VCs, widths, pattern)
        built, _ = broadcast_hardware(topology, hardware, args.broadcast_fraction)
        selfcheck_config(topology, **built)
    engine, engine_choice = args.engine, "--engine " + args.engine
    if engine == "auto":
        with input_errors():
            engine, why = _auto_engine(args, topology, built)
        engine_choice = f"auto: {why}"
    check_router_args(args, topology, topology.num_nodes, what, engine=engine)
    progress = Progress(f"sim {topology.label}", unit="cycles")
    try:
        # run_selfcheck builds (and checks) the design before it simulates: its
        # ValueErrors (a pattern the network cannot take, too few VCs) are the user's
        with files.output_path(args.vcd) if args.vcd else contextlib.nullcontext() as vcd, \
                input_errors():
            doc = run_selfcheck(
                topology, engine=engine, rate=args.rate, cycles=args.cycles,
                warmup=args.warmup, drain=drain, seed=args.seed,
                hotspot_fraction=args.hotspot_fraction, vcd=vcd,
                broadcast_fraction=args.broadcast_fraction,
                progress=progress.update, faults=args.faults,
                faulty_links=args.faulty_links, fail_links=args.fail_links, **hardware)
    except VerilatorUnavailable as exc:
        raise CliError(f"{exc}; or use --engine amaranth") from None
    finally:
        progress.close()
    doc["engine_choice"] = engine_choice
    rows = [[key, _fmt(doc[key])] for key in ROWS]
    if "fail_links" in doc:   # what the links failing mid-run cost, and the reaction
        rows += [[key, _fmt(doc[key])] for key in FAILURE_ROWS]
    if "broadcasts" in doc:
        rows += [["broadcasts", _fmt(doc["broadcasts"])],
                 ["copies_delivered", _fmt(doc["copies_delivered"])]]
        rows += [[f"broadcast_latency {k}", _fmt(v)]
                 for k, v in doc["broadcast_latency"].items()]
    problems = [f"{doc[k]} {k}" for k in ("checker_errors",) + CHECKS
                + (("late_losses",) if "fail_links" in doc else ()) if doc[k]]
    adaptive = doc["adaptive_vcs"] > 0
    if doc["ok"] and "fail_links" in doc:
        verdict = (f"ok: every packet delivered once, intact, on a waypoint route of its "
                   f"fault set (before or after a failure) and VCs, or lost to a failed "
                   f"link and counted: {doc['dropped']} dropped whole, {doc['cut']} cut "
                   f"({doc['lost_to_fault']} flits); none created after a failure's cycle "
                   f"lost ({doc['unroutable']} refused at their source as unroutable)")
    elif doc["ok"]:
        verdict = ("ok: every packet and multicast copy delivered once, intact, in order, "
                   "on its reference route (a copy: its tree pruned to its group) and VCs"
                   if doc.get("multicast_group") is not None else
                   "ok: every packet and broadcast copy delivered once, intact, in order, "
                   "on its reference route (a copy: its tree) and VCs"
                   if "broadcasts" in doc else
                   f"ok: every packet delivered once, intact, in order, on its "
                   f"{'waypoint' if waypoints else 'reference'} route and VCs"
                   + (f" ({doc['unroutable']} refused at their source as unroutable)"
                      if waypoints else "") if not adaptive else
                   f"ok: every packet delivered once, intact, on ports and VCs the adaptive "
                   f"rule allows ({doc['reordered']} delivered out of order)")
    else:
        verdict = "FAILED: " + (", ".join(problems) if problems else
                                f"{doc['undelivered']} packets undelivered after the drain")
    routing = (f"{doc['algorithm']} routing, {doc['vcs']} VC(s)" if not adaptive else
               f"{doc['algorithm']} routing {escape_name(topology, doc)}, {doc['vcs']} "
               f"escape + {doc['adaptive_vcs']} adaptive VC(s)")
    if waypoints:
        count = len(doc["faulty_nodes"]) + len(doc["faulty_links"])
        routing += (f" per phase, {waypoints} waypoint(s) around nodes {doc['faulty_nodes']} and "
                    f"links {doc['faulty_links']} ({count} fault(s), guarantee <= "
                    f"{doc['guarantee']}; {doc['pairs_detoured']} pairs through waypoints, "
                    f"{doc['pairs_cut_off'] + doc['pairs_unroutable']} refused)")
        if "fail_links" in doc:
            routing += ", failing mid-run: " + ", ".join(
                f"{u}-{v} at cycle {c}" for u, v, c in doc["fail_links"])
    if doc.get("header", "every") != "every":
        routing += ", header in the head flit only"
    if doc.get("hop", HOPS[0]) != HOPS[0]:
        routing += f", {doc['hop']} hops"
    if doc.get("broadcast_vcs"):
        routing += f" + {doc['broadcast_vcs']} broadcast VC(s)"
        if doc.get("broadcast_model", "all-port") != "all-port":
            routing += f" ({doc['broadcast_model']})"
        if doc.get("multicast_group") is not None:
            routing += f", multicast to groups of mask {doc['multicast_group']}"
    text = "\n".join([
        f"{topology.label}, {routing} x {doc['depth']} "
        f"flits; {args.traffic} traffic at {args.rate} flits/node/cycle, "
        f"{args.packet_flits}-flit packets, {args.cycles} cycles",
        f"engine: {doc['engine']} ({engine_choice})",
        format_table(["measure", "value"], rows), verdict])
    emit(args, doc, text)
    return 0 if doc["ok"] else 1


def escape_name(topology, doc):
    """The escape routing of a run's (or curve's) adaptive ``algorithm``, as text (and
    why it runs adaptively when it must)."""
    from ..topology.adaptive import escape_algorithm, needs_adaptive
    text = f"adaptive over {escape_algorithm(topology, doc['algorithm'])} escape VCs"
    if needs_adaptive(topology, doc["algorithm"]):
        text += f" (the only deadlock-free way to run {doc['algorithm']})"
    return text


def _auto_engine(args, topology, hardware):
    """``(engine, why)``: the engine ``--engine auto`` runs
    (:func:`~cubefab.sim.engine_choice.choose_engine`): amaranth for a VCD, which only
    it writes, and for one-port or multicast replicating routers, which only it runs
    (constant node addresses); else by the run's size, never by the machine's cache."""
    if args.vcd is not None:
        return "amaranth", "only it writes a VCD"
    if hardware.get("broadcast_model", "all-port") != "all-port" \
            or hardware.get("multicast_group") is not None:
        return "amaranth", "only it runs routers with constant node addresses"
    return choose_engine(topology.num_nodes, args.warmup + args.cycles,
                         available=verilator_missing_reason() is None)


def register(sub):
    add_topology_command(sub, "sim", "simulate a self-checking router fabric under load "
                         "and check every flit", _sim, _options)
