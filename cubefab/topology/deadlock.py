"""Virtual-channel assignment and the channel dependency graph (Dally & Seitz).

The VC-assignment function is the reference the routers implement: a packet enters
the network on virtual channel 0 and each hop uses the channel

    vc_out = min(vc_in + wrap(here, port), vcs - 1)

where ``vc_in`` is the channel of the hop before (0 for the first hop) and
``wrap(here, port)`` marks the hops where routing can close a cycle (each family's
:meth:`~cubefab.topology.base.Topology.wrap_array`):

* hypercube (e-cube routing): never;
* metacube: a cross-edge that clears a class bit (a step *down* the class cube).
  Inside one VC the classes a packet visits then strictly increase, and in every
  class the field bits are fixed in ascending order, so ranking a cube channel by
  (class, bit) and a cross channel just below the class it enters orders every
  dependency: each VC is acyclic, and the VC never decreases;
* DLH: a ring hop across the dateline (successor from position ``2m-1`` to 0, or
  predecessor from 0 to ``2m-1``); a packet wraps at most once.

The channel dependency graph has a vertex per (directed link, VC) and an edge from a
channel to every channel some packet can request next while holding it; routing is
deadlock-free if it is acyclic. :func:`check_deadlock_free` builds it from the
reference routing for every (source, destination) pair, using the topology's XOR
translations (field bits of the metacube, cube bits of the DLH, every bit of the
hypercube) that map routes onto routes: only one destination per translation class
is routed and the graph is the union of the translates.
"""

import functools

import numpy as np

from .base import Topology, check_int


__all__ = ["lane_bits", "flow_lane", "wrap_array", "wrap_ports", "next_vc", "hop_vcs", "required_vcs",
           "translation_mask", "route_evaluations", "channel_dependency_graph", "decode_channels",
           "check_deadlock_free", "cycle_text",
           "DeadlockReport", "DeadlockError"]


# -- the VC-assignment function ---------------------------------------------------------

def wrap_array(topology, addresses, port):
    """Vectorised ``wrap(here, port)`` (bool array) for network ``port``, no checks: the
    family's :meth:`~cubefab.topology.base.Topology.wrap_array`."""
    return topology.wrap_array(np.asarray(addresses, dtype=np.int64), port)


def wrap_ports(topology, here):
    """Tuple of ``wrap(here, port)`` for every network port of node ``here``."""
    here = topology.check_node(here, "here")
    a = np.array([here], dtype=np.int64)
    return tuple(bool(wrap_array(topology, a, p)[0]) for p in range(topology.degree))


def next_vc(topology, here, port, vc_in, vcs):
    """The VC of the hop from ``here`` through ``port`` of a packet that arrived on
    ``vc_in`` (0 for a packet injected at ``here``), with ``vcs`` channels.
    The local port (``degree``) keeps ``vc_in``."""
    vcs = check_int("Number of virtual channels", vcs, 1)
    vc_in = check_int("vc_in", vc_in, 0, vcs - 1)
    port = topology.check_port(port, local=True)
    if port == topology.degree:
        return vc_in
    return min(vc_in + int(wrap_ports(topology, here)[port]), vcs - 1)


def lane_bits(vcs_per_class):
    """Bits of a VC number that select the VC within its class (``vcs_per_class`` a
    power of two); raises ValueError otherwise."""
    per = check_int("Virtual channels per class", vcs_per_class, 1)
    if per & (per - 1):
        raise ValueError(f"Virtual channels per class must be a power of two, not {per!r}")
    return per.bit_length() - 1


def flow_lane(src, dst, vcs_per_class):
    """The VC within its class that every hop of the flow ``src -> dst`` takes when
    each VC class has ``vcs_per_class`` VCs: the XOR of the ``lane_bits``-wide pieces
    of ``src ^ dst``. One VC per flow and class keeps a flow's packets in order (they
    follow one path through FIFOs), while flows spread over the VCs of a class,
    which cuts head-of-line blocking. The VC of a hop is ``class * vcs_per_class +
    lane``; the class follows the VC-assignment function."""
    bits = lane_bits(vcs_per_class)
    x, lane = int(src) ^ int(dst), 0
    while bits and x:
        lane ^= x & ((1 << bits) - 1)
        x >>= bits
    return lane


def hop_vcs(topology, src, dst, algorithm=None, vcs=None, vcs_per_class=1):
    """The VC of every hop of the reference route from ``src`` to ``dst``
    (``vcs=None``: uncapped), with ``vcs_per_class`` VCs per class (see
    :func:`flow_lane`)."""
    path = topology.route(src, dst, algorithm)
    lane = flow_lane(src, dst, vcs_per_class)
    classes = None if vcs is None else max(1, vcs // vcs_per_class)
    vc, out = 0, []
    for u, v in zip(path, path[1:]):
        vc += int(wrap_ports(topology, u)[topology.port(u, v)])
        if classes is not None:
            vc = min(vc, classes - 1)
        out.append(vc * vcs_per_class + lane)
    return out


# -- translations and route enumeration -------------------------------------------------

def translation_mask(topology):
    """Address bits whose XOR maps every route (ports and VCs included) onto a route:
    the family's :meth:`~cubefab.topology.base.Topology.translation_mask`."""
    return topology.translation_mask()


def route_evaluations(topology):
    """How many routing decisions enumerating every reference route (the deadlock
    analysis, :func:`required_vcs`) evaluates: every node towards each representative
    destination, one per orbit of the translations (:func:`translation_mask`: they act
    freely, so ``N / 2**popcount(mask)`` of them). Computed without building anything."""
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    reps = topology.num_nodes >> bin(translation_mask(topology)).count("1")
    return reps * topology.num_nodes


def _src_key(topology, algorithm):
    """Function reducing a source address to what the routing decision reads of it."""
    shift = topology.source_key_shift(algorithm)
    return lambda s: s >> shift


def _enumerate_hops(topology, algorithm, vcs, progress=None):
    """Yield, per representative destination, arrays (here, port, vc, prev_port, prev_vc)
    of every hop of every route into it (prev_port = -1 on the first hop)."""
    mask = translation_mask(topology)
    nodes = topology.nodes()
    reps = nodes[(nodes & mask) == 0]
    degree = topology.degree
    neighbours = np.stack([topology.neighbor_array(nodes, p) for p in range(degree)], axis=1)
    wraps = np.stack([wrap_array(topology, nodes, p) for p in range(degree)],
                     axis=1).astype(np.int64)
    needs_src = "src" in topology.header_fields.get(algorithm, ())
    key = _src_key(topology, algorithm)
    next_port = topology._next_port
    # a family that tabulates its routing whole (the Mcube's Mroute tables) gives every
    # decision at once, instead of per node and destination through its caches
    whole = None if needs_src else topology.whole_port_table(algorithm)
    limit = 4 * topology.address_bits + 4 * topology.num_nodes.bit_length() + 64
    cap = np.int64(vcs - 1) if vcs is not None else np.int64(1 << 40)
    for r, dest in enumerate(reps):
        dest = int(dest)
        if progress is not None:
            progress(r, len(reps))
        t = topology.index(dest)
        here = np.delete(np.arange(len(nodes)), t)   # dense indices of the sources
        srcs = nodes[here]
        vc = np.zeros(len(here), dtype=np.int64)
        prev_port = np.full(len(here), -1, dtype=np.int64)
        prev_vc = np.zeros(len(here), dtype=np.int64)
        if needs_src:
            memo = {}
        elif whole is not None:
            table = whole[nodes, dest]
        else:
            table = np.array([next_port(int(a), dest, algorithm) if i != t else degree
                              for i, a in enumerate(nodes)], dtype=np.int64)
        steps = 0
        while len(here):
            if needs_src:
                ports = np.empty(len(here), dtype=np.int64)
                for i, (h, s) in enumerate(zip(here, srcs)):
                    k = (int(h), key(int(s)))
                    if k not in memo:
                        memo[k] = next_port(int(nodes[h]), dest, algorithm, src=int(s))
                    ports[i] = memo[k]
            else:
                ports = table[here]
            vc = np.minimum(vc + wraps[here, ports], cap)
            yield dest, here, ports, vc, prev_port, prev_vc
            nxt = topology.index_array(neighbours[here, ports])
            keep = nxt != t
            here, srcs = nxt[keep], srcs[keep]
            prev_port, prev_vc = ports[keep], vc[keep]
            vc = vc[keep]
            steps += 1
            if steps > limit:  # pragma: no cover - guards a broken routing function
                raise RuntimeError(f"{algorithm} routing to {dest} does not terminate")
    if progress is not None:
        progress(len(reps), len(reps))


@functools.lru_cache(maxsize=64)
def _required_vcs(topology, algorithm):
    top = 0
    for _, _, _, vc, _, _ in _enumerate_hops(topology, algorithm, None):
        if len(vc):
            top = max(top, int(vc.max()))
    return top + 1


def required_vcs(topology, algorithm=None):
    """Number of VCs the assignment function uses uncapped: 1 + the most wraps of any
    reference route."""
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    return _required_vcs(topology, topology.check_algorithm(algorithm))


# -- the channel dependency graph -----------------------------------------------------

def _channel(topology, dense, port, vc, vcs):
    return (dense * topology.degree + port) * vcs + vc


def channel_dependency_graph(topology, algorithm=None, vcs=1, progress=None):
    """The channel dependency graph of the reference routing with ``vcs`` VCs.

    Returns
    -------
    (num_channels, edges)
        Channel ``c = (index(u) * degree + port) * vcs + vc`` is the link leaving node
        ``u`` through ``port`` on virtual channel ``vc``; ``edges`` is an int64 array of
        shape (E, 2) of distinct dependencies ``(held, requested)``.
    """
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    algorithm = topology.check_algorithm(algorithm)
    vcs = check_int("Number of virtual channels", vcs, 1)
    degree = topology.degree
    mask = translation_mask(topology)
    nodes = topology.nodes()
    # An edge type is (address of the node holding the first channel with the translation
    # bits cleared, its port, vc, next port, next vc); the next channel leaves the
    # neighbour through that port.
    types = set()
    for _, here, ports, vc, prev_port, prev_vc in _enumerate_hops(topology, algorithm,
                                                                   vcs, progress):
        inner = prev_port >= 0
        if not inner.any():
            continue
        # the holder of the previous channel is the neighbour back through the link
        cur = nodes[here[inner]]
        pp = prev_port[inner]
        holder = np.empty(len(cur), dtype=np.int64)
        for p in np.unique(pp):
            sel = pp == p
            # links are symmetric in the sense that some port of cur leads back; find it
            holder[sel] = _back_neighbour(topology, cur[sel], int(p))
        rows = np.stack([holder & ~mask, pp, prev_vc[inner], ports[inner], vc[inner]],
                        axis=1)
        types.update(map(tuple, np.unique(rows, axis=0).tolist()))
    if not types:
        return topology.num_nodes * degree * vcs, np.zeros((0, 2), dtype=np.int64)
    hidx, nxt, p0, v0, p1, v1 = _translate_types(topology, types, mask)
    a = _channel(topology, hidx, p0, v0, vcs)
    b = _channel(topology, nxt, p1, v1, vcs)
    edges = np.unique(np.stack([a, b], axis=1), axis=0)
    return topology.num_nodes * degree * vcs, edges


def _translate_types(topology, types, mask):
    """Every translate of the edge types ``types`` (a set of ``(holder & ~mask, port,
    vc, next port, next vc)``) by the sub-masks of ``mask``: arrays ``(holder, next,
    port, vc, next port, next vc)`` with ``holder`` the dense index of the node holding
    the first channel and ``next`` that of the neighbour through ``port`` (left
    undefined where ``port`` is negative)."""
    types = np.array(sorted(types), dtype=np.int64)
    shifts = _subset_sums(mask)
    holder = (types[:, 0][:, None] | shifts[None, :]).ravel()
    rep = np.repeat(np.arange(len(types)), len(shifts))
    p0, v0, p1, v1 = (types[rep, i] for i in range(1, 5))
    hidx = topology.index_array(holder)
    nxt = np.empty(len(holder), dtype=np.int64)
    for p in range(topology.degree):
        sel = p0 == p
        nxt[sel] = topology.index_array(topology.neighbor_array(holder[sel], p))
    return hidx, nxt, p0, v0, p1, v1


def _back_neighbour(topology, addresses, port):
    """The nodes whose link through ``port`` leads to ``addresses``."""
    # Every family here has, for each port p, an inverse port q with
    # neighbour(neighbour(u, p), q) == u for all u; find q on the first address.
    a = np.asarray(addresses, dtype=np.int64)
    for q in range(topology.degree):
        cand = topology.neighbor_array(a, q)
        if np.array_equal(topology.neighbor_array(cand, port), a):
            return cand
    raise RuntimeError(f"{topology.label}: port {port} has no inverse port")  # pragma: no cover


def _subset_sums(mask):
    """All sub-masks of ``mask`` (numpy int64 array)."""
    out = np.zeros(1, dtype=np.int64)
    bit = 0
    while mask >> bit:
        if (mask >> bit) & 1:
            out = np.concatenate([out, out | (1 << bit)])
        bit += 1
    return out


def _find_cycle(num, edges):
    """Return None if the graph is acyclic, else one cycle as a list of vertices."""
    if not len(edges):
        return None
    src, dst = edges[:, 0], edges[:, 1]
    order = np.argsort(src, kind="stable")
    src, dst = src[order], dst[order]
    start = np.searchsorted(src, np.arange(num + 1))
    indeg = np.bincount(dst, minlength=num)
    alive = np.ones(num, dtype=bool)
    frontier = np.flatnonzero(indeg == 0)
    while len(frontier):
        alive[frontier] = False
        counts = start[frontier + 1] - start[frontier]
        if counts.sum():
            idx = np.repeat(start[frontier] - np.cumsum(np.concatenate([[0], counts[:-1]])),
                            counts) + np.arange(counts.sum())
            targets = dst[idx]
            np.subtract.at(indeg, targets, 1)
            targets = np.unique(targets)
            frontier = targets[(indeg[targets] == 0) & alive[targets]]
        else:
            frontier = frontier[:0]
    if not alive.any():
        return None
    # Every surviving vertex has a predecessor that survives: walk backwards to a repeat.
    keep = alive[src] & alive[dst]
    pred = np.full(num, -1, dtype=np.int64)
    pred[dst[keep]] = src[keep]
    v = int(np.flatnonzero(alive)[0])
    seen = {}
    walk = []
    while v not in seen:
        seen[v] = len(walk)
        walk.append(v)
        v = int(pred[v])
    cycle = walk[seen[v]:]
    cycle.reverse()
    return cycle


def cycle_text(cycle, channel):
    """A witness cycle as text: each step of ``cycle`` through ``channel(*step)``, joined
    by ``"; "`` (``"no cycle"`` for None); shared by every deadlock report."""
    if cycle is None:
        return "no cycle"
    return "; ".join(channel(*step) for step in cycle) + " (back to the first channel)"


class DeadlockReport:
    """Result of :func:`check_deadlock_free`.

    Attributes
    ----------
    topology, algorithm, vcs
        The configuration checked.
    channels, dependencies : int
        Vertices and edges of the channel dependency graph.
    cycle : list of (u, port, v, vc) or None
        An offending cycle of channels (link ``u`` -> ``v`` through ``port`` on ``vc``),
        or None when the graph is acyclic.
    required_vcs : int
        VCs the assignment function would use uncapped.
    rule_suffices : bool
        Whether :attr:`required_vcs` VCs make the graph acyclic. When they do not, no
        number of VCs does under this VC rule: with ``required_vcs`` or more every VC
        the rule assigns is uncapped and the rest stay unused.
    seconds : float
        Time the check took.
    """

    #: The VC-assignment rule every report is about.
    RULE = "vc_out = min(vc_in + wrap(here, port), vcs - 1)"

    def __init__(self, topology, algorithm, vcs, channels, dependencies, cycle,
                 required, seconds, rule_suffices=True):
        self.topology = topology
        self.algorithm = algorithm
        self.vcs = vcs
        self.channels = channels
        self.dependencies = dependencies
        self.cycle = cycle
        self.required_vcs = required
        self.rule_suffices = rule_suffices
        self.seconds = seconds

    @property
    def deadlock_free(self):
        return self.cycle is None

    def describe_need(self):
        """What the VC count needs, as text: ``"2"``, or that no count suffices."""
        if self.rule_suffices:
            return str(self.required_vcs)
        return f"no number of VCs suffices under the rule {self.RULE}"

    def describe_cycle(self):
        """The offending cycle as text, e.g. ``0 -[p0,vc0]-> 1 -[p2,vc0]-> 3 ...``."""
        return cycle_text(self.cycle, lambda u, p, v, vc: f"{u} -[port {p}, vc {vc}]-> {v}")

    def as_dict(self):
        return {
            "topology": self.topology.label,
            "algorithm": self.algorithm,
            "vcs": self.vcs,
            "required_vcs": self.required_vcs if self.rule_suffices else None,
            "vcs_suffice": self.rule_suffices,
            "vc_rule": self.RULE,
            "channels": self.channels,
            "dependencies": self.dependencies,
            "deadlock_free": self.deadlock_free,
            "cycle": None if self.cycle is None else
            [{"from": u, "port": p, "to": v, "vc": vc} for u, p, v, vc in self.cycle],
            "seconds": round(self.seconds, 3),
        }


class DeadlockError(ValueError):
    """A configuration whose channel dependency graph has a cycle."""

    def __init__(self, report):
        self.report = report
        super().__init__(
            f"{report.topology.label} with {report.algorithm} routing and {report.vcs} "
            f"virtual channel(s) can deadlock (needs {report.describe_need()}); channel "
            f"dependency cycle: {report.describe_cycle()}")


@functools.lru_cache(maxsize=64)
def _check(topology, algorithm, vcs):
    import time
    t0 = time.perf_counter()
    num, edges = channel_dependency_graph(topology, algorithm, vcs)
    cyc = _find_cycle(num, edges)
    cycle = None if cyc is None else decode_channels(topology, cyc, vcs)
    return num, len(edges), cycle, time.perf_counter() - t0


def decode_channels(topology, channels, vcs):
    """``(u, port, v, vc)`` of each channel number (as in
    :func:`channel_dependency_graph`, ``vcs`` VCs per link): link ``u -> v`` through
    ``port`` on ``vc``."""
    nodes = topology.nodes()
    out = []
    for c in channels:
        vc = int(c) % vcs
        port = (int(c) // vcs) % topology.degree
        u = int(nodes[int(c) // vcs // topology.degree])
        out.append((u, port, int(topology.neighbor_array(np.array([u]), port)[0]), vc))
    return out


def check_deadlock_free(topology, algorithm=None, vcs=None):
    """Build the channel dependency graph and look for a cycle (Dally & Seitz).

    Parameters
    ----------
    topology : Topology
    algorithm : str or None
        Routing algorithm (the topology's default when ``None``).
    vcs : int or None
        Number of virtual channels (default: :func:`required_vcs`).

    Returns
    -------
    DeadlockReport
    """
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    algorithm = topology.check_algorithm(algorithm)
    required = required_vcs(topology, algorithm)
    vcs = required if vcs is None else check_int("Number of virtual channels", vcs, 1)
    num, deps, cycle, seconds = _check(topology, algorithm, vcs)
    if cycle is None:
        suffices = True
    elif vcs >= required:
        suffices = False
    else:
        suffices = _check(topology, algorithm, required)[2] is None
    return DeadlockReport(topology, algorithm, vcs, num, deps, cycle, required, seconds,
                          suffices)
