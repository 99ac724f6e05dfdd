"""Exact network properties by breadth-first search over address arrays.

BFS works on numpy arrays of addresses and a dense ``uint8`` distance array, so a
network of 2**27 nodes needs about 128 MiB for the distances plus bounded frontier
chunks; there are no per-node Python objects.
"""

from fractions import Fraction

import numpy as np


__all__ = ["bfs_distances", "distance_distribution", "properties", "UNREACHED",
           "ALL_PAIRS_LIMIT"]

#: Distance value of nodes BFS has not reached.
UNREACHED = 255

_CHUNK = 1 << 22

#: Largest network whose properties are measured from every source when its nodes do
#: not all have the same distance distribution.
ALL_PAIRS_LIMIT = 1 << 14


def bfs_distances(topology, source, progress=None):
    """Hop distances from ``source`` to every node, indexed densely.

    Parameters
    ----------
    topology : Topology
    source : int
        Source node address.
    progress : callable, optional
        Called as ``progress(level, reached)`` after each BFS level.

    Returns
    -------
    numpy.ndarray of uint8, shape ``(num_nodes,)``
        ``dist[topology.index(t)]`` is ``d(source, t)``; :data:`UNREACHED` if unreachable.
    """
    source = topology.check_node(source, "source")
    dist = np.full(topology.num_nodes, UNREACHED, dtype=np.uint8)
    dist[topology.index(source)] = 0
    frontier = np.array([source], dtype=np.int64)
    level = 0
    reached = 1
    while frontier.size:
        level += 1
        if level >= UNREACHED:
            raise ValueError(f"{topology.label} has distances beyond {UNREACHED - 1}")
        found = []
        for start in range(0, frontier.size, _CHUNK):
            chunk = frontier[start:start + _CHUNK]
            for port in range(topology.degree):
                idx = topology.index_array(topology.neighbor_array(chunk, port))
                idx = idx[dist[idx] == UNREACHED]
                if idx.size:
                    dist[idx] = level
                    found.append(idx)
        if not found:
            break
        # a node found through several ports appears several times: keep it once, by
        # scanning the distance array when the level is large (cheaper than sorting)
        total = sum(f.size for f in found)
        if total > dist.size >> 5:
            found_idx = np.flatnonzero(dist == level)
        else:
            found_idx = np.unique(np.concatenate(found))
        frontier = topology.address_array(found_idx)
        reached += frontier.size
        if progress is not None:
            progress(level, reached)
    return dist


def distance_distribution(topology, source, progress=None):
    """``counts[i]`` = number of nodes at distance ``i`` from ``source`` (``counts[0] == 1``).

    Raises ValueError if some node is unreachable.
    """
    dist = bfs_distances(topology, source, progress)
    if (dist == UNREACHED).any():
        raise ValueError(f"{topology.label} is not connected")
    return np.bincount(dist).astype(np.int64)


def _sources_to_check(topology, limit, seed):
    n = topology.num_nodes
    if n <= limit:
        return topology.nodes()
    rng = np.random.default_rng(seed)
    picks = rng.choice(n, size=limit - 1, replace=False)
    return np.unique(np.concatenate([[0], topology.address_array(picks)]))


def properties(topology, sources=None, check_limit=None, seed=0, progress=None):
    """Exact properties of ``topology`` measured by BFS.

    Distances are measured from one node, which is exact for the whole network once
    every node is seen to have the same distance distribution: that is checked from
    every node when ``num_nodes <= check_limit`` and otherwise from ``check_limit``
    sources (node ``address(0)`` and a seeded random sample). When two sources differ
    (a network that is not vertex-transitive, e.g. larger Mcubes), the properties are
    measured from every source instead (networks up to ``ALL_PAIRS_LIMIT`` nodes;
    larger ones raise ValueError rather than report a number that holds for one source).

    Parameters
    ----------
    sources : array-like, optional
        Explicit sources to check instead of the default choice.
    check_limit : int, optional
        Default 1024 for networks up to 2**12 nodes, 16 up to 2**16, 4 up to 2**20, else 2.
    progress : callable, optional
        ``progress(done_sources, total_sources)``.

    Returns
    -------
    dict
        ``nodes``, ``degree``, ``links``, ``diameter``, ``average_distance`` (mean of
        d(s,t) over ordered pairs s != t), ``average_distance_with_self`` (s = t counted),
        their exact fractions as strings (``*_exact``), ``distance_distribution`` (nodes
        at each distance from any one node; ``None`` when sources differ),
        ``pair_distance_distribution`` (ordered pairs (s, t), s = t included, at each
        distance), ``address_bits``, ``vertex_transitive_check`` (what was checked) and
        ``paper`` (formula values of the papers, where they give any).
    """
    n = topology.num_nodes
    if check_limit is None:
        check_limit = 1024 if n <= 1 << 12 else (16 if n <= 1 << 16 else (4 if n <= 1 << 20 else 2))
    if sources is None:
        sources = _sources_to_check(topology, check_limit, seed)
    sources = [int(s) for s in sources]
    reference = None
    same = True
    for done, source in enumerate(sources):
        counts = distance_distribution(topology, source)
        if reference is None:
            reference = counts
        elif counts.shape != reference.shape or (counts != reference).any():
            same = False
            break
        if progress is not None:
            progress(done + 1, len(sources))
    if same:
        pairs = reference * n
        checked = len(sources)
    else:
        if n > ALL_PAIRS_LIMIT:
            raise ValueError(f"{topology.label} is not vertex-transitive (node {source} has "
                             f"distance distribution {counts.tolist()}, node {sources[0]} has "
                             f"{reference.tolist()}); measuring all {n} sources is limited to "
                             f"{ALL_PAIRS_LIMIT} nodes")
        pairs = np.zeros(1, dtype=np.int64)
        for done, source in enumerate(topology.nodes().tolist()):
            counts = distance_distribution(topology, source)
            if counts.size > pairs.size:
                pairs = np.concatenate([pairs, np.zeros(counts.size - pairs.size, np.int64)])
            pairs[:counts.size] += counts
            if progress is not None:
                progress(done + 1, n)
        checked = n
    total = int(np.dot(np.arange(pairs.size, dtype=np.int64), pairs))
    avg = Fraction(total, n * (n - 1)) if n > 1 else Fraction(0)
    avg_self = Fraction(total, n * n)
    result = {
        "topology": topology.name,
        "params": dict(topology.params),
        "label": topology.label,
        "nodes": n,
        "degree": topology.degree,
        "links": topology.num_links,
        "diameter": int(pairs.size - 1),
        "average_distance": float(avg),
        "average_distance_with_self": float(avg_self),
        "average_distance_exact": f"{avg.numerator}/{avg.denominator}",
        "average_distance_with_self_exact": f"{avg_self.numerator}/{avg_self.denominator}",
        "distance_distribution": reference.tolist() if same else None,
        "pair_distance_distribution": pairs.tolist(),
        "address_bits": topology.address_bits,
        "vertex_transitive_check": {
            "same_distribution": same,
            "sources_checked": checked,
            "all_sources": checked == n,
        },
    }
    if hasattr(topology, "paper_values"):
        result["paper"] = topology.paper_values()
    return result
