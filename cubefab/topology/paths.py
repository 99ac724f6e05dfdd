"""Node-disjoint paths between two nodes.

Constructions
-------------
* Hypercube Q(n): the ``n`` paths of Algorithms 2-3 of metacube-disjoint-paths.txt
  (:func:`hypercube_disjoint_paths`).
* Metacube MC(k, m): the ``k + m`` paths of Algorithm 4 of the same paper, cases 0, 1
  and 2 with key-bit signatures and the ``j``/``j'`` special handling
  (:func:`metacube_disjoint_paths`; it reproduces Tables 2-5). Where the paper is
  ambiguous, the choices made are listed in that function's docstring. As written,
  Algorithm 4 is not disjoint for every pair (docs/errata.md):
  :func:`metacube_repaired_paths`, which :func:`disjoint_paths` uses, keeps its paths
  when they are valid and otherwise repairs them by a search over the same
  construction family, within Theorem 2's bound.
* Any other topology (the DLH among them): a minimum-cost flow over the vertex-split
  graph (:func:`flow_disjoint_paths`, networkx), which finds a maximum set of
  internally vertex-disjoint paths of least total length.

Dispatch
--------
:func:`disjoint_paths` looks up the topology's class (and its base classes) in the
registry :data:`DISJOINT_PATHS` (class -> ``function(topology, s, t)``, filled by
:func:`register_disjoint_paths`), then asks the family for its construction
(:meth:`~cubefab.topology.base.Topology.disjoint_paths_construction`: the hypercube's
and the metacube's); the others use :func:`flow_disjoint_paths`.

A path is a list of node addresses, ``s`` first and ``t`` last; consecutive nodes are
adjacent. :func:`check_disjoint_paths` verifies a set of paths independently.
"""

import networkx as nx
import numpy as np

from .classwalk import _gray_cycle


__all__ = ["disjoint_paths", "register_disjoint_paths", "DISJOINT_PATHS",
           "hypercube_disjoint_paths", "cube_path", "metacube_disjoint_paths",
           "metacube_repaired_paths", "remove_loops",
           "metacube_case", "metacube_path_bound", "flow_disjoint_paths",
           "check_disjoint_paths", "adjacency"]


# -- hypercube: Algorithms 2 and 3 -----------------------------------------------------

def cube_path(n, i, x, y):
    """Algorithm 3, ``p3(n, i, x, y)``: the nodes after ``x`` on the path from ``x`` to
    ``y`` in the n-cube that corrects the differing bits in the cyclic order
    ``i+1, i+2, ..., i+n (mod n)``."""
    nodes = []
    v = x
    u = x ^ y
    for j in range(1, n + 1):
        b = (i + j) % n
        if u >> b & 1:
            v ^= 1 << b
            nodes.append(v)
    return nodes


def hypercube_disjoint_paths(n, x, y):
    """Algorithm 2: ``n`` internally disjoint paths from ``x`` to ``y`` in Q(n).

    Path ``i`` leaves ``x`` through dimension ``i`` and follows :func:`cube_path` with
    start index ``i``. For ``x == y`` each path is the cycle ``x : x^(i) : x`` (Table 1
    lists this case too). There are ``d`` paths of length ``d`` and ``n - d`` of length
    ``d + 2``, ``d`` the Hamming distance.
    """
    paths = []
    for i in range(n):
        v = x ^ (1 << i)
        paths.append([x, v] + cube_path(n, i, v, y))
    return paths


def _hypercube(topology, s, t):
    return hypercube_disjoint_paths(topology.n, s, t)


# -- metacube: Algorithm 4 -------------------------------------------------------------

# Algorithm 4 reads addresses through the Metacube model: class_of, field, with_field,
# with_class, and _neighbor(u, i) for u^(i) (dimension i < k flips class bit i, k + j
# flips bit j of M[class(u)], the port numbering of the conventions).

def _fix_field(mc, u, target):
    """Nodes after ``u`` that set ``M[class(u)]`` to the target's, ascending bits."""
    c = mc.class_of(u)
    diff = mc.field(u ^ target, c)
    out = []
    for b in range(mc.m):
        if diff >> b & 1:
            u ^= 1 << (c * mc.m + b)
            out.append(u)
    return out


def _p1(mc, u, v, walk, open_end=False):
    """Algorithm 1: the nodes after ``u`` on the path to ``v`` that follows the class
    walk ``walk`` (starting at ``class(u)``, ending at ``class(v)``), fixing each
    visited class's field on arrival. With ``open_end`` the walk may run past ``v``'s
    class (the path stops at ``v``) and None means it never reaches ``v``."""
    assert walk[0] == mc.class_of(u) and (open_end or walk[-1] == mc.class_of(v)), \
        (walk, u, v)
    out = []
    cur = u
    for idx, c in enumerate(walk):
        fixed = _fix_field(mc, cur, v)
        out += fixed
        if fixed:
            cur = fixed[-1]
        if cur == v:
            return out
        if idx + 1 < len(walk):
            cur = mc.with_class(cur, walk[idx + 1])
            out.append(cur)
    if open_end:
        return None
    raise AssertionError(f"class walk {walk} does not lead from {u} to {v}")


def _cycle_walk(cycle, start, end):
    """The walk along the Hamiltonian cycle ``cycle`` from class ``start`` to class
    ``end``; once around when ``start == end``."""
    h = len(cycle)
    a = cycle.index(start)
    walk = [start]
    for step in range(1, h + 1):
        c = cycle[(a + step) % h]
        walk.append(c)
        if c == end:
            break
    return walk


def _class_path(mc, u, v):
    """Nodes after ``u`` that change the class to ``class(v)`` by cross-edges,
    ascending class bits (the order of Tables 4-5)."""
    return [mc.with_class(u, c) for c in cube_path(mc.k, mc.k - 1, mc.class_of(u),
                                                    mc.class_of(v))]


def metacube_case(topology, s, t):
    """The case of Algorithm 4 that the pair ``(s, t)`` falls in: 0 (same cluster),
    1 (same class, different clusters) or 2 (different classes)."""
    mc = topology
    cs, ct = mc.class_of(s), mc.class_of(t)
    if cs != ct:
        return 2
    if mc.with_field(s ^ t, cs, 0) == 0:
        return 0
    return 1


def metacube_path_bound(topology, s, t):
    """Theorem 2's bound on the length of every path: ``H(s, t) + 2^k + m + 5``."""
    return (s ^ t).bit_count() + topology.h + topology.m + 5


def _key_bit(mc, a, b):
    """Key-bit dimension ``y = k + x``: ``x`` the lowest bit where the fields ``a`` and
    ``b`` agree (type 1), else ``x = 0`` (type 2)."""
    same = ~(a ^ b) & ((1 << mc.m) - 1)
    x = (same & -same).bit_length() - 1 if same else 0
    return mc.k + x


def metacube_disjoint_paths(topology, s, t):
    """Algorithm 4 of metacube-disjoint-paths.txt: ``k + m`` internally disjoint paths
    from ``s`` to ``t`` in MC(k, m), path ``P_i`` leaving ``s`` through dimension ``i``.

    Reading of the paper (each choice reproduces Tables 2-5 exactly):

    * Case 0 leaves the class of ``c_s^(i)`` through cube dimension ``k + (i mod m)``
      (Table 2's ``P_1`` uses ``k + 1``; the algorithm's text writes ``s^(i,k)``).
    * ``HC_i`` (cross paths, ``i < k``) is the reflected Gray-code cycle of the class
      cube that starts at ``c_s`` and first flips bit ``i``; ``l`` is its next step and
      ``p1`` continues along ``HC_i`` (Algorithm 1 with ``next`` from ``HC_i``).
    * Cube paths (``i >= k``) use ``l = 0`` and the cycle ``HC_0``.
    * The key-bit of a cross path compares ``M_s[c]`` with the field's final value
      ``M_t[c]``, ``c = c_s^(i)`` (the paper writes ``M_t[c_t^(i)]``; the same in
      case 1, and what Example 4 uses in case 2).
    * The class paths ``w_i -> t`` and ``w_i -> t^(i)`` of case 2 correct class bits
      in ascending order (Tables 4-5), whatever index the paper passes to ``p3``.
    * ``j'`` is the lowest cube dimension other than ``j``.
    * Case 2, ``c_s^(j) = c_t``: ``P_j = s : (s^(j) -> t^(j)) : t`` (the final hop
      is missing in the paper, Table 4 has it).

    Returns
    -------
    list of list of int
        ``k + m`` paths; :func:`check_disjoint_paths` verifies them.
    """
    mc = topology
    cs = mc.class_of(s)
    cycles = [_gray_cycle(mc.k, cs, i) for i in range(mc.k)] if mc.k else []
    case = metacube_case(topology, s, t)
    if case == 0:
        return _case0_paths(mc, s, t)
    if case == 1:
        return _case1_cross_paths(mc, s, t, cycles) + _case1_cube_paths(mc, s, t, cycles)
    paths = _case2_cross_paths(mc, s, t, cycles) + [None] * mc.m
    _case2_cube_paths(mc, s, t, cycles, paths)
    return paths


def _case0_paths(mc, s, t):
    """Algorithm 4, case 0 (``s``, ``t`` in one cluster): the ``k + m`` paths. A cross
    path ``P_i`` (``i < k``) moves to the class of ``c_s^(i)``, changes its field
    through cube dimension ``k + (i mod m)``, sets it to ``t``'s and comes back; a cube
    path follows :func:`_field_path` inside the cluster."""
    k, m = mc.k, mc.m
    nb = mc._neighbor
    paths = []
    for i in range(k):
        x = k + i % m                           # Table 2; the text says s^(i,k)
        a = nb(nb(nb(s, i), x), i)              # s^(i,x,i): field M[c_s^(i)] changed
        b = nb(nb(nb(t, i), x), i)
        middle = [a] + _fix_field(mc, a, b)
        paths.append([s, nb(s, i), nb(nb(s, i), x)] + middle
                     + [nb(nb(t, i), x), nb(t, i), t])
    for i in range(k, k + m):
        v = nb(s, i)
        paths.append([s, v] + _field_path(mc, m, i - k, v, t))
    return paths


def _case1_cross_paths(mc, s, t, cycles):
    """Algorithm 4, case 1 (same class, other clusters): the cross paths ``P_i``,
    ``i < k``, each through the key-bit (:func:`_key_bit`) of the class after ``c_s``
    on ``HC_i`` (``cycles[i]``), then along ``HC_i`` to ``t^(i)``."""
    nb = mc._neighbor
    paths = []
    for i in range(mc.k):
        cyc = cycles[i]
        c1 = cyc[1]
        y = _key_bit(mc, mc.field(s, c1), mc.field(t, c1))
        a = nb(s, i)
        b = nb(a, y)
        l_class = cyc[2 % len(cyc)]
        c = mc.with_class(b, l_class)
        ti = nb(t, i)
        walk = _cycle_walk(cyc, l_class, c1)
        paths.append([s, a, b, c] + _p1(mc, c, ti, walk) + [t])
    return paths


def _case1_cube_paths(mc, s, t, cycles):
    """Algorithm 4, case 1: the cube paths ``P_i``, ``k <= i < k + m``, along ``HC_0``
    (``cycles[0]``) to ``t``'s cluster, then inside it (:func:`_field_path`); with the
    ``j``/``j'`` special handling where ``s^(j)`` has ``t``'s field (one field bit
    differs, ``m >= 2``)."""
    k, m = mc.k, mc.m
    nb = mc._neighbor
    cs, ct = mc.class_of(s), mc.class_of(t)
    diff = mc.field(s ^ t, cs)
    special_j = None
    if diff.bit_count() == 1 and m >= 2:
        special_j = k + diff.bit_length() - 1       # M_s^(j)[c_s] = M_t[c_t]
    cyc0 = cycles[0]
    paths = []
    for i in range(k, k + m):
        if special_j is not None and i == special_j:
            jp = k if special_j != k else k + 1
            a = nb(s, i)
            b = nb(a, jp)
            c = nb(b, 0)
            target = nb(t, jp)
            walk = _cycle_walk(cyc0, mc.class_of(c), ct)
            paths.append([s, a, b, c] + _p1(mc, c, target, walk) + [t])
            continue
        if special_j is not None and i == (k if special_j != k else k + 1):
            a = nb(s, i)
            c = nb(a, 0)
            target = nb(t, special_j)
            walk = _cycle_walk(cyc0, mc.class_of(c), ct)
            paths.append([s, a, c] + _p1(mc, c, target, walk) + [t])
            continue
        a = nb(s, i)
        w = mc.with_field(t, ct, mc.field(a, ct))
        c = nb(a, 0)
        head = [s, a, c] + _p1(mc, c, w, _cycle_walk(cyc0, mc.class_of(c), ct))
        paths.append(head + _field_path(mc, m, i - k, w, t))
    return paths


def _case2_cross_paths(mc, s, t, cycles):
    """Algorithm 4, case 2 (different classes): the cross paths ``P_i``, ``i < k``:
    to ``w_i``, ``t`` in the class after ``c_s`` on ``HC_i`` (``cycles[i]``; through a
    key-bit when other fields differ), then by class bits to ``t``
    (:func:`_class_path`); where that class is ``c_t``, along ``HC_i`` to ``t^(i)``."""
    nb = mc._neighbor
    ct = mc.class_of(t)
    paths = []
    for i in range(mc.k):
        cyc = cycles[i]
        c1 = cyc[1]
        a = nb(s, i)
        if c1 == ct:
            ti = nb(t, i)
            walk = _cycle_walk(cyc, c1, mc.class_of(ti))
            paths.append([s, a] + _p1(mc, a, ti, walk) + [t])
            continue
        w = mc.with_class(t, c1)
        others = mc.with_class(mc.with_field(s ^ t, c1, 0), 0)
        if others == 0:
            head = [s, a] + _p1(mc, a, w, [c1])
        else:
            y = _key_bit(mc, mc.field(s, c1), mc.field(t, c1))
            b = nb(a, y)
            l_class = cyc[2 % len(cyc)]
            c = mc.with_class(b, l_class)
            head = [s, a, b, c] + _p1(mc, c, w, _cycle_walk(cyc, l_class, c1))
        paths.append(head + _class_path(mc, w, t))
    return paths


def _case2_cube_paths(mc, s, t, cycles, paths):
    """Algorithm 4, case 2: set the cube paths ``paths[i]``, ``k <= i < k + m``: along
    ``HC_0`` (``cycles[0]``) to ``w_i`` (``t`` with field bit ``i - k`` flipped, in
    class ``c_s``), then by class bits to ``t^(i)``; where ``w_i = s^(j)`` for another
    ``j``, ``P_i`` takes ``w_j`` and ``P_j`` goes from ``s^(j)`` to ``t^(i)``."""
    k, m = mc.k, mc.m
    nb = mc._neighbor
    cs, ct = mc.class_of(s), mc.class_of(t)
    cyc0 = cycles[0]
    ws = {}
    for i in range(k, k + m):
        ws[i] = mc.with_class(mc.with_field(t, ct, mc.field(t, ct) ^ (1 << (i - k))), cs)
    swap = {}
    for i in range(k, k + m):
        for j in range(k, k + m):
            if ws[i] == nb(s, j):
                swap[i] = j
    for i in range(k, k + m):
        a = nb(s, i)
        if i in swap.values() and i not in swap:
            continue    # built with its partner below
        j = swap.get(i, i)
        w = ws[j]
        if w == a:
            head = [s, a]
        elif mc.field(a, cs) == mc.field(t, cs) and m >= 2:     # no i' when m = 1
            ip = k if i != k else k + 1
            b = nb(a, ip)
            c = nb(b, 0)
            head = [s, a, b, c] + _p1(mc, c, w, _cycle_walk(cyc0, mc.class_of(c), cs))
        else:
            c = nb(a, 0)
            head = [s, a, c] + _p1(mc, c, w, _cycle_walk(cyc0, mc.class_of(c), cs))
        paths[i] = head + _class_path(mc, w, nb(t, j)) + [t]
        if j != i:
            wj = ws[i]          # = s^(j): P_j goes from s^(j) = w_i to t^(i)
            paths[j] = [s, nb(s, j)] + _class_path(mc, wj, nb(t, i)) + [t]


def _field_path(mc, m, i, u, v):
    """``p3(m, i, u, v)`` inside the cluster of ``u`` (``u``, ``v`` differ only in the
    field of their class)."""
    c = mc.class_of(u)
    return [mc.with_field(u, c, x) for x in cube_path(m, i, mc.field(u, c), mc.field(v, c))]


def remove_loops(path):
    """``path`` with every closed detour cut out: after the first visit of a node the
    path continues from its last visit. Keeps the ends, only drops nodes (so a
    disjoint set of paths stays disjoint) and never lengthens a path."""
    last = {v: n for n, v in enumerate(path)}
    out = []
    n = 0
    while n < len(path):
        out.append(path[n])
        n = last[path[n]] + 1
    return out


def _walk_route(mc, a, z, cycle):
    """Nodes after ``a`` on the way to ``z`` along the class cycle ``cycle`` (a list of
    all classes, starting anywhere), at most twice round, or None."""
    h = len(cycle)
    pos = cycle.index(mc.class_of(a))
    walk = [cycle[(pos + i) % h] for i in range(2 * h + 1)] if h > 1 else [cycle[0]]
    return _p1(mc, a, z, walk, open_end=True)


def _class_cycles(k, start):
    """Hamiltonian cycles of the class k-cube from ``start``: the Gray-code cycles
    first flipping each bit, each in both directions."""
    if k == 0:
        return [[0]]
    cycles = []
    for j in range(k):
        cyc = _gray_cycle(k, start, j)
        for c in (cyc, [cyc[0]] + cyc[:0:-1]):
            if c not in cycles:
                cycles.append(c)
    return cycles


def _candidates(topology, mc, s, t, e, bound):
    """Alternative paths leaving ``s`` through dimension ``e`` for the repair search of
    :func:`metacube_repaired_paths`: an optional key-bit flip, a cross-edge, then
    Algorithm 1 along a Gray-code class cycle to some neighbour ``t^(f)`` of ``t``."""
    k, m = mc.k, mc.m
    a = mc._neighbor(s, e)
    if a == t:
        yield [s, t]
        return
    # the path's own dimension first: P_e usually enters t through t^(e)
    ends = [mc._neighbor(t, f) for f in [e] + [f for f in range(k + m) if f != e]]
    seen = set()
    for z in ends:
        if z == s:
            continue
        for y in [None] + list(range(k, k + m)):
            b = a if y is None else mc._neighbor(a, y)
            if b == s:
                continue
            for l in ([None] if y is None else []) + list(range(k)):
                head = [s, a] + ([b] if y is not None else [])
                start = b if l is None else mc._neighbor(b, l)
                if l is not None:
                    head.append(start)
                cycles = _class_cycles(k, mc.class_of(start))
                for cyc in cycles:
                    rest = _walk_route(mc, start, z, cyc)
                    if rest is None:
                        continue
                    path = remove_loops(head + rest + [t])
                    key = tuple(path)
                    if key in seen or len(path) - 1 > bound:
                        continue
                    seen.add(key)
                    yield path


class _Lazy:
    """A list filled from an iterator on demand (re-iterable)."""

    def __init__(self, first, more):
        self.items = list(first)
        self.more = iter(more)
        self.done = False

    def __iter__(self):
        n = 0
        while True:
            if n < len(self.items):
                yield self.items[n]
                n += 1
            elif self.done:
                return
            else:
                try:
                    item = next(self.more)
                except StopIteration:
                    self.done = True
                    return
                self.items.append((item, set(item[1:-1])))


def _select_disjoint(options):
    """Backtracking choice of one path per entry of ``options`` (each an iterable of
    ``(path, interior set)``, preferred first) with pairwise disjoint interiors, or
    None."""
    chosen = [None] * len(options)

    def search(i, used):
        if i == len(options):
            return True
        for path, inner in options[i]:
            if used.isdisjoint(inner):
                chosen[i] = path
                if search(i + 1, used | inner):
                    return True
        return False

    return chosen if search(0, frozenset()) else None


def metacube_repaired_paths(topology, s, t):
    """``k + m`` disjoint ``s``-``t`` paths of MC(k, m) within Theorem 2's bound.

    Algorithm 4 (:func:`metacube_disjoint_paths`, closed detours removed) is used as it
    is whenever its paths are valid, disjoint and within the bound. For the pairs where
    they are not (docs/errata.md counts them), each offending path is replaced by a
    path of the same construction family (optional key-bit, one cross-edge, Algorithm 1
    along a Gray-code class cycle to a neighbour of ``t``), chosen by a backtracking
    search that keeps the valid paper paths first. Raises RuntimeError if no such
    choice exists (it exists for every pair of every network the tests cover).
    """
    mc = topology
    bound = metacube_path_bound(topology, s, t)
    paper = [remove_loops(p) for p in metacube_disjoint_paths(topology, s, t)]
    if (not check_disjoint_paths(topology, s, t, paper)
            and max(len(p) for p in paper) - 1 <= bound):
        return paper
    good = [p[0] == s and p[-1] == t and len(p) - 1 <= bound
            and not check_disjoint_paths(topology, s, t, [p]) for p in paper]
    inner = [set(p[1:-1]) for p in paper]
    suspect = {e for e in range(len(paper)) if not good[e]}
    for a in range(len(paper)):
        for b in range(a + 1, len(paper)):
            if not inner[a].isdisjoint(inner[b]):
                suspect |= {a, b}

    def options(replace):
        # paths kept as they are first: the search then only varies the others
        result = []
        for e in sorted(range(len(paper)), key=lambda e: e in replace):
            first = [(paper[e], inner[e])] if good[e] else []
            more = (c for c in _candidates(topology, mc, s, t, e, bound) if c != paper[e])
            result.append((e, _Lazy(first, more if e in replace else ())))
        return result

    def select(replace):
        opts = options(replace)
        picked = _select_disjoint([o for _, o in opts])
        if picked is None:
            return None
        out = [None] * len(paper)
        for (e, _), p in zip(opts, picked):
            out[e] = p
        return out

    # first replace only the paths in conflict, then any path
    chosen = select(suspect)
    if chosen is None:
        chosen = select(set(range(len(paper))))
    if chosen is None:
        raise RuntimeError(f"no {mc.k + mc.m} disjoint paths from {s} to {t} found in "
                           f"{topology.label} within the bound {bound}")
    return chosen


def _metacube(topology, s, t):
    return metacube_repaired_paths(topology, s, t)


# -- any topology: minimum-cost flow over the vertex-split graph ----------------------

_FLOW_LIMIT = 1 << 17


def adjacency(topology):
    """``(nodes, index, neighbours)``: node addresses in dense order, the dict address ->
    position, and for each position the list of neighbour positions in port order."""
    nodes = topology.nodes()            # dense index order: position == dense index
    nbrs = np.stack([topology.index_array(topology.neighbor_array(nodes, p))
                     for p in range(topology.degree)], axis=1)
    addresses = [int(a) for a in nodes]
    position = {a: i for i, a in enumerate(addresses)}
    return addresses, position, nbrs.tolist()


def flow_disjoint_paths(topology, s, t, max_paths=None):
    """A maximum set of internally vertex-disjoint ``s``-``t`` paths of least total length.

    A minimum-cost maximum flow (:func:`networkx.network_simplex`) on the graph where
    every node other than ``s`` and ``t`` is split into an in- and an out-copy joined
    by an arc of capacity 1; every link is an arc of capacity 1 and cost 1 each way.
    By Menger's theorem the number of paths is the local vertex connectivity
    (``degree`` for the regular, maximally connected networks here). At most
    ``max_paths`` paths (default ``degree``). For ``s == t`` the result is empty.
    Works on any :class:`~cubefab.topology.base.Topology`, for networks up to some ten
    thousand nodes.
    """
    s = topology.check_node(s, "s")
    t = topology.check_node(t, "t")
    if topology.num_nodes > _FLOW_LIMIT:
        raise ValueError(f"{topology.label} has {topology.num_nodes} nodes; disjoint paths "
                         f"by flow are computed for networks up to {_FLOW_LIMIT} nodes")
    if s == t:
        return []
    addresses, position, nbrs = adjacency(topology)
    n = len(addresses)
    si, ti = position[s], position[t]
    graph = nx.DiGraph()
    for v in range(n):          # in-copy 2v, out-copy 2v + 1
        graph.add_edge(2 * v, 2 * v + 1, capacity=n if v in (si, ti) else 1, weight=0)
        graph.add_edges_from(((2 * v + 1, 2 * w) for w in nbrs[v]), capacity=1, weight=1)
    limit = topology.degree if max_paths is None else max_paths
    source = 2 * n              # feeds s's out-copy at most `limit` paths
    graph.add_edge(source, 2 * si + 1, capacity=limit, weight=0)
    graph.add_node(source, demand=-limit)
    graph.add_node(2 * ti, demand=limit)
    try:
        flow = nx.network_simplex(graph)[1]
    except nx.NetworkXUnfeasible:   # fewer than `limit` paths: as many as there are
        flow = nx.max_flow_min_cost(graph, source, 2 * ti)
    # decompose: follow the links that carry flow from s
    used = {v: [w // 2 for w, f in flow[2 * v + 1].items() if f] for v in range(n)}
    paths = []
    for _ in range(flow[source][2 * si + 1]):
        path = [s]
        v = si
        while v != ti:
            v = used[v].pop()
            path.append(addresses[v])
        paths.append(path)
    paths.sort(key=len)
    return paths


# -- checks and dispatch ---------------------------------------------------------------

def _first_non_link(topology, path):
    """Index of the first step of ``path`` that is not a link, or None."""
    if topology.address_bits > 62:     # beyond int64: one scalar step at a time
        for i, (u, v) in enumerate(zip(path, path[1:])):
            if v not in topology.neighbors(u):
                return i
        return None
    here = np.array(path[:-1], dtype=np.int64)
    there = np.array(path[1:], dtype=np.int64)
    ok = np.zeros(len(here), dtype=bool)
    for p in range(topology.degree):
        ok |= topology.neighbor_array(here, p) == there
    return None if ok.all() else int(np.argmin(ok))


def check_disjoint_paths(topology, s, t, paths):
    """Problems of a claimed set of internally disjoint ``s``-``t`` paths (empty list
    when it is valid): each path must start at ``s``, end at ``t``, step over real
    links, repeat no node, and share no node other than ``s`` and ``t`` with another
    path. For ``s == t`` no path is expected."""
    problems = []
    seen = {}
    for n, path in enumerate(paths):
        if not path or path[0] != s or path[-1] != t:
            problems.append(f"path {n} does not lead from {s} to {t}: {path}")
            continue
        if len(set(path)) != len(path):
            problems.append(f"path {n} repeats a node: {path}")
        if len(path) > 1:
            bad = _first_non_link(topology, path)
            if bad is not None:
                problems.append(f"path {n}: {path[bad]} and {path[bad + 1]} are not adjacent")
        for v in path[1:-1]:
            if v in seen:
                problems.append(f"paths {seen[v]} and {n} share node {v}")
            seen[v] = n
    return problems


#: topology class -> ``function(topology, s, t)`` returning the list of paths, added by
#: :func:`register_disjoint_paths` before the family's own construction
#: (:meth:`~cubefab.topology.base.Topology.disjoint_paths_construction`).
DISJOINT_PATHS = {}


def register_disjoint_paths(cls, function):
    """Use ``function(topology, s, t)`` for the topologies of class ``cls``."""
    DISJOINT_PATHS[cls] = function


def disjoint_paths(topology, s, t):
    """Internally vertex-disjoint paths from ``s`` to ``t``: the paper's construction of
    the topology's class (see :data:`DISJOINT_PATHS` and the family's
    ``disjoint_paths_construction``), else :func:`flow_disjoint_paths`.

    Raises
    ------
    TypeError, ValueError
        If ``s`` or ``t`` is not a node, or ``s == t``.
    """
    s = topology.check_node(s, "s")
    t = topology.check_node(t, "t")
    if s == t:
        raise ValueError(f"disjoint paths need two distinct nodes, not s = t = {s}")
    for cls in type(topology).__mro__:
        if cls in DISJOINT_PATHS:
            return DISJOINT_PATHS[cls](topology, s, t)
    construction = topology.disjoint_paths_construction()
    if construction is not None:
        return construction(topology, s, t)
    return flow_disjoint_paths(topology, s, t)
