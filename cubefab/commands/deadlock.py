"""``cubefab deadlock TOPO ...``: the channel dependency graph check (Dally & Seitz), with
``--adaptive`` Duato's condition for adaptive routing over escape VCs, with
``--broadcast`` the combined graph of unicast and broadcast replication, or with
``--faults``/``--faulty-links``/``--waypoints`` the waypoint routing around one fault set
(:mod:`cubefab.topology.fault_routing`): every healthy pair delivered and the graph with
one VC class set per phase acyclic."""

from ..cli import (add_json_option, CliError, add_topology_command, check_size, emit, format_table, int_range,
                   input_errors)
from ..progress import working
from .fault_options import (add_fault_options, check_fault_options, check_route_table,
                            route_table_hops)
from ..hdl.config import HARDWARE_DEFAULTS, RouterConfig, deadlock_proof
from ..hdl.options import ALL_PORT, ONE_PORT
from ..topology.broadcast_deadlock import BUFFERED as BUFFERED_SCHEME, SCHEMES
from .limits import MAX_VCS, check_channel_graph, check_memory
from .router_options import (add_adaptive_options, add_algorithm_option, add_vcs_option,
                             add_vcs_per_class_option, add_waypoints_option,
                             router_config, router_errors)


__all__ = ["register"]


#: Measured: about 15 us per channel to build and search the graph.
SECONDS_PER_CHANNEL = 15e-6
#: Measured (MC(2,2), 1.6 M states, 9.7 s): about 6 us per (destination, node, class)
#: state of the extended graph, and about 200 bytes.
SECONDS_PER_STATE = 6e-6
BYTES_PER_STATE = 200
#: Most (source, node) pairs whose tree routing ``--broadcast`` evaluates: one per node
#: for each representative source of a translation class. Measured: about 45 us a pair
#: with the graph (Mcube(10), 2**20 pairs, 47 s; DLH(8,6) 4 s).
MAX_TREE_PAIRS = 1 << 20
SECONDS_PER_TREE_PAIR = 45e-6


def _options(parser):
    # the router options of `sim` (cubefab.commands.router_options): the same options
    # describe the same router, and this command proves it (Duato's condition for an
    # adaptive one, as the Mcube's mroute always is)
    add_algorithm_option(parser)
    add_vcs_option(parser, help="virtual channels per link (default: what the VC "
                                "assignment needs); with adaptive routing the escape VCs")
    add_vcs_per_class_option(parser)
    add_adaptive_options(parser)
    parser.set_defaults(router_defaults=HARDWARE_DEFAULTS, depth=HARDWARE_DEFAULTS.depth,
                        payload_width=None)
    parser.add_argument("--broadcast", action="store_true",
                        help="check unicast plus broadcast replication: the broadcast trees "
                             "on their own VC class (combined channel dependency graph; "
                             "with --adaptive, Duato's extended graph beside them)")
    parser.add_argument("--broadcast-vcs", type=int_range(1, MAX_VCS), default=None,
                        metavar="N", help="with --broadcast: broadcast VCs (default: what "
                                          "the broadcast VC rule needs)")
    parser.add_argument("--replication", choices=SCHEMES, default=BUFFERED_SCHEME,
                        help="with --broadcast: buffered, whole-packet replication (the "
                             "routers' scheme; default) or wormhole, lock-step replication")
    parser.add_argument("--model", choices=(ALL_PORT, ONE_PORT), default=None,
                        help="with --broadcast: the trees of all-port replication (the "
                             "default) or of the one-port schedules")
    add_fault_options(parser, nodes_help="faulty nodes: prove the waypoint routing around "
                      "them (with --faulty-links and --waypoints)")
    add_waypoints_option(parser)
    add_json_option(parser)


def _deadlock(args, topology):
    with input_errors():
        topology.check_algorithm(args.algorithm)
    faulty = bool(args.faults or args.faulty_links or args.waypoints is not None)
    adaptive_given = args.adaptive or args.adaptive_vcs is not None
    if args.broadcast:
        if faulty:
            return _faulty(args, topology, broadcast=True)
        if adaptive_given:
            return _adaptive_broadcast(args, topology)
        return _broadcast(args, topology)
    if (args.broadcast_vcs is not None or args.replication != BUFFERED_SCHEME
            or args.model is not None):
        raise CliError("--broadcast-vcs, --replication and --model need --broadcast")
    if faulty:
        return _faulty(args, topology)
    check_channel_graph(topology, 1)      # what finding the VCs needed takes
    config = router_config(args, topology)      # the router `sim` builds
    if config.adaptive:
        return _adaptive(args, topology, config)
    check_channel_graph(topology, config.vc_classes)
    channels = topology.num_nodes * topology.degree * config.vc_classes
    with working(f"channel dependency graph of {topology.label}",
                 channels * SECONDS_PER_CHANNEL):
        report = deadlock_proof(config)
    doc = {**report.as_dict(), "router": config.as_dict()}
    rows = [["channels (link, VC)", report.channels], ["dependencies", report.dependencies],
            ["VCs checked", report.vcs], ["VCs needed", report.describe_need() if report.rule_suffices else "none suffices"],
            ["seconds", f"{report.seconds:.2f}"]]
    verdict = ("deadlock-free: the channel dependency graph is acyclic"
               if report.deadlock_free else
               f"CAN DEADLOCK: dependency cycle {report.describe_cycle()}")
    if not report.rule_suffices:
        verdict += (f"\nno number of VCs suffices under the rule {report.RULE}; "
                    f"adaptive routing over escape VCs may: add --adaptive")
    emit(args, doc, f"{topology.label}, {report.algorithm} routing\n"
         + format_table(["", "value"], rows) + "\n" + verdict)
    return 0 if report.deadlock_free else 1


def _adaptive(args, topology, config):
    """Duato's condition for the adaptive routers of ``config``."""
    from .sim import escape_name
    classes = config.vc_classes
    states = _check_extended_graph(topology, classes)
    with working(f"extended channel dependency graph of {topology.label}",
                 states * SECONDS_PER_STATE):
        report = deadlock_proof(config)
    rows = [["escape routing", report.escape], ["escape classes", report.escape_classes],
            ["adaptive VCs", report.adaptive_vcs], ["VCs per link", report.vcs],
            ["escape channels", report.channels], ["states (dest, node, class)", report.states],
            ["graph edges", report.dependencies], ["seconds", f"{report.seconds:.2f}"]]
    verdict = ("deadlock-free (Duato): the escape routing reaches every destination and "
               "its extended channel dependency graph is acyclic"
               if report.deadlock_free else
               f"CAN DEADLOCK: {report.describe_cycle()}")
    emit(args, {**report.as_dict(), "router": config.as_dict()},
         f"{topology.label}, {report.algorithm} routing "
         f"{escape_name(topology, report.as_dict())}\n"
         + format_table(["", "value"], rows) + "\n" + verdict)
    return 0 if report.deadlock_free else 1


def _unicast_classes(args, topology):
    """The unicast VC classes of ``--vcs`` and ``--vcs-per-class`` (None without
    ``--vcs``), as the library checks them (CliError)."""
    with router_errors():
        if args.vcs is None:
            RouterConfig.default_vcs(topology, args.algorithm, args.vcs_per_class)
            return None
        return RouterConfig.for_topology(topology, algorithm=args.algorithm, vcs=args.vcs,
                                         vcs_per_class=args.vcs_per_class).vc_classes


def _check_extended_graph(topology, classes):
    """The states of Duato's extended graph of ``topology`` with ``classes`` escape
    classes, refused (CliError) above the memory limit."""
    states = topology.num_nodes ** 2 * classes
    check_memory(f"the extended channel dependency graph of {topology.label} "
                 f"({states:,} states)", states * BYTES_PER_STATE)
    return states


def _check_trees(topology):
    """The sources whose broadcast trees the proof builds (one per translation
    class), refused (CliError) above :data:`MAX_TREE_PAIRS` (source, node) pairs."""
    from ..topology.broadcast_tree import tree_algorithm
    from ..topology.deadlock import translation_mask
    with input_errors():
        tree_algorithm(topology)
    nodes = topology.num_nodes
    sources = nodes >> bin(translation_mask(topology)).count("1") if nodes > 1 else 1
    check_size(f"the broadcast trees of {topology.label}", sources * nodes,
               MAX_TREE_PAIRS, "(source, node) pairs", "use a smaller network")
    return sources


def _trees_name(topology, model):
    from ..topology.broadcast_tree import one_port_tree, tree_algorithm
    return (tree_algorithm(topology) if model == ALL_PORT else
            f"one-port: {one_port_tree(topology, 0).algorithm}")


def _adaptive_broadcast(args, topology):
    """Duato's condition beside the broadcast trees: the adaptive replicating routers
    that ``sim`` builds with the same options."""
    from .sim import escape_name
    from ..topology.broadcast_deadlock import check_adaptive_broadcast
    if args.replication != BUFFERED_SCHEME:
        raise CliError("--replication wormhole is a deterministic router's comparison: "
                       "adaptive routers replicate buffered (drop --replication or "
                       "--adaptive)")
    model = args.model or ALL_PORT
    sources = _check_trees(topology)
    config = router_config(args, topology)      # the unicast part `sim` builds
    states = _check_extended_graph(topology, config.vc_classes)
    nodes = topology.num_nodes
    with working(f"extended channel dependency graph and broadcast trees of "
                 f"{topology.label}", states * SECONDS_PER_STATE
                 + sources * nodes * SECONDS_PER_TREE_PAIR):
        with input_errors():
            report = check_adaptive_broadcast(topology, config.algorithm,
                                              config.vc_classes, config.adaptive_vcs,
                                              args.broadcast_vcs, model)
    rows = [["escape routing", report.escape], ["escape classes", report.escape_classes],
            ["adaptive VCs", report.adaptive_vcs], ["broadcast VCs", report.broadcast_vcs],
            ["replication", f"{report.scheme}, {report.model}"],
            ["graph vertices", report.vertices],
            ["states (dest, node, class)", report.states],
            ["adaptive (extended) edges", report.adaptive_dependencies],
            ["broadcast dependencies", report.broadcast_dependencies],
            ["seconds", f"{report.seconds:.2f}"]]
    verdict = ("deadlock-free: Duato's condition holds on the escape VCs and the "
               "broadcast trees' channel dependency graph is acyclic"
               if report.deadlock_free else f"CAN DEADLOCK: {report.describe_cycle()}")
    emit(args, report.as_dict(), f"{topology.label}, {report.algorithm} routing "
         f"{escape_name(topology, report.as_dict())}, broadcast trees "
         f"({_trees_name(topology, model)})\n" + format_table(["", "value"], rows)
         + "\n" + verdict)
    return 0 if report.deadlock_free else 1


def _broadcast(args, topology):
    from ..topology.broadcast_deadlock import check_broadcast
    model = args.model or ALL_PORT
    if model == ONE_PORT and args.replication != BUFFERED_SCHEME:
        raise CliError("--model one-port sends one copy at a time: --replication "
                       "wormhole applies to all-port replication only")
    check_channel_graph(topology, 1)
    nodes = topology.num_nodes
    sources = _check_trees(topology)
    classes = _unicast_classes(args, topology)
    with input_errors():
        unicast = classes or RouterConfig.default_vcs(topology, args.algorithm)
    check_channel_graph(topology, unicast + (args.broadcast_vcs or unicast))
    with working(f"unicast and broadcast channel dependency graph of {topology.label}",
                 2 * nodes * topology.degree * unicast * SECONDS_PER_CHANNEL
                 + sources * nodes * SECONDS_PER_TREE_PAIR):
        with input_errors():
            report = check_broadcast(topology, args.algorithm, classes, args.broadcast_vcs,
                                     args.replication, model)
    rows = [["unicast VCs", report.unicast_vcs], ["broadcast VCs", report.broadcast_vcs],
            ["replication", f"{report.scheme}, {report.model}"],
            ["channels (link, VC)", report.channels],
            ["unicast dependencies", report.unicast_dependencies],
            ["broadcast dependencies", report.broadcast_dependencies],
            ["seconds", f"{report.seconds:.2f}"]]
    verdict = ("deadlock-free: the combined unicast + broadcast channel dependency graph "
               "is acyclic" if report.deadlock_free else
               f"CAN DEADLOCK: dependency cycle {report.describe_cycle()}")
    if report.cycle and all(step[-1] == "unicast" for step in report.cycle):
        verdict += ("\nthe unicast routing deadlocks on its own (see `cubefab deadlock` "
                    "without --broadcast; another --algorithm may not)")
    trees = _trees_name(topology, model)
    emit(args, report.as_dict(), f"{topology.label}, {report.algorithm} routing, broadcast "
         f"trees ({trees})\n" + format_table(["", "value"], rows)
         + "\n" + verdict)
    return 0 if report.deadlock_free else 1

def _flood_options(args):
    """The broadcast options of fault-tolerant routers (CliError): they flood the healthy
    tree on one broadcast VC, buffered."""
    if args.broadcast_vcs not in (None, 1):
        raise CliError(f"--broadcast-vcs must be 1 with --waypoints (fault-tolerant routers "
                       f"flood the healthy network's spanning tree on one broadcast VC), "
                       f"not {args.broadcast_vcs}")
    if args.replication != BUFFERED_SCHEME:
        raise CliError("--replication wormhole cannot be combined with --waypoints "
                       "(fault-tolerant routers replicate buffered)")


def _flood_proof(topology, faults, routing):
    """The flood of fault-tolerant replicating routers beside their waypoint routing:
    the healthy tree, its flood's dependencies and whether the union with the
    routing's graph is acyclic (CliError where the healthy network is disconnected);
    rows, doc, verdict and the verdict's truth."""
    from ..topology.fault_broadcast import (check_flood_beside_waypoints,
                                            flood_dependency_graph, healthy_tree)
    try:
        tree = healthy_tree(topology, faults)
    except ValueError as error:
        raise CliError(f"--broadcast: the faults leave the healthy network disconnected, "
                       f"so broadcasts cannot flood it: {error}") from None
    graph = flood_dependency_graph(tree)
    free, cycle = check_flood_beside_waypoints(routing, tree)
    rows = [["flood tree (healthy nodes, links)",
             f"{len(tree.nodes)}, {len(tree.nodes) - 1} (root {tree.root})"],
            ["flood channels, dependencies (1 broadcast VC)",
             f"{graph.number_of_nodes()}, {graph.number_of_edges()}"]]
    doc = {"flood": {"root": tree.root, "healthy_nodes": len(tree.nodes),
                     "tree_ports": {str(a): m for a, m in sorted(tree.ports.items())},
                     "channels": graph.number_of_nodes(),
                     "dependencies": graph.number_of_edges(), "deadlock_free": free,
                     "cycle": None if free else [list(c) for c in cycle]}}
    verdict = ("deadlock-free: the flood's dependencies on a broadcast VC of its own, "
               "joined with the waypoint routing's, are acyclic"
               if free else f"CAN DEADLOCK: dependency cycle {cycle}")
    return rows, doc, verdict, free


def _faulty(args, topology, broadcast=False):
    from ..topology.fault_routing import (DEFAULT_WAYPOINTS, FaultSet, check_waypoint_deadlock,
                                          guarantee_bound, plan_waypoints)
    check_fault_options(topology, args)
    if broadcast:
        _flood_options(args)
    for option, given in (("--adaptive", args.adaptive), ("--vcs", args.vcs is not None),
                          ("--adaptive-vcs", args.adaptive_vcs is not None)):
        if given:
            raise CliError(f"{option} does not apply to the waypoint routing around faults "
                           f"(it uses one VC class set per phase)")
    waypoints = DEFAULT_WAYPOINTS if args.waypoints is None else args.waypoints
    with input_errors():
        faults = FaultSet(topology, args.faults, args.faulty_links)
        bound = guarantee_bound(topology)
    check_route_table(topology, args.algorithm)
    hops = route_table_hops(topology)
    with working(f"waypoint routing of {topology.label} around {len(faults)} fault(s)",
                 topology.num_nodes ** 2 * hops * 1e-6):
        routing = plan_waypoints(topology, faults, waypoints, args.algorithm)
        report = check_waypoint_deadlock(routing)
    refused_within = routing.guaranteed and bool(routing.cut_off or routing.unroutable)
    doc = report.as_dict()
    doc.update({"guarantee": bound, "faults": len(faults), "guaranteed": routing.guaranteed,
                "waypoints_needed": routing.waypoints_needed,
                "detoured_pairs": routing.detoured,
                "cut_off": [list(p) for p in routing.cut_off],
                "unroutable": [list(p) for p in routing.unroutable],
                "delivered": not refused_within})
    rows = [["faults (nodes + links)", f"{len(faults)} (guarantee <= {bound})"],
            ["waypoints in header", waypoints],
            ["waypoints needed", routing.waypoints_needed],
            ["pairs through waypoints", routing.detoured],
            ["pairs cut off", len(routing.cut_off)],
            ["pairs unroutable (> W waypoints)", len(routing.unroutable)],
            ["VCs (phases x classes)", f"{report.vcs} ({waypoints + 1} x {report.classes})"],
            ["channels (link, VC)", report.channels], ["dependencies", report.dependencies],
            ["seconds", f"{report.seconds:.2f}"]]
    lines = [f"{topology.label}, {report.algorithm} routing, waypoint routing around "
             f"nodes {list(faults.nodes)}, links {[list(x) for x in faults.links]}",
             format_table(["", "value"], rows)]
    for name, pairs in (("cut off (no fault-free path)", routing.cut_off),
                        ("refused (needs more than --waypoints)", routing.unroutable)):
        if pairs:
            shown = " ".join(f"{s}->{t}" for s, t in pairs[:20])
            more = f" ... ({len(pairs)} pairs)" if len(pairs) > 20 else ""
            lines.append(f"{name}: {shown}{more}")
    if refused_within:
        lines.append(f"NOT DELIVERED: pairs refused within the guarantee; raise --waypoints")
    flood_free, flood = True, None
    if broadcast:
        flood_rows, flood_doc, flood, flood_free = _flood_proof(topology, faults, routing)
        rows += flood_rows
        doc.update(flood_doc)
        lines[1] = format_table(["", "value"], rows)
    lines.append("deadlock-free: the channel dependency graph is acyclic"
                 if report.deadlock_free else
                 f"CAN DEADLOCK: dependency cycle {report.describe_cycle()}")
    if flood is not None:
        lines.append(flood)
    emit(args, doc, "\n".join(lines))
    return 0 if report.deadlock_free and flood_free and not refused_within else 1


def register(sub):
    add_topology_command(sub, "deadlock", "prove a routing + VC configuration deadlock-free "
                         "(channel dependency graph; --adaptive: Duato's condition; --broadcast: "
                         "with broadcast replication)",
                         _deadlock, _options)
