"""The families side by side: the papers' comparison tables, computed.

A comparison is a list of rows, one per network, each a dict (:func:`compare_row`):
nodes, degree, links, diameter, average distance, cost (degree x diameter), the
bisection width with its method, and the channel-load bound of uniform traffic, beside
the papers' formula values. :data:`COLUMNS` lists what a table shows of a row, in
order: a new column (a simulated saturation throughput, a synthesised router's size)
is a key more in the rows and an entry more in that list.

Which networks:

* by name (:func:`parse_network`): ``FAMILY:P=V,...`` with the parameters of the
  command line's topology options, e.g. ``metacube:k=2,m=2`` or ``dlh:m=4,d=3``;
* by size (:func:`nearest_networks`): for each series of :data:`SERIES` (the hypercube,
  the dual-cube, the metacube for each k = 2, 3, 4, the DLH, the Mcube), the instances
  whose node count is nearest N by ratio (``|log2(nodes / N)|`` least; both sides on a
  tie); among instances with the same node count (only the DLH has several) those of
  least cost.

How each figure is computed (every one exact unless its method says otherwise):

* properties by the family's structure at any size (:mod:`cubefab.topology.structure`),
  else by breadth-first search from every node up to ``bfs_max_nodes`` nodes (the Mcube
  is not vertex-transitive); beyond, the row has no diameter, average distance or cost;
* the bisection width by :func:`cubefab.topology.bisection.bisection`: exact where the
  structural lower bound meets an explicit cut (every family here, any size), else the
  proven interval;
* the channel loads of uniform traffic under the family's default routing from the
  structure (:func:`cubefab.topology.uniform_load.uniform_channel_load`, method
  ``structure``), else by walking every route
  (:func:`cubefab.sim.channel_load.channel_load_bound`, method ``routes``) up to
  ``walk_max_nodes`` nodes, else a lower bound on the largest channel load of *any*
  routing (method ``any routing``): the uniform traffic that crosses the explicit
  bisection cut, ``(N/2)^2 / (N - 1)`` over its links, and the average distance over the
  degree (every packet takes at least that many hops, spread over ``degree`` channels
  per node).
"""

import math
from dataclasses import dataclass
from fractions import Fraction

from ..topology.bisection import bisection
from ..topology.catalog import FAMILIES, make_topology
from ..topology.mcube import MAX_K as MCUBE_MAX_K
from ..topology.properties import properties
from ..topology.uniform_load import uniform_channel_load
from .channel_load import channel_load_bound


__all__ = ["Series", "SERIES", "Column", "COLUMNS", "NEAREST_RULE", "parse_network",
           "network_spec", "nearest_networks", "compare_row", "compare_rows", "table_cells",
           "paper_differences", "scaling_rows", "network_name", "DEFAULT_BFS_MAX_NODES",
           "DEFAULT_WALK_MAX_NODES", "DEFAULT_PLOT_MAX_NODES", "BISECTION_TIME_LIMIT",
           "MAX_SELECT_NODES", "MEASURED_COLUMNS", "columns_of"]

#: Largest network whose properties are measured by BFS from every node (the Mcube:
#: about 10 s for Mcube(14) on a 2-core machine; Mcube(16) takes 150 s).
DEFAULT_BFS_MAX_NODES = 1 << 14
#: Largest network whose routes are walked for the channel loads (families without a
#: structural form: the Mcube; Mcube(10) takes about 5 s).
DEFAULT_WALK_MAX_NODES = 1 << 10
#: Largest network of the scaling plot's series by default.
DEFAULT_PLOT_MAX_NODES = 1 << 22
#: Seconds the bisection's integer program may take where the bounds differ (no
#: family here needs it).
BISECTION_TIME_LIMIT = 5.0
#: Largest node count :func:`nearest_networks` selects around (numpy address arrays
#: hold 62 bits).
MAX_SELECT_NODES = 1 << 62

#: The selection rule of :func:`nearest_networks`, in words (help and documents).
NEAREST_RULE = ("for each series (hypercube, dual-cube, metacube k = 2, 3, 4, DLH, Mcube) "
                "the instances whose node count is nearest N by ratio (both sides on a "
                "tie); among equal node counts (the DLH) those of least cost")


# -- series --------------------------------------------------------------------------

# series instances are listed up to this size, so that a tie above 2^62 is seen
_LIST_BITS = 70


@dataclass(frozen=True)
class Series:
    """One line of the comparison: a family, or a metacube of one class dimension.

    Attributes
    ----------
    name : str
        Legend and JSON name (``hypercube``, ``dualcube``, ``metacube k=2``, ...).
    family : str
        The key of :data:`~cubefab.topology.catalog.FAMILIES`.
    instances : callable
        ``instances(max_bits)``: the parameter dicts of every instance with at most
        ``2**max_bits`` nodes, smallest first.
    """

    name: str
    family: str
    instances: object


def _hypercube_instances(bits):
    return [{"n": n} for n in range(1, min(bits, 62) + 1)]


def _dualcube_instances(bits):
    return [{"m": m} for m in range(1, (bits - 1) // 2 + 1)]


def _metacube_instances(k):
    def instances(bits):
        return [{"k": k, "m": m} for m in range(1, (bits - k) // (1 << k) + 1)]
    return instances


def _dlh_instances(bits):
    """Every DLH(m, d) with at most ``2**bits`` nodes (address bits 1 + m + d <= 62),
    by node count."""
    found = []
    for d in range(1, 60):
        for m in range(2, 62 - d):
            if (4 * m) << d > 1 << bits:
                break
            found.append({"m": m, "d": d})
    return sorted(found, key=lambda p: ((4 * p["m"]) << p["d"], p["d"]))


def _mcube_instances(bits):
    return [{"k": k} for k in range(1, min(bits, MCUBE_MAX_K) + 1)]


#: The series compared, in table order.
SERIES = (
    Series("hypercube", "hypercube", _hypercube_instances),
    Series("dualcube", "dualcube", _dualcube_instances),
    Series("metacube k=2", "metacube", _metacube_instances(2)),
    Series("metacube k=3", "metacube", _metacube_instances(3)),
    Series("metacube k=4", "metacube", _metacube_instances(4)),
    Series("dlh", "dlh", _dlh_instances),
    Series("mcube", "mcube", _mcube_instances),
)


def _nodes(family, params):
    """Node count of an instance, from its parameters (no model built)."""
    if family == "hypercube":
        return 1 << params["n"]
    if family == "dualcube":
        return 1 << (2 * params["m"] + 1)
    if family == "metacube":
        return 1 << (params["k"] + params["m"] * (1 << params["k"]))
    if family == "dlh":
        return (4 * params["m"]) << params["d"]
    return 1 << params["k"]


def _ratio(nodes, target):
    """``max/min`` of the two counts, exact: the distance of ``nodes`` from ``target``."""
    return Fraction(max(nodes, target), min(nodes, target))


def _least_cost(family, candidates):
    """The candidates (parameter dicts of one node count) of least degree x diameter."""
    if len(candidates) == 1:
        return candidates
    costs = [properties(make_topology(family, **p), "structure")["cost"] for p in candidates]
    best = min(costs)
    return [p for p, c in zip(candidates, costs) if c == best]


def nearest_networks(nodes):
    """The networks compared at ``nodes`` nodes (the rule of :data:`NEAREST_RULE`).

    Returns
    -------
    list of (Series, dict)
        Each selected instance with its series, in :data:`SERIES` order, smallest first.
    """
    if isinstance(nodes, bool) or not isinstance(nodes, int) or \
            not 2 <= nodes <= MAX_SELECT_NODES:
        raise ValueError(f"the node count must be an integer from 2 to 2^62, not {nodes!r}")
    chosen = []
    for series in SERIES:
        instances = series.instances(_LIST_BITS)
        ratios = [_ratio(_nodes(series.family, p), nodes) for p in instances]
        best = min(ratios)
        near = [p for p, r in zip(instances, ratios) if r == best]
        for count in sorted({_nodes(series.family, p) for p in near}):
            same = [p for p in near if _nodes(series.family, p) == count]
            chosen += [(series, p) for p in _least_cost(series.family, same)]
    return chosen


# -- naming networks -------------------------------------------------------------------

def network_spec(text):
    """``(family, params)`` of ``FAMILY:P=V,...`` (``hypercube:n=10``,
    ``metacube:k=2,m=2``, ``dualcube:m=3``, ``dlh:m=4,d=3``, ``mcube:k=8``): the family's
    parameters, each once, as decimal integers. Raises ValueError saying what is
    allowed; the network itself is built (and its ranges checked) by
    :func:`parse_network`."""
    family, sep, rest = text.strip().partition(":")
    forms = ", ".join(f"{name}:" + ",".join(f"{p.name}={p.name.upper()}" for p in params)
                      for name, (_, params) in FAMILIES.items())
    if family not in FAMILIES:
        raise ValueError(f"{text!r} is not a network: write FAMILY:P=V,... ({forms})")
    expected = [p.name for p in FAMILIES[family][1]]
    allowed = f"{family}:" + ",".join(f"{p}={p.upper()}" for p in expected)
    params = {}
    for item in rest.split(",") if sep else []:
        name, eq, value = item.strip().partition("=")
        value = value.strip()
        if not eq or name not in expected or name in params or not (
                value.isascii() and value.isdigit() and len(value) <= 7):
            raise ValueError(f"{text!r} is not a network: write {allowed} (decimal "
                             f"integers)")
        params[name] = int(value)
    if set(params) != set(expected):
        raise ValueError(f"{text!r} is not a network: write {allowed}")
    return family, params


def parse_network(text):
    """The topology named ``FAMILY:P=V,...`` (see :func:`network_spec`), as
    ``(family, params, topology)``; ValueError for a bad name or parameter."""
    family, params = network_spec(text)
    return family, params, make_topology(family, **params)


def network_name(family, params):
    """``FAMILY:P=V,...`` of a network (the spelling :func:`network_spec` reads), its
    parameters in the family's order."""
    order = [p.name for p in FAMILIES[family][1]] if family in FAMILIES else []
    names = [k for k in order if k in params] + [k for k in params if k not in order]
    return f"{family}:" + ",".join(f"{k}={params[k]}" for k in names)


# -- one row -----------------------------------------------------------------------------

def _properties(topology, bfs_max_nodes, progress):
    """``(properties dict or None, note or None)``."""
    try:
        return properties(topology, "structure"), None
    except ValueError:
        pass
    if topology.num_nodes > bfs_max_nodes:
        return None, (f"{topology.label}: no structural method; diameter, average distance "
                      f"and cost need BFS from all {topology.num_nodes} nodes, beyond the "
                      f"{bfs_max_nodes} of the BFS limit")
    return properties(topology, progress=progress), None


def _any_routing_load(topology, cut, average_distance):
    """Lower bound on the largest channel load of any routing of uniform traffic."""
    n = topology.num_nodes
    crossing = Fraction(n * n, 4 * (n - 1) * cut)
    parts = [f"the (N/2)^2/(N-1) packets per unit rate that cross the {cut}-link "
             f"bisection cut: {float(crossing):.6g}"]
    worst = crossing
    if average_distance is not None:
        spread = average_distance / topology.degree
        parts.append(f"average distance / degree: {spread:.6g}")
        worst = max(worst, Fraction(spread))
    load = float(worst)
    return {"topology": topology.label, "traffic": "uniform",
            "algorithm": "any", "method": "any routing",
            "detail": "a lower bound on the largest channel load of every routing: "
                      + "; ".join(parts),
            "max_channel_load": load, "network_bound": 1.0 / load,
            "saturation_bound": min(1.0, 1.0 / load),
            "limited_by": "network" if load >= 1.0 else "injection"}


def _channel_load(topology, walk_max_nodes, cut, average_distance, progress):
    found = uniform_channel_load(topology)
    if found is not None:
        return found
    if topology.num_nodes <= walk_max_nodes:
        result = channel_load_bound(topology, progress=progress)
        result.update(method="routes", detail="every route of the default routing walked "
                      "(cubefab.sim.channel_load)")
        return result
    return _any_routing_load(topology, cut, average_distance)


#: Row keys of the paper values compared (``paper`` keys of the models).
_PAPER_KEYS = ("nodes", "degree", "links", "diameter", "cost", "bisection",
               "average_distance", "average_distance_with_self")


def paper_differences(row):
    """The papers' values that differ from the computed ones: a list of dicts with
    ``key``, ``paper``, ``source`` and ``computed``."""
    found = []
    for key in _PAPER_KEYS:
        entry = row["paper"].get(key)
        computed = row["bisection"]["value"] if key == "bisection" else row.get(key)
        if entry is None or computed is None:
            continue
        value = entry["value"]
        if not math.isclose(float(value), float(computed), rel_tol=1e-12, abs_tol=1e-12):
            found.append({"key": key, "paper": value, "source": entry["source"],
                          "computed": computed})
    return found


def compare_row(family, params, topology=None, *, bfs_max_nodes=DEFAULT_BFS_MAX_NODES,
                walk_max_nodes=DEFAULT_WALK_MAX_NODES, series=None, progress=None):
    """The comparison row of one network.

    Parameters
    ----------
    family : str
        Its family (a key of :data:`~cubefab.topology.catalog.FAMILIES`).
    params : dict
        Its parameters.
    topology : Topology, optional
        The network, when already built.
    bfs_max_nodes : int
        Largest network without a structural method whose properties are measured by
        BFS from every node.
    walk_max_nodes : int
        Largest network without a structural channel-load form whose routes are walked.
    series : str, optional
        The series name (:data:`SERIES`) the row belongs to.
    progress : callable, optional
        ``progress(done, total)`` of a long BFS or route walk.

    Returns
    -------
    dict
        ``family``, ``params``, ``network`` (``FAMILY:P=V,...``), ``label``, ``series``,
        ``nodes``, ``degree``, ``links``, ``diameter``, ``average_distance`` (over
        ordered pairs s != t), ``average_distance_with_self`` (s = t counted, the
        metacube papers' convention), their ``*_exact`` fractions, ``cost`` (None where
        the properties were not computed), ``properties_method`` (``structure``,
        ``bfs`` or None), ``bisection`` (``value``, ``lower``, ``upper``, ``method``,
        ``exact_by``, ``lower_method``, ``upper_construction``), ``bisection_per_node``
        (the width, or the lower bound, over N), ``channel_load`` (``max_channel_load``,
        ``network_bound``, ``saturation_bound``, ``limited_by``, ``method``:
        ``structure``, ``routes`` or ``any routing``, ``algorithm``, ``detail``),
        ``paper`` (the papers' formula values), ``paper_differences``
        (:func:`paper_differences`) and ``notes``.
    """
    if topology is None:
        topology = make_topology(family, **params)
    notes = []
    props, note = _properties(topology, bfs_max_nodes, progress)
    if note:
        notes.append(note)
    b = bisection(topology, time_limit=BISECTION_TIME_LIMIT)
    average = props["average_distance"] if props else None
    load = _channel_load(topology, walk_max_nodes, b.upper, average, progress)
    row = {
        "family": family, "params": dict(params), "network": network_name(family, params),
        "label": topology.label, "series": series,
        "nodes": topology.num_nodes, "degree": topology.degree, "links": topology.num_links,
        "properties_method": props["method"] if props else None,
        "diameter": props["diameter"] if props else None,
        "average_distance": average,
        "average_distance_exact": props["average_distance_exact"] if props else None,
        "average_distance_with_self":
            props["average_distance_with_self"] if props else None,
        "average_distance_with_self_exact":
            props["average_distance_with_self_exact"] if props else None,
        "cost": props["cost"] if props else None,
        "bisection": {key: value for key, value in b.as_dict().items()
                      if key in ("value", "lower", "upper", "method", "exact_by",
                                 "lower_method", "upper_construction")},
        "bisection_per_node": (b.value if b.value is not None else b.lower)
        / topology.num_nodes,
        "channel_load": {key: load[key] for key in
                         ("max_channel_load", "network_bound", "saturation_bound",
                          "limited_by", "method", "algorithm", "detail")},
        "paper": topology.paper_values() if hasattr(topology, "paper_values") else {},
        "notes": notes,
    }
    row["paper_differences"] = paper_differences(row)
    return row


def compare_rows(networks, progress=None, **options):
    """:func:`compare_row` of each ``(family, params)`` or ``(Series, params)`` of
    ``networks``; ``progress(done, total)`` after each row."""
    rows = []
    for done, (which, params) in enumerate(networks):
        if isinstance(which, Series):
            rows.append(compare_row(which.family, params, series=which.name, **options))
        else:
            rows.append(compare_row(which, params, **options))
        if progress is not None:
            progress(done + 1, len(networks))
    return rows


# -- columns ---------------------------------------------------------------------------

def _number(value, digits=6):
    return "-" if value is None else f"{value:.{digits}g}"


def _bisection_text(row):
    b = row["bisection"]
    return str(b["value"]) if b["value"] is not None else f"[{b['lower']}, {b['upper']}]"


def _load_text(row):
    load = row["channel_load"]
    sign = ">= " if load["method"] == "any routing" else ""
    return f"{sign}{load['max_channel_load']:.5g}"


def _bound_text(row):
    load = row["channel_load"]
    sign = "<= " if load["method"] == "any routing" else ""
    return f"{sign}{load['network_bound']:.5g}"


@dataclass(frozen=True)
class Column:
    """A column of the table: its ``header`` and ``cell(row) -> str``."""

    key: str
    header: str
    cell: object


#: What the table shows of a row, in order.
COLUMNS = [
    Column("family", "family", lambda r: r["family"]),
    Column("params", "parameters", lambda r: ",".join(f"{k}={v}"
                                                       for k, v in r["params"].items())),
    Column("nodes", "nodes", lambda r: str(r["nodes"])),
    Column("degree", "degree", lambda r: str(r["degree"])),
    Column("links", "links", lambda r: str(r["links"])),
    Column("diameter", "diameter", lambda r: "-" if r["diameter"] is None
           else str(r["diameter"])),
    Column("average_distance", "avg distance", lambda r: _number(r["average_distance"])),
    Column("average_distance_with_self", "avg incl. self",
           lambda r: _number(r["average_distance_with_self"])),
    Column("cost", "cost", lambda r: "-" if r["cost"] is None else str(r["cost"])),
    Column("bisection", "bisection", _bisection_text),
    Column("bisection_method", "method", lambda r: r["bisection"]["method"]),
    Column("max_channel_load", "max load", _load_text),
    Column("network_bound", "bound", _bound_text),
    Column("load_method", "load by", lambda r: r["channel_load"]["method"]),
]


def _measured(key, figure, digits=4):
    """A cell of a measured figure: ``-`` where the row was not measured."""
    def cell(row):
        entry = row.get(key) or {}
        value = entry.get(figure)
        return "-" if value is None else (f"{value:.{digits}g}" if isinstance(value, float)
                                          else str(value))
    return cell


#: The columns of the measured figures, by the row key that holds them (``compare
#: --simulate`` and ``--synth``).
MEASURED_COLUMNS = {
    "simulated": [Column("saturation_throughput", "sat. throughput",
                         _measured("simulated", "saturation_throughput")),
                  Column("fraction_of_bound", "of bound",
                         _measured("simulated", "fraction_of_bound", 3))],
    "synthesized": [Column("lut4", "router LUT4", _measured("synthesized", "lut4")),
                    Column("fmax_mhz", "Fmax MHz", lambda r: (
                        "no fit" if (r.get("synthesized") or {}).get("fits") is False
                        else _measured("synthesized", "fmax_mhz")(r)))],
}


def columns_of(rows):
    """:data:`COLUMNS`, and the measured columns of what ``rows`` hold."""
    return COLUMNS + [column for key, columns in MEASURED_COLUMNS.items()
                      if any(key in row for row in rows) for column in columns]


def table_cells(rows, columns=None):
    """``(headers, cells)`` of ``rows`` for a text table."""
    columns = COLUMNS if columns is None else columns
    return [c.header for c in columns], [[c.cell(r) for c in columns] for r in rows]


# -- scaling ---------------------------------------------------------------------------

def _plot_instances(series, max_nodes):
    """The instances a series draws up to ``max_nodes`` nodes: one per node count (the
    least-cost one where there are several: the DLH's)."""
    bits = max(1, max_nodes.bit_length())
    instances = [p for p in series.instances(bits) if _nodes(series.family, p) <= max_nodes]
    by_count = {}
    for p in instances:
        by_count.setdefault(_nodes(series.family, p), []).append(p)
    if series.family == "dlh":
        # a curve through the powers of two (the DLH has an instance at most counts)
        by_count = {c: ps for c, ps in by_count.items() if c & (c - 1) == 0}
    chosen = []
    for count in sorted(by_count):
        chosen.append(_least_cost(series.family, by_count[count])[0])
    return chosen


def scaling_rows(max_nodes=DEFAULT_PLOT_MAX_NODES, progress=None, **options):
    """``{series name: [rows]}``: every series from its smallest instance up to
    ``max_nodes`` nodes (:func:`compare_row` of each; the DLH at each power of two, its
    least-cost instance), for the comparison's figure (:mod:`cubefab.figures.compare`)."""
    plan = [(s, p) for s in SERIES for p in _plot_instances(s, max_nodes)]
    rows = compare_rows(plan, progress=progress, **options)
    curves = {s.name: [] for s in SERIES}
    for row in rows:
        curves[row["series"]].append(row)
    return curves
