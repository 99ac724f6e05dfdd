"""The reference rules of the misrouted check: which link and VC each flit of a
self-checking run may take.

Each router mode names its rule (:meth:`~cubefab.hdl.modes.Routing.reference`,
:meth:`~cubefab.hdl.modes.Routing.copy_reference`), and both simulation engines apply it
to every flit on a link (:mod:`cubefab.sim.checks`): a *route rule* the unicast flits,
a *copy rule* the broadcast copies. A rule is an object with

``allows(here, port, flit)``
    Whether ``flit`` (a :class:`FlitHeader`) may leave node ``here`` (an address)
    through ``port``: the Amaranth engine's check.
``cxx_rule``
    The C++ header of the same rule for the Verilator engine's harness: a file name
    of ``cubefab/sim/cxx``, or the path of a header elsewhere. It defines
    ``route_allowed(node, port, flit)`` (a route rule) or ``copy_allowed(node, port,
    flit)``, ``copy_receives(src, r)`` and ``copy_count(src)`` (a copy rule), from
    the tables of ``fabric.h`` (``node``, ``r``: dense indices; ``src``: an address).
``cxx_constants()``
    The constants and tables that header reads, as ``(C++ type, name, value)``
    (``value`` an integer, a bool or nested lists): written into ``fabric.h``.

A copy rule also has ``receivers``: per source address, the addresses its broadcasts
go to (a packet each in the checks' ledger).

Every rule here is topology and numpy only; ``fabric.h`` always holds the tables of
:meth:`RouteReference.network_constants` (addresses, neighbours, wrap links, the
deterministic routing's next ports), which every rule may read.
"""

import functools
from collections import namedtuple

import numpy as np

from .adaptive import offered_port_masks
from .deadlock import flow_lane, lane_bits, translation_mask, wrap_array
from .fault_routing import waypoint_step


__all__ = ["FlitHeader", "RouteReference", "AdaptiveReference", "WaypointReference",
           "AnyReference", "BroadcastReference", "FloodReference", "NoCopies"]


#: What a rule reads of a flit: its flow, VC, escape class (0 without one), the
#: waypoints its header names (a tuple; empty without) and its phase.
FlitHeader = namedtuple("FlitHeader", "src dest vc cls waypoints phase",
                        defaults=(0, (), 0))


class RouteReference:
    """The deterministic rule: a flit may take only the hop the reference route of its
    flow takes from ``here`` (:meth:`Topology.next_port`), on the VC the
    VC-assignment function gives that hop
    (:func:`~cubefab.topology.deadlock.hop_vcs`). Its tables:

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
        The fabric's VCs (the class is capped at ``vcs // vcs_per_class - 1``).
    """

    cxx_rule = "rule_route.h"

    def __init__(self, topology, algorithm, vcs, vcs_per_class):
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
        self.reps = nodes[(nodes & self.mask) == 0]
        self.rep_index = np.full(1 << bits, -1, dtype=np.int64)
        self.rep_index[self.reps] = np.arange(len(self.reps))
        needs_src = "src" in topology.header_fields.get(self.algorithm, ())
        if not needs_src:
            self.key_shift, keys = bits, 1
        else:   # the source bits above the shift are what the decision reads
            self.key_shift = topology.source_key_shift(self.algorithm)
            keys = 1 << (bits - self.key_shift)
        self.next = np.zeros((len(self.reps), keys, len(nodes)), dtype=np.int64)
        step = topology._next_port
        for r, dest in enumerate(int(a) for a in self.reps):
            for key in range(keys):
                header = {"src": key << self.key_shift} if needs_src else {}
                for u, here in enumerate(int(a) for a in nodes):
                    self.next[r, key, u] = (degree if here == dest
                                            else step(here, dest, self.algorithm, **header))
        self.limit = 4 * bits + 4 * topology.num_nodes.bit_length() + 64

    @classmethod
    def of(cls, router):
        """The rule of a fabric of routers configured by ``router`` (a
        :class:`~cubefab.hdl.config.RouterConfig`): its topology, algorithm and VCs
        (the last few made are kept: a rule is never changed)."""
        return _route_reference(router.topology, router.algorithm, router.vcs,
                                router.vcs_per_class)

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

    def allowed(self, here, port, src, dest, vc):
        """Whether a flit of the flow ``src -> dest`` on VC ``vc`` may leave ``here``
        through ``port``."""
        return self.hops(src, dest).get(here) == (port, vc)

    def allows(self, here, port, flit):
        """:meth:`allowed` for ``flit``, a :class:`FlitHeader`."""
        return self.allowed(here, port, flit.src, flit.dest, flit.vc)

    def network_constants(self):
        """The tables every rule's C++ may read (``fabric.h``): the addresses by dense
        index and back, the neighbours, the wrap links, the VC classes and lanes, and
        the deterministic routing's ``NEXT`` (reduced by ``TRANSLATION_MASK``)."""
        return [("uint32_t", "TRANSLATION_MASK", self.mask),
                ("int", "KEYS", self.next.shape[1]),
                ("int", "KEY_SHIFT", self.key_shift),
                ("uint32_t", "CLASSES", self.classes),
                ("int", "LANE_BITS", self.lane_bits),
                ("int", "ROUTE_LIMIT", self.limit),
                ("uint32_t", "ADDRESS", self.addresses.tolist()),
                ("int32_t", "INDEX", self.index.tolist()),
                ("int32_t", "REP_INDEX", self.rep_index.tolist()),
                ("int32_t", "NEIGHBORS", self.neighbors.tolist()),
                ("uint8_t", "WRAPS", self.wraps.tolist()),
                ("uint8_t", "NEXT", self.next.tolist())]

    def cxx_constants(self):
        """None beyond :meth:`network_constants`."""
        return []


@functools.lru_cache(maxsize=8)
def _route_reference(topology, algorithm, vcs, vcs_per_class):
    return RouteReference(topology, algorithm, vcs, vcs_per_class)


class AdaptiveReference(RouteReference):
    """The adaptive rule (Duato's protocol): a flit may take an offered adaptive port
    (:func:`~cubefab.topology.adaptive.adaptive_ports`) on its flow's adaptive VC
    (``vcs + flow_lane(src, dest, adaptive_vcs)``), or the escape port
    (:func:`~cubefab.topology.adaptive.escape_port`) on the escape VC of the class it
    carries (``cls * vcs_per_class + flow_lane``), a class the hop can give (below the
    number of classes, and not 0 after a wrap link when there are two or more).

    ``offered[rep, u]`` is the bit mask of the adaptive ports and ``escape[rep, u]``
    the escape port, indexed as :class:`RouteReference`'s ``next``.

    Parameters
    ----------
    topology, algorithm, vcs, vcs_per_class
        As for :class:`RouteReference` (``vcs``: the escape VCs).
    adaptive_vcs : int
        Adaptive VCs per link, numbered from ``vcs``.
    """

    cxx_rule = "rule_adaptive.h"

    def __init__(self, topology, algorithm, vcs, vcs_per_class, adaptive_vcs):
        super().__init__(topology, algorithm, vcs, vcs_per_class)
        self.adaptive_vcs = adaptive_vcs
        self.escape_vcs = vcs
        self.adaptive_lane_bits = lane_bits(adaptive_vcs)
        tables = [offered_port_masks(topology, int(dest), algorithm) for dest in self.reps]
        self.offered = np.stack([t[0] for t in tables])
        self.escape = np.stack([t[1] for t in tables])

    @classmethod
    def of(cls, router):
        return cls(router.topology, router.algorithm, router.vcs, router.vcs_per_class,
                   router.adaptive_vcs)

    def allowed(self, here, port, src, dest, vc, cls=0):
        """Whether a flit of the flow ``src -> dest`` on VC ``vc``, carrying class
        ``cls``, may leave ``here`` through ``port``."""
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

    def allows(self, here, port, flit):
        return self.allowed(here, port, flit.src, flit.dest, flit.vc, flit.cls)

    def cxx_constants(self):
        """``OFFERED[rep][u]`` (adaptive ports, a bit each) and ``ESCAPE[rep][u]``,
        indexed as ``NEXT``; the adaptive VCs, the escape VCs and the adaptive lane
        bits."""
        return [("uint32_t", "ADAPTIVE_VCS", self.adaptive_vcs),
                ("uint32_t", "ESCAPE_VCS", self.escape_vcs),
                ("int", "ADAPTIVE_LANE_BITS", self.adaptive_lane_bits),
                ("uint32_t", "OFFERED", self.offered.tolist()),
                ("uint8_t", "ESCAPE", self.escape.tolist())]


class WaypointReference:
    """The rule of fault-tolerant routers under one fault set: the model's route of
    every flow.

    A flit of the flow ``src -> dest`` may leave ``here`` through ``port`` on VC ``vc``
    with phase ``phase`` only when its header names the waypoints the model gives the
    pair (:meth:`~cubefab.topology.fault_routing.WaypointRouting.header`; a refused pair
    has no flit at all), ``here``, the link and the next node are healthy, and the hop
    is the one the model's route (:meth:`~.WaypointRouting.route`, walked by
    :func:`~cubefab.topology.fault_routing.waypoint_step`) takes from ``here`` in that
    phase, on the VC :meth:`~.WaypointRouting.hop_vcs` gives it (times
    ``vcs_per_class``, plus the flow's lane). Its C++ reads the fault sets from the
    run's fault file (``cxx/faults.h``).

    Parameters
    ----------
    routing : WaypointRouting
    vcs_per_class : int
    """

    cxx_rule = "rule_waypoint.h"

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

    def allows(self, here, port, flit):
        return self.allowed(here, port, flit.src, flit.dest, flit.vc, flit.waypoints,
                            flit.phase)

    def cxx_constants(self):
        """None: the C++ reads the fault sets from the run's fault file."""
        return []


class AnyReference:
    """The rule of a run whose routing changes (links failing mid-run): a hop is
    allowed when one of ``references`` (rules of the run's fault sets, of one C++
    rule) allows it; the packets of every fault set of the run may be in flight
    together."""

    def __init__(self, references):
        self.references = list(references)
        if not self.references:
            raise ValueError("References must name at least one reference")
        self.cxx_rule = self.references[0].cxx_rule

    def allowed(self, *hop):
        """Whether one of the references allows ``hop`` (their ``allowed`` arguments)."""
        return any(ref.allowed(*hop) for ref in self.references)

    def allows(self, here, port, flit):
        return any(ref.allows(here, port, flit) for ref in self.references)

    def cxx_constants(self):
        return self.references[0].cxx_constants()


class _CopyRule:
    """What the copy rules share: ``children[s, u]``, the ports (a bit each) the node
    of dense index ``u`` sends a copy of source ``s``'s broadcasts on, and ``vc[s, u]``
    the link VC of the copy into ``u`` (0 at the source); a copy may cross a link of
    them only, on that VC."""

    def _tables(self, topology):
        n, bits = topology.num_nodes, topology.address_bits
        nodes = topology.nodes()
        self.topology = topology
        self.index = np.full(1 << bits, -1, dtype=np.int64)
        self.index[nodes] = np.arange(n)
        self.neighbors = np.stack([topology.index_array(topology.neighbor_array(nodes, p))
                                   for p in range(topology.degree)],
                                  axis=1).astype(np.int64)
        self.children = np.zeros((n, n), dtype=np.int64)

    def allowed(self, u, port, s, v, vc):
        """Whether a copy from the source of dense index ``s`` may leave node ``u``
        through ``port`` (to node ``v``) on ``vc``."""
        return bool(self.children[s, u] >> port & 1) and vc == self.vc[s, v]

    def allows(self, here, port, flit):
        """:meth:`allowed` for a copy ``flit`` (a :class:`FlitHeader`) leaving the node
        of address ``here``."""
        src, index = flit.src, self.index
        s = int(index[src]) if 0 <= src < len(index) else -1
        if s < 0:
            return False
        u = int(index[here])
        return self.allowed(u, port, s, int(self.neighbors[u, port]), flit.vc)


class BroadcastReference(_CopyRule):
    """The rule of replicating routers: the broadcast trees of every source as tables.

    ``children[s, u]``: the child ports (a bit each) of the node of dense index ``u``
    in the tree of the source of dense index ``s``; ``vc[s, u]``: the link VC of the
    copy that arrives at ``u`` (``first`` plus the broadcast VC of the rule,
    :func:`~cubefab.topology.broadcast_deadlock.broadcast_next_vc`; 0 at the source).
    The trees are those of ``replication``, the router's replication part
    (:meth:`~cubefab.hdl.modes.Replication.tree_children`): with ``group`` (a mask) a
    multicast's are pruned to each source's multicast group, the subcube
    ``(source, group)``, whose other members are its ``receivers``.
    """

    cxx_rule = "rule_tree.h"

    def __init__(self, topology, first, replication, group=None):
        from .broadcast_deadlock import broadcast_wrap_array
        from .broadcast_tree import subcube_members
        self._tables(topology)
        n, degree = topology.num_nodes, topology.degree
        nodes = topology.nodes()
        model, broadcast_vcs = replication.model, replication.vcs
        self.first, self.group = first, group
        self.vc = np.zeros((n, n), dtype=np.int64)
        for s, source in enumerate(nodes.tolist()):
            self.children[s] = replication.tree_children(topology, source, group)
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
        addresses = nodes.tolist()
        #: per source address, the addresses its broadcasts go to
        self.receivers = {s: [a for a in addresses if a != s] for s in addresses}
        if group is not None:
            self.receivers = {s: [int(a) for a in nodes[subcube_members(
                                  topology, s, group)] if a != s] for s in addresses}

    def cxx_constants(self):
        """``BCHILDREN[s][u]`` and ``BVC[s][u]`` (:attr:`children`, :attr:`vc`), and the
        multicast groups: ``GROUP_MASK`` (a broadcast of ``s`` goes to the nodes ``x``
        with ``(x ^ s) & GROUP_MASK == 0``; 0: every node) and ``BCOPIES``, per source's
        dense index, the copies it makes (unread without groups)."""
        copies = ([len(self.receivers[int(s)]) for s in self.topology.nodes()]
                  if self.group is not None else [0])
        return [("bool", "BROADCAST", True),
                ("uint32_t", "BCHILDREN", self.children.tolist()),
                ("uint8_t", "BVC", self.vc.tolist()),
                ("uint32_t", "GROUP_MASK", self.group or 0),
                ("int32_t", "BCOPIES", copies)]


class FloodReference(_CopyRule):
    """The rule of copies that flood a spanning tree of the healthy network
    (fault-tolerant replicating routers, :mod:`cubefab.topology.fault_broadcast`), as
    :class:`BroadcastReference`'s tables: ``children[s, u]`` the ports node ``u``
    sends a copy of source ``s``'s broadcast on (the flood, pruned to the group's
    healthy members with ``group``), ``vc[s, u]`` the link VC of the copy into ``u``
    (``first``: one broadcast VC); and ``receivers``, per healthy source address, the
    addresses its broadcasts reach. Its C++ reads the flood from the run's fault file
    (``cxx/faults.h``).

    Parameters
    ----------
    tree : HealthyTree
    first : int
        The first (only) broadcast VC of a link.
    group : int or None
        A multicast group mask: a broadcast of ``s`` goes to the healthy nodes of the
        subcube ``(s, group)``.
    """

    cxx_rule = "rule_flood.h"

    def __init__(self, tree, first, group=None):
        from .broadcast_tree import subcube_members
        topology = tree.topology
        self._tables(topology)
        n, nodes = topology.num_nodes, topology.nodes()
        self.first, self.group = first, group
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

    def cxx_constants(self):
        """``GROUP_MASK`` (the tables come from the fault file)."""
        return [("bool", "BROADCAST", True), ("uint32_t", "GROUP_MASK", self.group or 0)]


class NoCopies:
    """The copy rule of routers that copy nothing: no copy may cross any link."""

    cxx_rule = "rule_no_copies.h"
    #: no source broadcasts
    receivers = {}

    def allows(self, here, port, flit):
        """Never."""
        return False

    def cxx_constants(self):
        return [("bool", "BROADCAST", False)]
