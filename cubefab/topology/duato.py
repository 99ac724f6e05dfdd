"""Deadlock freedom of adaptive routing by Duato's protocol.

Every link has *escape* VCs and *adaptive* VCs. A packet may take any offered adaptive
port (:func:`~cubefab.topology.adaptive.adaptive_ports`) on an adaptive VC, or the
escape port (:func:`~cubefab.topology.adaptive.escape_port`) on an escape VC. The escape
VCs keep the deterministic routing's VC classes (:mod:`cubefab.topology.deadlock`): a
packet carries its class, which goes up by ``wrap(here, port)`` at every hop it takes,
adaptive or escape (capped at the last class), and its escape hops use that class.

Duato's condition (Duato 1993/1995): the routing is deadlock-free if the escape
routing is connected (it reaches the destination from every state a packet can be in)
and its *extended* channel dependency graph is acyclic. That graph has a vertex per
escape channel (link, class) and an edge ``c1 -> c2`` when a packet holding ``c1`` can
request ``c2`` next (a direct dependency) or after some hops on adaptive channels (an
indirect one). :func:`check_adaptive` builds it from every state ``(node, class)`` a
packet to each destination can reach: a vertex per such state (per destination) stands
for "a packet here may request", so every path escape -> states -> escape is one
dependency, and since adaptive hops never return to a state (they make progress: minimal
ports shorten the distance, Mroute's ports its route) the extended graph is acyclic iff
this graph is. A cycle is reported as escape channels, each reached directly or through
adaptive channels.
"""

import time

import numpy as np

from .adaptive import escape_algorithm, offered_port_masks
from .base import Topology, check_int
from .deadlock import _find_cycle, cycle_text, required_vcs, wrap_array


__all__ = ["AdaptiveReport", "ExtendedGraph", "check_adaptive", "extended_dependency_graph"]


class AdaptiveReport:
    """Result of :func:`check_adaptive`.

    Its attributes: ``topology``, ``algorithm`` and ``escape`` (the escape routing's name);
    ``escape_classes``, the escape VC classes (the escape routing's dateline/class VCs);
    ``adaptive_vcs``, adaptive VCs per link (the proof holds for any number >= 1);
    ``channels``, the escape channels (link, class); ``dependencies``, the edges of the
    extended graph (escape channel -> state -> ... -> escape channel); ``states``, the
    (destination, node, class) states a packet can reach; ``cycle``, a cycle of escape
    channels as ``(u, port, v, class, kind)`` with ``kind`` how the previous channel leads
    to this one (``"direct"``, or ``"indirect"`` through adaptive channels), None when
    proven; ``unreachable``, the ``(node, dest)`` pairs the escape routing does not connect
    (None when it does); ``seconds``.
    """

    def __init__(self, topology, algorithm, escape, escape_classes, adaptive_vcs, channels,
                 dependencies, states, cycle, unreachable, seconds):
        self.topology = topology
        self.algorithm = algorithm
        self.escape = escape
        self.escape_classes = escape_classes
        self.adaptive_vcs = adaptive_vcs
        self.channels = channels
        self.dependencies = dependencies
        self.states = states
        self.cycle = cycle
        self.unreachable = unreachable
        self.seconds = seconds

    @property
    def vcs(self):
        """VCs per link: the escape classes plus the adaptive VCs."""
        return self.escape_classes + self.adaptive_vcs

    @property
    def deadlock_free(self):
        return self.cycle is None and not self.unreachable

    def describe_need(self):
        """What the configuration lacks, as text (for
        :class:`~cubefab.topology.deadlock.DeadlockError`)."""
        return (f"Duato's condition on {self.escape} escape VCs, which "
                f"{self.escape_classes} escape class(es) do not meet")

    def describe_cycle(self):
        """The witness cycle as text."""
        if self.unreachable:
            node, dest = self.unreachable[0]
            return f"the escape routing does not reach {dest} from {node}"
        return cycle_text(self.cycle, self._step_text)

    @staticmethod
    def _step_text(u, p, v, c, kind):
        """A step ``(u, p, v, c, kind)`` of the cycle as text."""
        return (f"{'' if kind == 'direct' else '(via adaptive) '}{u} -[port {p}, escape "
                f"class {c}]-> {v}")

    @staticmethod
    def _step_dict(u, p, v, c, kind):
        """A step of the cycle as a JSON object."""
        return {"from": u, "port": p, "to": v, "class": c, "dependency": kind}

    def as_dict(self):
        return {
            "topology": self.topology.label,
            "algorithm": self.algorithm,
            "adaptive": True,
            "escape": self.escape,
            "escape_classes": self.escape_classes,
            "adaptive_vcs": self.adaptive_vcs,
            "vcs": self.vcs,
            "escape_channels": self.channels,
            "dependencies": self.dependencies,
            "states": self.states,
            "escape_connected": not self.unreachable,
            "deadlock_free": self.deadlock_free,
            "cycle": None if self.cycle is None else
            [self._step_dict(*step) for step in self.cycle],
            "seconds": round(self.seconds, 3),
        }


def _destination_graph(topology, dest, algorithm, classes, nodes, neighbours, wraps, base):
    """Edges of the extended graph contributed by packets to ``dest`` (state vertices
    numbered from ``base``), the number of reachable states and the escape's gaps."""
    n, degree = neighbours.shape
    t = topology.index(dest)
    masks, escape = offered_port_masks(topology, dest, algorithm)
    # escape connectivity: follow the escape ports from every node
    at = np.arange(n)
    for _ in range(n):
        live = at != t
        if not live.any():
            break
        at[live] = neighbours[at[live], escape[at[live]]]
    unreachable = [(int(nodes[i]), dest) for i in np.flatnonzero(at != t)]
    if unreachable:
        return [], 0, unreachable
    top = classes - 1
    reach = np.zeros((n, classes), dtype=bool)
    frontier_i = np.delete(np.arange(n), t)
    frontier_c = np.zeros(len(frontier_i), dtype=np.int64)
    reach[frontier_i, frontier_c] = True
    edges = []

    def esc_id(i, p, c):                # escape channel: link (i, p), class c
        return (i * degree + p) * classes + c

    def state_id(i, c):                 # a packet to dest at node i with class c
        return base + i * classes + c

    while len(frontier_i):
        i, c = frontier_i, frontier_c
        # the escape hop
        e = escape[i]
        ce = np.minimum(c + wraps[i, e], top)
        channel = esc_id(i, e, ce)
        edges.append(np.stack([state_id(i, c), channel], axis=1))
        j = neighbours[i, e]
        go = j != t
        edges.append(np.stack([channel[go], state_id(j[go], ce[go])], axis=1))
        nxt_i, nxt_c = [j[go]], [ce[go]]
        # the adaptive hops
        for p in range(degree):
            sel = ((masks[i] >> p) & 1).astype(bool)
            jp = neighbours[i[sel], p]
            cp = np.minimum(c[sel] + wraps[i[sel], p], top)
            go = jp != t
            edges.append(np.stack([state_id(i[sel][go], c[sel][go]),
                                   state_id(jp[go], cp[go])], axis=1))
            nxt_i.append(jp[go])
            nxt_c.append(cp[go])
        ni, nc = np.concatenate(nxt_i), np.concatenate(nxt_c)
        new = ~reach[ni, nc]
        ni, nc = ni[new], nc[new]
        key = np.unique(ni * classes + nc)
        frontier_i, frontier_c = key // classes, key % classes
        reach[frontier_i, frontier_c] = True
    return edges, int(reach.sum()), None


def check_adaptive(topology, algorithm=None, escape_classes=None, adaptive_vcs=1):
    """Prove adaptive routing with escape VCs deadlock-free (Duato's condition).

    Parameters
    ----------
    topology : Topology
    algorithm : str or None
        The routing run adaptively (the topology's default when ``None``); its escape
        is :func:`~cubefab.topology.adaptive.escape_algorithm`.
    escape_classes : int or None
        Escape VC classes (default: what the escape routing's VC assignment needs,
        :func:`~cubefab.topology.deadlock.required_vcs`). Fewer drop the dateline /
        class VCs and, where they are needed, leave a cycle.
    adaptive_vcs : int
        Adaptive VCs per link, ``>= 1`` (recorded; the condition does not depend on it).

    Returns
    -------
    AdaptiveReport
    """
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    algorithm = topology.check_algorithm(algorithm)
    escape = escape_algorithm(topology, algorithm)
    adaptive_vcs = check_int("Adaptive virtual channels", adaptive_vcs, 1)
    classes = (required_vcs(topology, escape) if escape_classes is None else
               check_int("Escape VC classes", escape_classes, 1))
    t0 = time.perf_counter()
    graph = extended_dependency_graph(topology, algorithm, classes)
    if graph.unreachable:
        return AdaptiveReport(topology, algorithm, escape, classes, adaptive_vcs,
                              graph.escape_channels, 0, graph.states, None,
                              graph.unreachable, time.perf_counter() - t0)
    cyc = _find_cycle(graph.vertices, graph.edges)
    cycle = None if cyc is None else graph.escape_cycle(cyc)
    return AdaptiveReport(topology, algorithm, escape, classes, adaptive_vcs,
                          graph.escape_channels, len(graph.edges), graph.states, cycle,
                          None, time.perf_counter() - t0)


class ExtendedGraph:
    """Duato's extended channel dependency graph of :func:`extended_dependency_graph`.

    Its attributes: ``vertices``, their count (the escape channels, numbered as in
    :func:`~cubefab.topology.deadlock.channel_dependency_graph` with ``classes`` VCs
    per link, then a state ``(dest, node, class)`` each); ``escape_channels``, how
    many of them are escape channels; ``edges``, the dependencies (distinct rows
    ``(held, requested)``); ``states``, the states a packet can reach;
    ``unreachable``, the ``(node, dest)`` pairs the escape routing does not connect
    (then ``edges`` is empty), or None.
    """

    def __init__(self, topology, classes, nodes, neighbours, vertices, edges, states,
                 unreachable):
        self.topology, self.classes = topology, classes
        self._nodes, self._neighbours = nodes, neighbours
        self.vertices = vertices
        self.escape_channels = len(nodes) * topology.degree * classes
        self.edges = edges
        self.states = states
        self.unreachable = unreachable

    def escape_cycle(self, cycle):
        """A cycle of vertices as escape channels ``(u, port, v, class, kind)``
        (``kind``: ``"direct"``, or ``"indirect"`` through adaptive channels)."""
        return _escape_cycle(self.topology, cycle, self.escape_channels, self.classes,
                             self._nodes, self._neighbours)


def extended_dependency_graph(topology, algorithm, classes):
    """Duato's extended channel dependency graph of ``algorithm`` run adaptively over
    ``classes`` escape VC classes (the module text); an :class:`ExtendedGraph`."""
    nodes = topology.nodes()
    n, degree = len(nodes), topology.degree
    neighbours = np.stack([topology.index_array(topology.neighbor_array(nodes, p))
                           for p in range(degree)], axis=1)
    wraps = np.stack([wrap_array(topology, nodes, p) for p in range(degree)],
                     axis=1).astype(np.int64)
    num_escape = n * degree * classes
    vertices = num_escape + n * n * classes
    edges, states = [], 0
    for r, dest in enumerate(nodes.tolist()):
        part, count, unreachable = _destination_graph(
            topology, dest, algorithm, classes, nodes, neighbours, wraps,
            num_escape + r * n * classes)
        if unreachable:
            return ExtendedGraph(topology, classes, nodes, neighbours, vertices,
                                 np.zeros((0, 2), dtype=np.int64), states, unreachable)
        edges.extend(part)
        states += count
    return ExtendedGraph(topology, classes, nodes, neighbours, vertices,
                         np.unique(np.concatenate(edges), axis=0), states, None)


def _escape_cycle(topology, cycle, num_escape, classes, nodes, neighbours):
    degree = topology.degree
    k = next(i for i, v in enumerate(cycle) if v < num_escape)
    cycle = cycle[k:] + cycle[:k]
    out, between = [], 0
    for v in cycle[1:] + cycle[:1]:
        if v >= num_escape:
            between += 1
            continue
        c = v % classes
        p = (v // classes) % degree
        i = v // classes // degree
        out.append((int(nodes[i]), int(p), int(nodes[neighbours[i, p]]), int(c),
                    "direct" if between <= 1 else "indirect"))
        between = 0
    return out[-1:] + out[:-1]
