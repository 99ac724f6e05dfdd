"""``cubefab paths`` (disjoint paths and fault-tolerant routing) and ``cubefab broadcast``
(broadcast schedules, validated, beside the papers' counts and the lower bounds)."""

from ..hdl.options import ALL_PORT, ONE_PORT
from ..cli import (CliError, add_force_option, add_json_option, add_plot_option,
                   add_topology_command, check_plot_option, emit, format_table,
                   input_errors, int_range, parse_address, plot_written)
from .limits import MAX_DEPTH, check_flow_paths
from ..progress import working
from .hardware_engine import add_engine_option, hardware_engine
from .. import files
from .fault_options import add_fault_options, check_fault_options
from ..topology.adaptive import escape_algorithm, needs_adaptive
from ..topology.paths import disjoint_paths, check_disjoint_paths
from ..topology.faults import fault_free_path
from ..topology.broadcast_tree import one_port_tree
from ..topology.broadcast import (MODELS, broadcast_schedule, validate_schedule,
                                  lower_bounds)


__all__ = ["register", "paths_document", "broadcast_document"]

#: Schedules of networks up to this size are listed transfer by transfer in text output.
LIST_TRANSFERS = 64


def register(sub):
    add_topology_command(sub, "paths", "internally disjoint paths from --src to --dst, and "
                         "a fault-free path with --faults", _paths, _paths_options)
    add_topology_command(sub, "broadcast", "a validated one-to-all broadcast schedule from "
                         "--src, beside the paper's step count and the lower bounds",
                         _broadcast, _broadcast_options)


def _paths_options(parser):
    parser.add_argument("--src", type=parse_address, required=True, metavar="A")
    parser.add_argument("--dst", type=parse_address, required=True, metavar="B")
    add_fault_options(parser, nodes_help="faulty nodes: also find a path that avoids them")
    add_plot_option(parser, "draw the paths over the network")
    add_json_option(parser)
    add_force_option(parser)


def _check_plot(args, topology):
    """Refuse a bad --plot before the work starts."""
    if args.plot is not None:
        from ..plots import MAX_PLOT_NODES
        check_plot_option(args.plot)
        if topology.num_nodes > MAX_PLOT_NODES:
            raise CliError(f"{topology.label} has {topology.num_nodes} nodes; plots are "
                           f"drawn for networks up to {MAX_PLOT_NODES} nodes")


def _by_flow(topology):
    """Whether :func:`disjoint_paths` finds ``topology``'s paths by minimum-cost flow
    (no construction of a paper)."""
    return topology.disjoint_paths_construction() is None


def paths_document(topology, s, t, faulty_nodes=(), faulty_links=()):
    """The ``--json`` document of ``cubefab paths``."""
    s = topology.check_node(s, "src")
    t = topology.check_node(t, "dst")
    paths = disjoint_paths(topology, s, t)
    problems = check_disjoint_paths(topology, s, t, paths)
    doc = {"topology": topology.label, "src": s, "dst": t,
           "distance": topology.distance(s, t), "paths": paths,
           "lengths": [len(p) - 1 for p in paths],
           "longest": max(len(p) - 1 for p in paths),
           "method": topology.disjoint_paths_method(s, t, paths),
           "verified": not problems, "problems": problems}
    bound = topology.disjoint_paths_bound(s, t)
    if bound is not None:
        doc["bound"], doc["bound_source"] = bound
    if faulty_nodes or faulty_links:
        route = fault_free_path(topology, s, t, faulty_nodes, faulty_links)
        doc.update({"path": route.path, "found": route.found,
                    "hops": route.as_dict()["hops"], "fault_method": route.method,
                    "guaranteed": route.guaranteed, "tolerance": route.tolerance,
                    "faulty_nodes": route.faulty_nodes,
                    "faulty_links": [list(x) for x in route.faulty_links],
                    "message": route.message})
    return doc


def _check_nodes(topology, args):
    """Every address the options name is a node (and every faulty link a link)."""
    with input_errors():
        topology.check_node(args.src, "--src")
        if hasattr(args, "dst"):
            topology.check_node(args.dst, "--dst")
    if hasattr(args, "faults"):
        check_fault_options(topology, args)


def _paths(args, topology):
    _check_nodes(topology, args)
    if args.src == args.dst:
        raise CliError("--src and --dst must be different nodes")
    _check_plot(args, topology)
    estimate = check_flow_paths(topology) if _by_flow(topology) else None
    # the library checks the faults against --src/--dst and its size limits before it
    # works; those ValueErrors are the user's
    with input_errors(), working(f"disjoint paths of {topology.label}", estimate):
        doc = paths_document(topology, args.src, args.dst, args.faults, args.faulty_links)
    lines = [f"{topology.label}: {len(doc['paths'])} disjoint paths {doc['src']} -> "
             f"{doc['dst']} (distance {doc['distance']}), {doc['method']}"]
    rows = [[f"P{n}", len(p) - 1, " ".join(str(v) for v in p)]
            for n, p in enumerate(doc["paths"])]
    lines.append(format_table(["path", "hops", "nodes"], rows))
    summary = f"longest {doc['longest']} hops"
    if "bound" in doc:
        summary += f", Theorem 2 bound {doc['bound']}"
    summary += ", verified disjoint" if doc["verified"] else \
        ", NOT disjoint: " + "; ".join(doc["problems"])
    lines.append(summary)
    if "path" in doc:
        lines.append("")
        if doc["found"]:
            lines.append(f"fault-free path ({doc['hops']} hops, {doc['fault_method']}): "
                         + " ".join(str(v) for v in doc["path"]))
            lines.append(doc["message"])
        else:
            lines.append(doc["message"])
            lines.append(f"faults: nodes {doc['faulty_nodes']}, links {doc['faulty_links']}")
    if args.plot:
        from ..plots import plot_paths
        with files.output_path(args.plot) as tmp:
            plot_paths(topology, doc["paths"], tmp, doc["src"], doc["dst"],
                       faulty_nodes=doc.get("faulty_nodes", ()), highlight=doc.get("path"))
        lines.append(plot_written(args.plot))
    emit(args, doc, "\n".join(lines))
    return 0 if doc.get("found", True) else 1


def _broadcast_options(parser):
    parser.add_argument("--src", type=parse_address, required=True, metavar="A")
    parser.add_argument("--model", choices=MODELS, default=None,
                        help="port model (default one-port; all-port with --hardware)")
    parser.add_argument("--algorithm", default=None, metavar="NAME",
                        help="schedule construction (default: the paper's for the model)")
    add_plot_option(parser, "draw the broadcast tree coloured by step")
    parser.add_argument("--hardware", action="store_true",
                        help="run one broadcast alone in the RTL fabric of replicating "
                             "routers (--model all-port, the default, or one-port) and "
                             "report each node's arrival cycle")
    parser.add_argument("--packet-flits", type=int_range(1, MAX_DEPTH), default=1,
                        metavar="L", help="--hardware: flits of the broadcast packet "
                        "(default 1)")
    parser.add_argument("--unicasts", action="store_true",
                        help="--hardware: also send N - 1 unicasts from --src, and "
                             "compare")
    parser.add_argument("--subcube", type=_subcube, default=None, metavar="VALUE,MASK",
                        help="--hardware: a multicast to the nodes x with "
                             "x & MASK == VALUE & MASK instead of a broadcast")
    parser.add_argument("--members", type=_members, default=None, metavar="A,B,...",
                        help="--hardware: a multicast to these addresses, named in the "
                             "packet's member vector (a bit per node), instead of a "
                             "broadcast")
    add_engine_option(parser)
    add_json_option(parser)
    add_force_option(parser)


def broadcast_document(topology, source, model=ONE_PORT, algorithm=None):
    """The ``--json`` document of ``cubefab broadcast``."""
    schedule = broadcast_schedule(topology, source, model, algorithm)
    report = validate_schedule(topology, schedule.source, schedule.steps, model)
    doc = schedule.as_dict()
    doc.update({"topology": topology.label, "valid": report.ok,
                "problems": report.problems,
                "lower_bounds": lower_bounds(topology, schedule.source, model)})
    return doc


def _broadcast(args, topology):
    _check_nodes(topology, args)
    _check_plot(args, topology)
    if args.hardware:
        return _hardware_broadcast(args, topology)
    if args.unicasts or args.packet_flits != 1 or args.subcube is not None \
            or args.members is not None:
        raise CliError("--unicasts, --packet-flits, --subcube and --members need --hardware")
    if args.engine != "auto":
        raise CliError("--engine needs --hardware")
    model = args.model or ONE_PORT
    # broadcast_schedule checks the algorithm, the model and its size limit before it
    # builds; validate_schedule reports problems rather than raising
    with input_errors():
        doc = broadcast_document(topology, args.src, model, args.algorithm)
    bounds = doc["lower_bounds"]
    informed = 1
    rows = []
    for n, step in enumerate(doc["steps"], start=1):
        informed += len(step)
        row = [n, len(step), informed]
        if topology.num_nodes <= LIST_TRANSFERS:
            row.append(" ".join(f"{u}>{v}" for u, v in step))
        rows.append(row)
    headers = ["step", "transfers", "informed"]
    if topology.num_nodes <= LIST_TRANSFERS:
        headers.append("sender>receiver")
    paper = doc["paper_steps"]
    lines = [f"{topology.label}: {doc['model']} broadcast from {doc['source']} "
             f"({doc['algorithm']}: {doc['reference']})",
             format_table(headers, rows),
             f"steps {doc['num_steps']}"
             + (f", paper {paper} ({doc['paper_reference']})" if paper is not None else "")
             + f"; lower bounds: eccentricity {bounds['eccentricity']}"
             + (f", ceil(log2 N) {bounds['log2_nodes']}" if bounds["log2_nodes"] else ""),
             "valid schedule" if doc["valid"] else
             "INVALID schedule: " + "; ".join(doc["problems"])]
    if args.plot:
        from ..plots import plot_broadcast
        with files.output_path(args.plot) as tmp:
            plot_broadcast(topology, doc["steps"], tmp, doc["source"])
        lines.append(plot_written(args.plot))
    emit(args, doc, "\n".join(lines))
    return 0 if doc["valid"] else 1


def _hardware_broadcast(args, topology):
    """``cubefab broadcast --hardware``: one broadcast in the RTL fabric."""
    from ..sim.broadcast_run import hardware_broadcast
    model = args.model or ALL_PORT
    multicast = "--subcube" if args.subcube is not None else \
        "--members" if args.members is not None else None
    if multicast and args.subcube is not None and args.members is not None:
        raise CliError("--subcube and --members name a multicast's nodes two ways; give one")
    if model == ONE_PORT and multicast:
        raise CliError(f"{multicast} needs --model all-port (multicast routers replicate "
                       "all-port)")

    if args.algorithm is not None:
        raise CliError("--hardware follows the routers' broadcast trees; no --algorithm")
    # (a default unicast routing that is deadlock-free only adaptively, the Mcube's
    # mroute: its replicating routers route unicasts by its escape, e-cube)
    unicast = ({"algorithm": escape_algorithm(topology)} if needs_adaptive(topology)
               else {})
    engine = hardware_engine(args, topology, model, unicast.get("algorithm"))
    with input_errors():
        doc = hardware_broadcast(topology, args.src, packet_flits=args.packet_flits,
                                 unicasts=args.unicasts, subcube=args.subcube,
                                 members=args.members, model=model, engine=engine,
                                 **unicast)
    ecc = lower_bounds(topology, args.src, ALL_PORT)["eccentricity"]
    targets = doc.get("members", [a for a in map(int, topology.nodes()) if a != args.src])
    # the depth the tree routing gives (minimal): the farthest target's distance
    reach = max((topology.distance(args.src, a) for a in targets), default=0)
    doc.update({"eccentricity": ecc, "optimal": doc["depth"] == reach, "engine": engine})
    if model == ONE_PORT:
        doc.update(_one_port_check(topology, args.src, doc))
    rows = [[a, c] for a, c in doc["arrivals"].items()]
    what = ("one broadcast" if multicast is None else
            f"one multicast to the subcube {args.subcube[0]}/{args.subcube[1]} "
            f"({len(targets)} nodes)" if args.subcube is not None else
            f"one multicast to {len(targets)} named node(s)")
    lines = [f"{topology.label}: {what} from {doc['source']} in the RTL fabric "
             f"({doc['broadcast_vcs']} broadcast VC(s), {doc['packet_flits']}-flit packet"
             + (", verilator engine)" if engine == "verilator" else ")")]
    if topology.num_nodes <= LIST_TRANSFERS:
        lines.append(format_table(["node", "tail cycle"], rows))
    copies_ok = doc["copies"] == {a: 1 for a in targets}
    lines.append(f"tree depth {doc['depth']} (eccentricity {ecc}, farthest target "
                 f"{reach}); last copy in cycle {doc['latency']}; source busy "
                 f"{doc['injection']} cycle(s); "
                 + ("one copy at every target" if copies_ok else "WRONG copies"))
    if model == ONE_PORT:
        lines.append(f"one-port: {doc['steps']} sequential send step(s) measured, the "
                     f"schedule's {doc['schedule_steps']}; "
                     + ("the one-port tree's links in the schedule's order"
                        if doc["schedule_tree"] and doc["schedule_order"] else
                        "NOT the schedule's " + ("order" if doc["schedule_tree"]
                                                 else "links")))
    if "unicast_latency" in doc:
        lines.append(f"{len(targets)} unicasts: last in cycle {doc['unicast_latency']} "
                     f"({doc['latency_ratio']:.2f}x), source busy "
                     f"{doc['unicast_injection']} cycles ({doc['injection_ratio']:.1f}x)")
    if args.plot:
        from ..plots import plot_broadcast
        # colour by arrival (one-port: by the measured step)
        when = doc["node_steps"] if model == ONE_PORT else doc["arrivals"]
        steps = [[(u, v) for u, v in doc["tree"] if when.get(v) == c]
                 for c in sorted(set(when[v] for _, v in doc["tree"]))]
        with files.output_path(args.plot) as tmp:
            plot_broadcast(topology, steps, tmp, doc["source"])
        lines.append(plot_written(args.plot) + " (colour: "
                     + ("measured step)" if model == ONE_PORT else "arrival order)"))
    emit(args, doc, "\n".join(lines))
    return 0 if copies_ok and doc["optimal"] else 1


def _one_port_check(topology, source, doc):
    """What a one-port run is checked against: the one-port schedule's links, each
    node's send order and step count (``optimal``: the measured steps are the
    schedule's, the tree and the order are its)."""
    tree = one_port_tree(topology, source)
    edges = sorted([u, v] for u, v in tree.edges())
    order = {u: [topology.neighbor(u, p) for _, p in sends]
             for u, sends in tree.sends.items() if sends}
    same_tree = doc["tree"] == edges
    same_order = doc["sends"] == order
    return {"schedule_steps": tree.num_steps, "paper_steps": tree.paper_steps,
            "schedule_tree": same_tree, "schedule_order": same_order,
            "optimal": same_tree and same_order and doc["steps"] == tree.num_steps}



def _members(text):
    """``A,B,...``: one or more node addresses."""
    import argparse
    parts = text.split(",")
    if any(not t.strip() for t in parts):
        raise argparse.ArgumentTypeError(f"must be addresses separated by commas, not "
                                         f"{text!r}")
    return sorted({parse_address(t) for t in parts})


def _subcube(text):
    """``VALUE,MASK``: two non-negative integers."""
    import argparse
    try:
        value, mask = (int(x, 0) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be VALUE,MASK (two integers), "
                                         f"not {text!r}") from None
    if value < 0 or mask < 0:
        raise argparse.ArgumentTypeError(f"must be two non-negative integers, not {text!r}")
    return value, mask
