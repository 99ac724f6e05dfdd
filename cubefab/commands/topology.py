"""``cubefab info``, ``cubefab edges`` and ``cubefab route``."""

import json
import re
import sys

from ..cli import (add_json_option, add_topology_command, emit, format_table, parse_address, CliError,
                   input_errors, int_range)
from ..progress import Progress
from ..cluster import ClusterError
from ..topology.properties import properties, METHODS
from ..topology.bisection import bisection
from .router_options import add_algorithm_option


__all__ = ["register", "property_table", "info_text"]


def register(sub):
    add_topology_command(sub, "info", "exact properties of a network, beside the papers' values",
                         _info, _info_options)
    add_topology_command(sub, "edges", "every undirected link once, 'u v' per line, u < v",
                         _edges, add_json_option)
    add_topology_command(sub, "route", "the path hop-by-hop routing takes from --src to --dst",
                         _route, _route_options)


def _info_options(parser):
    parser.add_argument("--method", choices=METHODS, default="auto",
                        help="auto (default): by structure where the family has one, else "
                             "BFS; structure: refuse families without one; bfs: measure by "
                             "breadth-first search (for comparisons)")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="run the BFS all-sources check on this Dask scheduler "
                             "(default: in-process for small networks, else an embedded "
                             "local cluster)")
    parser.add_argument("--workers", type=int_range(1, 256), default=None, metavar="N",
                        help="worker processes of the embedded local cluster")
    add_json_option(parser)


#: Seconds ``info`` gives the exact bisection's integer program (only run on networks of at
#: most 64 nodes whose structural bounds differ: none of the families here).
INFO_TIME_LIMIT = 5.0


def _route_options(parser):
    parser.add_argument("--src", type=parse_address, required=True, metavar="A")
    parser.add_argument("--dst", type=parse_address, required=True, metavar="B")
    add_algorithm_option(parser)
    add_json_option(parser)


#: Integers longer than this are rounded in text reports (``--json`` keeps them exact).
TEXT_DIGITS = 15

_FRACTION = re.compile(r"\b(\d+)/(\d+)\b")
_LONG = re.compile(r"\b\d{%d,}\b" % (TEXT_DIGITS + 1))


def _rounded(digits):
    """A decimal integer of more than :data:`TEXT_DIGITS` digits, rounded to 6
    significant digits: ``"2^1023"`` for a power of two, else ``"8.98847e+307"``."""
    value = int(digits)
    if value & (value - 1) == 0:
        return f"2^{value.bit_length() - 1}"
    mantissa = round(int(digits[:7]) / 10 ** 6, 5)
    exponent = len(digits) - 1
    if mantissa >= 10:
        mantissa, exponent = mantissa / 10, exponent + 1
    return f"{mantissa:.6g}e+{exponent}"


def short_numbers(text):
    """``text`` with integers of more than :data:`TEXT_DIGITS` digits rounded
    (:func:`_rounded`) and fractions of such integers as their decimal value: what
    a text report shows of a network too large for exact figures to be read."""
    def fraction(match):
        if max(len(match[1]), len(match[2])) <= TEXT_DIGITS:
            return match[0]
        return f"~{int(match[1]) / int(match[2]):.6g}"
    return _LONG.sub(lambda m: _rounded(m[0]), _FRACTION.sub(fraction, text))


def property_table(results):
    """Text table of several :func:`properties` results, with the papers' values (and
    a bisection column when a result carries ``bisection``, as ``info``'s do)."""
    with_bisection = any("bisection" in r for r in results)
    rows = []
    for r in results:
        paper = r.get("paper", {})

        def show(key, fmt=str):
            value = fmt(r[key])
            if key in paper:
                pv = paper[key]["value"]
                pv_text = fmt(pv)
                if pv_text != value:
                    value += f" (paper {pv_text})"
            return value

        bound = paper.get("average_distance_with_self_upper_bound")
        avg_self = show("average_distance_with_self", lambda v: f"{v:.6g}")
        if bound:
            avg_self += f" (bound {bound['value']:.6g})"
        row = [r["label"], show("nodes"), show("degree"), show("links"), show("diameter"),
               show("cost"), show("average_distance", lambda v: f"{v:.6g}"), avg_self]
        if with_bisection:
            row.append(_bisection_cell(r.get("bisection"), paper.get("bisection")))
        rows.append([short_numbers(str(cell)) for cell in row + [r["address_bits"]]])
    headers = ["network", "nodes", "degree", "links", "diameter", "cost", "avg distance",
               "avg incl. self"] + (["bisection"] if with_bisection else []) + ["addr bits"]
    return format_table(headers, rows)


def _bisection_cell(entry, paper):
    """The table cell of a bisection result: the width, or its interval."""
    if entry is None:
        return "-"
    text = (str(entry["value"]) if entry["value"] is not None
            else f"[{entry['lower']}, {entry['upper']}]")
    if paper is not None and paper["value"] != entry["value"]:
        text += f" (paper {paper['value']})"
    return text


def _info(args, topology):
    progress = Progress(f"BFS {topology.label}", unit="sources")
    try:
        # properties() checks the method and its size limits (SizeLimitError) before
        # it measures: those ValueErrors are the user's
        with input_errors():
            result = properties(topology, args.method, scheduler=args.scheduler,
                                workers=args.workers, progress=progress.update)
    except ClusterError as exc:
        raise CliError(str(exc)) from None
    finally:
        progress.close()
    result["bisection"] = bisection(topology, time_limit=INFO_TIME_LIMIT).as_dict()
    emit(args, result, info_text(result))


def info_text(result):
    """The human-readable report of one :func:`properties` result."""
    check = result["vertex_transitive_check"]
    lines = [property_table([result]), "",
             f"method: {result['method']} ({result['method_detail']})"]
    if check["same_distribution"]:
        lines.append("distance distribution (from any node): " + _counts(
            result["distance_distribution"]))
        sources = (f"every node ({check['sources_checked']})" if check["all_sources"]
                   else f"{check['sources_checked']} sampled nodes")
        transitive = f"same distance distribution from {sources}"
    else:
        lines.append("distance distribution (ordered pairs): " + _counts(
            result["pair_distance_distribution"]))
        classes = result["source_classes"]
        transitive = (f"nodes have different distance distributions (not vertex-transitive): "
                      f"measured from all {check['sources_checked']} sources, "
                      f"{len(classes)} distinct; eccentricities "
                      f"{result['radius']}..{result['diameter']}")
    lines += [f"average distance (exact): {result['average_distance_exact']}, "
              f"with self: {result['average_distance_with_self_exact']}", transitive]
    if "bisection" in result:
        lines += _bisection_lines(result["bisection"])
    paper = result.get("paper", {})
    if paper:
        lines.append("paper values:")
        for key, entry in paper.items():
            lines.append(f"  {key} = {entry['value']}  [{entry['source']}]")
        differ = [key for key, entry in paper.items()
                  if isinstance(result.get(key), (int, float))
                  and abs(result[key] - entry["value"]) > 1e-9]
        if differ:
            lines.append(f"papers' values that differ from the computed ones "
                         f"({', '.join(differ)}): why, in docs/errata.md")
    text = "\n".join(lines)
    short = short_numbers(text)
    if short != text:
        short += (f"\nintegers of more than {TEXT_DIGITS} digits are rounded here; "
                  f"--json gives them exactly")
    return short


def _bisection_lines(b):
    if b["method"] == "exact":
        how = ("the lower bound equals the cut" if b["exact_by"] == "bounds"
               else "integer program, optimal")
        head = f"bisection: {b['value']} (exact: {how})"
    else:
        head = f"bisection: between {b['lower']} and {b['upper']} (bounds)"
    lines = [head, f"  lower bound {b['lower']} ({b['lower_method']}): {b['lower_detail']}",
             f"  cut {b['upper']}: {b['upper_construction']}"]
    if b.get("milp"):
        milp = b["milp"]
        lines.append(f"  integer program: {milp['status']} after {milp['seconds']} s")
    return lines


def _counts(counts):
    return " ".join(f"{i}:{c}" for i, c in enumerate(counts))


def _edges(args, topology):
    if topology.num_nodes > 1 << 22:
        raise CliError(f"{topology.label} has {topology.num_links} links; "
                       f"edges lists networks up to {1 << 22} nodes")
    out = sys.stdout
    if not args.json:
        for u, v in topology.edges():
            out.write(f"{u} {v}\n")
        return
    # one JSON document, written as the links come (a network of millions of links
    # is never held as Python lists)
    out.write(f'{{\n  "topology": {json.dumps(topology.label)},\n  "nodes": '
              f'{topology.num_nodes},\n  "links": {topology.num_links},\n  "edges": [')
    for i, (u, v) in enumerate(topology.edges()):
        out.write(f'{"," if i else ""}\n    [{u}, {v}]')
    out.write("\n  ]\n}\n")


def _route(args, topology):
    with input_errors():
        topology.check_node(args.src, "--src")
        topology.check_node(args.dst, "--dst")
        algorithm = topology.check_algorithm(args.algorithm)
    path = topology.route(args.src, args.dst, algorithm=args.algorithm)
    document = {"path": path, "hops": len(path) - 1, "algorithm": algorithm,
                "distance": topology.distance(args.src, args.dst)}
    text = (f"{topology.label} {algorithm} route {args.src} -> {args.dst}: "
            f"{len(path) - 1} hops (distance {document['distance']})\n"
            + " -> ".join(str(a) for a in path))
    emit(args, document, text)
