"""Measured Mcube figures beside mcube.txt's: route lengths under Mroute, BFS distances,
hypercube emulation (section 6) and reconfiguration switches (section 7)."""

from fractions import Fraction

import numpy as np

from .mcube import (route_lengths, paper_distribution, paper_average_distance,
                    paper_average_distance_closed_form, paper_diameter)
from .properties import distance_matrix


__all__ = ["REPORT_MAX_K", "route_lengths", "distance_report", "hypercube_emulation",
           "reconfiguration_switches",
           "ascent_vc_deadlock_check"]


#: Largest k the all-pairs reports handle (``4**k`` route lengths in memory).
REPORT_MAX_K = 12


def distance_report(topology):
    """Mroute route lengths and BFS distances (all pairs) beside Theorem 1's F_k and
    section 5.2's AD(k).

    Returns
    -------
    dict
        ``mroute_distribution`` (the same from every source, else RuntimeError),
        ``paper_distribution``; ``bfs_distribution`` summed over all sources divided by
        the number of nodes (a list of Fractions as strings when not uniform) and
        ``bfs_uniform`` (whether every source sees the same one); diameters; averages
        including the node itself (exact fraction strings and floats); and
        ``mroute_shortest_pairs``, the ordered pairs Mroute routes along a shortest path.
    """
    k = topology.k
    if k > REPORT_MAX_K:
        raise ValueError(f"the Mcube distance report is built for k <= {REPORT_MAX_K}, "
                         f"not k = {k}")
    n = topology.num_nodes
    lengths = route_lengths(topology)
    counts = np.stack([np.bincount(row, minlength=k + 1) for row in lengths])
    if (counts != counts[0]).any():
        raise RuntimeError(f"{topology.label}: Mroute distance distribution is not uniform")
    mroute = np.trim_zeros(counts[0], "b").tolist()
    bfs = distance_matrix(topology)
    bfs_counts = np.stack([np.bincount(row, minlength=k + 1) for row in bfs])
    uniform = bool((bfs_counts == bfs_counts[0]).all())
    total = np.trim_zeros(bfs_counts.sum(axis=0), "b")
    bfs_dist = [int(c) // n if uniform else str(Fraction(int(c), n)) for c in total]
    avg_m = Fraction(int(lengths.sum()), n * n)
    avg_b = Fraction(int(bfs.sum()), n * n)
    ad = paper_average_distance(k)
    return {
        "k": k,
        "mroute_distribution": mroute,
        "paper_distribution": paper_distribution(k),
        "bfs_distribution": bfs_dist,
        "bfs_uniform": uniform,
        "mroute_diameter": len(mroute) - 1,
        "paper_diameter": paper_diameter(k),
        "bfs_diameter": int(bfs.max()),
        "mroute_average_with_self": float(avg_m),
        "mroute_average_with_self_exact": str(avg_m),
        "paper_ad": float(ad),
        "paper_ad_exact": str(ad),
        "paper_ad_closed_form": paper_average_distance_closed_form(k),
        "bfs_average_with_self": float(avg_b),
        "bfs_average_with_self_exact": str(avg_b),
        "mroute_shortest_pairs": int((lengths == bfs).sum()),
        "pairs": n * n,
    }


def hypercube_emulation(topology):
    """Section 6: how each hypercube link (x, x ^ 2^j) is carried by the Mcube.

    Returns
    -------
    dict
        ``direct``: hypercube links that are Mcube links; ``two_hop``: not direct but
        x -> x^1 -> y or x -> y^1 -> y over one link 0 (one extra step);
        ``three_hop``: neither, but (x^1, y^1) is a link (the paper's literal
        statement); ``other``: none of these; ``per_dimension`` the same per j.
    """
    nb = topology.neighbor_table
    n, k = nb.shape
    x = np.arange(n, dtype=np.int64)
    total = {"direct": 0, "two_hop": 0, "three_hop": 0, "other": 0}
    per_dim = []
    for j in range(k):
        y = x ^ (1 << j)
        keep = x < y
        xs, ys = x[keep], y[keep]
        direct = nb[xs, j] == ys
        jx = (nb[xs ^ 1] == ys[:, None]).any(axis=1) | (nb[ys ^ 1] == xs[:, None]).any(axis=1)
        two = ~direct & jx
        three = ~direct & ~two & (nb[xs ^ 1] == (ys ^ 1)[:, None]).any(axis=1)
        other = ~direct & ~two & ~three
        row = {"dimension": j, "direct": int(direct.sum()), "two_hop": int(two.sum()),
               "three_hop": int(three.sum()), "other": int(other.sum())}
        per_dim.append(row)
        for key in total:
            total[key] += row[key]
    return {**total, "links": k * n // 2, "per_dimension": per_dim}


def _cycles(perm):
    seen = np.zeros(perm.size, dtype=bool)
    count = 0
    for start in range(perm.size):
        if not seen[start]:
            count += 1
            i = start
            while not seen[i]:
                seen[i] = True
                i = perm[i]
    return count


def reconfiguration_switches(topology):
    """Section 7: 2x2 switches that reconfigure the Mcube into Q(k) and back.

    Each block of links numbered j with one prefix (bits above j) joins x to
    ``2^j + pi(x)``; a cascade of 2x2 exchange switches realises pi with
    ``2^j - cycles(pi)`` of them, the fewest transpositions. Returns the total, the
    count per link number and Theorem 2's bound (k-2)*2^(k-2).
    """
    nb = topology.neighbor_table
    n, k = nb.shape
    per_dim = []
    for j in range(k):
        size = 1 << j
        needed = 0
        for base in range(0, n, 2 * size):
            perm = nb[base:base + size, j] - base - size
            needed += size - _cycles(perm)
        per_dim.append(needed)
    return {"switches": sum(per_dim), "per_dimension": per_dim,
            "paper_bound": (k - 2) * 2 ** (k - 2) if k >= 3 else 0}


def ascent_vc_deadlock_check(topology, vcs, algorithm=None):
    """Channel dependency graph of Mcube routing when a packet's virtual channel goes
    up by one (capped at ``vcs - 1``) at every hop whose link number exceeds the link it
    arrived on, a rule a router applies from its input and output port numbers alone.

    Returns
    -------
    dict
        ``deadlock_free``, ``vcs``, ``max_ascents`` (most such hops on one route; with
        ``vcs > max_ascents`` every VC holds only descending link sequences), ``channels``
        and ``dependencies``; ``cycle`` lists (node, port, vc) of a cycle if there is one.
    """
    from .deadlock import _find_cycle
    table = topology.port_table(algorithm)
    nb = topology.neighbor_table
    n, k = nb.shape
    cur = np.repeat(np.arange(n, dtype=np.int64), n)
    dst = np.tile(np.arange(n, dtype=np.int64), n)
    keep = cur != dst
    cur, dst = cur[keep], dst[keep]
    vc = np.zeros(cur.size, dtype=np.int64)
    prev_port = np.full(cur.size, -1, dtype=np.int64)
    prev_channel = np.full(cur.size, -1, dtype=np.int64)
    ascents = np.zeros(cur.size, dtype=np.int64)
    most_ascents = 0
    edges = [np.zeros((0, 2), dtype=np.int64)]
    while cur.size:
        port = table[cur, dst]
        up = (prev_port >= 0) & (port > prev_port)
        ascents += up
        vc = np.minimum(vc + up, vcs - 1)
        channel = (cur * k + port) * vcs + vc
        inner = prev_channel >= 0
        edges.append(np.stack([prev_channel[inner], channel[inner]], axis=1))
        most_ascents = max(most_ascents, int(ascents.max()))
        cur = nb[cur, port]
        go = cur != dst
        cur, dst, vc, ascents = cur[go], dst[go], vc[go], ascents[go]
        prev_port, prev_channel = port[go], channel[go]
    edges = np.unique(np.concatenate(edges), axis=0)
    num = n * k * vcs
    cycle = _find_cycle(num, edges)
    result = {"deadlock_free": cycle is None, "vcs": vcs,
              "max_ascents": most_ascents,
              "channels": num, "dependencies": int(len(edges)), "cycle": None}
    if cycle is not None:
        result["cycle"] = [(int(c // vcs // k), int(c // vcs % k), int(c % vcs)) for c in cycle]
    return result
