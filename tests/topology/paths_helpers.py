"""Shared checks for the disjoint-path tests and benchmarks/paths_lengths.py."""

from cubefab.topology.paths import (disjoint_paths, check_disjoint_paths,
                                    metacube_disjoint_paths, metacube_path_bound,
                                    remove_loops)


def as_graph(topology):
    """The networkx graph of ``topology`` (an independent reference)."""
    import networkx as nx
    g = nx.Graph()
    g.add_edges_from((int(u), int(v)) for u, v in topology.edges())
    return g


def class_sources(topology):
    """One source per class: ``(c, 0, ..., 0)`` (vertex transitivity covers the rest)."""
    return [c << (topology.m * topology.h) for c in range(topology.h)]


def verify_metacube(topology, sources=None, targets=None, count_paper=True):
    """Check ``disjoint_paths`` for every source and target.

    Returns a dict: ``pairs``, ``failures`` (list of (s, t, problem)), ``longest`` (the
    longest path seen), ``worst_slack`` (max over pairs of longest - Theorem 2 bound)
    and ``paper_valid`` (pairs where Algorithm 4 needed no repair; counted only with
    ``count_paper``).
    """
    n = topology.k + topology.m
    out = {"pairs": 0, "failures": [], "longest": 0, "worst_slack": -10 ** 9,
           "paper_valid": 0}
    for s in sources if sources is not None else class_sources(topology):
        for t in targets if targets is not None else range(topology.num_nodes):
            if t == s:
                continue
            out["pairs"] += 1
            paths = disjoint_paths(topology, s, t)
            problems = check_disjoint_paths(topology, s, t, paths)
            if len(paths) != n:
                problems.append(f"{len(paths)} paths, not {n}")
            longest = max(len(p) - 1 for p in paths)
            bound = metacube_path_bound(topology, s, t)
            if longest > bound:
                problems.append(f"longest path {longest} > bound {bound}")
            if problems:
                out["failures"].append((s, t, problems[0]))
            out["longest"] = max(out["longest"], longest)
            out["worst_slack"] = max(out["worst_slack"], longest - bound)
            if count_paper:
                paper = [remove_loops(p) for p in metacube_disjoint_paths(topology, s, t)]
                out["paper_valid"] += paper == paths
    return out


def _verify_chunk(args):
    k, m, s, lo, hi = args
    from cubefab.topology import Metacube
    return verify_metacube(Metacube(k, m), sources=[s], targets=range(lo, hi),
                           count_paper=False)


def verify_metacube_parallel(k, m, sources=None, chunk=4096, processes=None):
    """:func:`verify_metacube` for MC(k, m) over every target, split in chunks over
    worker processes (all cores by default); returns the merged result."""
    from multiprocessing import Pool
    from cubefab.topology import Metacube
    mc = Metacube(k, m)
    sources = class_sources(mc) if sources is None else sources
    jobs = [(k, m, s, lo, min(mc.num_nodes, lo + chunk))
            for s in sources for lo in range(0, mc.num_nodes, chunk)]
    with Pool(processes) as pool:
        parts = pool.map(_verify_chunk, jobs)
    return {"pairs": sum(p["pairs"] for p in parts),
            "failures": [f for p in parts for f in p["failures"]],
            "longest": max(p["longest"] for p in parts),
            "worst_slack": max(p["worst_slack"] for p in parts)}
