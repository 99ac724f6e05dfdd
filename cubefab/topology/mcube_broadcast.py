"""Broadcasting in the Mcube (mcube.txt section 4), as a schedule for the validator of
:mod:`cubefab.topology.broadcast`.

The source p in the corner X of principal A of an r-Mcube sends, in one step, to
p1 over the LCL (it covers the (r-2)-Mcube {X' :: Y'} of p1's corner X' and the corner
of B it is joined to), to p2 over A's PCL (it covers the principal of A it lies in) and
to p3 over the PCL (it covers the principal and the lateral of B that hold it); p itself
covers its corner X, an (r-3)-Mcube. Every part is broadcast the same way, recursively,
in its own frame (see :mod:`cubefab.topology.mcube`), so the schedule takes
T(r) = 1 + T(r-2) steps, T(r <= 2) = r: ceil((r+1)/2) for r >= 3.

Sending to three neighbours at once (and, in the same step, starting the broadcast of
its own corner) needs the **all-port** model: under one-port the informed set at most
doubles per step, so k steps are needed, more than ceil((k+1)/2) for k >= 2.
"""

import numpy as np

from .mcube_frames import _Frames, paper_diameter


__all__ = ["mcube_schedule", "paper_broadcast_steps"]


def paper_broadcast_steps(topology):
    """ceil((k+1)/2) for k >= 3 (section 4), k for the hypercubes k <= 2."""
    return paper_diameter(topology.k)


def mcube_schedule(topology, source):
    """Section 4's broadcast from ``source``: a list of steps of (sender, receiver).

    A node reached by two parts of the recursion in the same or a later step keeps its
    first transfer only (the paper's "avoid sending duplicate messages" in the
    intersecting sub-Mcubes handled by p3).
    """
    if getattr(topology, "neighbor_table", None) is None:   # (the Mcube's own table)
        raise TypeError(f"Topology must be an Mcube, not {topology!r}")
    source = topology.check_node(source, "source")
    nb = topology.neighbor_table
    frames = _Frames(nb)
    transfers = []          # (step, sender, receiver)

    def cast(nodes, links, p, start):
        r = len(links)
        if r <= 2:
            # hypercube: every informed node sends along the next dimension
            informed = [p]
            for step, j in enumerate(sorted(links, reverse=True)):
                new = []
                for u in informed:
                    v = int(nb[u, j])
                    transfers.append((start + step, u, v))
                    new.append(v)
                informed += new
            return
        pcl, lcl = links[0], links[-1]
        a, b = frames.split(nodes, pcl, links)
        if p not in set(a.tolist()):
            a, b = b, a
        laterals = frames.split(nodes, lcl, links)
        a_halves = frames.split(a, links[1], links[1:])
        b_halves = frames.split(b, links[1], links[1:])

        def half_of(halves, x):
            return halves[0] if x in set(halves[0].tolist()) else halves[1]

        def lateral_of(x):
            return laterals[0] if x in set(laterals[0].tolist()) else laterals[1]

        corner_links = frames.lateral_frame(links[2:])
        # p covers its own corner X of A
        corner = np.intersect1d(half_of(a_halves, p), lateral_of(p))
        cast(corner, corner_links, p, start)
        # p1 over the LCL covers {X' :: Y'}
        p1 = int(nb[p, lcl])
        x1 = np.intersect1d(half_of(a_halves, p1), lateral_of(p1))
        y1 = np.intersect1d(half_of(b_halves, int(nb[x1[0], pcl])), lateral_of(p1))
        transfers.append((start, p, p1))
        cast(np.sort(np.concatenate([x1, y1])), (pcl,) + corner_links, p1, start + 1)
        # p2 over A's PCL covers the principal of A holding it
        p2 = int(nb[p, links[1]])
        transfers.append((start, p, p2))
        cast(half_of(a_halves, p2), links[2:], p2, start + 1)
        # p3 over the PCL covers the principal and the lateral of B holding it
        p3 = int(nb[p, pcl])
        transfers.append((start, p, p3))
        cast(half_of(b_halves, p3), links[2:], p3, start + 1)
        b_lateral = frames.split(b, lcl, links[1:])
        cast(b_lateral[0] if p3 in set(b_lateral[0].tolist()) else b_lateral[1],
             frames.lateral_frame(links[1:]), p3, start + 1)

    n, k = nb.shape
    cast(np.arange(n, dtype=np.int64), tuple(range(k - 1, -1, -1)), source, 0)
    # keep each node's first arrival (ties: the first transfer listed)
    transfers.sort(key=lambda t: t[0])
    informed = {source}
    steps = []
    for step, u, v in transfers:
        if v in informed:
            continue
        informed.add(v)
        while len(steps) <= step:
            steps.append([])
        steps[step].append((u, v))
    return steps

