"""Waypoint routing around faults: the model the routers' fault tolerance implements.

Mechanism
---------
A packet's header carries up to ``W`` *waypoints* ``w1 .. wj`` (``j <= W``) and a phase
``p`` (0 at injection). Every router computes the *target* ``w(p+1)`` while ``p < j``,
else the destination, and forwards the packet by the topology's deterministic reference
routing (:meth:`~cubefab.topology.base.Topology.next_port`, the route unit every router
already has) toward the target. A router that finds itself at the target while
``p < j`` advances ``p`` and routes toward the next target in the same decision. So a
route is a sequence of *legs*, each a reference route between healthy nodes, and the
only new per-node logic is "target = waypoint while the phase is not final".

The source picks the waypoints from its fault configuration: a table ``dest ->
waypoints`` loaded at run time (:meth:`WaypointRouting.source_table`), computed from the
fault set. A leg ``a -> b`` is *usable* when its reference route touches no faulty node
and no faulty link. The waypoints of a pair are a shortest sequence of usable legs
(fewest legs first, then fewest hops); the pair is routed directly when its own route
is usable.

Virtual channels: leg ``p`` (phase ``p``) uses its own set of the ``C`` VC classes of
the reference routing (:func:`~cubefab.topology.deadlock.required_vcs`), VC ``p * C +
class``, the class starting at 0 on each leg and rising by the reference
``wrap(here, port)``. Every leg is a reference route from a node to a node, so the
dependencies inside phase ``p`` are a subset of the fault-free reference channel
dependency graph (shifted to set ``p``), which is acyclic; the dependencies across a
waypoint go from set ``p`` to set ``p + 1`` only. Hence the waypoint routing is
deadlock-free with ``(W + 1) * C`` VCs for every fault set.
:func:`check_waypoint_deadlock` builds the exact graph of one fault set and looks for a
cycle (a witness cycle when one exists), as a mechanical check of that argument.

Guarantee
---------
With at most ``c - 1`` faulty nodes and links in total, ``c`` the connectivity (the
number of internally disjoint paths between any two nodes: ``n`` in Q(n), ``k + m`` in
MC(k, m), ``d + 3`` in DLH(m, d); :func:`guarantee_bound`), every pair of healthy nodes
stays connected, and since each link is the reference route between its two ends,
connected pairs are always joined by a chain of usable legs. How many waypoints the
guarantee needs is measured exhaustively by :func:`sweep_fault_sets` (one on Q(n) and
MC(k, m), two on DLH(2,1) as measured; docs/faults.md).
Beyond the guarantee a pair is *cut off* (no fault-free path exists) or *unroutable*
(connected, but needs more than ``W`` waypoints); both are listed, and a source refuses
such packets.
"""

import functools
import itertools
import time

import numpy as np

from .base import Topology, check_int
from .deadlock import (_find_cycle, cycle_text, required_vcs, translation_mask,
                       wrap_array)
from .faults import _all_pairs, check_faults


__all__ = ["waypoint_step", "guarantee_bound", "leg_algorithm", "FaultSet", "RouteTable",
           "route_table", "WaypointRouting", "plan_waypoints", "WaypointDeadlockReport",
           "check_waypoint_deadlock", "check_transition_deadlock", "FaultSweep", "sweep_fault_sets", "random_fault_sets",
           "fault_elements", "dense_neighbours", "healthy_ports", "surviving_distances",
           "MAX_NODES", "DEFAULT_WAYPOINTS"]

#: Largest network whose all-pairs route table :func:`route_table` builds.
MAX_NODES = 4096

#: Waypoints a header holds unless told otherwise (enough for the guarantee in every
#: network measured; docs/faults.md).
DEFAULT_WAYPOINTS = 2

#: The hop count of an unusable leg (two of them still fit an int32).
_INF = np.int32(1 << 28)


def waypoint_step(topology, here, dest, waypoints, phase, algorithm=None):
    """The per-node decision of waypoint routing: ``(port, phase_out)``.

    While ``phase < len(waypoints)`` and ``here`` is waypoint ``phase``, the phase
    advances; the packet is then forwarded by the reference routing toward the target,
    waypoint ``phase_out`` or, once every waypoint is passed, ``dest``. ``port`` is
    ``degree`` when the packet is delivered here. The route unit
    :class:`~cubefab.hdl.route.WaypointRoute` implements this.
    """
    algorithm = topology.check_algorithm(algorithm)
    here = topology.check_node(here, "here")
    dest = topology.check_node(dest, "dest")
    waypoints = [topology.check_node(w, "waypoint") for w in waypoints]
    phase = check_int("phase", phase, 0, len(waypoints))
    return _step(topology, here, dest, waypoints, phase, algorithm)


def _step(topology, here, dest, waypoints, phase, algorithm):
    """:func:`waypoint_step` without the checks."""
    while phase < len(waypoints) and here == waypoints[phase]:
        phase += 1
    target = waypoints[phase] if phase < len(waypoints) else dest
    if here == target:
        return topology.degree, phase
    return topology._next_port(here, target, algorithm), phase


def _check_topology(topology):
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    guarantee_bound(topology)       # refuses the families not modelled
    if topology.num_nodes > MAX_NODES:
        raise ValueError(f"{topology.label} has {topology.num_nodes} nodes; fault-tolerant "
                         f"routing tables are built for networks up to {MAX_NODES}")
    return topology


def guarantee_bound(topology):
    """Faulty nodes plus faulty links that never disconnect two healthy nodes.

    The number of internally disjoint paths between any two nodes minus one: ``n - 1``
    in Q(n), ``k + m - 1`` in MC(k, m) (Theorem 2 of metacube-disjoint-paths.txt) and
    ``d + 2`` in DLH(m, d) (``d + 3`` disjoint paths): the family's
    :attr:`~cubefab.topology.base.Topology.connectivity` minus one, where the family
    states it. Each equals the degree minus one.
    A fault, node or link, lies on at most one of the disjoint paths (the direct link,
    when there is one, is a path of its own), so one path survives.
    """
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    if topology.connectivity is None:
        from .catalog import family_titles
        modelled = family_titles(lambda cls: cls.connectivity is not Topology.connectivity)
        raise ValueError(f"fault-tolerant routing is modelled for {modelled}, "
                         f"not {topology.label}")
    return topology.connectivity - 1


class FaultSet:
    """A validated, immutable set of faulty nodes and links of one network.

    Parameters
    ----------
    topology : Topology
    nodes : iterable of int
        Faulty node addresses.
    links : iterable of (int, int)
        Faulty links, each a pair of adjacent nodes (either order).

    Raises
    ------
    TypeError, ValueError
        If an address is not a node or a link joins non-adjacent nodes.
    """

    def __init__(self, topology, nodes=(), links=()):
        self.topology = topology
        nodes, links = check_faults(topology, nodes, links)
        self.nodes = tuple(nodes)
        self.links = tuple(links)

    def __len__(self):
        return len(self.nodes) + len(self.links)

    def __eq__(self, other):
        return (isinstance(other, FaultSet) and self.topology == other.topology
                and self.nodes == other.nodes and self.links == other.links)

    def __hash__(self):
        return hash((self.topology, self.nodes, self.links))

    def __repr__(self):
        return f"FaultSet({self.topology.label}, nodes={list(self.nodes)}, " \
               f"links={[list(x) for x in self.links]})"


class RouteTable:
    """Every reference route of a network, as dense arrays (built by :func:`route_table`).

    Attributes
    ----------
    topology, algorithm
    nodes : ndarray
        Node addresses in dense index order.
    neighbours : ndarray (N, degree)
        Dense index of the neighbour through each port.
    link_id : ndarray (N, degree)
        Number of the undirected link leaving each node through each port.
    links : ndarray (L, 2)
        The links' end addresses (``u < v``), in link number order.
    length : ndarray (N, N)
        Hops of the reference route from each node to each node.
    path : ndarray (N, N, D + 1)
        Dense indices of the route's nodes, padded with the destination.
    hop_link : ndarray (N, N, D)
        Link numbers of its hops, padded with ``L`` (a link that is never faulty).
    hop_port, hop_class : ndarray (N, N, D)
        Output port and VC class of each hop (``-1`` padding).
    classes : int
        VC classes of the reference routing (``C``).
    """

    def __init__(self, topology, algorithm):
        self.topology = topology
        self.algorithm = algorithm
        nodes = topology.nodes()
        n, degree = len(nodes), topology.degree
        self.nodes = nodes
        self.neighbours = dense_neighbours(topology)
        self.link_id, self.links = self._number_links()
        self.classes = required_vcs(topology, algorithm)
        ports = self._port_table()                          # (dest, here) -> port
        wraps = np.stack([wrap_array(topology, nodes, p) for p in range(degree)],
                         axis=1).astype(np.int8)
        # follow every route at once: here[s, t]
        here = np.broadcast_to(np.arange(n)[:, None], (n, n)).copy()
        dest = np.broadcast_to(np.arange(n)[None, :], (n, n))
        cls = np.zeros((n, n), dtype=np.int8)
        path, hop_link, hop_port, hop_class = [here.copy()], [], [], []
        length = np.zeros((n, n), dtype=np.int64)
        while True:
            moving = here != dest
            if not moving.any():
                break
            port = np.where(moving, ports[dest, here], degree)
            safe = np.minimum(port, degree - 1)
            cls = np.where(moving, cls + wraps[here, safe], cls)
            hop_port.append(np.where(moving, port, -1).astype(np.int8))
            hop_class.append(np.where(moving, cls, -1).astype(np.int8))
            hop_link.append(np.where(moving, self.link_id[here, safe], len(self.links)))
            here = np.where(moving, self.neighbours[here, safe], here)
            length += moving
            path.append(here.copy())
            if len(path) > 4 * n + 4:  # pragma: no cover - guards a broken routing function
                raise RuntimeError(f"{algorithm} routing of {topology.label} does not end")
        small = np.int16 if n < (1 << 15) and len(self.links) < (1 << 15) else np.int32
        self.length = length
        self.path = np.stack(path, axis=2).astype(small)
        if hop_link:
            self.hop_link = np.stack(hop_link, axis=2).astype(small)
            self.hop_port = np.stack(hop_port, axis=2)
            self.hop_class = np.stack(hop_class, axis=2)
        else:  # pragma: no cover - a one-node network
            self.hop_link = np.zeros((n, n, 0), dtype=small)
            self.hop_port = self.hop_class = np.zeros((n, n, 0), dtype=np.int8)
        direct = self.length[np.arange(n)[:, None], self.neighbours]
        if not (direct == 1).all():  # pragma: no cover - every routing modelled is minimal
            raise ValueError(f"{algorithm} routing of {topology.label} does not take the "
                             f"direct link to a neighbour")

    def _number_links(self):
        n, degree = self.neighbours.shape
        chan = np.arange(n * degree).reshape(n, degree)
        back = np.empty_like(chan)
        for p in range(degree):
            for q in range(degree):
                sel = self.neighbours[self.neighbours[:, p], q] == np.arange(n)
                back[sel, p] = self.neighbours[sel, p] * degree + q
        canon = np.minimum(chan, back)
        keys, link_id = np.unique(canon, return_inverse=True)
        link_id = link_id.reshape(n, degree)
        u = keys // degree
        v = self.neighbours.ravel()[keys]
        ends = np.sort(np.stack([self.nodes[u], self.nodes[v]], axis=1), axis=1)
        return link_id, ends

    def _port_table(self):
        """(dest, here) -> port, routing one destination per translation class."""
        topology, nodes = self.topology, self.nodes
        n, degree = len(nodes), topology.degree
        mask = translation_mask(topology)
        table = np.empty((n, n), dtype=np.int64)
        for rep in nodes[(nodes & mask) == 0]:
            rep = int(rep)
            row = np.array([topology._next_port(int(a), rep, self.algorithm)
                            if a != rep else degree for a in nodes], dtype=np.int64)
            for shift in np.unique(nodes & mask):
                dest = topology.index(rep ^ int(shift))
                # next_port(here, rep ^ x) == next_port(here ^ x, rep)
                table[dest] = row[topology.index_array(nodes ^ shift)]
        return table

    def route(self, a, b):
        """Dense node indices of the reference route from dense index ``a`` to ``b``."""
        return [int(x) for x in self.path[a, b, :self.length[a, b] + 1]]

    def usable(self, faults):
        """(N, N) bool: the reference route from each node to each node avoids ``faults``
        (its end nodes included)."""
        n = len(self.nodes)
        ok = np.ones((n, n), dtype=bool)
        for f in faults.nodes:
            ok &= ~(self.path == self.topology.index(f)).any(axis=2)
        for u, v in faults.links:
            iu, iv = self.topology.index(u), self.topology.index(v)
            link = self.link_id[iu, list(self.neighbours[iu]).index(iv)]
            ok &= ~(self.hop_link == link).any(axis=2)
        return ok

    def surviving_distances(self, faults, sources=None):
        """(N, N) hop distances in the network without ``faults`` (-1: cut off); with
        ``sources`` (dense indices) only their rows (:func:`surviving_distances`)."""
        return surviving_distances(self.topology, faults, sources, self.neighbours)


def dense_neighbours(topology):
    """(N, degree) dense index of each node's neighbour through each port."""
    nodes = topology.nodes()
    return np.stack([topology.index_array(topology.neighbor_array(nodes, p))
                     for p in range(topology.degree)], axis=1)


def healthy_ports(topology, faults, neighbours=None):
    """(N, degree) bool, dense order: port ``p`` of a node leads over a healthy link
    between healthy nodes (``neighbours``: :func:`dense_neighbours`, made if None)."""
    if neighbours is None:
        neighbours = dense_neighbours(topology)
    usable = np.ones(neighbours.shape, dtype=bool)
    for f in faults.nodes:
        i = topology.index(f)
        usable[i, :] = False
        usable[neighbours == i] = False
    for u, v in faults.links:
        iu, iv = topology.index(u), topology.index(v)
        usable[iu, neighbours[iu] == iv] = False
        usable[iv, neighbours[iv] == iu] = False
    return usable


def surviving_distances(topology, faults, sources=None, neighbours=None):
    """Hop distances in the network without ``faults`` (-1: cut off), dense order: rows
    for every node, or for ``sources`` (dense indices) only."""
    if neighbours is None:
        neighbours = dense_neighbours(topology)
    return _all_pairs(neighbours, healthy_ports(topology, faults, neighbours), sources)


@functools.lru_cache(maxsize=8)
def _route_table(topology, algorithm):
    return RouteTable(topology, algorithm)


def route_table(topology, algorithm=None):
    """The :class:`RouteTable` of ``topology``'s reference routing (cached).

    Raises
    ------
    ValueError
        If the routing reads header fields besides the destination (a leg must be a
        route from any node), or the network is not modelled or too large.
    """
    _check_topology(topology)
    return _route_table(topology, leg_algorithm(topology, algorithm))


def leg_algorithm(topology, algorithm=None):
    """The name of the reference routing of waypoint legs (the topology's default for
    None); ValueError if it reads header fields besides the destination (a leg must be
    a route from any node to any node) or the family is not modelled."""
    guarantee_bound(topology)           # refuses the families not modelled
    algorithm = topology.check_algorithm(algorithm)
    if topology.header_fields.get(algorithm):
        raise ValueError(f"{algorithm} routing reads the header field(s) "
                         f"{', '.join(topology.header_fields[algorithm])}; waypoint legs "
                         f"need a routing that reads only the destination")
    return algorithm


class WaypointRouting:
    """The waypoint routing of one fault set (built by :func:`plan_waypoints`).

    Attributes
    ----------
    topology, faults, algorithm
    max_waypoints : int
        Waypoints a header holds (``W``).
    legs : ndarray (N, N)
        Fewest usable legs joining each pair (0 on the diagonal, -1 when cut off, and
        -1 for pairs with a faulty end).
    stops : dict
        ``j -> array`` of rows ``(a, w1, .., wj, b)`` (dense indices): the pairs routed
        through ``j`` waypoints and their waypoints (:attr:`waypoints` by address).
    cut_off : list of (int, int)
        Healthy ordered pairs with no fault-free path at all.
    unroutable : list of (int, int)
        Healthy ordered pairs that are connected but need more than ``W`` waypoints.
    guaranteed : bool
        Whether ``len(faults) <= guarantee_bound(topology)``.
    """

    def __init__(self, table, faults, max_waypoints):
        self.table = table
        self.topology = table.topology
        self.algorithm = table.algorithm
        self.faults = faults
        self.max_waypoints = max_waypoints
        self.guaranteed = len(faults) <= guarantee_bound(self.topology)
        n = len(table.nodes)
        healthy = np.ones(n, dtype=bool)
        if faults.nodes:
            healthy[self.topology.index_array(np.array(faults.nodes))] = False
        self.healthy = healthy
        ok = table.usable(faults)
        self.usable = ok
        legs = np.where(ok, 1, -1).astype(np.int64)
        np.fill_diagonal(legs, np.where(healthy, 0, -1))
        cost = np.where(ok, table.length, _INF).astype(np.int32)
        pending = (legs < 0) & healthy[:, None] & healthy[None, :]
        chosen = self._two_legs(cost, legs, np.argwhere(pending))
        # pairs that two legs do not join: breadth-first search over usable legs from
        # their sources (all at once)
        pending &= legs < 0
        rows = np.flatnonzero(pending.any(axis=1))
        okf = ok.astype(np.float32)
        reach = ok[rows]
        reach = reach | ((reach.astype(np.float32) @ okf) > 0)
        level = 2
        while len(rows):
            grown = reach | ((reach.astype(np.float32) @ okf) > 0)
            new = grown & ~reach
            if not new.any():
                break
            level += 1
            reach = grown
            legs[rows] = np.where(new & pending[rows], level, legs[rows])
        self.legs = legs
        nodes = table.nodes
        pairs = np.argwhere(healthy[:, None] & healthy[None, :] & (legs < 0))
        self.cut_off = [(int(nodes[a]), int(nodes[b])) for a, b in pairs]
        far = np.argwhere(legs > max_waypoints + 1)
        self.unroutable = [(int(nodes[a]), int(nodes[b])) for a, b in far]
        # stops[j]: rows (a, w1, .., wj, b) of the dense pairs routed via j waypoints
        self.stops = {1: chosen} if max_waypoints >= 1 and len(chosen) else {}
        more = {}
        for a, b in np.argwhere((legs > 2) & (legs <= max_waypoints + 1)):
            ws = self._many_legs(cost, int(a), int(b), legs[a, b])
            more.setdefault(len(ws), []).append((a, *ws, b))
        self.stops.update((j, np.array(rows, dtype=np.int64)) for j, rows in more.items())
        self._via = np.full((n, n, max(1, max_waypoints)), -1, dtype=np.int32)
        for j, rows in self.stops.items():
            self._via[rows[:, 0], rows[:, -1], :j] = rows[:, 1:-1]
        self._waypoints = None

    @property
    def waypoints(self):
        """dict: ``(src, dst) -> tuple`` of waypoint addresses, for every healthy pair
        routed through waypoints (direct pairs are absent)."""
        if self._waypoints is None:
            nodes = self.table.nodes
            self._waypoints = {(int(nodes[r[0]]), int(nodes[r[-1]])):
                               tuple(int(nodes[w]) for w in r[1:-1])
                               for rows in self.stops.values() for r in rows}
        return self._waypoints

    @property
    def detoured(self):
        """int: healthy pairs routed through waypoints."""
        return sum(len(rows) for rows in self.stops.values())

    def _dense_via(self, a, b):
        return [int(w) for w in self._via[a, b] if w >= 0]

    @staticmethod
    def _two_legs(cost, legs, pairs):
        """For each dense pair in ``pairs`` that two usable legs join: set ``legs`` to 2
        and pick the waypoint of fewest hops (lowest index on a tie); rows (a, w, b)."""
        chosen = [np.zeros((0, 3), dtype=np.int64)]
        into = np.ascontiguousarray(cost.T)
        for start in range(0, len(pairs), 4096):
            batch = pairs[start:start + 4096]
            a, b = batch[:, 0], batch[:, 1]
            total = cost[a, :] + into[b, :]
            w = np.argmin(total, axis=1)
            two = total[np.arange(len(batch)), w] < _INF
            legs[a[two], b[two]] = 2
            chosen.append(np.stack([a[two], w[two], b[two]], axis=1))
        return np.concatenate(chosen)

    @staticmethod
    def _many_legs(cost, a, b, count):
        """The waypoints of fewest hops over exactly ``count`` usable legs from ``a``
        to ``b`` (layered shortest paths)."""
        best = cost[a].astype(np.int64)
        parents = []
        for _ in range(count - 2):
            total = best[:, None] + cost
            parent = np.argmin(total, axis=0)
            best = total[parent, np.arange(len(best))]
            parents.append(parent)
        seq = [int(np.argmin(best + cost[:, b]))]
        for parent in reversed(parents):
            seq.append(int(parent[seq[-1]]))
        return tuple(reversed(seq))

    @property
    def waypoints_needed(self):
        """The most waypoints any healthy connected pair needs (``legs - 1``)."""
        return max(0, int(self.legs.max()) - 1)

    def _dense(self, address, name):
        address = self.topology.check_node(address, name)
        if address in self.faults.nodes:
            raise ValueError(f"the {name} {address} is faulty")
        return self.topology.index(address)

    def route(self, src, dst):
        """The path (addresses) a packet from ``src`` to ``dst`` takes, or None when the
        pair is cut off or unroutable (the source refuses the packet).

        Raises
        ------
        ValueError
            If ``src`` or ``dst`` is not a node or is faulty.
        """
        return self._route(self._dense(src, "source"), self._dense(dst, "destination"))

    def _route(self, a, b):
        if self.legs[a, b] < 0 or self.legs[a, b] > self.max_waypoints + 1:
            return None
        stops = [a, *self._dense_via(a, b), b]
        path = [a]
        for x, y in zip(stops, stops[1:]):
            path.extend(self.table.route(x, y)[1:])
        return [int(self.table.nodes[i]) for i in path]

    def hop_vcs(self, src, dst):
        """The VC of every hop of the route from ``src`` to ``dst`` (``phase * C +
        class``), or None when the packet is refused."""
        a, b = self._dense(src, "source"), self._dense(dst, "destination")
        if self._route(a, b) is None:
            return None
        stops = [a, *self._dense_via(a, b), b]
        vcs = []
        for phase, (x, y) in enumerate(zip(stops, stops[1:])):
            classes = self.table.hop_class[x, y, :self.table.length[x, y]]
            vcs.extend(int(c) + phase * self.table.classes for c in classes)
        return vcs

    def header(self, src, dst):
        """The waypoints the source writes into the header (a tuple, empty when direct),
        or None when the packet is refused."""
        a, b = self._dense(src, "source"), self._dense(dst, "destination")
        if self.legs[a, b] < 0 or self.legs[a, b] > self.max_waypoints + 1:
            return None
        return tuple(int(self.table.nodes[w]) for w in self._dense_via(a, b))

    def source_table(self, src):
        """The fault configuration of source ``src``: ``dest -> waypoints`` for every
        destination that needs waypoints, and ``dest -> None`` for the refused ones."""
        a = self._dense(src, "source")
        out = {}
        for b in np.flatnonzero(self.healthy):
            if b == a:
                continue
            dst = int(self.table.nodes[b])
            if self.legs[a, b] < 0 or self.legs[a, b] > self.max_waypoints + 1:
                out[dst] = None
            elif self._via[a, b, 0] >= 0:
                out[dst] = tuple(int(self.table.nodes[w]) for w in self._dense_via(a, b))
        return out

    def stretch(self):
        """Hops of the waypoint routes against the shortest fault-free paths.

        Returns
        -------
        dict
            ``pairs`` (routed healthy pairs), ``detoured`` (pairs through waypoints),
            ``max_extra`` (most extra hops), ``mean_extra``, ``max_ratio`` (most
            route / shortest), ``mean_ratio``.
        """
        shortest = self.table.surviving_distances(self.faults)
        hops = self._hops()
        routed = hops > 0
        if not routed.any():
            return {"pairs": 0, "detoured": 0, "max_extra": 0, "mean_extra": 0.0,
                    "max_ratio": 1.0, "mean_ratio": 1.0}
        extra = (hops - shortest)[routed]
        ratio = hops[routed] / shortest[routed]
        return {"pairs": int(routed.sum()), "detoured": self.detoured,
                "max_extra": int(extra.max()), "mean_extra": float(extra.mean()),
                "max_ratio": float(ratio.max()), "mean_ratio": float(ratio.mean())}

    def _hops(self):
        """(N, N) hops of each routed pair, 0 for pairs not routed."""
        length = self.table.length
        hops = np.where(self.legs == 1, length, 0)
        for rows in self.stops.values():
            hops[rows[:, 0], rows[:, -1]] = length[rows[:, :-1], rows[:, 1:]].sum(axis=1)
        np.fill_diagonal(hops, 0)
        return hops

    def leg_pairs(self):
        """Per phase ``p``: the (N, N) bool matrix of legs ``a -> b`` some route takes
        as its leg ``p`` (phase 0 holds the direct routes' single legs)."""
        n = len(self.table.nodes)
        phases = [np.zeros((n, n), dtype=bool) for _ in range(self.max_waypoints + 1)]
        phases[0] = self.legs == 1
        for rows in self.stops.values():
            for p in range(rows.shape[1] - 1):
                phases[p][rows[:, p], rows[:, p + 1]] = True
        return phases

    def verify(self, sources=None):
        """Independent checks of this routing; a list of problems (empty when sound).

        ``sources``: the source addresses whose pairs are checked (None: every healthy
        node).

        Every routed pair's path, walked hop by hop with the topology's own
        :meth:`~cubefab.topology.base.Topology.next_port` toward each target, ends at
        the destination through adjacent nodes and no fault; the pairs refused are
        exactly the pairs that breadth-first search of the surviving network finds cut
        off plus those that need more than ``W`` waypoints; within the guarantee none
        is refused.
        """
        problems = []
        bad_nodes = set(self.faults.nodes)
        bad_links = set(self.faults.links)
        nodes = self.table.nodes
        healthy = np.flatnonzero(self.healthy)
        starts = healthy if sources is None else \
            [self._dense(s, "source") for s in sources]
        shortest = self.table.surviving_distances(self.faults, starts)
        for row, a in enumerate(starts):
            for b in healthy:
                if a == b:
                    continue
                s, t = int(nodes[a]), int(nodes[b])
                path = self._route(a, b)
                if shortest[row, b] < 0:
                    if path is not None:  # pragma: no cover - a modelling error
                        problems.append(f"{s}->{t} is cut off yet routed")
                    continue
                if path is None:
                    if self.guaranteed:
                        problems.append(f"{s}->{t} refused within the guarantee")
                    elif self.legs[a, b] <= self.max_waypoints + 1:
                        problems.append(f"{s}->{t} refused but routable")
                    continue
                problems.extend(self._walk(a, b, path, bad_nodes, bad_links))
        return problems

    def _walk(self, a, b, path, bad_nodes, bad_links):
        """Walk dense pair ``a -> b`` by :func:`waypoint_step` and compare with ``path``."""
        topo, nodes = self.topology, self.table.nodes
        s, t = int(nodes[a]), int(nodes[b])
        waypoints = [int(nodes[w]) for w in self._dense_via(a, b)]
        here, phase, walked = s, 0, [s]
        while True:
            port, phase = _step(topo, here, t, waypoints, phase, self.algorithm)
            if port == topo.degree:
                break
            nxt = topo._neighbor(here, port)
            if nxt in bad_nodes or (min(here, nxt), max(here, nxt)) in bad_links:
                return [f"{s}->{t} crosses a fault at {here}->{nxt}"]
            here = nxt
            walked.append(here)
            if len(walked) > 4 * topo.num_nodes:  # pragma: no cover
                return [f"{s}->{t} does not end"]
        if walked != path:  # pragma: no cover - a modelling error
            return [f"{s}->{t}: hop-by-hop walk {walked} differs from the table {path}"]
        return []


def plan_waypoints(topology, faults=None, max_waypoints=DEFAULT_WAYPOINTS, algorithm=None):
    """The waypoint routing of ``topology`` under ``faults``.

    Parameters
    ----------
    topology : Topology
        A hypercube, metacube or DLH of at most :data:`MAX_NODES` nodes.
    faults : FaultSet or None
        None: no faults.
    max_waypoints : int
        Waypoints a header holds, ``>= 0``.
    algorithm : str or None
        The reference routing of the legs (the topology's default); it must read only
        the destination.

    Returns
    -------
    WaypointRouting
    """
    table = route_table(topology, algorithm)
    if faults is None:
        faults = FaultSet(topology)
    elif not isinstance(faults, FaultSet) or faults.topology != topology:
        raise TypeError(f"faults must be a FaultSet of {topology.label}, not {faults!r}")
    max_waypoints = check_int("Number of waypoints", max_waypoints, 0)
    return WaypointRouting(table, faults, max_waypoints)


# -- deadlock -------------------------------------------------------------------------

class WaypointDeadlockReport:
    """Result of :func:`check_waypoint_deadlock`.

    Its attributes: ``topology``, ``algorithm`` and ``faults``; ``max_waypoints``, ``W``
    (the phases are ``0 .. W``); ``classes``, the VC classes per phase (``C``; the VCs
    are ``(W + 1) * C``, or ``C`` without ``phase_sets``); ``channels`` and
    ``dependencies``, the vertices (link, VC) and edges of the channel dependency graph;
    ``cycle``, a witness cycle of channels as ``(u, port, v, vc)``, None when the graph
    is acyclic; ``seconds``.
    """

    #: The VC rule every report is about.
    RULE = "vc = phase * C + class; class from 0 on every leg, + wrap(here, port) per hop"

    def __init__(self, routing, channels, dependencies, cycle, seconds, phase_sets=True,
                 edges=None):
        self.phase_sets = phase_sets
        #: ndarray or None: the dependencies as ``(held, requested)`` rows of vertices
        #: ``(node index * degree + port) * vcs + vc``
        self.edges = edges
        self.topology = routing.topology
        self.algorithm = routing.algorithm
        self.faults = routing.faults
        self.max_waypoints = routing.max_waypoints
        self.classes = routing.table.classes
        self.channels = channels
        self.dependencies = dependencies
        self.cycle = cycle
        self.seconds = seconds

    @property
    def vcs(self):
        return (self.max_waypoints + 1 if self.phase_sets else 1) * self.classes

    @property
    def deadlock_free(self):
        return self.cycle is None

    def describe_cycle(self):
        """The witness cycle as text."""
        return cycle_text(self.cycle, lambda u, p, v, vc: f"{u} -[port {p}, vc {vc}]-> {v}")

    def as_dict(self):
        return {"topology": self.topology.label, "algorithm": self.algorithm,
                "faulty_nodes": list(self.faults.nodes),
                "faulty_links": [list(x) for x in self.faults.links],
                "max_waypoints": self.max_waypoints, "classes_per_phase": self.classes,
                "vcs": self.vcs, "vc_rule": self.RULE, "channels": self.channels,
                "dependencies": self.dependencies, "deadlock_free": self.deadlock_free,
                "cycle": None if self.cycle is None else
                [{"from": u, "port": p, "to": v, "vc": vc} for u, p, v, vc in self.cycle],
                "seconds": round(self.seconds, 3)}


@functools.lru_cache(maxsize=8)
def _hop_vertices(table):
    """(N, N, D) channel of every hop of every leg, ``chan * C + class`` (-1 padding)."""
    degree, classes = table.topology.degree, table.classes
    here = table.path[:, :, :-1].astype(np.int64)
    port = table.hop_port.astype(np.int64)
    vertex = (here * degree + port) * classes + table.hop_class
    return np.where(port >= 0, vertex, -1)


@functools.lru_cache(maxsize=8)
def _leg_dependency_index(table):
    """The distinct dependencies inside legs, ``(held, requested)`` rows of
    ``chan * C + class``, and for every leg ``(a, b)`` and hop ``i`` the row of its
    dependency ``hop i -> hop i + 1`` (the number of rows when there is none), and how
    many hops use each row."""
    vertex = _hop_vertices(table)
    held, req = vertex[:, :, :-1], vertex[:, :, 1:]
    valid = req >= 0
    span = table.nodes.size * table.topology.degree * table.classes
    keys = np.where(valid, held * span + req, -1)
    distinct, inverse = np.unique(keys[valid], return_inverse=True)
    index = np.full(keys.shape, len(distinct), dtype=np.int64)
    index[valid] = inverse
    uses = np.bincount(index.ravel(), minlength=len(distinct) + 1)
    return np.stack([distinct // span, distinct % span], axis=1), index, uses


def check_waypoint_deadlock(routing, phase_sets=True):
    """Build the channel dependency graph of a :class:`WaypointRouting` and look for
    a cycle.

    A vertex is a (directed link, VC) channel, VC ``phase * C + class``. The edges are
    every pair of consecutive hops of every route the routing takes (the hops into and
    out of a waypoint included: the packet holds the first while it requests the
    second). Refused pairs contribute nothing. With ``phase_sets=False`` every phase
    shares one set of ``C`` VCs (the class still restarts on each leg): the design
    without the phase VCs, to show what they are for.

    Returns
    -------
    WaypointDeadlockReport
    """
    if not isinstance(routing, WaypointRouting):
        raise TypeError(f"routing must be a WaypointRouting, not {routing!r}")
    return _deadlock_report([routing], phase_sets)


def check_transition_deadlock(routings):
    """The channel dependency graph of several :class:`WaypointRouting` s of one
    network together (the union of their edges, as :func:`check_waypoint_deadlock`
    builds them), and a cycle in it: the check that packets of these routings may
    share the network (a fault set changing while traffic runs: the old routing's
    packets still in flight beside the new one's). The report names the last
    routing's faults.

    Returns
    -------
    WaypointDeadlockReport
    """
    routings = list(routings)
    if not routings or not all(isinstance(r, WaypointRouting) for r in routings):
        raise TypeError(f"routings must be WaypointRoutings, not {routings!r}")
    first = routings[0]
    if any((r.topology.label, r.algorithm, r.max_waypoints)
           != (first.topology.label, first.algorithm, first.max_waypoints)
           for r in routings):
        raise ValueError("Routings must share their network, algorithm and waypoints")
    return _deadlock_report(routings, True)


def _deadlock_report(routings, phase_sets):
    """The channel dependency graph of the union of ``routings`` (one route table,
    one number of waypoints) and a witness cycle; the report of the last one."""
    t0 = time.perf_counter()
    routing = routings[-1]
    table = routing.table
    classes = table.classes
    phases = routing.max_waypoints + 1 if phase_sets else 1
    vcs = phases * classes
    rows, index, uses = _leg_dependency_index(table)
    vertex = _hop_vertices(table)
    parts = []

    def shift(v, phase):
        # chan * C + class -> chan * vcs + phase * C + class
        return (v // classes) * vcs + (phase % phases) * classes + v % classes

    legs = [r.leg_pairs() for r in routings]
    used_by_phase = [functools.reduce(np.logical_or, [lp[p] for lp in legs if p < len(lp)])
                     for p in range(max(len(lp) for lp in legs))]
    for p, used in enumerate(used_by_phase):
        if not used.any():
            continue
        if used.sum() * 2 > used.size:
            # most legs used (phase 0): count out the unused ones
            left = uses - np.bincount(index[~used].ravel(), minlength=len(uses))
            mark = left > 0
        else:
            mark = np.zeros(len(rows) + 1, dtype=bool)
            mark[index[used].ravel()] = True
        parts.append(shift(rows[mark[:-1]], p))
    for stops in (st for r in routings for st in r.stops.values()):
        for p in range(stops.shape[1] - 2):
            x, y, z = stops[:, p], stops[:, p + 1], stops[:, p + 2]
            last = vertex[x, y, table.length[x, y] - 1]
            first = vertex[y, z, 0]
            parts.append(np.stack([shift(last, p), shift(first, p + 1)], axis=1))
    num = len(table.nodes) * table.topology.degree * vcs
    edges = np.unique(np.concatenate(parts), axis=0) if parts else \
        np.zeros((0, 2), dtype=np.int64)
    found = _find_cycle(num, edges)
    cycle = None
    if found is not None:
        degree = table.topology.degree
        cycle = []
        for c in found:
            vc, chan = c % vcs, c // vcs
            u, port = chan // degree, chan % degree
            cycle.append((int(table.nodes[u]), int(port),
                          int(table.nodes[table.neighbours[u, port]]), int(vc)))
    return WaypointDeadlockReport(routing, num, len(edges), cycle,
                                  time.perf_counter() - t0, phase_sets, edges)


# -- sweeps over fault sets -----------------------------------------------------------

def fault_elements(topology):
    """Every single fault of ``topology``: ``("node", a)`` for each node, then
    ``("link", (u, v))`` for each link."""
    return ([("node", int(a)) for a in topology.nodes()]
            + [("link", (int(u), int(v))) for u, v in topology.edges()])


def _fault_set(topology, chosen):
    return FaultSet(topology, [x for kind, x in chosen if kind == "node"],
                    [x for kind, x in chosen if kind == "link"])


def random_fault_sets(topology, count, size, seed=0):
    """``count`` random fault sets of ``size`` distinct faulty nodes and links, drawn
    uniformly from :func:`fault_elements` (reproducible by ``seed``)."""
    rng = np.random.default_rng(seed)
    elements = fault_elements(topology)
    for _ in range(count):
        pick = rng.choice(len(elements), size=size, replace=False)
        yield _fault_set(topology, [elements[i] for i in sorted(pick)])


class FaultSweep:
    """Result of :func:`sweep_fault_sets`: figures over every fault set checked.

    Attributes
    ----------
    topology, max_waypoints
    fault_sets, pairs : int
        Fault sets and healthy ordered pairs checked.
    waypoints_needed : int
        The most waypoints any pair needed.
    cut_off, unroutable : int
        Healthy pairs refused because the faults disconnect them, or because they need
        more than ``W`` waypoints (summed over the fault sets).
    refused_within : int
        Healthy pairs refused in fault sets within the guarantee (0 when it holds).
    deadlocks : list of FaultSet
        Fault sets whose channel dependency graph has a cycle.
    problems : list of str
        Failures of :meth:`WaypointRouting.verify` (first 20).
    shared_deadlocks : int
        With ``shared``: fault sets whose graph has a cycle when every phase shares one
        VC set (``check_waypoint_deadlock(routing, phase_sets=False)``).
    max_extra, max_ratio : int, float
        Largest path stretch (extra hops, ratio) against the shortest fault-free path.
    seconds : float
    """

    def __init__(self, topology, max_waypoints):
        self.topology = topology
        self.max_waypoints = max_waypoints
        self.fault_sets = self.pairs = self.waypoints_needed = 0
        self.cut_off = self.unroutable = self.refused_within = self.shared_deadlocks = 0
        self.deadlocks, self.problems = [], []
        self.max_extra, self.max_ratio = 0, 1.0
        self.seconds = 0.0

    @property
    def ok(self):
        return not (self.refused_within or self.deadlocks or self.problems)

    def as_dict(self):
        return {"topology": self.topology.label, "max_waypoints": self.max_waypoints,
                "fault_sets": self.fault_sets, "pairs": self.pairs,
                "waypoints_needed": self.waypoints_needed, "cut_off": self.cut_off,
                "unroutable": self.unroutable, "refused_within": self.refused_within,
                "deadlocks": len(self.deadlocks),
                "shared_deadlocks": self.shared_deadlocks, "problems": self.problems[:20],
                "max_extra": self.max_extra, "max_ratio": round(self.max_ratio, 3),
                "seconds": round(self.seconds, 2)}


def sweep_fault_sets(topology, fault_sets=None, max_waypoints=DEFAULT_WAYPOINTS,
                     verify=True, deadlock=True, stretch=True, algorithm=None,
                     shared=False):
    """Check the waypoint routing over many fault sets.

    Parameters
    ----------
    topology : Topology
    fault_sets : iterable of FaultSet or None
        None: every fault set of up to :func:`guarantee_bound` faulty nodes and links
        (exhaustive).
    max_waypoints : int
    verify : bool or int
        Run :meth:`WaypointRouting.verify` (hop-by-hop walks and BFS) on each set: for
        every source (True), or for this many healthy sources drawn at random.
    deadlock : bool
        Run :func:`check_waypoint_deadlock` on each set.
    stretch : bool
        Measure the path stretch.
    shared : bool
        Also count the fault sets that deadlock when the phases share one VC set.

    Returns
    -------
    FaultSweep
    """
    t0 = time.perf_counter()
    if fault_sets is None:
        elements = fault_elements(topology)
        bound = guarantee_bound(topology)
        fault_sets = (_fault_set(topology, chosen) for size in range(bound + 1)
                      for chosen in itertools.combinations(elements, size))
    sweep = FaultSweep(topology, max_waypoints)
    rng = np.random.default_rng(0)
    for faults in fault_sets:
        routing = plan_waypoints(topology, faults, max_waypoints, algorithm)
        sweep.fault_sets += 1
        healthy = int(routing.healthy.sum())
        sweep.pairs += healthy * (healthy - 1)
        sweep.waypoints_needed = max(sweep.waypoints_needed, routing.waypoints_needed)
        sweep.cut_off += len(routing.cut_off)
        sweep.unroutable += len(routing.unroutable)
        if routing.guaranteed:
            sweep.refused_within += len(routing.cut_off) + len(routing.unroutable)
        if verify is not False and len(sweep.problems) < 20:
            sources = None
            if verify is not True:
                healthy = routing.table.nodes[routing.healthy]
                sources = rng.choice(healthy, size=min(int(verify), len(healthy)),
                                     replace=False).tolist()
            sweep.problems.extend(f"{faults}: {p}" for p in routing.verify(sources)[:20])
        if deadlock and not check_waypoint_deadlock(routing).deadlock_free:
            sweep.deadlocks.append(faults)
        if shared and not check_waypoint_deadlock(routing, phase_sets=False).deadlock_free:
            sweep.shared_deadlocks += 1
        if stretch:
            figures = routing.stretch()
            sweep.max_extra = max(sweep.max_extra, figures["max_extra"])
            sweep.max_ratio = max(sweep.max_ratio, figures["max_ratio"])
    sweep.seconds = time.perf_counter() - t0
    return sweep
