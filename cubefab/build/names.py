"""The names of generated top modules: one per design, so that designs coexist.

A generated Verilog file holds exactly one module (the emitter flattens the
hierarchy), named after what it is: ``cubefab_<topology>_<kind>[_n<node>][_<algorithm>]``,
for example ``cubefab_q4_route_n0`` (the route unit of node 0 of Q(4)),
``cubefab_mc12_router_n0``, ``cubefab_mc12_fabric``, ``cubefab_q2_axis_fabric`` or
``cubefab_mc12_route_n5_paper`` (an algorithm other than the topology's default). Two
designs of different networks, nodes, kinds or algorithms never share a module name,
so their files compile into one design together.

Examples
--------
>>> from cubefab.topology import Hypercube, Metacube
>>> default_top(Hypercube(4), "route", node=0)
'cubefab_q4_route_n0'
>>> default_top(Metacube(1, 2), "fabric")
'cubefab_mc12_fabric'
"""

import re

from ..topology.base import Topology


__all__ = ["KINDS", "topology_slug", "default_top"]


#: The kinds of generated top modules, by the name part they give: ``route`` (a route
#: unit), ``router`` (one node's router), ``fabric`` (every router, flit interface),
#: ``axis_fabric`` (the fabric with AXI4-Stream endpoints), ``selfcheck_fabric`` (the
#: fabric with traffic generators and checkers).
KINDS = ("route", "router", "fabric", "axis_fabric", "selfcheck_fabric")

#: The kinds that describe one node's hardware (their names carry ``_n<node>``).
_PER_NODE = ("route", "router")

_LABEL = re.compile(r"([A-Za-z]+)\((.*)\)\Z")


def _identifier_part(text):
    """``text`` lower-cased, every run of other characters than letters and digits as
    one ``_``, none at the ends."""
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def topology_slug(topology):
    """The network part of a module name, from ``topology.label``: the family and its
    parameters, lower case, e.g. ``q4`` for Q(4), ``mc12`` for MC(1,2), ``dlh43`` for
    DLH(4,3), ``q10`` for Q(10); two parameters of which one has several digits are
    joined by ``_`` (``mc_1_12``), so that no two networks share a slug; words follow
    (``mcube7_algorithmic``)."""
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    match = _LABEL.match(topology.label)
    if match is None:
        return _identifier_part(topology.label)
    family, inside = match[1].lower(), [part.strip() for part in match[2].split(",")]
    numbers = [part for part in inside if part.isdigit()]
    words = [_identifier_part(part) for part in inside if not part.isdigit()]
    if len(numbers) < 2 or all(len(n) == 1 for n in numbers):
        slug = family + "".join(numbers)
    else:
        slug = "_".join([family, *numbers])
    return "_".join([slug, *[w for w in words if w]])


def default_top(topology, kind, node=None, algorithm=None):
    """The default top module name of a generated design.

    Parameters
    ----------
    topology : Topology
        The network.
    kind : str
        One of :data:`KINDS`.
    node : int, optional
        The node address (decimal in the name); required for ``route`` and ``router``,
        refused for the others.
    algorithm : str, optional
        The routing algorithm; named (``_<algorithm>``) only when it is not the
        topology's default (its first of ``topology.algorithms``).

    Returns
    -------
    str
        A Verilog identifier, ``cubefab_<topology>_<kind>[_n<node>][_<algorithm>]``.
    """
    slug = topology_slug(topology)
    if kind not in KINDS:
        raise ValueError(f"Kind must be one of {', '.join(KINDS)}, not {kind!r}")
    parts = ["cubefab", slug, kind]
    if kind in _PER_NODE:
        if isinstance(node, bool) or not isinstance(node, int) or node < 0:
            raise ValueError(f"A {kind} name needs a node address (an int >= 0), "
                             f"not {node!r}")
        parts.append(f"n{node}")
    elif node is not None:
        raise ValueError(f"A {kind} name takes no node, not {node!r}")
    if algorithm is not None and algorithm != topology.algorithms[0]:
        parts.append(_identifier_part(str(algorithm)))
    return "_".join(p for p in parts if p)
