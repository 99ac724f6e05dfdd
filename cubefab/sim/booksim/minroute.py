"""BookSim2's ``min`` routing on an anynet network, reproduced to weigh its channels.

``AnyNet::route`` runs Dijkstra from every router with unit link weights, scanning
the unvisited routers by ascending id and relaxing a neighbour only on a strictly
shorter distance. Every router at distance ``d - 1`` is settled before any at ``d``,
in id order, so the predecessor of a router ``i`` at distance ``d`` is its
lowest-id neighbour at distance ``d - 1``; a packet from ``s`` to ``t`` follows the
predecessor chain of ``t`` backwards. Ties therefore go to low router ids, which
concentrates traffic on their links: :func:`min_channel_loads` gives the channel
loads of those routes under uniform traffic, in the units of
:func:`cubefab.sim.channel_load.channel_loads`.
"""

import numpy as np

from ...topology.base import Topology
from .export import MAX_TABLE_ROUTERS


__all__ = ["min_parents", "min_channel_loads"]


def _neighbours(topology):
    nodes = topology.nodes()
    return np.stack([topology.index_array(topology.neighbor_array(nodes, p))
                     for p in range(topology.degree)], axis=1)


def _check(topology):
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    if topology.num_nodes > MAX_TABLE_ROUTERS:
        raise ValueError(f"BookSim's min routes of {topology.label} are not reproduced "
                         f"beyond {MAX_TABLE_ROUTERS} routers")


def _tree(nb, s):
    """(parent, layers) of BookSim's shortest-path tree from dense index ``s``."""
    n = len(nb)
    dist = np.full(n, -1, dtype=np.int64)
    parent = np.full(n, -1, dtype=np.int64)
    dist[s] = 0
    layers = [np.array([s])]
    while True:
        cand = np.unique(nb[layers[-1]])
        cand = cand[dist[cand] < 0]
        if not len(cand):
            return parent, layers
        d = len(layers)
        dist[cand] = d
        near = nb[cand]
        parent[cand] = np.where(dist[near] == d - 1, near, n).min(axis=1)
        layers.append(cand)


def min_parents(topology, source):
    """``parent[i]``: the router before dense index ``i`` on BookSim's min route from
    dense index ``source`` (-1 for the source)."""
    _check(topology)
    return _tree(_neighbours(topology), source)[0]


def min_channel_loads(topology):
    """``loads[i, p]``: expected load of the channel leaving dense index ``i`` through
    cubefab port ``p`` per flit injected at every node, uniform traffic over the other
    nodes, on BookSim's min routes."""
    _check(topology)
    nb = _neighbours(topology)
    n, degree = nb.shape
    port = np.zeros((n, n), dtype=np.int8)      # port[u, v]: cubefab port from u to v
    port[np.repeat(np.arange(n), degree), nb.ravel()] = np.tile(np.arange(degree), n)
    loads = np.zeros((n, degree))
    for s in range(n):
        parent, layers = _tree(nb, s)
        below = np.ones(n)               # destinations routed through each router
        for layer in reversed(layers[1:]):
            np.add.at(below, parent[layer], below[layer])
        hop = np.flatnonzero(parent >= 0)
        np.add.at(loads, (parent[hop], port[parent[hop], hop]), below[hop])
    return loads / (n - 1)
