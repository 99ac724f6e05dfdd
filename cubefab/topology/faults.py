"""Fault-tolerant routing: an ``s``-``t`` path that avoids faulty nodes and links.

With at most ``c - 1`` faults, ``c`` the number of internally disjoint ``s``-``t`` paths
(:func:`~cubefab.topology.paths.disjoint_paths`: ``k + m`` in MC(k, m), Theorem 2 of
metacube-disjoint-paths.txt; ``n`` in Q(n); ``d + 3`` in DLH(m, d)), some disjoint path
survives: each fault lies on at most one of them. That path is returned, the guarantee
stated. Beyond that a breadth-first search over the surviving network finds a shortest
fault-free path when one exists, and says so plainly when none does.

:func:`check_single_fault_detours` measures dlh.txt Lemma 5 (a single faulty node or link
is bypassed with at most two extra hops) exhaustively.
"""

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .paths import disjoint_paths


__all__ = ["FaultyRoute", "fault_free_path", "check_single_fault_detours",
           "check_faults", "NO_PATH_MESSAGE"]

#: The ``message`` of a :class:`FaultyRoute` that found nothing.
NO_PATH_MESSAGE = "no fault-free path found"

_BFS_LIMIT = 1 << 24


@dataclass
class FaultyRoute:
    """The result of :func:`fault_free_path`.

    Attributes
    ----------
    path : list of int or None
        The fault-free path (``src`` first, ``dst`` last), or None when none was found.
    method : str
        ``"disjoint-paths"`` (the shortest surviving disjoint path) or ``"search"``
        (breadth-first search of the network without the faults).
    guaranteed : bool
        Whether the number of faults is within the disjoint-path guarantee
        (``tolerance``), so that a path is certain to exist.
    tolerance : int
        Faults that can never disconnect ``src`` from ``dst``: the number of disjoint
        paths minus one.
    message : str
        One human-readable line; :data:`NO_PATH_MESSAGE` when nothing was found.
    """

    src: int
    dst: int
    path: list
    method: str
    guaranteed: bool
    tolerance: int
    faulty_nodes: list = field(default_factory=list)
    faulty_links: list = field(default_factory=list)
    message: str = ""

    @property
    def found(self):
        return self.path is not None

    def as_dict(self):
        return {"src": self.src, "dst": self.dst, "found": self.found, "path": self.path,
                "hops": None if self.path is None else len(self.path) - 1,
                "method": self.method, "guaranteed": self.guaranteed,
                "tolerance": self.tolerance, "faulty_nodes": self.faulty_nodes,
                "faulty_links": [list(link) for link in self.faulty_links],
                "message": self.message}


@lru_cache(maxsize=4096)
def _cached_paths(topology, s, t):
    return tuple(tuple(p) for p in disjoint_paths(topology, s, t))


def check_faults(topology, faulty_nodes=(), faulty_links=()):
    """Validate a fault set: sorted faulty node addresses and sorted links ``(u, v)``
    with ``u < v``.

    Raises
    ------
    TypeError, ValueError
        If an address is not a node or a link joins non-adjacent nodes.
    """
    nodes = sorted({topology.check_node(f, "faulty node") for f in faulty_nodes})
    links = set()
    for link in faulty_links:
        try:
            u, v = link
        except (TypeError, ValueError):
            raise TypeError(f"a faulty link must be a pair of adjacent nodes, "
                            f"not {link!r}") from None
        u = topology.check_node(u, "faulty link end")
        v = topology.check_node(v, "faulty link end")
        topology.port(u, v)         # raises ValueError if not adjacent
        links.add((min(u, v), max(u, v)))
    return nodes, sorted(links)


def _check_faults(topology, s, t, faulty_nodes, faulty_links):
    nodes, links = check_faults(topology, faulty_nodes, faulty_links)
    for name, node in (("source", s), ("destination", t)):
        if node in nodes:
            raise ValueError(f"the {name} {node} is faulty: fault-tolerant routing "
                             f"connects two non-faulty nodes")
    return nodes, links


def fault_free_path(topology, s, t, faulty_nodes=(), faulty_links=()):
    """A path from ``s`` to ``t`` that avoids ``faulty_nodes`` and ``faulty_links``.

    Parameters
    ----------
    topology : Topology
    s, t : int
        Non-faulty end nodes.
    faulty_nodes : iterable of int
    faulty_links : iterable of (int, int)
        Each a pair of adjacent nodes (either order).

    Returns
    -------
    FaultyRoute
        ``path`` is None, and ``message`` is :data:`NO_PATH_MESSAGE`, when the faults
        disconnect ``s`` from ``t`` (possible only beyond ``tolerance`` faults).

    Raises
    ------
    TypeError, ValueError
        If an address is not a node, a link joins non-adjacent nodes, or ``s`` or
        ``t`` is faulty.
    """
    s = topology.check_node(s, "src")
    t = topology.check_node(t, "dst")
    nodes, links = _check_faults(topology, s, t, faulty_nodes, faulty_links)
    if s == t:
        return FaultyRoute(s, t, [s], "trivial", True, topology.degree - 1, nodes, links,
                           "source and destination coincide")
    paths = _cached_paths(topology, s, t)
    tolerance = len(paths) - 1
    count = len(nodes) + len(links)
    guaranteed = count <= tolerance
    bad_nodes = set(nodes)
    bad_links = set(links)
    if guaranteed:
        for path in sorted(paths, key=len):
            if bad_nodes.isdisjoint(path[1:-1]) and not any(
                    (min(u, v), max(u, v)) in bad_links for u, v in zip(path, path[1:])):
                return FaultyRoute(s, t, list(path), "disjoint-paths", True, tolerance,
                                   nodes, links, f"{count} fault(s) <= {tolerance}: one of "
                                   f"the {len(paths)} disjoint paths survives")
        raise AssertionError("disjoint paths do not tolerate the faults")  # pragma: no cover
    path = _search(topology, s, t, bad_nodes, bad_links)
    if path is None:
        return FaultyRoute(s, t, None, "search", False, tolerance, nodes, links,
                           f"{NO_PATH_MESSAGE}: {count} faults exceed the guaranteed "
                           f"{tolerance} and disconnect {s} from {t}")
    return FaultyRoute(s, t, path, "search", False, tolerance, nodes, links,
                       f"{count} faults exceed the guaranteed {tolerance}; breadth-first "
                       f"search found a shortest fault-free path")


def _search(topology, s, t, bad_nodes, bad_links):
    """Shortest path avoiding the faults by vectorised BFS, or None."""
    if topology.num_nodes > _BFS_LIMIT:
        raise ValueError(f"{topology.label} has {topology.num_nodes} nodes; fault search "
                         f"beyond the disjoint-path guarantee handles up to {_BFS_LIMIT}")
    n = topology.num_nodes
    parent = np.full(n, -1, dtype=np.int64)
    blocked = np.zeros(n, dtype=bool)
    if bad_nodes:
        blocked[topology.index_array(np.array(sorted(bad_nodes), dtype=np.int64))] = True
    si, ti = topology.index(s), topology.index(t)
    parent[si] = si
    link_keys = None
    if bad_links:
        pairs = np.array(sorted(bad_links), dtype=np.int64)
        iu, iv = topology.index_array(pairs[:, 0]), topology.index_array(pairs[:, 1])
        link_keys = np.concatenate([iu * n + iv, iv * n + iu])
    frontier = np.array([s], dtype=np.int64)
    while frontier.size and parent[ti] < 0:
        fi = topology.index_array(frontier)
        found = []
        for port in range(topology.degree):
            nb = topology.neighbor_array(frontier, port)
            ni = topology.index_array(nb)
            new = (parent[ni] < 0) & ~blocked[ni]
            if link_keys is not None:
                new &= ~np.isin(fi * n + ni, link_keys)
            if new.any():
                ni_new, fi_new = ni[new], fi[new]
                ni_new, first = np.unique(ni_new, return_index=True)
                keep = parent[ni_new] < 0
                parent[ni_new[keep]] = fi_new[first][keep]
                found.append(nb[new][first][keep])
        frontier = np.concatenate(found) if found else np.zeros(0, dtype=np.int64)
    if parent[ti] < 0:
        return None
    chain = [ti]
    while chain[-1] != si:
        chain.append(int(parent[chain[-1]]))
    return [int(a) for a in topology.address_array(np.array(chain[::-1], dtype=np.int64))]


def _all_pairs(neighbours, usable, sources=None):
    """All-pairs hop distances (-1: unreachable) over the dense neighbour table
    ``neighbours`` (n, degree), using only the links marked in ``usable`` (n, degree);
    with ``sources`` (dense indices) only the rows of those sources."""
    n = neighbours.shape[0]
    rows = np.arange(n) if sources is None else np.asarray(sources, dtype=np.int64)
    dist = np.full((len(rows), n), -1, dtype=np.int64)
    dist[np.arange(len(rows)), rows] = 0
    reach = dist == 0
    frontier = reach.copy()
    level = 0
    while frontier.any():
        level += 1
        nxt = np.zeros_like(reach)
        for p in range(neighbours.shape[1]):
            nxt |= frontier[:, neighbours[:, p]] & usable[:, p][None, :]
        nxt &= ~reach
        dist[nxt] = level
        reach |= nxt
        frontier = nxt
    return dist


def check_single_fault_detours(topology, extra=2):
    """Measure dlh.txt Lemma 5 on ``topology``: with any single faulty node ``f`` (for
    pairs ``s, t != f``) or any single faulty link, is every pair still connected by a
    path at most ``extra`` hops longer than its fault-free distance?

    Exhaustive over all faults and all ordered pairs (networks up to 4096 nodes).

    Returns
    -------
    dict
        ``holds`` (bool), ``max_extra_node``, ``max_extra_link`` (the largest detour
        seen), ``violations`` (count), ``examples`` (up to 5 ``(kind, fault, s, t,
        distance, faulty distance)``) and ``checked`` (pairs x faults).
    """
    n = topology.num_nodes
    if n > 4096:
        raise ValueError(f"{topology.label} has {n} nodes; the exhaustive single-fault "
                         f"check handles up to 4096")
    nodes = topology.nodes()
    neighbours = np.stack([topology.index_array(topology.neighbor_array(nodes, p))
                           for p in range(topology.degree)], axis=1)
    everything = np.ones(neighbours.shape, dtype=bool)
    base = _all_pairs(neighbours, everything)
    report = {"holds": True, "max_extra_node": 0, "max_extra_link": 0, "violations": 0,
              "examples": [], "checked": 0, "extra": extra}

    def compare(kind, fault, dist, mask):
        lost = (dist < 0) & mask
        longer = np.where(mask & (dist >= 0), dist - base, 0)
        worst = int(longer.max()) if longer.size else 0
        key = "max_extra_node" if kind == "node" else "max_extra_link"
        report[key] = max(report[key], worst if not lost.any() else 10 ** 9)
        bad = lost | (longer > extra)
        report["checked"] += int(mask.sum())
        if bad.any():
            report["holds"] = False
            report["violations"] += int(bad.sum())
            for si, ti in np.argwhere(bad)[:5 - len(report["examples"])]:
                report["examples"].append((kind, fault, int(nodes[si]), int(nodes[ti]),
                                           int(base[si, ti]), int(dist[si, ti])))

    for f in range(n):
        usable = everything & (neighbours != f)
        usable[f, :] = False
        dist = _all_pairs(neighbours, usable)
        mask = np.ones((n, n), dtype=bool)
        mask[f, :] = False
        mask[:, f] = False
        np.fill_diagonal(mask, False)
        compare("node", int(nodes[f]), dist, mask)
    mask = ~np.eye(n, dtype=bool)
    for u, v in topology.edges():
        iu, iv = topology.index(int(u)), topology.index(int(v))
        usable = everything.copy()
        usable[iu, neighbours[iu] == iv] = False
        usable[iv, neighbours[iv] == iu] = False
        compare("link", (int(u), int(v)), _all_pairs(neighbours, usable), mask)
    return report
