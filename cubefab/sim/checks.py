"""The harness checks of a self-checking fabric run, beside its hardware checkers.

Both engines watch every flit of the run and apply the same checks, in the same order,
so that they report the same counts (Python here for the Amaranth engine; the C++ of
:mod:`cubefab.sim.verilator_fabric`, ``cxx/fabric_main.cpp``, for Verilator, from
the tables of :class:`RouteReference`):

misrouted
    Flits on a link or VC that the reference routing does not allow for their packet:
    the link must be the hop the reference route from ``src`` to ``dest`` takes from
    this node (:meth:`Topology.next_port`), and the VC the one the VC-assignment
    function gives that hop (:func:`~cubefab.topology.deadlock.hop_vcs`); plus flits
    ejected at a node other than their destination. For adaptive routers the rule is
    the adaptive one (:meth:`RouteReference.allowed`): an offered adaptive port
    (:func:`~cubefab.topology.adaptive.adaptive_ports`) on the flow's adaptive VC, or
    the escape port (:func:`~cubefab.topology.adaptive.escape_port`) on the escape VC
    of the class the flit carries (``cls``), which must be a class the hop can give.
reordered, duplicated, lost
    Packets are identified by their flow (``src``, ``dest``) and creation timestamp
    (unique per source: one packet a cycle at most, and timestamps do not wrap within
    a run). A packet delivered after a later packet of its flow is ``reordered``; one
    delivered again ``duplicated``; one never delivered although a later packet of its
    flow was, or still undelivered when a drain ran to its limit, ``lost``. Packets
    undelivered otherwise (the run ended with them on their way) are ``in_flight``.
    Adaptive routing may reorder a flow's packets: then ``reordered`` is a figure, not
    an error, and an overtaken packet is ``lost`` only when a drain ran to its limit.

broadcast copies (replicating routers)
    A copy of a broadcast from ``src`` may cross link ``(here, port)`` only when it is
    a link of the tree of ``src`` (:func:`~cubefab.topology.broadcast_tree.broadcast_tree`;
    one-port routers: :func:`~cubefab.topology.broadcast_tree.one_port_tree`),
    on the broadcast VC of the rule
    (:func:`~cubefab.topology.broadcast_deadlock.broadcast_next_vc`); a copy ejected at
    its source is misrouted. Each broadcast is ``N - 1`` packets in the ledger, one in
    the flow from its source to every other node (keyed apart from unicast flows), so
    a lost, duplicated or reordered copy counts as a unicast packet does. The latency
    of a broadcast is from its creation to its last copy's tail
    (:class:`BroadcastLatency`, from the copies seen). Fault-tolerant replicating
    routers flood one spanning tree of the healthy network instead
    (:class:`FloodReference`): a copy may cross only a link of the flood from its
    source, on the first broadcast VC, and each broadcast is a packet to every other
    healthy node (member of its group).

With the header in the head flit only (``RouterConfig(header="head")``) a body or tail
flit carries no ``src`` or ``dest``: both engines check it as its packet's head, which
they remember per link and VC, and per ejection port (:meth:`FlitFields.with_head`),
with its own VC.

Corruption (payload check words, framing) is counted by the hardware checkers.
"""

import functools

import numpy as np
from amaranth.hdl import Shape

from ..topology.broadcast import ALL_PORT, ONE_PORT
from ..topology.adaptive import offered_port_masks
from ..topology.deadlock import flow_lane, lane_bits, translation_mask, wrap_array
from ..topology.fault_routing import waypoint_step


__all__ = ["RouteReference", "WaypointReference", "BroadcastReference", "FloodReference",
           "FlitFields", "Ledger", "BroadcastLatency"]


class RouteReference:
    """The reference route and VCs of every flow, as small tables.

    ``next[rep, key, u]``: the port the reference routing takes at the node of dense
    index ``u`` towards the representative destination ``rep`` (destinations are
    reduced by the topology's route-preserving XOR translations,
    :func:`~cubefab.topology.deadlock.translation_mask`), for the source key ``key``
    (what the algorithm reads of the source: 0 unless it reads ``src``).

    Parameters
    ----------
    topology : Topology
    algorithm : str
    vcs, vcs_per_class : int
        The fabric's VCs (the class is capped at ``vcs // vcs_per_class - 1``; with
        ``adaptive_vcs``, its escape VCs).
    adaptive_vcs : int
        0: the deterministic rule. Otherwise the adaptive rule with this many adaptive
        VCs, numbered from ``vcs``: then ``offered[rep, u]`` is the bit mask of the
        adaptive ports and ``escape[rep, u]`` the escape port, indexed as ``next``.
    """

    def __init__(self, topology, algorithm, vcs, vcs_per_class, adaptive_vcs=0):
        self.topology = topology
        self.algorithm = topology.check_algorithm(algorithm)
        self.vcs_per_class = vcs_per_class
        self.lane_bits = lane_bits(vcs_per_class)
        self.classes = max(1, vcs // vcs_per_class)
        bits = topology.address_bits
        nodes = topology.nodes()
        self.addresses = nodes.astype(np.int64)
        self.index = np.full(1 << bits, -1, dtype=np.int64)
        self.index[nodes] = np.arange(len(nodes))
        degree = topology.degree
        self.neighbors = np.stack([topology.index_array(topology.neighbor_array(nodes, p))
                                   for p in range(degree)], axis=1).astype(np.int64)
        self.wraps = np.stack([wrap_array(topology, nodes, p) for p in range(degree)],
                              axis=1).astype(np.int64)
        self.mask = translation_mask(topology)
        reps = nodes[(nodes & self.mask) == 0]
        self.rep_index = np.full(1 << bits, -1, dtype=np.int64)
        self.rep_index[reps] = np.arange(len(reps))
        needs_src = "src" in topology.header_fields.get(self.algorithm, ())
        if not needs_src:
            self.key_shift, keys = bits, 1
        else:   # the source bits above the shift are what the decision reads
            self.key_shift = topology.source_key_shift(self.algorithm)
            keys = 1 << (bits - self.key_shift)
        self.next = np.zeros((len(reps), keys, len(nodes)), dtype=np.int64)
        step = topology._next_port
        for r, dest in enumerate(int(a) for a in reps):
            for key in range(keys):
                header = {"src": key << self.key_shift} if needs_src else {}
                for u, here in enumerate(int(a) for a in nodes):
                    self.next[r, key, u] = (degree if here == dest
                                            else step(here, dest, self.algorithm, **header))
        self.limit = 4 * bits + 4 * topology.num_nodes.bit_length() + 64
        self.adaptive_vcs = adaptive_vcs
        self.escape_vcs = vcs
        if adaptive_vcs:
            self.adaptive_lane_bits = lane_bits(adaptive_vcs)
            tables = [offered_port_masks(topology, int(dest), algorithm) for dest in reps]
            self.offered = np.stack([t[0] for t in tables])
            self.escape = np.stack([t[1] for t in tables])

    @classmethod
    def of(cls, router, multicast_group=None):
        """The reference of a fabric of routers configured by ``router`` (a
        :class:`~cubefab.hdl.config.RouterConfig`), whose broadcasts go to the
        multicast groups of ``multicast_group`` when it is given."""
        ref = cls(router.topology, router.algorithm, router.vcs, router.vcs_per_class,
                  router.adaptive_vcs)
        #: BroadcastReference or None: the trees of a fabric of replicating routers
        ref.broadcast = (BroadcastReference(router.topology, router.link_vcs
                                            - router.broadcast_vcs, router.broadcast_vcs,
                                            router.broadcast_model, multicast_group)
                         if router.broadcast else None)
        return ref

    @functools.lru_cache(maxsize=1 << 16)
    def hops(self, src, dest):
        """``{node: (port, vc)}``: the hop the reference route from ``src`` to
        ``dest`` takes from each node it visits, and its VC (empty for a flow that is
        not between two nodes)."""
        index = self.index
        if not (0 <= src < len(index) and 0 <= dest < len(index)) \
                or index[src] < 0 or index[dest] < 0:
            return {}
        t = dest & self.mask
        rep = self.rep_index[dest ^ t]
        key = src >> self.key_shift
        lane = flow_lane(src, dest, self.vcs_per_class)
        out, here, vc_class = {}, src, 0
        for _ in range(self.limit):
            if here == dest:
                break
            u = int(index[here])
            port = int(self.next[rep, key, index[here ^ t]])
            vc_class = min(vc_class + int(self.wraps[u, port]), self.classes - 1)
            out[here] = (port, (vc_class << self.lane_bits) | lane)
            here = int(self.addresses[self.neighbors[u, port]])
        return out

    def allowed(self, here, port, src, dest, vc, cls=0):
        """Whether a flit of the flow ``src -> dest`` on VC ``vc``, carrying class
        ``cls`` (adaptive routers), may leave ``here`` through ``port``.

        Adaptive rule: ``port`` is an adaptive port on the flow's adaptive VC
        (``vcs + flow_lane(src, dest, adaptive_vcs)``), or the escape port on the
        escape VC of class ``cls`` (``cls * vcs_per_class + flow_lane``); ``cls`` is a
        class the hop can give (below the number of classes, and not 0 after a wrap
        link when there are two or more)."""
        if not self.adaptive_vcs:
            return self.hops(src, dest).get(here) == (port, vc)
        index = self.index
        if not (0 <= src < len(index) and 0 <= dest < len(index) and 0 <= here < len(index)) \
                or index[src] < 0 or index[dest] < 0 or index[here] < 0:
            return False
        t = dest & self.mask
        rep, u = self.rep_index[dest ^ t], index[here ^ t]
        if cls >= self.classes or (cls == 0 and self.classes > 1
                                   and self.wraps[index[here], port]):
            return False
        if vc == self.escape_vcs + flow_lane(src, dest, self.adaptive_vcs):
            return bool(self.offered[rep, u] >> port & 1)
        lane = flow_lane(src, dest, self.vcs_per_class)
        return vc == (cls << self.lane_bits | lane) and self.escape[rep, u] == port


class WaypointReference:
    """The misrouted check of a fault-tolerant fabric (``RouterConfig.fault_waypoints``)
    under one fault set: the model's route of every flow.

    A flit of the flow ``src -> dest`` may leave ``here`` through ``port`` on VC ``vc``
    with phase ``phase`` only when its header names the waypoints the model gives the
    pair (:meth:`~cubefab.topology.fault_routing.WaypointRouting.header`; a refused pair
    has no flit at all), ``here``, the link and the next node are healthy, and the hop
    is the one the model's route (:meth:`~.WaypointRouting.route`, walked by
    :func:`~cubefab.topology.fault_routing.waypoint_step`) takes from ``here`` in that
    phase, on the VC :meth:`~.WaypointRouting.hop_vcs` gives it (times
    ``vcs_per_class``, plus the flow's lane).

    Parameters
    ----------
    routing : WaypointRouting
    vcs_per_class : int
    """

    def __init__(self, routing, vcs_per_class):
        self.routing = routing
        self.topology = routing.topology
        self.vcs_per_class = vcs_per_class
        self.lane_bits = lane_bits(vcs_per_class)
        self.faulty = set(routing.faults.nodes)
        self.faulty_links = {frozenset(x) for x in routing.faults.links}

    @functools.lru_cache(maxsize=1 << 16)
    def hops(self, src, dest):
        """``(waypoints, {(node, phase): (port, vc)})`` of the flow: its header and the
        hop its route takes from each node, by the phase the flit leaves with; None for
        a flow that has no packets (not two healthy nodes, or refused)."""
        topo, routing = self.topology, self.routing
        try:
            waypoints = routing.header(src, dest)
        except ValueError:
            return None
        if waypoints is None:
            return None
        path, vcs = routing.route(src, dest), routing.hop_vcs(src, dest)
        lane = flow_lane(src, dest, self.vcs_per_class)
        out, phase = {}, 0
        for here, nxt, vc in zip(path, path[1:], vcs):
            port, phase = waypoint_step(topo, here, dest, waypoints, phase,
                                        routing.algorithm)
            out[here, phase] = (port, (vc << self.lane_bits) | lane)
        return waypoints, out

    def allowed(self, here, port, src, dest, vc, waypoints, phase):
        """Whether a flit with header ``waypoints`` (the names, ``count`` of them) and
        ``phase`` may leave ``here`` through ``port`` on VC ``vc``."""
        topo = self.topology
        if not (topo.is_node(src) and topo.is_node(dest)):
            return False
        flow = self.hops(src, dest)
        if flow is None or tuple(waypoints) != flow[0]:
            return False
        nxt = topo.neighbor(here, port)
        if here in self.faulty or nxt in self.faulty \
                or frozenset((here, nxt)) in self.faulty_links:
            return False
        return flow[1].get((here, phase)) == (port, vc)


class AnyReference:
    """The misrouted check of a run whose routing changes (links failing mid-run):
    a hop is allowed when one of ``references`` (:class:`WaypointReference` s of the
    run's fault sets) allows it; the packets of every fault set of the run may be in
    flight together."""

    def __init__(self, references):
        self.references = list(references)
        if not self.references:
            raise ValueError("References must name at least one reference")

    def allowed(self, *hop):
        """Whether one of the references allows ``hop`` (their ``allowed`` arguments)."""
        return any(ref.allowed(*hop) for ref in self.references)


class BroadcastReference:
    """The broadcast trees of every source as tables.

    ``children[s, u]``: the child ports (a bit each) of the node of dense index ``u``
    in the tree of the source of dense index ``s``; ``vc[s, u]``: the link VC of the
    copy that arrives at ``u`` (``first`` plus the broadcast VC of the rule; 0 at the
    source). With ``group`` (a mask) the trees are pruned to each source's multicast
    group, the subcube ``(source, group)``
    (:func:`~cubefab.topology.broadcast_tree.multicast_tree`).
    """

    def __init__(self, topology, first, broadcast_vcs, model=ALL_PORT, group=None):
        from ..topology.broadcast_deadlock import broadcast_wrap_array
        from ..topology.broadcast_tree import (broadcast_tree, multicast_tree,
                                               one_port_tree, subcube_members)
        n, degree = topology.num_nodes, topology.degree
        nodes = topology.nodes()
        self.first = first
        self.children = np.zeros((n, n), dtype=np.int64)
        self.vc = np.zeros((n, n), dtype=np.int64)
        for s, source in enumerate(nodes.tolist()):
            if model == ONE_PORT:      # the ports each node sends to
                sends = one_port_tree(topology, source).sends
                self.children[s] = [sum(1 << p for _, p in sends[a]) for a in nodes.tolist()]
            elif group is not None:   # a multicast to the source's group
                self.children[s] = multicast_tree(
                    topology, source, subcube_members(topology, source, group)).children
            else:
                self.children[s] = broadcast_tree(topology, source).children
            # walk down the tree from the source: (node index, arrival port)
            lane = np.zeros(n, dtype=np.int64)
            todo = [(s, degree)]
            while todo:
                u, in_port = todo.pop()
                for port in range(degree):
                    if self.children[s, u] >> port & 1:
                        v = topology.neighbor(int(nodes[u]), port)
                        i = topology.index(v)
                        wrap = broadcast_wrap_array(topology, nodes[u:u + 1],
                                                    np.array([in_port]), port, model)[0]
                        lane[i] = min(lane[u] + int(wrap), broadcast_vcs - 1)
                        todo.append((i, topology.port(v, int(nodes[u]))))
            self.vc[s] = first + lane
            self.vc[s, s] = 0

    def allowed(self, u, port, s, v, vc):
        """Whether a copy from the source of dense index ``s`` may leave node ``u``
        through ``port`` (to node ``v``) on ``vc``."""
        return bool(self.children[s, u] >> port & 1) and vc == self.vc[s, v]


class FloodReference:
    """The copies of broadcasts that flood a spanning tree of the healthy network
    (fault-tolerant replicating routers, :mod:`cubefab.topology.fault_broadcast`), as
    :class:`BroadcastReference`'s tables: ``children[s, u]`` the ports node ``u``
    sends a copy of source ``s``'s broadcast on (the flood, pruned to the group's
    healthy members with ``group``), ``vc[s, u]`` the link VC of the copy into ``u``
    (``first``: one broadcast VC); and ``receivers``, per healthy source address, the
    addresses its broadcasts reach.

    Parameters
    ----------
    tree : HealthyTree
    first : int
        The first (only) broadcast VC of a link.
    group : int or None
        A multicast group mask: a broadcast of ``s`` goes to the healthy nodes of the
        subcube ``(s, group)``.
    """

    def __init__(self, tree, first, group=None):
        from ..topology.broadcast_tree import subcube_members
        topology = tree.topology
        n, nodes = topology.num_nodes, topology.nodes()
        self.first = first
        self.children = np.zeros((n, n), dtype=np.int64)
        self.vc = np.full((n, n), first, dtype=np.int64)
        self.receivers = {}
        for source in tree.nodes:
            s = topology.index(source)
            members = set(tree.nodes) - {source}
            if group is not None:
                members &= {int(a) for a in nodes[subcube_members(topology, source, group)]}
            self.receivers[source] = sorted(members)
            todo = [(source, None)]   # walk the (pruned) flood: (node, arrival port)
            while todo:
                u, in_port = todo.pop()
                mask = (tree.flood_ports(u, in_port) if group is None
                        else tree.multicast_ports(u, in_port, members))
                self.children[s, topology.index(u)] = mask
                for p in range(topology.degree):
                    if mask >> p & 1:
                        v = topology.neighbor(u, p)
                        todo.append((v, topology.port(v, u)))
            self.vc[s, s] = 0

    def allowed(self, u, port, s, v, vc):
        """Whether a copy from the source of dense index ``s`` may leave node ``u``
        through ``port`` (to node ``v``) on ``vc``."""
        return bool(self.children[s, u] >> port & 1) and vc == self.vc[s, v]


class FlitFields:
    """Decoding of raw flits (integers) of a :class:`~cubefab.hdl.flit.FlitLayout`
    whose payload starts with a ``timestamp_bits``-bit timestamp."""

    def __init__(self, layout, timestamp_bits):
        self.offsets = {name: (layout[name].offset, layout[name].shape.width)
                        for name in ("head", "tail", "vc", "dest", "src", "payload")}
        self.offsets["bcast"] = ((layout["bcast"].offset, 1) if "bcast" in dict(layout)
                                 else (0, 0))
        # (a deterministic router's flits have no cls field: read as 0)
        self.offsets["cls"] = ((layout["cls"].offset, layout["cls"].shape.width)
                               if "cls" in dict(layout) else (0, 0))
        #: Waypoints the header holds (0: no waypoint fields, read as 0).
        self.waypoints = layout.waypoints
        self.address_bits = layout.address_bits
        for name in ("waypoint_count", "phase", "waypoint", "cut"):
            self.offsets[name] = ((layout[name].offset,
                                   Shape.cast(layout[name].shape).width)
                                  if self.waypoints else (0, 0))
        self.timestamp_bits = timestamp_bits
        #: bool: the header is in the head flit only (:meth:`with_head`)
        self.head_only = layout.header == "head"
        #: int: the bits every flit carries for itself: flit type and ``vc``
        self.own_bits = sum(((1 << width) - 1) << offset for offset, width in
                            (self.offsets[k] for k in ("head", "tail", "bcast", "vc")
                             + ("cut",) * self.head_only))
        self.heads = {}

    def with_head(self, key, raw):
        """``raw`` as the checks read it: with the header in the head flit only, a head
        is remembered under ``key`` (a link and VC, an ejection port) and a body or tail
        flit reads as that head but for its own flit-type and ``vc`` bits; else
        ``raw`` itself."""
        if not self.head_only:
            return raw
        if raw >> self.offsets["head"][0] & 1:
            self.heads[key] = raw
            return raw
        return (self.heads.get(key, 0) & ~self.own_bits) | (raw & self.own_bits)

    def get(self, raw, name):
        offset, width = self.offsets[name]
        return (raw >> offset) & ((1 << width) - 1)

    def waypoints_of(self, raw):
        """The waypoints a flit's header names (a tuple; empty without waypoints)."""
        if not self.waypoints:
            return ()
        words = self.get(raw, "waypoint")
        bits = self.address_bits
        return tuple((words >> (bits * i)) & ((1 << bits) - 1)
                     for i in range(self.get(raw, "waypoint_count")))

    def timestamp(self, raw):
        return self.get(raw, "payload") & ((1 << self.timestamp_bits) - 1)


class Ledger:
    """Packets injected and delivered, flow by flow (see the module's description)."""

    def __init__(self):
        self.flows = {}          # (src, dest) -> [outstanding [stamp, overtaken]], last
        self.reordered = 0
        self.duplicated = 0

    def inject(self, src, dest, stamp):
        """A packet's head entered the network."""
        flow = self.flows.setdefault((src, dest), [[], -1])
        flow[0].append([stamp, False])
        flow[1] = stamp

    def deliver(self, src, dest, stamp):
        """A packet's head was ejected."""
        flow = self.flows.get((src, dest))
        if flow is None:
            return               # never injected: a corrupted header (the checker counts it)
        waiting = flow[0]
        for i, (s, overtaken) in enumerate(waiting):
            if s == stamp:
                if overtaken:
                    self.reordered += 1
                for earlier in waiting[:i]:
                    earlier[1] = True
                del waiting[i]
                return
        if stamp <= flow[1]:
            self.duplicated += 1

    def drop(self, src, dest, stamp):
        """A packet's head was dropped at a failed link (the packet is lost to the
        fault, counted by the fabric): it leaves the flow's outstanding packets
        without marking any overtaken. False when no such packet is outstanding (a
        head dropped twice, or never injected)."""
        flow = self.flows.get((src, dest))
        for i, (s, _) in enumerate(flow[0] if flow else ()):
            if s == stamp:
                del flow[0][i]
                return True
        return False

    def inject_broadcast(self, src, receivers, stamp):
        """A broadcast's head entered the network: a packet to each of ``receivers``."""
        for r in receivers:
            self.inject(("broadcast", src), r, stamp)

    def deliver_broadcast(self, src, here, stamp):
        """A broadcast copy's head was ejected at ``here``."""
        self.deliver(("broadcast", src), here, stamp)

    def counts(self, drain_expired):
        """``lost`` and ``in_flight`` at the end of a run; ``drain_expired``: the run
        ended at the end of a drain with packets undelivered."""
        lost = in_flight = 0
        for waiting, _ in self.flows.values():
            for _, overtaken in waiting:
                if overtaken or drain_expired:
                    lost += 1
                else:
                    in_flight += 1
        return {"lost": lost, "in_flight": in_flight, "reordered": self.reordered,
                "duplicated": self.duplicated}


class BroadcastLatency:
    """Latency of each broadcast, from its creation to the tail of its last copy
    (``copies`` of them), from the copies' tails as they are ejected."""

    def __init__(self, copies):
        #: int, or a dict: source -> copies of each of its broadcasts
        self.copies = copies
        self.seen = {}          # (src, stamp) -> copies whose tail was ejected
        self.histogram = {}     # latency -> broadcasts (the window's)

    def tail(self, src, stamp, cycle, measured, now_mask):
        """A copy's tail of the broadcast ``(src, stamp)`` was ejected in ``cycle``."""
        key = (src, stamp)
        count = self.seen.get(key, 0) + 1
        if count < (self.copies[src] if isinstance(self.copies, dict) else self.copies):
            self.seen[key] = count
            return
        self.seen.pop(key, None)
        if measured:
            latency = (cycle - stamp) & now_mask
            self.histogram[latency] = self.histogram.get(latency, 0) + 1
