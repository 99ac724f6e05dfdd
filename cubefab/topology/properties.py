"""Exact network properties: by structure where the family has one, else by BFS.

:func:`properties` first asks :func:`~cubefab.topology.structure.structural_classes`
for the exact distance distribution of every class of sources (hypercube, dual-cube,
metacube with ``k <= 4``, DLH): no node is enumerated, so MC(4, 4) with 2**68 nodes
takes a fraction of a second. Other families (the Mcube, families added later) are
measured by breadth-first search over address arrays: a dense ``uint8`` distance per
node plus bounded frontier chunks, no per-node Python objects. BFS is refused, before
anything is allocated, when its memory estimate exceeds :func:`cubefab.memory.memory_limit`.

BFS from every source (the all-sources checks: vertex transitivity, eccentricities)
runs in batches of sources, in-process for small networks and as Dask tasks
(:mod:`cubefab.cluster`) when the work pays for a cluster or a scheduler is named.
"""

from fractions import Fraction

import numpy as np

from ..memory import MemoryLimitError, check_memory
from .structure import structural_classes, SourceClass


__all__ = ["bfs_distances", "distance_matrix", "distance_distribution", "bfs_source_batch", "dense_neighbors",
           "properties",
           "bfs_memory_estimate", "check_bfs_size", "SizeLimitError",
           "UNREACHED", "BFS_BYTES_PER_NODE", "ALL_SOURCES_WORK_LIMIT", "DASK_MIN_WORK",
           "METHODS"]

#: Distance value of nodes BFS has not reached.
UNREACHED = 255

_CHUNK = 1 << 22

# sources per bit-parallel BFS (one uint64 word per node), and the largest network it
# runs on (it needs about 8 * degree + 100 bytes per node)
_BATCH = 64
_BIT_PARALLEL_NODES = 1 << 20

# bfs_distances checks the memory limit itself from this size on (cheaper below)
_CHECKED_FROM = 1 << 20

#: Bytes per node that one BFS needs: the ``uint8`` distance array plus the int64
#: address and index arrays of the largest levels (measured: 1.2 GB peak for the
#: 2**27 nodes of MC(3,3), about 9 bytes per node).
BFS_BYTES_PER_NODE = 10

#: Largest all-sources BFS measured exactly, in edge visits ``num_nodes**2 * degree``
#: (2**36: the 2**16-node Mcube(16)). Larger networks are checked from a sample of
#: sources and refused if two sources differ.
ALL_SOURCES_WORK_LIMIT = 1 << 36

#: All-sources BFS work (edge visits) from which an embedded Dask cluster pays for its
#: start-up (a few seconds; the bit-parallel BFS makes about 10**9 edge visits a second);
#: smaller work runs in-process.
DASK_MIN_WORK = 1 << 33

#: ``method`` argument values of :func:`properties`.
METHODS = ("auto", "structure", "bfs")


class SizeLimitError(ValueError):
    """A computation would exceed a documented size limit (checked before allocating)."""


def bfs_memory_estimate(topology):
    """Bytes one BFS of ``topology`` needs (:data:`BFS_BYTES_PER_NODE` per node)."""
    return topology.num_nodes * BFS_BYTES_PER_NODE


def check_bfs_size(topology, why=None):
    """Raise :class:`SizeLimitError` if one BFS of ``topology`` would exceed the memory
    limit (:func:`cubefab.memory.memory_limit`; the message gives the estimate and the
    limit, and ``why`` BFS is used, if given)."""
    reason = f"{topology.label} needs BFS ({why}), and BFS" if why else \
        f"{topology.label}: BFS"
    try:
        check_memory(f"{reason} of its {topology.num_nodes:,} nodes "
                     f"({BFS_BYTES_PER_NODE} bytes per node)", bfs_memory_estimate(topology),
                     "use a smaller network")
    except MemoryLimitError as exc:
        raise SizeLimitError(str(exc)) from None


def bfs_distances(topology, source, progress=None):
    """Hop distances from ``source`` to every node, indexed densely.

    Parameters
    ----------
    topology : Topology
    source : int
        Source node address.
    progress : callable, optional
        Called as ``progress(level, reached)`` after each BFS level.

    Raises
    ------
    SizeLimitError
        If the network exceeds :func:`cubefab.memory.memory_limit` (checked before allocating).

    Returns
    -------
    numpy.ndarray of uint8, shape ``(num_nodes,)``
        ``dist[topology.index(t)]`` is ``d(source, t)``; :data:`UNREACHED` if unreachable.
    """
    source = topology.check_node(source, "source")
    if topology.num_nodes > _CHECKED_FROM:
        check_bfs_size(topology)
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


def distance_matrix(topology):
    """``D[i, j]``: the hop distance between the nodes of dense indices ``i`` and ``j``
    (int64; one :func:`bfs_distances` per node, links being symmetric). Callers bound
    the size: it holds ``num_nodes ** 2`` entries."""
    return np.stack([bfs_distances(topology, int(a))
                     for a in topology.nodes()]).astype(np.int64)


def dense_neighbors(topology):
    """``nb[p, i]``: dense index of the port-``p`` neighbour of the node of index ``i``."""
    nodes = topology.nodes()
    return np.stack([topology.index_array(topology.neighbor_array(nodes, p))
                     for p in range(topology.degree)])


def bfs_source_batch(topology, sources):
    """Distance distributions from each of ``sources`` (one Dask task of the
    all-sources check): int64 array ``counts[i, d]``, zero-padded on the right.

    Bit-parallel BFS: 64 sources at a time share one ``uint64`` word per node (bit
    ``j`` set once source ``j`` has reached the node), so a level costs one gather and
    OR per port for all 64 (links are undirected: a node is reached from its
    neighbours' frontier bits). Needs the dense neighbour table (``8 * degree`` bytes
    per node) besides; the all-sources check only runs on networks small enough.

    Networks above 2**20 nodes (only ever checked from a few sampled sources) run one
    plain BFS per source instead, within :data:`BFS_BYTES_PER_NODE`.

    Raises ValueError if some node is unreachable.
    """
    n = topology.num_nodes
    if n > _BIT_PARALLEL_NODES:
        return _stack([distance_distribution(topology, int(s))[None, :] for s in sources])
    nb = dense_neighbors(topology)
    rows = []
    for start in range(0, len(sources), 64):
        chunk = np.asarray(sources[start:start + 64], dtype=np.int64)
        width = chunk.size
        seen = np.zeros(n, dtype=np.uint64)
        bits = np.left_shift(np.uint64(1), np.arange(width, dtype=np.uint64))
        np.bitwise_or.at(seen, topology.index_array(chunk), bits)
        frontier = seen
        levels = [np.ones(width, dtype=np.int64)]
        while True:
            new = np.zeros(n, dtype=np.uint64)
            for p in range(nb.shape[0]):
                new |= frontier[nb[p]]
            new &= ~seen
            if not new.any():
                break
            seen = seen | new
            frontier = new
            per_bit = np.unpackbits(new.astype("<u8").view(np.uint8), bitorder="little")
            levels.append(per_bit.reshape(n, 64)[:, :width].sum(axis=0, dtype=np.int64))
        counts = np.stack(levels, axis=1)
        if (counts.sum(axis=1) != n).any():
            raise ValueError(f"{topology.label} is not connected")
        rows.append(counts)
    return _stack(rows)


def _bfs_work(topology, sources):
    return len(sources) * topology.num_nodes * topology.degree


def _run_batches(topology, sources, distributed, scheduler, workers, progress):
    """``bfs_source_batch`` over ``sources`` (a list), in-process or on Dask."""
    if distributed is None:
        distributed = scheduler is not None or _bfs_work(topology, sources) >= DASK_MIN_WORK
    if not distributed:
        rows = []
        for start in range(0, len(sources), _BATCH):
            rows.append(bfs_source_batch(topology, sources[start:start + _BATCH]))
            if progress is not None:
                progress(min(len(sources), start + _BATCH), len(sources))
        return _stack(rows), "in-process"
    from ..cluster import open_client, default_workers, gather_as_completed
    with open_client(scheduler, workers=workers) as client:
        slots = sum(client.nthreads().values()) or (workers or default_workers())
        size = _BATCH * max(1, -(-len(sources) // (8 * slots * _BATCH)))
        batches = [sources[i:i + size] for i in range(0, len(sources), size)]
        shared = client.scatter(topology, broadcast=True)
        futures = [client.submit(bfs_source_batch, shared, batch, pure=False, retries=2)
                   for batch in batches]

        def report(done, total):
            if progress is not None:
                progress(min(len(sources), done * size), len(sources))
        rows = gather_as_completed(client, futures, report)
        where = scheduler if scheduler is not None else f"local cluster of {slots} workers"
    return _stack(rows), f"Dask ({where}, {len(batches)} batches)"


def _stack(rows):
    width = max(r.shape[1] for r in rows)
    return np.concatenate([np.pad(r, ((0, 0), (0, width - r.shape[1]))) for r in rows])


def _default_sources(topology, check_limit, seed):
    n = topology.num_nodes
    if check_limit is None:
        check_limit = 1024 if n <= 1 << 12 else (16 if n <= 1 << 16 else (4 if n <= 1 << 20 else 2))
    if n <= check_limit:
        return topology.nodes().tolist()
    rng = np.random.default_rng(seed)
    picks = rng.choice(n, size=check_limit - 1, replace=False)
    return np.unique(np.concatenate([[0], topology.address_array(picks)])).tolist()


def _bfs_classes(topology, sources, check_limit, seed, distributed, scheduler, workers,
                 progress):
    """Source classes measured by BFS, and the check's description."""
    n = topology.num_nodes
    all_work = n * n * topology.degree
    if sources is None:
        sources = (topology.nodes().tolist() if all_work <= ALL_SOURCES_WORK_LIMIT
                   else _default_sources(topology, check_limit, seed))
    sources = [topology.check_node(int(s), "source") for s in sources]
    counts, runner = _run_batches(topology, sources, distributed, scheduler, workers,
                                  progress)
    distinct, first, group_sizes = np.unique(counts, axis=0, return_index=True,
                                             return_counts=True)
    all_sources = len(set(sources)) == n
    if len(distinct) == 1:
        dist = [int(c) for c in np.trim_zeros(distinct[0], "b")]
        name = "every node" if all_sources else f"every node (sampled: {len(sources)} sources)"
        classes = [SourceClass(name, n, dist)]
    elif all_sources:
        order = np.argsort(first)
        classes = [SourceClass(f"{int(group_sizes[i])} nodes like node {sources[first[i]]}",
                               int(group_sizes[i]),
                               [int(c) for c in np.trim_zeros(distinct[i], "b")])
                   for i in order]
    else:
        a, b = first[0], first[1]
        raise SizeLimitError(
            f"{topology.label} is not vertex-transitive (node {sources[a]} has distance "
            f"distribution {np.trim_zeros(counts[a], 'b').tolist()}, node {sources[b]} has "
            f"{np.trim_zeros(counts[b], 'b').tolist()}); BFS from all {n} sources "
            f"({all_work} edge visits) exceeds the limit of {ALL_SOURCES_WORK_LIMIT}")
    check = {"same_distribution": len(distinct) == 1, "sources_checked": len(sources),
             "all_sources": all_sources, "by": f"BFS from each source, {runner}"}
    return classes, check


def properties(topology, method="auto", *, sources=None, check_limit=None, seed=0,
               distributed=None, scheduler=None, workers=None, progress=None):
    """Exact properties of ``topology``.

    Parameters
    ----------
    method : {"auto", "structure", "bfs"}
        ``auto`` (default): by structure where the family has a structural method,
        else BFS. ``structure`` refuses (ValueError) a family without one; ``bfs``
        measures by BFS even where structure exists (for comparisons).
    sources : array-like, optional
        BFS only: the sources to measure from, instead of every node (networks up to
        :data:`ALL_SOURCES_WORK_LIMIT` edge visits) or a sample (``check_limit``
        sources, node ``address(0)`` and a seeded random choice) for larger ones.
        Differing sources of a sample raise :class:`SizeLimitError`.
    check_limit : int, optional
        Size of the sample (default 1024 up to 2**12 nodes, 16 up to 2**16, 4 up to
        2**20, else 2).
    distributed : bool or None
        BFS only: run the sources as Dask tasks (True), in-process (False), or decide
        by the work (None: Dask from :data:`DASK_MIN_WORK` edge visits or with
        ``scheduler``).
    scheduler : str or None
        Address of a running Dask scheduler; None: an embedded local cluster.
    workers : int or None
        Workers of the embedded cluster.
    progress : callable, optional
        BFS only: ``progress(done_sources, total_sources)``.

    Returns
    -------
    dict
        ``method`` (``structure`` or ``bfs``) and ``method_detail``; ``nodes``,
        ``degree``, ``links``, ``diameter``, ``cost`` (degree x diameter, the papers'
        measure), ``radius``, ``average_distance`` (mean of
        d(s,t) over ordered pairs s != t), ``average_distance_with_self`` (s = t
        counted), their exact fractions as strings (``*_exact``),
        ``distance_distribution`` (nodes at each distance from any one node; None when
        sources differ), ``pair_distance_distribution`` (ordered pairs (s, t), s = t
        included, at each distance), ``source_classes`` (sources that share a
        distribution: ``name``, ``sources``, ``eccentricity``, ``distribution``),
        ``address_bits``, ``vertex_transitive_check`` and ``paper`` (formula values of
        the papers, where they give any). Counts are Python ints (exact beyond 2**63).

    Raises
    ------
    SizeLimitError
        BFS is needed and exceeds :func:`cubefab.memory.memory_limit`, or a sample of sources
        differs on a network too large for all sources.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    found = structural_classes(topology) if method != "bfs" else None
    if found is not None:
        classes, detail = found
        same = all(c.distribution == classes[0].distribution for c in classes)
        check = {"same_distribution": same, "sources_checked": topology.num_nodes,
                 "all_sources": True,
                 "by": f"structure: {len(classes)} source class(es), each exact"}
        used = "structure"
    else:
        if method == "structure":
            raise ValueError(f"{topology.label} has no structural method; use --method bfs "
                             f"or auto")
        why = ("method bfs was asked for" if method == "bfs"
               else "no structural method is known for it")
        check_bfs_size(topology, why)
        classes, check = _bfs_classes(topology, sources, check_limit, seed, distributed,
                                      scheduler, workers, progress)
        detail = check["by"]
        used = "bfs"
    return _summary(topology, classes, used, detail, check)


def _summary(topology, classes, method, detail, check):
    n = topology.num_nodes
    width = max(len(c.distribution) for c in classes)
    pairs = [0] * width
    for c in classes:
        for i, v in enumerate(c.distribution):
            pairs[i] += c.sources * v
    total = sum(i * v for i, v in enumerate(pairs))
    avg = Fraction(total, n * (n - 1)) if n > 1 else Fraction(0)
    avg_self = Fraction(total, n * n)
    same = check["same_distribution"]
    result = {
        "topology": topology.name,
        "params": dict(topology.params),
        "label": topology.label,
        "method": method,
        "method_detail": detail,
        "nodes": n,
        "degree": topology.degree,
        "links": topology.num_links,
        "diameter": width - 1,
        "cost": topology.degree * (width - 1),
        "radius": min(len(c.distribution) for c in classes) - 1,
        "average_distance": float(avg),
        "average_distance_with_self": float(avg_self),
        "average_distance_exact": f"{avg.numerator}/{avg.denominator}",
        "average_distance_with_self_exact": f"{avg_self.numerator}/{avg_self.denominator}",
        "distance_distribution": list(classes[0].distribution) if same else None,
        "pair_distance_distribution": pairs,
        "source_classes": [{"name": c.name, "sources": c.sources,
                            "eccentricity": len(c.distribution) - 1,
                            "distribution": c.distribution} for c in classes],
        "address_bits": topology.address_bits,
        "vertex_transitive_check": check,
    }
    if hasattr(topology, "paper_values"):
        result["paper"] = topology.paper_values()
    return result
