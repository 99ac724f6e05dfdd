"""The Mcube of mcube.txt: a twisted hypercube built from structural constraints.

A k-Mcube has the nodes, links and degree of the hypercube Q(k), but some links of
every dimension ``j >= 2`` are "twisted": the link numbered ``j`` joins two nodes
whose addresses agree above bit ``j``, differ in bit ``j`` and may differ in lower
bits. This module builds k-Mcubes explicitly (the HEM construction of section 6, or
the algorithmic construction of section 2.2), numbers nodes and links as in section
3, checks the construction requirements R1-R3 of Definition 8, and implements the
routing algorithm Mroute (section 3) both recursively and in its table-driven form
(tables RT1/RT2 of Figure 6). See docs/mcube.md for the choices the paper leaves
open and how they are made here.

Terms used below (mcube.txt Definitions 7-10): an r-Mcube ``M = {A :: B}`` has two
*principals* A, B, two *laterals* ``M_L0 = {A_L0 :: B_L0}`` and ``M_L1``, and the
principals' *corners* ``A_ij = A_Pi ∩ A_Lj``. Links joining the principals are
*PCLs*, links joining the laterals *LCLs*.
"""

import functools
from fractions import Fraction
from math import comb

import numpy as np

from .broadcast import ALL_PORT, ONE_PORT
from .base import Parameter, Topology, check_int
from .mcube_frames import _Frames, paper_diameter


__all__ = ["Mcube", "MAX_K", "CONSTRUCTIONS", "hem_neighbors", "algorithmic_neighbors",
           "check_requirements", "mroute_table", "mroute_path", "routing_tables", "paper_distribution",
           "paper_average_distance", "paper_average_distance_closed_form", "paper_diameter",
           "route_lengths", "mroute_offered_masks", "ecube_as_short_masks", "binomial_sends"]

#: Largest dimension built: the neighbour table has ``2**k * k`` entries and each
#: node's routing tables ``2**(k-1) - k`` (about a second per node at k = 16).
MAX_K = 16

#: Names of the constructions (section 6's HEM, section 2.2's algorithmic one).
CONSTRUCTIONS = ("hem", "algorithmic")


# -- construction ----------------------------------------------------------------------
#
# Both constructions build a (r+1)-Mcube from two r-Mcubes stored as contiguous address
# blocks: node numbering (section 3) prefixes the principal's bit, so every principal,
# principal of a principal, ... is an aligned block, its PCLs are the links numbered
# (block dimension - 1) and its LCLs flip address bit 0.

def _hypercube_neighbors(k):
    a = np.arange(1 << k, dtype=np.int64)
    return np.stack([a ^ (1 << j) for j in range(k)], axis=1).reshape(1 << k, k)


def _dual_connection(nb, base_ab, base_cd, r, p1, p2, links):
    """Section 2.2's Dual connection between the laterals of the r-Mcubes at ``base_ab``
    and ``base_cd`` (aligned blocks of ``2**r`` nodes) that contain ``p1`` and ``p2``,
    with reference to the link ``(p1, p2)`` (already made); appends the new links."""
    half = 1 << (r - 1)
    base_a = base_ab + (half if p1 - base_ab >= half else 0)   # A: principal holding p1
    base_b = 2 * base_ab + half - base_a
    base_d = base_cd + (half if p2 - base_cd >= half else 0)   # D: principal holding p2
    base_c = 2 * base_cd + half - base_d
    if r == 2:
        # (I): B_L1 and C_L1 are single nodes (same lateral bit as p1, p2)
        links.append((base_b + (p1 & 1), base_c + (p2 & 1)))
        return
    # (II)(a)
    _dual_connection(nb, base_a, base_d, r - 1, p1, p2, links)
    # (II)(b): y ends the principal semi-loop LCL, PCL, LCL of AB from p1; z = c(p2, C)
    y = int(nb[p1 ^ 1, r - 1]) ^ 1
    z = int(nb[p2, r - 1])
    links.append((y, z))
    # (II)(c)
    _dual_connection(nb, base_b, base_c, r - 1, y, z, links)


def _join(nb_low, nb_high, links, k):
    """Neighbour table of the k-Mcube whose principals have tables ``nb_low``/``nb_high``
    (addresses of the high one already offset) and whose PCLs are ``links``."""
    half = 1 << (k - 1)
    nb = np.full((1 << k, k), -1, dtype=np.int64)
    nb[:half, :k - 1] = nb_low
    nb[half:, :k - 1] = nb_high
    for u, v in links:
        if nb[u, k - 1] != -1 or nb[v, k - 1] != -1:  # pragma: no cover - construction bug
            raise RuntimeError(f"construction made two PCLs at node {u} or {v}")
        nb[u, k - 1] = v
        nb[v, k - 1] = u
    if (nb < 0).any():  # pragma: no cover - construction bug
        raise RuntimeError("construction left nodes without a PCL")
    return nb


def _hem_step(nb):
    """(k+1)-HEM from the k-HEM ``nb`` (mcube.txt section 6, steps ii(a)-(c))."""
    n, k = nb.shape
    x = np.arange(n, dtype=np.int64)
    # (a) B is A with address bit 0 complemented: B_L0 and B_L1 interchanged
    nb_b = (nb[x ^ 1] ^ 1) + n
    # (b) hypercube connection of the laterals 0: A_L0 node x to B_L0 node x
    links = [(int(a), int(a) + n) for a in range(0, n, 2)]
    # (c) one link A_01 -> B_11, then the Dual connection of A_L1 and B_L1
    q1, q2 = 1, n + n // 2 + 1
    links.append((q1, q2))
    full = np.concatenate([nb, nb_b])
    _dual_connection(full, 0, n, k, q1, q2, links)
    return _join(nb, nb_b, links, k + 1)


def _algorithmic_step(nb):
    """(k+1)-Mcube from two copies AB, CD of the k-Mcube ``nb`` (section 2.2)."""
    n, k = nb.shape
    half = n // 2
    full = np.concatenate([nb, nb + n])
    links = []
    # (a) p1 in A_L1, p2 in D_L1 and the Dual connection of (AB)_L1, (CD)_L1
    p1, p2 = 1, n + half + 1
    links.append((p1, p2))
    _dual_connection(full, 0, n, k, p1, p2, links)
    # (b) q1 in B_L0, q2 in D_L0 and the Dual connection of (AB)_L0, (CD)_L0
    q1, q2 = half, n + half
    links.append((q1, q2))
    _dual_connection(full, 0, n, k, q1, q2, links)
    return _join(nb, nb + n, links, k + 1)


def _build(k, step):
    nb = _hypercube_neighbors(min(k, 2))
    while nb.shape[1] < k:
        nb = step(nb)
    return nb


def hem_neighbors(k):
    """Neighbour table ``nb[address, link]`` of the k-HEM (hypercube emulator Mcube)."""
    k = check_int("Mcube dimension k", k, 1, MAX_K)
    return _build(k, _hem_step)


def algorithmic_neighbors(k):
    """Neighbour table of the k-Mcube of section 2.2's algorithmic construction, built
    from two identical copies at every step with the first admissible reference nodes."""
    k = check_int("Mcube dimension k", k, 1, MAX_K)
    return _build(k, _algorithmic_step)


# -- sub-Mcube frames and the construction requirements ---------------------------------
#
# (the frames, :class:`~cubefab.topology.mcube_frames._Frames`, are in their own module,
# which the broadcast of section 4 shares)


def check_requirements(nb):
    """Check that the neighbour table ``nb`` is a k-Mcube: Definition 8's requirements
    R1-R3 at every level, for every sub-Mcube they name, recursively.

    Returns
    -------
    list of str
        The violations found (empty if ``nb`` is a k-Mcube).
    """
    nb = np.asarray(nb, dtype=np.int64)
    n, k = nb.shape
    frames = _Frames(nb)
    memo = {}
    problems = []

    def check(nodes, links):
        key = (nodes.tobytes(), links)
        if key not in memo:
            memo[key] = _check_frame(frames, nodes, links, check)
        return memo[key]

    a = np.arange(n, dtype=np.int64)
    for j in range(k):
        if not (nb[nb[:, j], j] == a).all():
            problems.append(f"links numbered {j} are not symmetric")
        elif not ((a ^ nb[:, j]) >> j == 1).all():
            problems.append(f"a link numbered {j} joins nodes whose most significant "
                            f"differing bit is not {j}")
    if not problems:
        error = check(a, tuple(range(k - 1, -1, -1)))
        if error:
            problems.append(error)
    return problems


def _check_frame(frames, nodes, links, check):
    nb = frames.nb
    r = len(links)
    label = f"sub-Mcube of {nodes.size} nodes from {int(nodes[0])}, links {links}"
    if r and not np.isin(nb[nodes][:, list(links)], nodes).all():
        return f"{label}: a link leaves it"
    if r <= 2:      # closed under its r links, 2**r nodes: a hypercube (Definition 8 (I))
        return None
    p, lat = links[0], links[-1]
    principals = frames.split(nodes, p, links)
    if principals is None:
        return f"{label}: no principals joined 1-1 by link {p}"
    for half in principals:
        error = check(half, links[1:])
        if error:
            return error
    laterals = frames.split(nodes, lat, links)
    if laterals is None:
        return f"{label}: no laterals joined 1-1 by link {lat}"

    def corners(principal):
        halves = frames.split(principal, links[1], links[1:])
        return {(i, j): np.intersect1d(halves[i], laterals[j])
                for i in (0, 1) for j in (0, 1)}

    ca, cb = corners(principals[0]), corners(principals[1])
    where = {}
    for key, part in cb.items():
        for x in part.tolist():
            where[x] = key
    image = {}
    corner_links = (p,) + frames.lateral_frame(links[2:])
    for key, part in ca.items():
        targets = {where.get(int(y)) for y in nb[part, p]}
        if len(targets) != 1 or None in targets:
            return f"{label}: R1 fails, corner {key} is not 1-1 connected to one corner"
        image[key] = targets.pop()
        if image[key][1] != key[1]:
            return f"{label}: R3 fails, lateral {key[1]} is joined to the other lateral"
        error = check(np.sort(np.concatenate([part, cb[image[key]]])), corner_links)
        if error:
            return f"{label}: R1 fails, {{X::Y}} of corner {key}: " + error
    for x1, x2 in (((0, 0), (1, 1)), ((0, 1), (1, 0))):     # not 1-1 connected in A
        y1, y2 = image[x1], image[x2]
        if y1[0] != y2[0] and y1[1] != y2[1]:
            return f"{label}: R2 fails, corners {x1}, {x2} go to opposite corners"
    for half in laterals:
        error = check(half, frames.lateral_frame(links))
        if error:
            return f"{label}: R3 fails: " + error
    return None


# -- Mroute ---------------------------------------------------------------------------

def _msb_table(n):
    """``table[a, b]``: the highest bit of ``a ^ b`` (e-cube's port), -1 on the diagonal;
    built a bit at a time to keep the temporaries small (4096 nodes: 16.8 million
    pairs)."""
    a = np.arange(n, dtype=np.int32)
    diff = a[:, None] ^ a[None, :]
    out = np.full((n, n), -1, dtype=np.int8)
    for b in range(max(1, (n - 1).bit_length())):
        out[diff >= (1 << b)] = b
    return out.astype(np.int64)


def mroute_table(nb):
    """Mroute of section 3, by its recursive definition, as a next-hop table.

    Returns
    -------
    numpy.ndarray of int8, shape (n, n)
        ``table[here, dest]`` is the link Mroute takes first from ``here`` to ``dest``
        (-1 on the diagonal). Mroute's path is consistent hop by hop, so this is also
        the per-hop routing decision (checked in the tests).
    """
    nb = np.asarray(nb, dtype=np.int64)
    n, k = nb.shape
    frames = _Frames(nb)
    memo = {}

    def table(nodes, links):
        key = (nodes.tobytes(), links)
        if key not in memo:
            memo[key] = _mroute_frame(frames, nodes, links, table)
        return memo[key]

    return table(np.arange(n, dtype=np.int64), tuple(range(k - 1, -1, -1))).astype(np.int8)


def _mroute_frame(frames, nodes, links, table):
    nb = frames.nb
    m = nodes.size
    pos = np.full(frames.n, -1, dtype=np.int64)
    pos[nodes] = np.arange(m)
    hop = np.full((m, m), -1, dtype=np.int64)
    if len(links) <= 2:
        # a hypercube: the link to a neighbour, else the highest link (e-cube default)
        for j in sorted(links):
            hop[np.arange(m), pos[nb[nodes, j]]] = j
        far = (hop < 0)
        np.fill_diagonal(far, False)
        hop[far] = max(links) if links else -1
        return hop
    p, lat = links[0], links[-1]
    principals = frames.split(nodes, p, links)
    laterals = frames.split(nodes, lat, links)
    side = np.zeros(m, dtype=np.int64)
    side[pos[principals[1]]] = 1
    half = np.zeros(m, dtype=np.int64)
    for principal in principals:
        half[pos[frames.split(principal, links[1], links[1:])[1]]] = 1
    done = np.eye(m, dtype=bool)
    # case (i): both in one principal
    for principal in principals:
        idx = pos[principal]
        hop[np.ix_(idx, idx)] = table(principal, links[1:])
        done[np.ix_(idx, idx)] = True
    # case (ii): both in one lateral
    for lateral in laterals:
        idx = pos[lateral]
        block = hop[np.ix_(idx, idx)]
        todo = ~done[np.ix_(idx, idx)]
        block[todo] = table(lateral, frames.lateral_frame(links))[todo]
        hop[np.ix_(idx, idx)] = block
        done[np.ix_(idx, idx)] = True
    # case (iii): PCL first if the destination is in the principal of B that the PCL
    # reaches (iii)(a), else LCL first (iii)(b)
    s, d = np.nonzero(~done)
    across = pos[nb[nodes[s], p]]
    hop[s, d] = np.where(half[across] == half[d], p, lat)
    return hop


def mroute_path(nb, src, dst):
    """The path (list of addresses) of Mroute from ``src`` to ``dst`` by the recursive
    definition of section 3, chosen at the source: case (i) within the principal, (ii)
    within the lateral, (iii)(a) the PCL then Mroute in a principal of B, (iii)(b) the LCL
    then Mroute in {A_01 :: B_11}. Slow (it splits frames); for checks on small k."""
    nb = np.asarray(nb, dtype=np.int64)
    n, k = nb.shape
    frames = _Frames(nb)

    def route(nodes, links, s, d):
        if s == d:
            return [s]
        if len(links) <= 2:
            for j in sorted(links, reverse=True):
                if nb[s, j] == d:
                    return [s, d]
            step = int(nb[s, max(links)])
            return [s] + route(nodes, links, step, d)
        p, lat = links[0], links[-1]
        principals = frames.split(nodes, p, links)
        laterals = frames.split(nodes, lat, links)
        for part, sub in ((principals, links[1:]), (laterals, frames.lateral_frame(links))):
            for half in part:
                if s in half and d in half:
                    return route(half, sub, s, d)
        a, b = principals if s in principals[0] else principals[::-1]
        across = int(nb[s, p])
        for half in frames.split(b, links[1], links[1:]):
            if across in half and d in half:                                  # (iii)(a)
                return [s] + route(half, links[2:], across, d)
        # (iii)(b): the LCL to the corner X of A, then Mroute in {X :: Y}, Y = d's corner
        side = int(nb[s, lat])
        lateral = laterals[0] if side in laterals[0] else laterals[1]
        x_half = next(h for h in frames.split(a, links[1], links[1:]) if side in h)
        y_half = next(h for h in frames.split(b, links[1], links[1:]) if d in h)
        xy = np.sort(np.concatenate([np.intersect1d(x_half, lateral),
                                     np.intersect1d(y_half, lateral)]))
        return [s] + route(xy, (p,) + frames.lateral_frame(links[2:]), side, d)

    return route(np.arange(n, dtype=np.int64), tuple(range(k - 1, -1, -1)), int(src), int(dst))


def routing_tables(nb, node):
    """Tables RT1 and RT2 of ``node`` by Figure 6's Calculate_Table (read as in
    docs/mcube.md: ``for i := t1-2 downto 1``, recursion on ``t1-1``).

    Returns
    -------
    (dict, frozenset)
        RT1: destination -> link for destinations in ``node``'s lateral that need a
        link other than the e-cube default; RT2: destinations in the other lateral
        that are routed over link 0 instead of the default.
    """
    nb = np.asarray(nb, dtype=np.int64)
    k = nb.shape[1]
    table1, table2 = {}, set()
    visited = set()

    def add_table(t, t1, s, into):
        # Figure 6 reaches the same (t, t1, s) along many paths and adds the same
        # entries each time: doing each once gives the same tables in polynomial time
        state = (t, t1, s, into is table2)
        if state in visited:
            return
        visited.add(state)
        for i in range(t1 - 2, 0, -1):
            x = int(nb[s, i])
            if into is table2:
                table2.add(x)
            else:
                table1[x] = t
            add_table(t, t1 - 1, x, into)

    for t in range(2, k):
        s = int(nb[node, t])
        for i in range(t + 1, k):
            s1 = int(nb[s, i])
            table1[s1] = t
            add_table(t, t, s1, table1)
    s = int(nb[node, 0])
    for t in range(2, k):
        s1 = int(nb[s, t])
        table2.add(s1)
        add_table(t, t, s1, table2)
    return table1, frozenset(table2)


# -- the paper's formulas ---------------------------------------------------------------

def paper_distribution(k):
    """F_k(i) of Theorem 1 (section 5.1): nodes at Mroute distance i, i = 0..; the
    recurrence F_t(1) = F_{t-1}(1) + 1, F_t(i) = 2F_{t-1}(i) + 2F_{t-2}(i-1) - F_{t-2}(i)
    - 2F_{t-3}(i-1) for i > 1, F_s(i) = C(s, i) for s < 3 (F_t(0) = 1)."""
    k = check_int("Mcube dimension k", k, 0)
    memo = {}

    def f(t, i):
        if i < 0:
            return 0
        if t < 3:
            return comb(t, i) if t >= 0 else 0
        if (t, i) not in memo:
            if i == 0:
                memo[t, i] = 1
            elif i == 1:
                memo[t, i] = f(t - 1, 1) + 1
            else:
                memo[t, i] = (2 * f(t - 1, i) + 2 * f(t - 2, i - 1) - f(t - 2, i)
                              - 2 * f(t - 3, i - 1))
        return memo[t, i]

    out = [f(k, i) for i in range(k + 1)]
    while len(out) > 1 and out[-1] == 0:
        out.pop()
    return out


def paper_average_distance(k):
    """AD(k) of section 5.2 by its recurrence AD(k) = AD(k-1) + (AD(k-2) - AD(k-3) + 1)/4,
    with the hypercube value k/2 for k <= 2 (a Fraction; the mean over all 2^k
    destinations, the node itself included)."""
    k = check_int("Mcube dimension k", k, 0)
    ad = [Fraction(0), Fraction(1, 2), Fraction(1)]
    for t in range(3, k + 1):
        ad.append(ad[t - 1] + (ad[t - 2] - ad[t - 3] + 1) / 4)
    return ad[k]


def paper_average_distance_closed_form(k):
    """The closed form of section 5.2, k/3 + 4/9 + (1/18)(-1/2)^k - (1/2)^(k+1)."""
    return k / 3 + 4 / 9 + (-0.5) ** k / 18 - 0.5 ** (k + 1)


# -- the topology ------------------------------------------------------------------------

class Mcube(Topology):
    """The k-Mcube of mcube.txt.

    Parameters
    ----------
    k : int
        Dimension, ``1 <= k <= MAX_K``. For ``k <= 2`` the Mcube is the hypercube Q(k)
        (Definition 8 (I)). Nodes are the k-bit addresses of section 3; port ``j`` is
        the link numbered ``j``, the most significant bit in which its ends differ.
    construction : str
        ``"hem"`` (default): the hypercube emulator Mcube of section 6;
        ``"algorithmic"``: section 2.2 with identical halves.

    Routing algorithms
    ------------------
    ``mroute`` (default)
        Mroute of section 3, in its table-driven form: RT2 (destination in the other
        lateral, i.e. address bit 0 differs: take link 0) and RT1 (same lateral: take
        the listed link) from Figure 6, else the e-cube default. Equal to the recursive
        definition (:func:`mroute_table`, tests); at most ``ceil((k+1)/2)`` hops.
    ``ecube``
        The default alone: the link of the most significant differing bit (k hops at
        most).
    """

    name = "mcube"
    title = "the Mcube"
    parameters = [Parameter("k", "k", "dimension", 1, MAX_K)]
    algorithms = ("mroute", "ecube")
    tree_algorithm = "bfs-lowest"
    broadcast_wrap_reads_address = False
    adaptive_ports_are_minimal = False

    def __init__(self, k, construction="hem"):
        self.k = check_int("Mcube dimension k", k, 1, MAX_K)
        if construction not in CONSTRUCTIONS:
            raise ValueError(f"Mcube construction must be one of {', '.join(CONSTRUCTIONS)}, "
                             f"not {construction!r}")
        self.construction = construction
        self.address_bits = self.k
        self.num_nodes = 1 << self.k
        self.degree = self.k
        build = hem_neighbors if construction == "hem" else algorithmic_neighbors
        self._nb = build(self.k)
        self._nb.setflags(write=False)
        self._tables = {}

    @property
    def params(self):
        if self.construction == "hem":
            return {"k": self.k}
        return {"k": self.k, "construction": self.construction}

    @property
    def label(self):
        suffix = "" if self.construction == "hem" else ", algorithmic"
        return f"Mcube({self.k}{suffix})"

    @property
    def neighbor_table(self):
        """Read-only numpy array ``[address, link]`` of neighbours."""
        return self._nb

    def neighbor_array(self, addresses, port):
        return self._nb[np.asarray(addresses, dtype=np.int64), port]

    def _neighbor(self, address, port):
        return int(self._nb[address, port])

    def tables(self, node):
        """(RT1, RT2) of ``node``: see :func:`routing_tables` (cached)."""
        node = self.check_node(node, "node")
        if node not in self._tables:
            self._tables[node] = routing_tables(self._nb, node)
        return self._tables[node]

    def _next_port(self, here, dest, algorithm):
        default = (here ^ dest).bit_length() - 1
        if algorithm == "ecube":
            return default
        rt1, rt2 = self.tables(here)
        if (here ^ dest) & 1:
            return 0 if dest in rt2 else default
        return rt1.get(dest, default)

    def whole_port_table(self, algorithm):
        return self.port_table(algorithm)

    def port_table(self, algorithm=None):
        """``table[here, dest]``: :meth:`next_port` for every pair (``degree`` on the
        diagonal), as a numpy int array built from the routing tables."""
        algorithm = self.check_algorithm(algorithm)
        n = self.num_nodes
        table = _msb_table(n)
        if algorithm == "mroute":
            for here in range(n):
                # (not through the cache of tables(): every node's tables together
                # hold about N**2 entries, the table itself 8 bytes per pair)
                rt1, rt2 = (self._tables[here] if here in self._tables
                            else routing_tables(self._nb, here))
                if rt1:
                    table[here, list(rt1)] = list(rt1.values())
                if rt2:
                    table[here, list(rt2)] = 0
        np.fill_diagonal(table, self.degree)
        return table

    def check_requirements(self):
        """Definition 8's R1-R3 for this network: a list of violations (empty if none)."""
        return check_requirements(self._nb)

    # -- family behaviour (see Topology) ----------------------------------------------

    def escape_algorithm(self, algorithm):
        """``mroute`` is not deadlock-free on its own VC rule: e-cube is its escape."""
        return "ecube" if algorithm == "mroute" else algorithm

    def distance_function(self):
        """BFS distances of every pair, tabulated once (cached per network)."""
        table = _distances(self)
        return lambda s, t: int(table[s, t])

    def adaptive_ports(self, here, dest, algorithm):
        """Ports that make progress in the escape's own order (see
        :func:`~cubefab.topology.adaptive.adaptive_ports`)."""
        return tuple(p for p in range(self.degree)
                     if int(self._adaptive_mask(here, dest, algorithm)) >> p & 1)

    def adaptive_port_masks(self, dest, algorithm):
        return self._adaptive_mask(self.nodes(), dest, algorithm)

    def _adaptive_mask(self, here, dest, algorithm):
        if algorithm == "mroute":
            return mroute_offered_masks(self)[here, dest]
        return (here ^ dest) & ((1 << self.degree) - 1)

    def broadcast_algorithms(self):
        from .broadcast import BroadcastAlgorithm
        from .mcube_broadcast import mcube_schedule, paper_broadcast_steps
        return [BroadcastAlgorithm(
            "mcube", ALL_PORT, mcube_schedule, paper_broadcast_steps,
            "mcube.txt section 4: ceil((k+1)/2) steps (all-port: the source sends on 3 "
            "links at once)")]

    def one_port_tree_sends(self, source):
        """The binomial tree on the links in descending order."""
        return binomial_sends(self, source), "binomial", None

    def broadcast_wrap_array(self, addresses, in_ports, port, model):
        """All-port: a link number not above the one the copy arrived on; one-port (the
        binomial tree sends in descending order): not below it."""
        in_ports = np.broadcast_to(np.asarray(in_ports, dtype=np.int64), np.shape(addresses))
        if model == ONE_PORT:
            return (in_ports < self.degree) & (port >= in_ports)
        return (in_ports < self.degree) & (port <= in_ports)

    def bisection_spectral_bound(self):
        from .bisection import _matching_spectral, _recursive_matching
        return _matching_spectral(self, checked=True) if _recursive_matching(self) else None

    def bisection_cut(self):
        from .bisection import _mcube_cut
        return _mcube_cut(self)

    def paper_values(self):
        """Formula values of mcube.txt, keyed like
        :func:`~cubefab.topology.properties.properties`. The diameter and distance
        distribution are under Mroute (the BFS values may be smaller)."""
        k = self.k
        ad = paper_average_distance(k)
        values = {
            "nodes": {"value": 2 ** k, "source": "mcube.txt section 2: 2^k"},
            "degree": {"value": k, "source": "mcube.txt section 2"},
            "links": {"value": k * 2 ** (k - 1), "source": "mcube.txt section 9: k*2^(k-1)"},
            "mroute_diameter": {"value": paper_diameter(k),
                                "source": "mcube.txt section 3: ceil((k+1)/2) under Mroute"},
            "mroute_distance_distribution": {"value": paper_distribution(k),
                                             "source": "mcube.txt Theorem 1: F_k(i)"},
            "mroute_average_distance_with_self": {
                "value": float(ad),
                "source": "mcube.txt section 5.2: AD(k) recurrence"},
            "mroute_average_distance_with_self_closed_form": {
                "value": paper_average_distance_closed_form(k),
                "source": "mcube.txt section 5.2: k/3 + 4/9 + (1/18)(-1/2)^k - (1/2)^(k+1)"},
        }
        if k >= 3:
            values["reconfiguration_switches_bound"] = {
                "value": (k - 2) * 2 ** (k - 2),
                "source": "mcube.txt Theorem 2: at most (k-2)*2^(k-2)"}
        return values


# -- analyses of the model the family's methods answer from ------------------------------

def route_lengths(topology, algorithm=None):
    """``lengths[here, dest]``: hops of hop-by-hop routing, all pairs (vectorised walk)."""
    table = topology.port_table(algorithm)
    nb = topology.neighbor_table
    n = topology.num_nodes
    cur = np.repeat(np.arange(n, dtype=np.int64)[:, None], n, axis=1)
    dst = np.repeat(np.arange(n, dtype=np.int64)[None, :], n, axis=0)
    lengths = np.zeros((n, n), dtype=np.int64)
    for _ in range(2 * topology.k + 1):
        active = cur != dst
        if not active.any():
            return lengths
        ports = table[cur[active], dst[active]]
        cur[active] = nb[cur[active], ports]
        lengths[active] += 1
    raise RuntimeError(f"routing on {topology.label} does not terminate")  # pragma: no cover


@functools.lru_cache(maxsize=8)
def _distances(topology):
    """BFS distances of every pair (cached per network)."""
    from .properties import distance_matrix
    return distance_matrix(topology)


@functools.lru_cache(maxsize=8)
def _mroute_offered_masks(topology):
    lengths = route_lengths(topology, "mroute")
    n = topology.num_nodes
    nodes = np.arange(n, dtype=np.int64)
    diff = nodes[:, None] ^ nodes[None, :]
    masks = np.zeros((n, n), dtype=np.int64)
    for p in range(topology.degree):
        there = topology.neighbor_table[:, p]
        # link p changes bit p and lower bits only: it keeps the packet in the
        # sub-Mcube of here ^ dest's highest bit iff that bit is p or higher
        inside = diff >> p != 0
        masks |= (inside & (lengths[there, :] < lengths)).astype(np.int64) << p
    masks.setflags(write=False)
    return masks


def mroute_offered_masks(topology):
    """What the adaptive VCs of ``mroute`` are offered on a k-Mcube: ``masks[here, dest]``
    has bit ``p`` set when link ``p`` keeps the packet in the sub-Mcube of the highest
    bit of ``here ^ dest`` (``p`` is at most that bit) and its neighbour's Mroute route
    to ``dest`` is shorter than ``here``'s: every port Mroute could equally take,
    Mroute's own port among them (about 2 ports per hop on Mcube(6) against Mroute's
    one). Every adaptive hop keeps the highest differing bit and shortens the Mroute
    route, every e-cube escape hop lowers that bit, so no packet returns to a state
    (the proof, :func:`~cubefab.topology.duato.check_adaptive`, checks it).

    Returns
    -------
    numpy.ndarray of int64, shape (n, n), read-only
        Indexed by addresses (the Mcube's nodes are ``0 .. 2**k - 1``); 0 on the
        diagonal.
    """
    if not isinstance(topology, Mcube):
        raise TypeError(f"Topology must be an Mcube, not {topology!r}")
    return _mroute_offered_masks(topology)


@functools.lru_cache(maxsize=8)
def _ecube_as_short_masks(topology):
    short = route_lengths(topology, "ecube") <= route_lengths(topology, "mroute")
    np.fill_diagonal(short, False)
    short.setflags(write=False)
    return short


def ecube_as_short_masks(topology):
    """Where e-cube's route is as short as Mroute's on a k-Mcube: ``short[here, dest]``
    is true when e-cube routes from ``here`` to ``dest`` in at most as many hops as
    Mroute (2 384 of Mcube(6)'s 4 032 ordered pairs, 8 of them in fewer hops; 30 of
    bitcomp's 64 flows). An adaptive ``mroute`` router injects such a packet on its
    e-cube escape, which costs it no hop, while that VC is uncontested and has room
    (:class:`~cubefab.hdl.router.Router`'s selection policy).

    Returns
    -------
    numpy.ndarray of bool, shape (n, n), read-only
        Indexed by addresses (the Mcube's nodes are ``0 .. 2**k - 1``); false on the
        diagonal.
    """
    if not isinstance(topology, Mcube):
        raise TypeError(f"Topology must be an Mcube, not {topology!r}")
    return _ecube_as_short_masks(topology)


def binomial_sends(topology, source):
    """One-port sends of the Mcube: a binomial tree over the links in descending order.

    A link ``j`` stays inside an aligned block of ``2**(j+1)`` addresses and joins its two
    halves, so when every informed node sends on link ``k-1``, then ``k-2``, ... each
    block of ``2**j`` addresses holds one informed node after the step on link ``j``:
    ``k = log2 N`` steps, the one-port lower bound. The node informed in a block is
    the twisted links' image of the source, not a function of ``here ^ source``: the
    sends are tabulated per source.
    """
    k = topology.k
    informed = [source]
    sends = {x: [] for x in topology.nodes().tolist()}
    for step, j in enumerate(reversed(range(k)), start=1):
        new = []
        for u in informed:
            sends[u].append((step, j))
            new.append(topology._neighbor(u, j))
        informed += new
    return sends
