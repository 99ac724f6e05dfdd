"""Deadlock freedom of broadcast replication: the channel dependency graph with trees.

The scheme the routers implement (``"buffered"``):

* broadcast packets travel on their own VC class, ``B`` VCs after the ``U`` unicast VCs
  of :mod:`cubefab.topology.deadlock` (no packet ever changes class);
* every broadcast input VC buffers a whole packet, and a channel is granted to a
  broadcast copy only when the downstream buffer can take the whole packet (virtual
  cut-through); the copies to the children leave *asynchronously*, each when its own
  output is free, and the packet leaves the input buffer after its last copy;
* the broadcast VC follows the tree: ``vc_out = min(vc_in + bwrap(here, port), B - 1)``
  (``vc_in = 0`` at the source), where ``bwrap(here, port)`` is the unicast rule's
  ``wrap`` of the *reverse* channel (the broadcast tree is the unicast tree routing run
  backwards): a metacube cross-edge that sets a class bit, a DLH ring hop across the
  dateline, never on the hypercube and the Mcube.

What a broadcast packet holds and waits for: sitting whole in the buffer of channel
``(parent -> here, vc_in)`` it waits for each channel ``(here -> child, vc_out)``; it
holds no output while it waits for another (a granted copy moves whole into a free
buffer), so the only dependencies are these tree edges, for every source. Local
delivery is a sink. The combined graph is the unicast graph plus the broadcast
graph on disjoint channels; :func:`check_broadcast` builds it and looks for a cycle.

``"wormhole"`` is the unsound scheme for comparison: flits of the copies move in lock
step, so a packet that holds the output to one child waits for the output to another
with its flits spread over both: every pair of sibling outputs depends on each other
both ways, a cycle as soon as a node has two children.
"""

import time

import numpy as np

from .broadcast import ALL_PORT
from .base import Topology, check_int
from .broadcast import check_model
from .broadcast_tree import (back_ports, model_parent_ports, _check_topology,
                             _children_masks, _depths, _up_indices)
from .adaptive import escape_algorithm
from .duato import AdaptiveReport, extended_dependency_graph
from .deadlock import (DeadlockError, channel_dependency_graph, cycle_text, decode_channels,
                       required_vcs,
                       translation_mask, wrap_array, _find_cycle, _translate_types)


__all__ = ["SCHEMES", "BUFFERED", "WORMHOLE", "broadcast_wrap_array", "broadcast_wrap_reads_address",
           "broadcast_next_vc", "required_broadcast_vcs",
           "broadcast_dependency_graph",
           "check_broadcast", "BroadcastDeadlockReport", "BroadcastDeadlockError",
           "check_adaptive_broadcast", "AdaptiveBroadcastReport"]

#: Replication schemes :func:`check_broadcast` knows (the first is the routers').
BUFFERED, WORMHOLE = "buffered", "wormhole"
SCHEMES = (BUFFERED, WORMHOLE)


def _check_scheme(scheme):
    if scheme not in SCHEMES:
        raise ValueError(f"Replication scheme must be one of {', '.join(SCHEMES)}, "
                         f"not {scheme!r}")
    return scheme


def broadcast_wrap_array(topology, addresses, in_ports, port, model=ALL_PORT):
    """Vectorised ``bwrap(here, in_port, port)`` (bool array, no checks) of a broadcast
    copy that arrived at ``addresses`` through ``in_ports`` (``degree``: injected there)
    and leaves through network ``port``, in the trees of ``model``.

    Hypercube, metacube, DLH: the unicast ``wrap`` of the reverse channel (from the
    neighbour back through the inverse port); ``in_ports`` is not read. Mcube, all-port:
    a link number that does not exceed the one the copy arrived on (inside one VC the
    link numbers along a tree path then strictly increase); one-port (the binomial tree
    sends on its links in descending order): a link number that is not below the one
    the copy arrived on (inside one VC they strictly decrease).
    """
    wrap = topology.broadcast_wrap_array(addresses, in_ports, port, model)
    if wrap is None:
        there = topology.neighbor_array(addresses, port)
        wrap = wrap_array(topology, there, back_ports(topology)[port])
    return wrap


def broadcast_wrap_reads_address(topology):
    """Whether :func:`broadcast_wrap_array` depends on the node's address (the
    hypercube, metacube and DLH: the reverse channel's wrap) or only on the ports (the
    Mcube: link-number order), so that an address-strapped router needs a strap for it."""
    return topology.broadcast_wrap_reads_address


def broadcast_next_vc(topology, here, in_port, port, vc_in, vcs, model=ALL_PORT):
    """The broadcast VC (within the broadcast class) of the copy that leaves ``here``
    through network ``port``, for a packet that arrived through ``in_port`` on broadcast
    VC ``vc_in`` (``in_port = degree`` and ``vc_in = 0`` at the source), with ``vcs``
    broadcast VCs: ``min(vc_in + bwrap(here, in_port, port), vcs - 1)`` (``bwrap`` of
    ``model``). The reference the routers' broadcast VC selection must equal."""
    check_model(model)
    vcs = check_int("Broadcast VCs", vcs, 1)
    vc_in = check_int("vc_in", vc_in, 0, vcs - 1)
    here = topology.check_node(here, "here")
    in_port = topology.check_port(in_port, "in_port", local=True)
    port = topology.check_port(port)
    wrap = broadcast_wrap_array(topology, np.array([here]), np.array([in_port]), port, model)
    return min(vc_in + int(wrap[0]), vcs - 1)


def _tree_hops(topology, source, model=ALL_PORT):
    """Arrays ``(holder, here, in_port, out_port)`` of every two consecutive links of the
    tree of ``source``: the link into ``here`` (dense) leaves ``holder`` (dense) through
    ``in_port``, the next leaves ``here`` through ``out_port``."""
    nodes = topology.nodes()
    parent = model_parent_ports(topology, source, model)
    back = back_ports(topology)
    s = topology.index(source)
    rows = []
    for p in range(topology.degree):
        there = topology.index_array(topology.neighbor_array(nodes, p))
        here = np.flatnonzero(parent[there] == back[p])   # here -> there through p: a tree link
        here = here[here != s]
        up = parent[here]
        holder = np.empty(len(here), dtype=np.int64)
        for q in np.unique(up).tolist():
            sel = up == q
            holder[sel] = topology.index_array(topology.neighbor_array(nodes[here[sel]], q))
        in_port = np.array(back, dtype=np.int64)[up]
        rows.append((holder, here, in_port, np.full(len(here), p, dtype=np.int64)))
    return [np.concatenate([r[i] for r in rows]) for i in range(4)]


def _tree_vcs(topology, source, cap, model=ALL_PORT):
    """The broadcast VC (uncapped when ``cap`` is None) of the tree link into every node
    of the tree of ``source`` (dense order; 0 at the source), level by level."""
    nodes = topology.nodes()
    parent = model_parent_ports(topology, source, model)
    back = np.array(back_ports(topology), dtype=np.int64)
    up = _up_indices(topology, parent)
    depth = _depths(topology, parent)
    vc_in = np.zeros(len(nodes), dtype=np.int64)
    for level in range(1, int(depth.max()) + 1):
        here = np.flatnonzero(depth == level)
        holder = up[here]
        out = back[parent[here]]
        vc = vc_in[holder] + _wrap_per_port(topology, nodes[holder], parent[holder], out,
                                            model)
        vc_in[here] = vc if cap is None else np.minimum(vc, cap - 1)
    return vc_in


def _wrap_per_port(topology, addresses, in_ports, ports, model=ALL_PORT):
    """:func:`broadcast_wrap_array` with one output port per address."""
    ports = np.asarray(ports, dtype=np.int64)
    out = np.zeros(len(ports), dtype=np.int64)
    for p in np.unique(ports).tolist():
        sel = ports == p
        out[sel] = broadcast_wrap_array(topology, np.asarray(addresses)[sel],
                                        np.asarray(in_ports)[sel], p, model)
    return out


def _representatives(topology):
    mask = translation_mask(topology)
    nodes = topology.nodes()
    return nodes[(nodes & mask) == 0], mask


def required_broadcast_vcs(topology, model=ALL_PORT):
    """Broadcast VCs the rule uses uncapped: 1 + the most ``bwrap`` hops on a tree path
    (the trees of ``model``)."""
    _check_topology(topology)
    check_model(model)
    reps, _ = _representatives(topology)
    return 1 + max(int(_tree_vcs(topology, int(s), None, model).max()) for s in reps)


def broadcast_dependency_graph(topology, vcs=None, scheme=BUFFERED, offset=0, total=None,
                               model=ALL_PORT):
    """The broadcast channel dependencies of every source's tree.

    Parameters
    ----------
    vcs : int, optional
        Broadcast VCs ``B`` (default :func:`required_broadcast_vcs`).
    scheme : {"buffered", "wormhole"}
    offset, total : int
        Broadcast VC ``v`` is channel VC ``offset + v`` of ``total`` VCs per link
        (default: ``0`` and ``vcs``), so the graph can join the unicast one.
    model : {"all-port", "one-port"}
        Whose trees (:data:`~cubefab.topology.broadcast.MODELS`). A one-port node
        sends its copies one after another, each whole before the next starts; the
        packet waits in its input buffer for one output at a time and holds none, so
        its dependencies are the same tree edges.

    Returns
    -------
    (num_channels, edges)
        Channels numbered as in
        :func:`~cubefab.topology.deadlock.channel_dependency_graph`; edges ``(held,
        requested)``, distinct.
    """
    _check_topology(topology)
    scheme = _check_scheme(scheme)
    check_model(model)
    vcs = (required_broadcast_vcs(topology, model) if vcs is None
           else check_int("Broadcast VCs", vcs, 1))
    total = vcs if total is None else total
    degree = topology.degree
    nodes = topology.nodes()
    reps, mask = _representatives(topology)
    types = set()       # (holder address & ~mask, in port, vc, out port of here, vc)
    for s in reps.tolist():
        vc_in = _tree_vcs(topology, s, vcs, model)
        holder, here, in_port, out_port = _tree_hops(topology, s, model)
        parent = model_parent_ports(topology, s, model)
        out_vc = np.minimum(vc_in[here] + _wrap_per_port(
            topology, nodes[here], parent[here], out_port, model), vcs - 1)
        rows = np.stack([nodes[holder] & ~mask, in_port, vc_in[here], out_port, out_vc], axis=1)
        types.update(map(tuple, np.unique(rows, axis=0).tolist()) if len(rows) else [])
        if scheme == "wormhole":
            types.update(_sibling_types(topology, s, vc_in, mask, vcs, model))
    num = topology.num_nodes * degree * total
    if not types:
        return num, np.zeros((0, 2), dtype=np.int64)
    hidx, nxt, p0, v0, p1, v1 = _translate_types(topology, types, mask)
    # p0 == -1 - port marks a sibling pair: both channels leave the holder itself
    sib = p0 < 0
    nxt[sib] = hidx[sib]
    a = np.where(sib, (hidx * degree + (-p0 - 1)) * total + offset + v0,
                 (hidx * degree + np.maximum(p0, 0)) * total + offset + v0)
    b = (nxt * degree + p1) * total + offset + v1
    return num, np.unique(np.stack([a, b], axis=1), axis=0)


def _sibling_types(topology, source, vc_in, mask, vcs, model=ALL_PORT):
    """Wormhole replication: edge types between every ordered pair of outputs of a node
    that has several children (a held output waits for another)."""
    nodes = topology.nodes()
    parent = model_parent_ports(topology, source, model)
    masks = _children_masks(topology, parent)
    out = set()
    for i in np.flatnonzero(np.bitwise_count(masks) >= 2).tolist():
        ports = [p for p in range(topology.degree) if masks[i] >> p & 1]
        here = int(nodes[i])
        wraps = _wrap_per_port(topology, np.full(len(ports), here),
                               np.full(len(ports), parent[i]), ports, model)
        vc = {p: min(int(vc_in[i] + w), vcs - 1) for p, w in zip(ports, wraps)}
        for p in ports:
            for q in ports:
                if p != q:
                    out.add((here & ~mask, -p - 1, vc[p], q, vc[q]))
    return out


class BroadcastDeadlockReport:
    """Result of :func:`check_broadcast`.

    Its attributes: ``topology``; ``algorithm``, the unicast routing; ``scheme``, the
    replication scheme; ``unicast_vcs`` and ``broadcast_vcs``, the VCs per link of each
    class (broadcast VCs follow the unicast ones); ``channels`` and ``dependencies``,
    the vertices and edges of the combined channel dependency graph, of which
    ``unicast_dependencies`` and ``broadcast_dependencies`` in each part; ``cycle``, a
    cycle of channels as ``(u, port, v, vc, kind)`` with ``kind`` ``"unicast"`` or
    ``"broadcast"`` and ``vc`` counted within its class, None when proven; ``seconds``.
    """

    def __init__(self, topology, algorithm, scheme, unicast_vcs, broadcast_vcs, channels,
                 unicast_dependencies, broadcast_dependencies, cycle, seconds,
                 model=ALL_PORT):
        self.topology = topology
        self.model = model
        self.algorithm = algorithm
        self.scheme = scheme
        self.unicast_vcs = unicast_vcs
        self.broadcast_vcs = broadcast_vcs
        self.channels = channels
        self.unicast_dependencies = unicast_dependencies
        self.broadcast_dependencies = broadcast_dependencies
        self.dependencies = unicast_dependencies + broadcast_dependencies
        self.cycle = cycle
        self.seconds = seconds

    @property
    def deadlock_free(self):
        return self.cycle is None

    def describe_cycle(self):
        """The cycle as text, e.g. ``0 -[port 1, broadcast vc 0]-> 2; ...``."""
        return cycle_text(self.cycle, lambda u, p, v, vc, kind:
                          f"{u} -[port {p}, {kind} vc {vc}]-> {v}")

    def as_dict(self):
        return {
            "topology": self.topology.label,
            "algorithm": self.algorithm,
            "scheme": self.scheme,
            "model": self.model,
            "unicast_vcs": self.unicast_vcs,
            "broadcast_vcs": self.broadcast_vcs,
            "channels": self.channels,
            "dependencies": self.dependencies,
            "unicast_dependencies": self.unicast_dependencies,
            "broadcast_dependencies": self.broadcast_dependencies,
            "deadlock_free": self.deadlock_free,
            "cycle": None if self.cycle is None else
            [{"from": u, "port": p, "to": v, "vc": vc, "class": kind}
             for u, p, v, vc, kind in self.cycle],
            "seconds": round(self.seconds, 3),
        }


def check_broadcast(topology, algorithm=None, vcs=None, broadcast_vcs=None,
                    scheme=BUFFERED, model=ALL_PORT):
    """Prove unicast plus broadcast deadlock-free: build the combined channel dependency
    graph (unicast routing ``algorithm`` on VCs ``0 .. U-1``, broadcast trees on VCs
    ``U .. U+B-1``) and look for a cycle.

    Parameters
    ----------
    topology : Topology
    algorithm : str, optional
        Unicast routing (the topology's default when None).
    vcs : int, optional
        Unicast VCs ``U`` (default: what the unicast VC rule needs).
    broadcast_vcs : int, optional
        Broadcast VCs ``B`` (default: :func:`required_broadcast_vcs`).
    scheme : {"buffered", "wormhole"}
    model : {"all-port", "one-port"}
        The broadcast trees (:func:`broadcast_dependency_graph`).

    Returns
    -------
    BroadcastDeadlockReport
    """
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    _check_topology(topology)
    algorithm = topology.check_algorithm(algorithm)
    scheme = _check_scheme(scheme)
    check_model(model)
    t0 = time.perf_counter()
    u = required_vcs(topology, algorithm) if vcs is None else check_int(
        "Number of virtual channels", vcs, 1)
    b = required_broadcast_vcs(topology, model) if broadcast_vcs is None else check_int(
        "Broadcast VCs", broadcast_vcs, 1)
    total = u + b
    _, uni = channel_dependency_graph(topology, algorithm, u)
    # renumber the unicast channels from u to u + b VCs per link
    uni = (uni // u) * total + uni % u
    num, bro = broadcast_dependency_graph(topology, b, scheme, offset=u, total=total,
                                          model=model)
    edges = np.concatenate([uni, bro]) if len(uni) else bro
    found = _find_cycle(num, edges)
    cycle = None
    if found is not None:
        cycle = [(a, port, v, vc, "unicast") if vc < u else (a, port, v, vc - u, "broadcast")
                 for a, port, v, vc in decode_channels(topology, found, total)]
    return BroadcastDeadlockReport(topology, algorithm, scheme, u, b, num, len(uni), len(bro),
                                   cycle, time.perf_counter() - t0, model)


class BroadcastDeadlockError(DeadlockError):
    """A unicast plus broadcast configuration whose combined channel dependency graph
    (:func:`check_broadcast`) has a cycle."""

    def __init__(self, report):
        self.report = report
        ValueError.__init__(
            self, f"{report.topology.label} with {report.algorithm} routing, "
            f"{report.unicast_vcs} unicast and {report.broadcast_vcs} broadcast VC(s) "
            f"can deadlock ({report.scheme} {report.model} replication); channel "
            f"dependency cycle: "
            f"{report.describe_cycle()}")


class AdaptiveBroadcastReport(AdaptiveReport):
    """Result of :func:`check_adaptive_broadcast`: the
    :class:`~cubefab.topology.duato.AdaptiveReport` of the unicast part, whose
    ``dependencies`` count both parts, and the broadcast part's ``broadcast_vcs``,
    ``model`` (whose trees), ``broadcast_dependencies``; ``adaptive_dependencies``,
    the edges of Duato's extended graph; ``vertices``, those of the combined graph
    (escape channels, states, broadcast channels). A ``cycle`` step's ``kind`` is
    Duato's (``"direct"``, ``"indirect"``: ``c`` the escape class) or
    ``"broadcast"`` (``c`` the broadcast VC).
    """

    scheme = BUFFERED

    def __init__(self, unicast, broadcast_vcs, model, vertices, broadcast_dependencies):
        super().__init__(unicast.topology, unicast.algorithm, unicast.escape,
                         unicast.escape_classes, unicast.adaptive_vcs, unicast.channels,
                         unicast.dependencies + broadcast_dependencies, unicast.states,
                         unicast.cycle, unicast.unreachable, unicast.seconds)
        self.broadcast_vcs, self.model = broadcast_vcs, model
        self.vertices = vertices
        self.adaptive_dependencies = unicast.dependencies
        self.broadcast_dependencies = broadcast_dependencies

    @property
    def vcs(self):
        """VC classes per link: escape classes, adaptive VCs and broadcast VCs."""
        return super().vcs + self.broadcast_vcs

    def describe_need(self):
        """What the configuration lacks, as text (for :class:`DeadlockError`)."""
        return (f"Duato's condition on {self.escape} escape VCs and acyclic broadcast "
                f"trees on {self.broadcast_vcs} broadcast VC(s)")

    @staticmethod
    def _step_text(u, p, v, c, kind):
        if kind == "broadcast":
            return f"{u} -[port {p}, broadcast vc {c}]-> {v}"
        return AdaptiveReport._step_text(u, p, v, c, kind)

    @staticmethod
    def _step_dict(u, p, v, c, kind):
        if kind == "broadcast":
            return {"from": u, "port": p, "to": v, "vc": c, "dependency": kind}
        return AdaptiveReport._step_dict(u, p, v, c, kind)

    def as_dict(self):
        return {**super().as_dict(), "broadcast_vcs": self.broadcast_vcs,
                "scheme": self.scheme, "model": self.model, "vertices": self.vertices,
                "adaptive_dependencies": self.adaptive_dependencies,
                "broadcast_dependencies": self.broadcast_dependencies}


def check_adaptive_broadcast(topology, algorithm=None, escape_classes=None, adaptive_vcs=1,
                             broadcast_vcs=None, model=ALL_PORT):
    """Prove adaptive unicast routing beside buffered broadcast replication
    deadlock-free: Duato's extended channel dependency graph of the unicast routing
    (:func:`~cubefab.topology.duato.check_adaptive`) joined with the broadcast trees'
    graph (:func:`broadcast_dependency_graph`) and searched for a cycle.

    The two parts share no channel and no dependency: a unicast packet never enters a
    broadcast VC nor a broadcast packet a unicast one (an adaptive replicating router
    injects them into queues of their own), and local delivery, which both reach, is
    a sink; injection queues are no channels. The combined graph is acyclic exactly when each part is.

    Parameters
    ----------
    topology : Topology
    algorithm : str, optional
        The unicast routing (the topology's default when None), run adaptively over
        its escape routing (:func:`~cubefab.topology.adaptive.escape_algorithm`).
    escape_classes : int, optional
        Escape VC classes (default: what the escape routing needs).
    adaptive_vcs : int
        Adaptive VCs per link (recorded: Duato's condition does not depend on it).
    broadcast_vcs : int, optional
        Broadcast VCs ``B`` (default: :func:`required_broadcast_vcs`).
    model : {"all-port", "one-port"}

    Returns
    -------
    AdaptiveBroadcastReport
    """
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    _check_topology(topology)
    algorithm = topology.check_algorithm(algorithm)
    escape = escape_algorithm(topology, algorithm)
    check_model(model)
    adaptive_vcs = check_int("Adaptive virtual channels", adaptive_vcs, 1)
    classes = (required_vcs(topology, escape) if escape_classes is None else
               check_int("Escape VC classes", escape_classes, 1))
    b = required_broadcast_vcs(topology, model) if broadcast_vcs is None else check_int(
        "Broadcast VCs", broadcast_vcs, 1)
    t0 = time.perf_counter()
    unicast = extended_dependency_graph(topology, algorithm, classes)
    offset = unicast.vertices
    num, bro = broadcast_dependency_graph(topology, b, BUFFERED, model=model)
    cycle = None
    if not unicast.unreachable:
        found = _find_cycle(offset + num, np.concatenate([unicast.edges, bro + offset]))
        if found is not None and found[0] < offset:
            cycle = unicast.escape_cycle(found)
        elif found is not None:
            cycle = [(u, port, v, vc, "broadcast") for u, port, v, vc in
                     decode_channels(topology, [c - offset for c in found], b)]
    report = AdaptiveReport(topology, algorithm, escape, classes, adaptive_vcs,
                            unicast.escape_channels, len(unicast.edges), unicast.states,
                            cycle, unicast.unreachable, time.perf_counter() - t0)
    return AdaptiveBroadcastReport(report, b, model, offset + num, len(bro))
