"""Broadcast under faults: flooding one spanning tree of the healthy network.

The broadcast trees of :mod:`~cubefab.topology.broadcast_tree` use every link; one
failed link or node cuts a subtree off. Under faults (a
:class:`~cubefab.topology.fault_routing.FaultSet`) the model instead computes **one
spanning tree of the healthy network** (:func:`healthy_tree`: breadth first from the
lowest healthy address, each node's parent the lowest port towards a healthy node one
hop closer to the root), and a broadcast from any healthy source **floods it**: a node
sends a copy on every tree link but the one the copy came in on
(:meth:`HealthyTree.flood_ports`). So a router needs only its tree ports (a mask of
``degree`` bits, whatever the source), and

* every healthy node receives exactly one copy, the source none (a tree has exactly one
  path between two nodes; :meth:`HealthyTree.flood` follows the copies and tests check
  it against BFS reachability);
* the channel dependencies of flooding, ``(u -> v, v -> w)`` for tree links with
  ``w != u``, over every source, form an **acyclic** graph (a walk on a tree that never
  turns back cannot return to a link it used), so one broadcast VC is deadlock-free
  for replicating routers that hold a copy whole in its input buffer while it waits
  for one output at a time: :func:`flood_dependency_graph` builds the graph and
  :func:`check_flood_deadlock` proves it acyclic (or returns the cycle);
* a multicast prunes the flood: the copy leaves on tree port ``p`` of ``v`` only when a
  member lies beyond it (:meth:`HealthyTree.beyond`: the nodes on the far side of each
  tree link, a table of ``degree`` node sets per router).

The price is latency: a copy follows the tree, not a shortest path of the healthy
network (:meth:`HealthyTree.stretch` measures it against BFS).

Fault-tolerant replicating routers build exactly this
(:class:`~cubefab.hdl.route.flood.FloodChildren`, the tree written at run time).
"""

from collections import deque
from dataclasses import dataclass

import networkx as nx

import numpy as np

from .base import Topology
from .deadlock import _find_cycle
from .fault_routing import (FaultSet, WaypointRouting, check_waypoint_deadlock,
                            dense_neighbours, healthy_ports, surviving_distances)


__all__ = ["HealthyTree", "healthy_tree", "flood_dependency_graph", "check_flood_deadlock",
           "check_flood_beside_waypoints"]


@dataclass(frozen=True)
class HealthyTree:
    """A spanning tree of the healthy network (:func:`healthy_tree`).

    Attributes
    ----------
    topology : Topology
    faults : FaultSet
    root : int
        The tree's root: the lowest healthy address.
    parent : dict
        ``{node: port to its parent}`` for every healthy node but the root.
    ports : dict
        ``{node: mask of its tree ports}`` (bit ``p``: port ``p`` is a tree link, to
        the parent or a child), every healthy node.
    """

    topology: Topology
    faults: FaultSet
    root: int
    parent: dict
    ports: dict

    @property
    def nodes(self):
        """list: the healthy nodes, ascending."""
        return sorted(self.ports)

    def flood_ports(self, node, in_port=None):
        """The ports ``node`` sends a broadcast's copies on: its tree ports but
        ``in_port`` (the port the copy came in on; ``None`` at the source)."""
        mask = self.ports[node]
        return mask if in_port is None else mask & ~(1 << in_port)

    def flood(self, source):
        """Follow the copies of a broadcast from ``source``: ``{node: (in_port,
        hops)}`` for every node that receives one (``in_port`` ``None`` and 0 hops at
        the source). ValueError if a node would receive two."""
        topo = self.topology
        if source not in self.ports:
            raise ValueError(f"Source must be a healthy node, not {source!r}")
        got = {source: (None, 0)}
        todo = deque([source])
        while todo:
            u = todo.popleft()
            in_port, hops = got[u]
            mask = self.flood_ports(u, in_port)
            for p in range(topo.degree):
                if mask >> p & 1:
                    v = topo.neighbor(u, p)
                    if v in got:
                        raise ValueError(f"node {v} receives two copies of the broadcast "
                                         f"of {source}")
                    got[v] = (topo.port(v, u), hops + 1)
                    todo.append(v)
        return got

    def beyond(self, node, port):
        """The nodes on the far side of tree link ``port`` of ``node`` (the subtree a
        copy sent on it reaches), a frozenset."""
        if not self.ports[node] >> port & 1:
            raise ValueError(f"Port {port} of node {node} is not a tree link")
        topo = self.topology
        first = topo.neighbor(node, port)
        seen = {node, first}
        todo = deque([first])
        while todo:
            u = todo.popleft()
            for p in range(topo.degree):
                if self.ports[u] >> p & 1:
                    v = topo.neighbor(u, p)
                    if v not in seen:
                        seen.add(v)
                        todo.append(v)
        return frozenset(seen - {node})

    def multicast_ports(self, node, in_port, members):
        """The ports a copy of a multicast to ``members`` leaves ``node`` on: the flood
        ports beyond which a member lies."""
        mask = self.flood_ports(node, in_port)
        return sum(1 << p for p in range(self.topology.degree)
                   if mask >> p & 1 and self.beyond(node, p) & set(members))

    def stretch(self, source):
        """``(tree hops, healthy shortest hops)`` of the farthest copy of ``source``'s
        broadcast: the flood's depth against the source's eccentricity in the healthy
        network."""
        topo = self.topology
        dist = surviving_distances(topo, self.faults, [topo.index(source)])[0]
        return max(h for _, h in self.flood(source).values()), int(dist.max())


def healthy_tree(topology, faults=None):
    """The spanning tree of the healthy network that broadcasts under ``faults`` flood.

    Breadth first from the lowest healthy address; each other healthy node's parent is
    its lowest port to a healthy neighbour one hop closer to the root over healthy
    links.

    Parameters
    ----------
    topology : Topology
    faults : FaultSet or None
        The failed nodes and links (``None``: none).

    Returns
    -------
    HealthyTree

    Raises
    ------
    ValueError
        If the healthy network is not connected (a broadcast cannot reach every healthy
        node) or has no node.
    """
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    if faults is None:
        faults = FaultSet(topology)
    if not isinstance(faults, FaultSet) or faults.topology != topology:
        raise TypeError(f"Faults must be a FaultSet of {topology.label}, not {faults!r}")
    healthy = [int(a) for a in topology.nodes() if int(a) not in set(faults.nodes)]
    if not healthy:
        raise ValueError(f"{topology.label}: every node is faulty")
    neighbours = dense_neighbours(topology)
    usable = healthy_ports(topology, faults, neighbours)
    root = healthy[0]
    dist = surviving_distances(topology, faults, [topology.index(root)], neighbours)[0]
    cut = [a for a in healthy if dist[topology.index(a)] < 0]
    if cut:
        raise ValueError(f"{topology.label} with {faults}: the healthy network is not "
                         f"connected (nodes {cut[:8]} unreachable from {root}), so no "
                         f"broadcast reaches every healthy node")
    parent, ports = {}, {a: 0 for a in healthy}
    for v in healthy:
        if v == root:
            continue
        i = topology.index(v)
        p = min(p for p in range(topology.degree)
                if usable[i, p] and dist[neighbours[i, p]] == dist[i] - 1)
        u = topology.neighbor(v, p)
        parent[v] = p
        ports[v] |= 1 << p
        ports[u] |= 1 << topology.port(u, v)
    return HealthyTree(topology, faults, root, parent, ports)


def flood_dependency_graph(tree):
    """The channel dependency graph of flooding ``tree`` from every healthy source:
    vertices ``(u, v)`` (the link ``u -> v``), an edge ``(u, v) -> (v, w)`` where a copy
    that came over ``u -> v`` is sent on ``v -> w``. A networkx ``DiGraph``."""
    graph = nx.DiGraph()
    topo = tree.topology
    for source in tree.nodes:
        for v, (in_port, _) in tree.flood(source).items():
            if in_port is None:
                continue
            u = topo.neighbor(v, in_port)
            graph.add_node((u, v))
            mask = tree.flood_ports(v, in_port)
            for p in range(topo.degree):
                if mask >> p & 1:
                    graph.add_edge((u, v), (v, topo.neighbor(v, p)))
    return graph


def check_flood_deadlock(tree):
    """Whether flooding ``tree`` with one broadcast VC is deadlock-free: ``(True,
    None)`` when :func:`flood_dependency_graph` is acyclic, else ``(False, cycle)``
    with a cycle of links."""
    graph = flood_dependency_graph(tree)
    try:
        cycle = nx.find_cycle(graph)
    except nx.NetworkXNoCycle:
        return True, None
    return False, [edge[0] for edge in cycle]



def check_flood_beside_waypoints(routing, tree):
    """Whether a fabric of fault-tolerant replicating routers is deadlock-free under one
    fault set: the channel dependency graph of the waypoint routing ``routing`` (a
    :class:`~cubefab.topology.fault_routing.WaypointRouting`, on its ``V = (W + 1) * C``
    unicast VCs; :func:`~cubefab.topology.fault_routing.check_waypoint_deadlock`)
    joined with the flood's (:func:`flood_dependency_graph` of ``tree``) on broadcast
    VC ``V``, searched for a cycle.

    No packet changes between unicast and broadcast VCs and delivery is a sink, so the
    two parts share no dependency: the union is acyclic exactly when each part is
    (the function builds the union all the same, so that a router that mixed them
    would show here).

    Returns
    -------
    (bool, list or None)
        Deadlock-free, and a cycle of channels ``(u, port, v, vc)`` when not.
    """
    if not isinstance(routing, WaypointRouting):
        raise TypeError(f"Routing must be a WaypointRouting, not {routing!r}")
    if not isinstance(tree, HealthyTree) or tree.faults != routing.faults:
        raise ValueError("The tree must be the healthy tree of the routing's fault set")
    topo = routing.topology
    degree = topo.degree
    report = check_waypoint_deadlock(routing)
    vcs = report.vcs
    edges = report.edges
    unicast = (edges // vcs) * (vcs + 1) + edges % vcs   # a VC more per channel

    def vertex(link):
        u, v = link
        return (topo.index(u) * degree + topo.port(u, v)) * (vcs + 1) + vcs

    flood = np.array([[vertex(a), vertex(b)] for a, b in flood_dependency_graph(tree).edges],
                     dtype=np.int64).reshape(-1, 2)
    union = np.concatenate([unicast.reshape(-1, 2), flood])
    found = _find_cycle(topo.num_nodes * degree * (vcs + 1), union)
    if found is None:
        return True, None
    cycle = []
    nodes = topo.nodes()
    for c in found:
        vc, chan = c % (vcs + 1), c // (vcs + 1)
        u, port = int(nodes[chan // degree]), chan % degree
        cycle.append((u, port, topo.neighbor(u, port), vc))
    return False, cycle
