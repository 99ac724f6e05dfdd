"""``cubefab compare``: the families side by side (the papers' comparison tables)."""


from .. import figures
from ..cluster import ClusterError
from ..cli import (CliError, add_force_option, check_plot_option, emit, format_table,
                   input_errors, int_range, plot_written)
from ..sim.compare import (NEAREST_RULE, DEFAULT_BFS_MAX_NODES, DEFAULT_WALK_MAX_NODES,
                       DEFAULT_PLOT_MAX_NODES, MAX_SELECT_NODES, columns_of, compare_row,
                       nearest_networks, network_spec, parse_network, scaling_rows,
                       table_cells)
from ..progress import Progress
from ..topology.catalog import make_topology
from .compare_measure import (add_measure_options, check_measure_options, simulate_row,
                              synth_row)


__all__ = ["register", "compare_text", "network_argument", "PLOT_POINT_KEYS"]

#: Largest ``--bfs-max-nodes``: BFS from every node of the 2^16-node Mcube(16) is the
#: largest all-sources BFS (2^36 edge visits, about 150 s).
MAX_BFS_NODES = 1 << 16
#: Largest ``--walk-max-nodes``: a route walk holds an N x N traffic matrix (4096 nodes:
#: 128 MiB) and evaluates N^2 routing decisions (Mcube(12): about 80 s).
MAX_WALK_NODES = 1 << 12
#: Largest ``--plot-max-nodes``.
MAX_PLOT_NODES = 1 << 62

_DESCRIPTION = (
    "The hypercube-family networks side by side: nodes, degree, links, diameter, average "
    "distance (over pairs s != t, and with s = t counted as the metacube papers do), cost "
    "(degree x diameter), bisection width (exact, or proven bounds) and the channel-load "
    "bound of uniform traffic under each family's default routing (max load: packets a "
    "channel carries per packet injected at every node; bound = 1 / max load, in "
    "flits/node/cycle; a node's injection channel caps it at 1). Name the networks "
    "(FAMILY:P=V,...) or give --nodes N.")


def register(sub):
    parser = sub.add_parser("compare", help="the families side by side: the papers' "
                            "comparison tables, computed", description=_DESCRIPTION)
    parser.add_argument("networks", nargs="*", type=network_argument, metavar="NETWORK",
                        help="a network as FAMILY:P=V,...: hypercube:n=N, "
                             "metacube:k=K,m=M, dualcube:m=M, dlh:m=M,d=D, mcube:k=K "
                             "(the parameters of the topology options)")
    parser.add_argument("--nodes", type=_node_count, metavar="N",
                        help=f"compare the networks nearest N nodes (N from 2 to 2^62, "
                             f"decimal or 2^K): {NEAREST_RULE}; no default (give --nodes "
                             f"or networks)")
    parser.add_argument("--bfs-max-nodes", type=int_range(2, MAX_BFS_NODES),
                        default=DEFAULT_BFS_MAX_NODES, metavar="N",
                        help=f"largest network without a structural method (the Mcube) "
                             f"whose diameter, average distance and cost are measured by "
                             f"BFS from every node (default {DEFAULT_BFS_MAX_NODES}, at "
                             f"most {MAX_BFS_NODES}); larger ones show '-'")
    parser.add_argument("--walk-max-nodes", type=int_range(2, MAX_WALK_NODES),
                        default=DEFAULT_WALK_MAX_NODES, metavar="N",
                        help=f"largest network without a structural channel-load form "
                             f"(the Mcube) whose routes are walked for the max load "
                             f"(default {DEFAULT_WALK_MAX_NODES}, at most {MAX_WALK_NODES}); "
                             f"larger ones show a bound valid for any routing (>=)")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON document instead of the table (default: "
                             "the table)")
    parser.add_argument("--plot", metavar="FILE",
                        help="also draw every series against node count (diameter, cost, "
                             "bisection per node, throughput bound; log axes), the "
                             "compared networks circled, as PNG, SVG or PDF by the "
                             "suffix (default: no plot)")
    parser.add_argument("--plot-max-nodes", type=_node_count, metavar="N",
                        help=f"largest network of the plot's series (decimal or 2^K; "
                             f"default {DEFAULT_PLOT_MAX_NODES} = 2^22); needs --plot")
    add_measure_options(parser)
    add_force_option(parser)
    parser.set_defaults(_handler=_compare)


def _node_count(text):
    """An argparse ``type``: a node count from 2 to 2^62, decimal or ``2^K``."""
    import argparse
    t = text.strip()
    base, caret, exponent = t.partition("^")
    value = None
    if caret and base == "2" and exponent.isascii() and exponent.isdigit() \
            and len(exponent) <= 3:
        value = 1 << int(exponent)
    elif not caret and t.isascii() and t.isdigit() and len(t) <= 20:
        value = int(t)
    if value is None or not 2 <= value <= MAX_SELECT_NODES:
        raise argparse.ArgumentTypeError(f"must be a node count from 2 to 2^62 (decimal "
                                         f"or 2^K), not {text!r}")
    return value


def network_argument(text):
    """An argparse ``type``: ``(text, family, params)`` of a ``FAMILY:P=V,...``
    (:func:`~cubefab.sim.compare.network_spec`; the network is built later)."""
    import argparse
    try:
        family, params = network_spec(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text, family, params


def _check(args):
    """Reject bad combinations and unusable files before any work (CliError)."""
    if args.nodes is not None and args.networks:
        raise CliError("give either --nodes N or networks (FAMILY:P=V,...), not both")
    if args.nodes is None and not args.networks:
        raise CliError("give --nodes N or one or more networks (FAMILY:P=V,..., e.g. "
                       "hypercube:n=10 metacube:k=2,m=2)")
    if args.plot_max_nodes is not None and args.plot is None:
        raise CliError("--plot-max-nodes sizes the plot: it needs --plot FILE")
    if args.plot is not None:
        check_plot_option(args.plot)


def _networks(args):
    """``[(family, params, topology or None, series name or None)]`` to compare."""
    if args.nodes is not None:
        return [(s.family, p, None, s.name) for s, p in nearest_networks(args.nodes)]
    chosen = []
    for text, family, params in args.networks:
        with input_errors(f"argument NETWORK {text!r}: "):
            _, _, topology = parse_network(text)
        chosen.append((family, params, topology, None))
    return chosen


def _measure(args, rows, rates, bar):
    """Add the ``simulated`` and ``synthesized`` entries the options ask for to
    ``rows``."""
    if rates is None and not args.synth:
        return
    import contextlib
    from .run_options import cluster_client
    client = cluster_client(args) if rates is not None else contextlib.nullcontext()
    try:
        with client as dask_client:
            for i, row in enumerate(rows):
                topology = make_topology(row["family"], **row["params"])
                if rates is not None:
                    bar.label = f"compare: simulate {topology.label} ({i + 1}/{len(rows)})"
                    row["simulated"] = simulate_row(args, topology, rates, dask_client,
                                                    bar.update)
                if args.synth:
                    bar.label = f"compare: synthesize {topology.label} ({i + 1}/{len(rows)})"
                    bar.update(i, len(rows))
                    row["synthesized"] = synth_row(args, topology)
    except ClusterError as exc:
        raise CliError(str(exc)) from None


def _compare(args):
    _check(args)
    rates = check_measure_options(args)
    networks = _networks(args)
    options = dict(bfs_max_nodes=args.bfs_max_nodes, walk_max_nodes=args.walk_max_nodes)
    bar = Progress("compare")
    rows = []
    try:
        for i, (family, params, topology, series) in enumerate(networks):
            # the bar counts networks, then a long row's own BFS sources or routes
            bar.label = (f"compare {i + 1}/{len(networks)} {family}:"
                         + ",".join(f"{k}={v}" for k, v in params.items()))
            bar.update(i, len(networks))
            rows.append(compare_row(family, params, topology, series=series,
                                    progress=bar.update, **options))
        bar.update(len(networks), len(networks))
        _measure(args, rows, rates, bar)
        curves = None
        if args.plot:
            bar.label = "compare: plot series"
            curves = scaling_rows(args.plot_max_nodes or DEFAULT_PLOT_MAX_NODES,
                                  progress=bar.update, **options)
    finally:
        bar.close()
    document = {
        "selection": ({"by": "nodes", "nodes": args.nodes, "rule": NEAREST_RULE}
                      if args.nodes is not None else {"by": "networks"}),
        "columns": [c.key for c in columns_of(rows)],
        "rows": rows,
        "plot": ({"file": args.plot,
                  "max_nodes": args.plot_max_nodes or DEFAULT_PLOT_MAX_NODES,
                  "series": {name: [r["label"] for r in series_rows]
                             for name, series_rows in curves.items()},
                  "points": {name: [_plot_point(r) for r in series_rows]
                             for name, series_rows in curves.items()}}
                 if curves is not None else None),
    }
    if curves is not None:
        figures.write(document, args.plot)
    emit(args, document, compare_text(document))


#: What the plot keeps of each row of its series (``plot.points``): all its figure
#: draws, so that ``cubefab plot`` redraws it from the JSON alone.
PLOT_POINT_KEYS = ("label", "network", "nodes", "diameter", "cost", "bisection_per_node")


def _plot_point(row):
    return {**{key: row[key] for key in PLOT_POINT_KEYS},
            "channel_load": {key: row["channel_load"][key] for key in
                             ("network_bound", "saturation_bound", "method")}}


def compare_text(document):
    """The human-readable report of a ``compare`` document."""
    rows = document["rows"]
    selection = document["selection"]
    lines = []
    if selection["by"] == "nodes":
        lines.append(f"networks nearest {selection['nodes']} nodes ({selection['rule']})")
    lines.append(format_table(*table_cells(rows, columns_of(rows))))
    lines += ["",
              "bisection: exact (a structural lower bound equals an explicit cut, or the "
              "integer program proved it), else [lower, upper] (bounds)",
              "max load: packets per channel per packet injected at every node, uniform "
              "traffic, the default routing (load by structure: exact from the routing's "
              "symmetry; routes: every route walked; any routing: a lower bound for every "
              "routing); bound = 1 / max load (flits/node/cycle; injection caps it at 1)"]
    notes = [note for r in rows for note in r["notes"]]
    notes += [f"{r['label']}: {r[key]['note']}" for r in rows
              for key in ("simulated", "synthesized") if "note" in r.get(key, {})]
    if notes:
        lines.append("notes:")
        lines += [f"  {note}" for note in notes]
    differences = [(r, d) for r in rows for d in r["paper_differences"]]
    if differences:
        lines.append("papers' values that differ from the computed ones (docs/errata.md):")
        for r, d in differences:
            lines.append(f"  {r['label']}: {d['key']} paper {_shown(d['paper'])} "
                         f"[{d['source']}], computed {_shown(d['computed'])}")
    if document["plot"] is not None:
        lines.append(plot_written(document['plot']['file']) + " (series up to "
                     f"{document['plot']['max_nodes']} nodes)")
    return "\n".join(lines)


def _shown(value):
    return f"{value:.6g}" if isinstance(value, float) else str(value)
