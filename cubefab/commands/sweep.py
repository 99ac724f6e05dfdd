"""``cubefab sweep``: latency-throughput curves of the self-checking fabric.

``cubefab sweep TOPO [parameters] ...`` sweeps one network; ``cubefab sweep
hypercube:n=6 dualcube:m=3 ...`` several, named as ``cubefab compare`` names them, with
the same router variants (algorithms, adaptive, fault counts) on each. The points
(networks x variants x offered loads x seeds) run as one set of ``dask.distributed``
tasks on an embedded local cluster (``--jobs`` workers) or on a running one
(``--scheduler``); see :mod:`cubefab.sim.sweep`. ``--plot`` draws the document that
``--json`` prints (:mod:`cubefab.figures`).
"""

import sys

from ..cli import (CliError, add_force_option, add_json_option, add_plot_option,
                   add_topology_command, check_plot_option, emit, format_table, fraction,
                   input_errors, int_range, plot_written)
from .. import figures
from ..cluster import ClusterError
from ..progress import Progress, build_stages
from ..hdl.config import HARDWARE_DEFAULTS
from ..hdl.selfcheck import SelfCheckConfig
from ..sim.run_spec import Engine, Schedule, SelfCheckRun, Stimulus
from ..sim.selfcheck_run import ENGINES
from ..sim.compare import network_name, parse_network
from ..sim.sweep import parse_rates, sweep_csv, sweep_runs
from ..tools.verilator import VerilatorUnavailable, cache_root
from ..topology.deadlock import DeadlockError
from ..topology.patterns import PATTERNS
from .compare import network_argument
from .limits import check_fabric
from .fault_options import check_route_table, fault_waypoints
from .router_options import adaptive_vcs, add_router_options, router_config
from .run_options import (SWEEP_LENGTH, add_cluster_options, add_hotspot_fraction_option,
                          add_length_options, add_packet_flits_option, add_seed_option,
                          add_traffic_option, check_cluster_options, cluster_client,
                          packet_flits)
from .sim import check_engine, escape_name

#: Most offered loads, and most seeds per point, in one sweep.
MAX_RATES = 1000
MAX_SEEDS = 1000
#: Most random faults of ``--faults``.
MAX_SWEEP_FAULTS = 16


__all__ = ["register"]

#: The router parts of ``cubefab sweep``'s curves.
SWEEP_PARTS = ("algorithm", "vcs-per-class", "adaptive", "waypoints", "header", "hop")


def register(sub):
    add_topology_command(sub, "sweep", "latency and accepted throughput against offered "
                         "load, beside the channel-load bound, of one network (TOPO and "
                         "its parameters) or several (FAMILY:P=V,... each)", _sweep,
                         _options, networks=_networks_form)


def _networks_form(parser):
    """``cubefab sweep NETWORK... [options]``: several networks in one sweep."""
    parser.add_argument("networks", nargs="+", type=network_argument, metavar="NETWORK",
                        help="a network as FAMILY:P=V,...: hypercube:n=N, "
                             "metacube:k=K,m=M, dualcube:m=M, dlh:m=M,d=D, mcube:k=K, "
                             "foldedcube:n=N (as cubefab compare names them); every router "
                             "variant runs on each")
    _options(parser)
    parser.set_defaults(_handler=_sweep_networks)


def _options(parser):
    add_traffic_option(parser, PATTERNS)
    parser.add_argument("--rates", required=True, metavar="A:B:STEP",
                        help="offered loads in flits/node/cycle: a:b:step or r1,r2,...")
    parser.add_argument("--engine", default="verilator", choices=ENGINES,
                        help="simulation engine (default verilator)")
    add_length_options(parser, SWEEP_LENGTH)
    add_seed_option(parser, "base seed; the first run of every point uses it")
    parser.add_argument("--seeds", type=int_range(1, MAX_SEEDS), default=1, metavar="N",
                        help="runs per point, seeds derived from --seed; with N > 1 every "
                        "figure is the mean with a 95%% confidence interval (default 1)")
    add_packet_flits_option(parser, fields=True)
    add_router_options(parser, HARDWARE_DEFAULTS, SWEEP_PARTS, repeatable=True,
                       payload_help="the router verilog and synth build; a packet's "
                                    "24-bit creation timestamp, 8-bit sequence number "
                                    "and check bits fill its first data bits")
    add_hotspot_fraction_option(parser)
    parser.add_argument("--faults", type=int_range(0, MAX_SWEEP_FAULTS), default=None,
                        metavar="N", help="fault-tolerant routers: one curve per count 0, "
                        "1, .., N of random faulty nodes and links (one set a curve, "
                        "drawn from --seed)")
    add_cluster_options(parser)
    out = parser.add_mutually_exclusive_group()
    add_json_option(out)
    out.add_argument("--csv", action="store_true",
                     help="print the points as CSV on stdout instead of the table "
                          "(default: the table)")
    add_plot_option(parser, "draw the curves")
    add_force_option(parser)


def _rates(text):
    """The offered loads of ``--rates`` (at most :data:`MAX_RATES`), or CliError."""
    parts = text.replace(":", ",").split(",")
    allowed = "a:b:step (0 < step, a <= b) or r1,r2,... with every rate in (0, 1]"
    try:
        values = [fraction(p) for p in parts]
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


def _check(args):
    """Reject bad options before any work starts."""
    rates = _rates(args.rates)
    check_cluster_options(args)
    if args.plot is not None:
        check_plot_option(args.plot)
    return rates


#: The ``--algorithm`` (and ``--adaptive``) name of each network's default routing.
DEFAULT_ALGORITHM = "default"


def _algorithm(topology, name):
    """The algorithm ``name`` names on ``topology`` (None, empty or
    :data:`DEFAULT_ALGORITHM`: its default)."""
    return topology.check_algorithm(None if name in (None, "", DEFAULT_ALGORITHM)
                                    else name)


def _variants(args):
    """The router variants the options ask for, as ``(algorithm name or None,
    adaptive)``: one per ``--algorithm`` (deterministic, unless the algorithm is
    deadlock-free only adaptively), one per ``--adaptive``."""
    names = args.algorithm or ([] if args.adaptive else [None])
    return [(name, False) for name in names] + [(name, True)
                                                for name in args.adaptive or []]


def variant_words(name, adaptive):
    """A variant as the options named it: ``ecube``, ``default routing``, ``adaptive``,
    ``adaptive ecube`` (the same words on every network of a sweep)."""
    named = name not in (None, "", DEFAULT_ALGORITHM)
    if adaptive:
        return f"adaptive {name}" if named else "adaptive"
    return name if named else "default routing"


def _routings(args, topology):
    """The curves' (algorithm, adaptive_vcs) on ``topology``, one per variant of
    :func:`_variants` (CliError for bad combinations)."""
    with input_errors():
        named = [(_algorithm(topology, name), adaptive) for name, adaptive in
                 _variants(args)]
    return [(name, adaptive_vcs(args, topology, name, adaptive))
            for name, adaptive in named]


def _curve_routers(args, topology, routings, waypoints=0):
    """The routers of every curve (CliError), after the engine's tools and what each
    self-checking fabric costs are checked."""
    check_engine(args.engine)
    said = ({"fault_waypoints": "--faults"}
            if args.faults is not None and args.waypoints is None else None)
    configs = []
    for name, count in routings:
        config = router_config(args, topology, routers=topology.num_nodes, algorithm=name,
                               adaptive=bool(count), fault_tolerant=bool(waypoints),
                               said=said)
        check_fabric(f"the {topology.label} self-checking fabric", config, args.engine)
        configs.append(config)
    return configs


def _curve_run(args, router):
    """The run that every point of ``router``'s curve varies (offered load, seed)."""
    design = SelfCheckConfig(router, pattern=args.traffic,
                             packet_flits=packet_flits(args, router.layout))
    return SelfCheckRun(design, Schedule(args.cycles, args.warmup),
                        Stimulus(seed=args.seed, hotspot_fraction=args.hotspot_fraction),
                        engine=Engine(args.engine))


def _fault_counts(args, topology, algorithms):
    """The fault counts of ``--faults`` (None without it) and the routers' waypoints,
    after checking them (CliError)."""
    from ..topology.fault_routing import fault_elements
    if args.faults is None and args.waypoints is None:
        return None, 0
    waypoints = fault_waypoints(args, topology, wanted=args.faults is not None)
    if args.faults is None:
        return None, waypoints
    elements = len(fault_elements(topology))
    if args.faults > elements:
        raise CliError(f"--faults must be at most the {elements} nodes and links of "
                       f"{topology.label}, not {args.faults}")
    check_route_table(topology, algorithms[0][0])
    return list(range(args.faults + 1)), waypoints


def _network_runs(args, topology):
    """The template runs of one network's curves, and its fault counts (CliError)."""
    algorithms = _routings(args, topology)
    fault_counts, waypoints = _fault_counts(args, topology, algorithms)
    routers = _curve_routers(args, topology, algorithms, waypoints)
    with input_errors():
        return [_curve_run(args, router) for router in routers], fault_counts


def _sweep(args, topology):
    """``cubefab sweep TOPO ...``: one network; one curve prints as itself."""
    params = {p: getattr(args, f"param_{p}") for p in args._parameters}
    return _run(args, [(network_name(args.family, params), topology)], one=True)


def _sweep_networks(args):
    """``cubefab sweep NETWORK... ``: every network, each once; a bad one is the
    error, naming it as typed."""
    networks, seen = [], {}
    for text, family, params in args.networks:
        with input_errors(f"argument NETWORK {text!r}: "):
            _, _, topology = parse_network(text)
        if topology in seen:
            raise CliError(f"argument NETWORK {text!r}: the same network as "
                           f"{seen[topology]!r}; give each network once")
        seen[topology] = text
        networks.append((network_name(family, params), topology))
    return _run(args, networks, one=False)


def _plans(args, networks, one):
    """The template runs of every network's curves, the fault counts, and each run's
    ``{"network": name, "variant": words}`` (CliError; with several networks the
    message names the network)."""
    runs, fault_counts, tags = [], None, []
    variants = [variant_words(*v) for v in _variants(args)]
    for name, topology in networks:
        try:
            network_runs, fault_counts = _network_runs(args, topology)
        except CliError as exc:
            raise (exc if one else CliError(f"{name}: {exc}")) from None
        runs += network_runs
        tags += [{"network": name, "variant": v} for v in variants]
    return runs, fault_counts, tags


def _run(args, networks, one):
    """Sweep ``networks`` (``[(name, topology)]``) in one set of tasks and report."""
    rates = _check(args)
    runs, fault_counts, tags = _plans(args, networks, one)
    what = networks[0][1].label if len(networks) == 1 else f"{len(networks)} networks"
    bar = Progress(f"sweep {what} {args.traffic}", unit="points")
    building = build_stages(f"the {what} node" if len(networks) == 1
                            else "each network's node", cache_root())
    try:
        with cluster_client(args) as client:
            results = sweep_runs(runs, rates, seeds=args.seeds, fault_counts=fault_counts,
                                 client=client, progress=bar.update,
                                 build_progress=building)
    except (ClusterError, VerilatorUnavailable, DeadlockError) as exc:
        raise CliError(str(exc)) from None
    finally:
        bar.close()
    per_run = len(fault_counts) if fault_counts is not None else 1   # curves per run
    results = [{**tag, **r} for tag, r in
               zip((t for t in tags for _ in range(per_run)), results)]
    doc = results[0] if one and len(results) == 1 else {"curves": results}
    if args.plot:
        figures.write(doc, args.plot)
    if args.csv:
        sys.stdout.write(sweep_csv(results))
        return _status(results)
    emit(args, doc, _text(results, args.plot, dict((t.label, t) for _, t in networks)))
    return _status(results)


def _status(results):
    return 0 if all(r["ok"] for r in results) else 1


def _text(results, plot, topologies):
    """The report: a table per curve, headed by its network (``topologies``: by
    label, for the escape VCs' names)."""
    blocks = []
    for r in results:
        topology = topologies[r["topology"]]
        b = r["bound"]
        rows = [[f"{p['rate']:.3f}", _figure(p, "offered", 4), _figure(p, "throughput", 4),
                 _figure(p, "avg_latency", 2), p["errors"]] for p in r["points"]]
        routing = f"{r['algorithm']} routing"
        if r["adaptive_vcs"]:
            routing += " " + escape_name(topology, r)
        if "faults" in r:
            routing += (f", {r['faults']} random fault(s): nodes {r['faulty_nodes']}, "
                        f"links {r['faulty_links']}")
        blocks.append("\n".join([
            f"{r['network']} = {r['topology']}, {r['traffic']} traffic, {routing}, "
            f"{r['engine']} engine, {r['cycles']} cycles after {r['warmup']} warm-up"
            + (f", {len(r['seeds'])} seeds per point (mean, 95% confidence interval)"
               if len(r["seeds"]) > 1 else ""),
            format_table(["rate", "offered", "accepted", "avg latency", "errors"], rows),
            f"average hops {b['average_hops']:.4f}; channel-load bound "
            f"{b['saturation_bound']:.4f} ({b['limited_by']}; max channel load "
            f"{b['max_channel_load']:.4f}"
            + (f"; the fault set's waypoint routes, {b['routable_share']:.4f} of the "
               f"draws routable, rate bound {b['rate_bound']:.4f}"
               if "rate_bound" in b else "") + ")",
            _saturation_line(r),
            "errors: none" if r["ok"] else "ERRORS FOUND by the checkers",
        ]))
    if plot:
        blocks.append(plot_written(plot))
    return "\n\n".join(blocks)


def _figure(point, key, digits):
    """A point's figure, with its 95 % interval when it ran several seeds."""
    value = point[key]
    if value is None:
        return "-"
    interval = point.get(key + "_ci95")
    if interval is None:
        return f"{value:.{digits}f}"
    return f"{value:.{digits}f} [{interval[0]:.{digits}f}, {interval[1]:.{digits}f}]"


def _saturation_line(curve):
    """Where the curve saturates, or that it does not within the loads run."""
    bound = curve["bound"]["saturation_bound"]
    if not curve["saturated"]:
        top = max(p["rate"] for p in curve["points"])
        best = curve["max_throughput"]
        return (f"not saturated up to offered {top}: highest accepted throughput "
                + ("-" if best is None else f"{best:.4f}" + (
                    f" = {100 * best / bound:.1f}% of the bound" if bound else "")))
    return (f"saturation throughput {curve['saturation_throughput']:.4f} = "
            f"{100 * curve['fraction_of_bound']:.1f}% of the bound, saturates at "
            f"offered {curve['saturation_rate']}")
