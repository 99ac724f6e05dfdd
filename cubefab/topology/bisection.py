"""Bisection width, three ways: exact by an integer program, a lower bound from the
structure, an upper bound from an explicit cut.

The **bisection width** of a network with an even number N of nodes is the least number
of links joining the two halves of a partition of its nodes into two sets of N/2 (every
network here has 2**n nodes, or 4m * 2**d for the DLH).

Exact (:func:`bisection_exact`)
    A mixed-integer program solved by HiGHS (``scipy.optimize.milp``): a binary side
    ``x_u`` per node, a cut variable ``y_uv`` per link with ``x_u - x_v <= y_uv`` and
    ``x_v - x_u <= y_uv``, ``sum x = N/2``, minimise ``sum y``. Node 0 is fixed on side
    0: complementing a partition keeps it balanced and its cut, so this loses nothing
    in any graph. Exponential in the worst case; it finishes within seconds up to
    about 64 nodes (docs/topology.md has the measurements).
Lower bound (:func:`bisection_lower_bound`)
    From the family's structure, at any size, without enumerating nodes: a
    multicommodity-flow bound (:func:`flow_lower_bound`) or the spectral bound
    (:func:`spectral_lower_bound`); numerically for small networks of families without
    one.
Upper bound (:func:`bisection_upper_bound`)
    An explicit balanced partition (the papers' construction where they give one),
    its cut counted from the structure at any size and, up to
    :data:`PARTITION_MAX_NODES` nodes, also edge by edge (the two must agree).

:func:`bisection` combines them: exact where the two bounds meet (every family here,
at every size) or where the integer program finishes within its budget, else the
interval [lower, upper].
"""

import math
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .base import check_int


__all__ = ["LowerBound", "UpperBound", "ExactBisection", "Bisection", "bisection",
           "bisection_exact", "bisection_lower_bound", "bisection_upper_bound",
           "milp_bisection", "flow_lower_bound", "spectral_lower_bound", "cut_size",
           "METHODS", "DEFAULT_TIME_LIMIT", "EXACT_MAX_NODES", "MILP_MAX_NODES",
           "PARTITION_MAX_NODES", "RECOUNT_MAX_NODES", "SPECTRAL_MAX_NODES"]

#: ``method`` argument values of :func:`bisection`.
METHODS = ("auto", "milp", "bounds")

#: Seconds :func:`bisection` gives the integer program by default.
DEFAULT_TIME_LIMIT = 10.0

#: Largest network on which :func:`bisection` tries the integer program by default
#: (when the bounds do not meet); 64 nodes take 1 to 20 s (docs/topology.md).
EXACT_MAX_NODES = 64

#: Largest network :func:`bisection_exact` accepts (beyond it HiGHS only times out).
MILP_MAX_NODES = 1 << 14

#: Largest network whose upper-bound partition is listed and recounted edge by edge.
PARTITION_MAX_NODES = 1 << 16

#: Largest network whose cut :func:`bisection` recounts edge by edge by default (a check
#: that keeps ``cubefab info`` within milliseconds).
RECOUNT_MAX_NODES = 1 << 12

#: Largest network whose spectral bound is computed numerically (sparse Lanczos).
SPECTRAL_MAX_NODES = 1 << 16

# dense eigensolver up to this size, sparse Lanczos (ARPACK) above
_DENSE_EIGEN_NODES = 1 << 9


@dataclass(frozen=True)
class LowerBound:
    """A proven lower bound on the bisection width.

    Attributes
    ----------
    value : int
        Every balanced partition cuts at least this many links.
    method : str
        ``flow`` (multicommodity flow), ``spectral`` (algebraic connectivity) or
        ``milp`` (HiGHS's dual bound of an unfinished integer program).
    detail : str
        How the bound was obtained, with its formula.
    numerical : bool
        True when it rests on floating-point eigenvalues (lowered by their error
        estimate) rather than on exact arithmetic.
    """

    value: int
    method: str
    detail: str
    numerical: bool = False


@dataclass(frozen=True, eq=False)
class UpperBound:
    """An explicit balanced partition and its cut.

    Attributes
    ----------
    value : int
        Links the partition cuts (counted from the structure).
    construction : str
        Which nodes form side 1, and whose construction it is.
    counted : str
        ``structure`` or ``structure and enumeration`` (the two counts agreed).
    sides : numpy.ndarray of uint8 or None
        ``sides[i]``: the side (0 or 1) of the node of dense index ``i``, for networks up
        to :data:`PARTITION_MAX_NODES` nodes; None above.
    method : str
        ``cut``.
    """

    value: int
    construction: str
    counted: str
    sides: np.ndarray = None
    method: str = "cut"


@dataclass(frozen=True, eq=False)
class ExactBisection:
    """The outcome of the integer program of :func:`bisection_exact`.

    Attributes
    ----------
    value : int or None
        The bisection width, or None when the time budget ran out first.
    status : str
        ``optimal``, ``time limit`` or HiGHS's message.
    seconds : float
        Solver wall time.
    lower : int
        Proven lower bound: ``value`` when optimal, else HiGHS's dual bound rounded up
        (0 when it has none).
    upper : int or None
        Cut of the best partition found (None if none was).
    sides : numpy.ndarray of uint8 or None
        That partition, by dense index.
    method : str
        ``milp``.
    """

    value: object
    status: str
    seconds: float
    lower: int
    upper: object
    sides: np.ndarray = None
    method: str = "milp"


@dataclass(frozen=True, eq=False)
class Bisection:
    """The best available bisection width of a network.

    Attributes
    ----------
    value : int or None
        The bisection width when known exactly (``method == "exact"``), else None.
    lower, upper : int
        Proven bounds; equal when exact.
    method : str
        ``exact`` or ``bounds``.
    exact_by : str or None
        ``bounds`` (the structural lower bound equals the explicit cut), ``milp``, or
        None when not exact.
    lower_bound : LowerBound
        The best lower bound (its ``method`` and ``detail`` say how it was proven).
    upper_bound : UpperBound
        The best explicit cut.
    milp : ExactBisection or None
        The integer program's outcome, when it ran.
    seconds : float
        Wall time of the whole computation.
    candidates : tuple of LowerBound
        Every lower bound computed (the best is ``lower_bound``).
    """

    value: object
    lower: int
    upper: int
    method: str
    exact_by: object
    lower_bound: LowerBound
    upper_bound: UpperBound
    milp: object = None
    seconds: float = 0.0
    candidates: tuple = ()

    def as_dict(self):
        """JSON-ready summary (no partition arrays)."""
        doc = {"value": self.value, "lower": self.lower, "upper": self.upper,
               "method": self.method, "exact_by": self.exact_by,
               "lower_method": self.lower_bound.method,
               "lower_detail": self.lower_bound.detail,
               "upper_construction": self.upper_bound.construction,
               "upper_counted": self.upper_bound.counted,
               "lower_candidates": [{"value": c.value, "method": c.method,
                                     "detail": c.detail} for c in self.candidates],
               "seconds": round(self.seconds, 6)}
        if self.milp is not None:
            doc["milp"] = {"value": self.milp.value, "status": self.milp.status,
                           "seconds": round(self.milp.seconds, 3),
                           "lower": self.milp.lower, "upper": self.milp.upper}
        return doc


# -- counting -------------------------------------------------------------------------

def cut_size(topology, sides):
    """Links whose ends lie on different sides; ``sides[i]`` (0/1) by dense index.

    Enumerates every link: for networks whose edge list fits in memory.
    """
    sides = np.asarray(sides)
    if sides.shape != (topology.num_nodes,):
        raise ValueError(f"sides must have one entry per node ({topology.num_nodes}), "
                         f"not shape {sides.shape}")
    edges = topology.edges()
    iu = topology.index_array(edges[:, 0])
    iv = topology.index_array(edges[:, 1])
    return int(np.count_nonzero(sides[iu] != sides[iv]))


def _ceil(value):
    """Smallest integer >= a Fraction or int."""
    return -((-value.numerator) // value.denominator) if isinstance(value, Fraction) \
        else int(value)


# -- exact: the integer program -------------------------------------------------------

def _milp_model(n, iu, iv):
    """``(c, constraints, integrality, bounds)`` of the bisection program of the graph
    with ``n`` nodes and links ``(iu[r], iv[r])`` (dense indices)."""
    from scipy import sparse
    from scipy.optimize import Bounds, LinearConstraint
    m = len(iu)
    rows = np.arange(m)
    cols = np.concatenate([iu, iv, n + rows])
    ones = np.ones(m)
    # row r: x_u - x_v - y_r <= 0; row m + r: x_v - x_u - y_r <= 0; last row: sum x = n/2
    a = sparse.coo_matrix((np.concatenate([ones, -ones, -ones, -ones, ones, -ones]),
                           (np.concatenate([rows] * 3 + [m + rows] * 3),
                            np.concatenate([cols, cols]))), shape=(2 * m, n + m))
    balance = sparse.coo_matrix((np.ones(n), (np.zeros(n, dtype=np.int64), np.arange(n))),
                                shape=(1, n + m))
    matrix = sparse.vstack([a, balance]).tocsr()
    lo = np.concatenate([np.full(2 * m, -np.inf), [n // 2]])
    hi = np.concatenate([np.zeros(2 * m), [n // 2]])
    upper = np.ones(n + m)
    upper[0] = 0.0   # node 0 on side 0: complements lose nothing
    cost = np.concatenate([np.zeros(n), np.ones(m)])
    integrality = np.concatenate([np.ones(n), np.zeros(m)])
    return cost, LinearConstraint(matrix, lo, hi), integrality, Bounds(np.zeros(n + m), upper)


def _check_time_limit(time_limit):
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) \
            or not time_limit > 0:
        raise ValueError(f"time limit must be a positive number of seconds, not {time_limit!r}")
    return float(time_limit)


def milp_bisection(num_nodes, edges, time_limit=DEFAULT_TIME_LIMIT):
    """Minimum bisection of any graph by the integer program of :func:`bisection_exact`.

    Parameters
    ----------
    num_nodes : int
        Nodes ``0 .. num_nodes-1``, an even number, at most :data:`MILP_MAX_NODES`.
    edges : array-like of shape (links, 2)
        Links by node number (parallel links each count).
    time_limit : float
        Seconds HiGHS may run (> 0).

    Returns
    -------
    ExactBisection
    """
    n = check_int("number of nodes", num_nodes, 2, MILP_MAX_NODES)
    if n % 2:
        raise ValueError(f"number of nodes must be even for a bisection, not {n}")
    time_limit = _check_time_limit(time_limit)
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    if edges.size and (edges.min() < 0 or edges.max() >= n):
        raise ValueError(f"edges must join nodes 0..{n - 1}")
    from scipy.optimize import milp
    cost, constraints, integrality, bounds = _milp_model(n, edges[:, 0], edges[:, 1])
    start = time.perf_counter()
    result = milp(cost, constraints=constraints, integrality=integrality, bounds=bounds,
                  options={"time_limit": time_limit, "mip_rel_gap": 0.0, "disp": False})
    seconds = time.perf_counter() - start
    sides = None
    upper = None
    if result.x is not None:
        sides = (np.rint(result.x[:n]) > 0).astype(np.uint8)
        upper = int(round(result.fun))
    if result.status == 0:
        return ExactBisection(upper, "optimal", seconds, upper, upper, sides)
    dual = getattr(result, "mip_dual_bound", None)
    lower = max(0, math.ceil(dual - 1e-6)) if dual is not None and np.isfinite(dual) else 0
    status = "time limit" if result.status == 1 else str(result.message)
    return ExactBisection(None, status, seconds, lower, upper, sides)


def bisection_exact(topology, time_limit=DEFAULT_TIME_LIMIT):
    """Minimum bisection by a mixed-integer program (HiGHS through ``scipy.optimize.milp``).

    Parameters
    ----------
    topology : Topology
        At most :data:`MILP_MAX_NODES` nodes, an even number of them.
    time_limit : float
        Seconds HiGHS may run (> 0).

    Returns
    -------
    ExactBisection
        ``value`` is the bisection width when HiGHS proves optimality within the budget
        (relative and absolute gap 0; the objective is rounded to the nearest integer,
        which it is up to HiGHS's feasibility tolerance). Otherwise ``value`` is None,
        ``lower`` the dual bound rounded up (less 1e-6: a proven lower bound) and
        ``upper``/``sides`` the best partition found (by dense index).

    The program: binary ``x_u`` (side of node u), continuous ``y_uv`` in [0, 1] per link
    with ``y_uv >= x_u - x_v`` and ``y_uv >= x_v - x_u``, ``sum x = N/2``, node of dense
    index 0 fixed on side 0 (any balanced partition or its complement has it there, with
    the same cut), minimise ``sum y``. At an integral ``x`` the optimal ``y`` is
    ``|x_u - x_v|``, so the optimum is the minimum cut of a balanced partition.
    """
    _check_time_limit(time_limit)
    n = topology.num_nodes
    if n > MILP_MAX_NODES:
        raise ValueError(f"{topology.label} has {n} nodes; the exact bisection (an integer "
                         f"program) is tried up to {MILP_MAX_NODES} nodes")
    if n % 2:
        raise ValueError(f"{topology.label} has an odd number of nodes ({n}): no bisection")
    edges = topology.edges()
    dense = np.stack([topology.index_array(edges[:, 0]), topology.index_array(edges[:, 1])],
                     axis=1)
    return milp_bisection(n, dense, time_limit)


# -- lower bound: multicommodity flow -------------------------------------------------
#
# A demand w(s, t) >= 0 is routed as a (fractional) multicommodity flow in which every
# directed channel carries at most L. Across a balanced partition (S, S'), the demand from
# S to S' leaves S on channels from S to S', one per cut link, each carrying at most L:
# cut >= min over balanced S of w(S, S') / L. Averaging a routing over a group of
# automorphisms that preserves the demand gives a routing of the same demand in which
# every channel carries the mean load of its orbit: L = the largest orbit mean, computed
# below from per-pair hop counts, without enumerating nodes.

def _flow(bound, detail):
    return LowerBound(_ceil(bound), "flow", detail)


def _hypercube_flow(n):
    nodes = 1 << n
    bound = Fraction(nodes, 2)
    return _flow(bound, f"uniform traffic (one unit per ordered pair; (N/2)^2 cross any "
                        f"bisection), e-cube routes averaged over the cube's automorphisms: "
                        f"every channel carries N/2, so cut >= (N/2)^2 / (N/2) = N/2 = {bound}")


def _metacube_flow(t):
    if t.k == 0:
        return _hypercube_flow(t.m)
    nodes, h = 1 << t.address_bits, t.h
    if t.k == 1:
        bound = Fraction(nodes, 4)
        return _flow(bound, "traffic between the two classes (one unit per ordered pair "
                            "in different classes: a^2 + b^2 >= N^2/8 cross a bisection "
                            "holding a and b nodes of the classes), routed fix own field, "
                            "cross, fix the other field, averaged over the automorphisms: "
                            "cross and cube channels carry N/2, so cut >= (N^2/8) / (N/2) "
                            f"= N/4 = {bound}")
    bound = Fraction(nodes, 2 * h)
    return _flow(bound, "uniform traffic ((N/2)^2 cross any bisection), routed by Algorithm 1 "
                        "(the field hops plus a class walk of at most 2^k cross hops, Lemma "
                        "1), averaged over the automorphisms: a cube channel carries "
                        "N 2^k/2 (mean field distance m 2^k/2 over m N channels), a cross "
                        "channel at most N 2^k/k <= N 2^k/2 (k >= 2), so cut >= (N/2)^2 / "
                        f"(N 2^k/2) = N/2^(k+1) = {bound}")


def _dlh_flow(t):
    nodes, m = t.num_nodes, t.m
    loads = {"cube": Fraction(nodes, 2), "ring bit": Fraction(nodes, 2),
             "ring": Fraction(nodes * m, 4)}
    worst = max(loads.values())
    bound = Fraction(nodes * nodes, 4) / worst
    return _flow(bound, "uniform traffic ((N/2)^2 cross any bisection), dimension-order "
                        "routes with ring ties split both ways, averaged over the "
                        "automorphisms of Q(d) x C(2m) x K2: cube and ring-bit channels "
                        "carry N/2, ring channels N m/4 (mean ring distance m/2 over 2N "
                        f"channels), so cut >= (N/2)^2 / max = min(N/2, N/m) = {bound}")


def flow_lower_bound(topology):
    """Multicommodity-flow lower bound from the family's structure, or None.

    For a demand ``w(s, t)`` routed as a fractional flow whose directed channels carry at
    most ``L`` each, every balanced partition cuts at least ``w(S -> S') / L`` links: the
    demand from one half to the other leaves through the cut links' channels in that
    direction, one per link. Averaging the routing over the network's automorphisms
    (which preserve the demand) makes every channel carry its orbit's mean load, which
    follows from per-pair hop counts:

    * Q(n) and MC(0, m): uniform traffic (one unit per ordered pair), e-cube; every
      channel carries N/2: N/2.
    * MC(1, m): one unit per ordered pair in different classes (at least N^2/8 cross a
      bisection); cross and cube channels carry N/2: N/4.
    * MC(k, m), k >= 2: uniform traffic, Algorithm 1 (class walks of at most 2^k hops);
      cube channels carry N 2^k/2, cross channels at most that: N/2^(k+1).
    * DLH(m, d) = Q(d) x C(2m) x K2: uniform traffic; ring channels carry N m/4, the
      others N/2: min(N/2, N/m).

    Exact arithmetic on the parameters: valid and instantaneous at any size. Returns
    None for families without such a derivation (the Mcube).
    """
    return topology.bisection_flow_bound()


# -- lower bound: spectral -----------------------------------------------------------
#
# For a partition (S, S') with |S| = |S'| = N/2 the indicator-difference vector gives the
# Rayleigh quotient cut * N / (|S| |S'|) >= lambda_2 (the Laplacian's second-smallest
# eigenvalue, the algebraic connectivity): cut >= lambda_2 N / 4.

def _recursive_matching(topology):
    """Whether every port-j link joins nodes whose most significant differing address
    bit is j (with 2**address_bits nodes): then the graph is two such graphs of half the
    size joined by a perfect matching, recursively, and lambda_2 >= 2. Enumerates."""
    if topology.num_nodes != 1 << topology.address_bits \
            or topology.degree != topology.address_bits \
            or topology.num_nodes > PARTITION_MAX_NODES:
        return False
    nodes = topology.nodes()
    return all(np.all((nodes ^ topology.neighbor_array(nodes, j)) >> j == 1)
               for j in range(topology.degree))


_MATCHING_DETAIL = ("lambda_2 = 2: two halves (address bit {top} clear / set) joined by a "
                    "perfect matching, each again such a graph, down to single links "
                    "(lambda_2(G) >= min(lambda_2 of the halves, 2) by the Rayleigh "
                    "quotient; the cut by bit {top} attains 2)")


def _spectral(value, detail, numerical=False):
    return LowerBound(value, "spectral", detail, numerical)


def _matching_spectral(topology, checked=False):
    """The spectral bound N/2 of a recursive-matching network (:func:`_recursive_matching`:
    the hypercube by construction; ``checked``: found so by enumerating its links)."""
    nodes = topology.num_nodes
    how = "; checked on every link" if checked else ""
    return _spectral(nodes // 2, "cut >= lambda_2 N/4 = N/2, " + _MATCHING_DETAIL.format(
        top=topology.address_bits - 1) + f"{how} = {nodes // 2}")


def _dlh_spectral(topology):
    lam = 2 - 2 * math.cos(math.pi / topology.m)
    value = math.ceil(lam * topology.num_nodes / 4 * (1 - 1e-12))
    return _spectral(value, f"cut >= lambda_2 N/4 with lambda_2 = min(2, 2 - 2 cos(pi/m)) "
                            f"= {lam:.6g} (Q(d) x C(2m) x K2: eigenvalues add) = {value}")


def _structural_spectral(topology):
    return topology.bisection_spectral_bound()


def _laplacian_lambda2(topology):
    """``(lambda_2, error)``: the algebraic connectivity, numerically, with an error bound
    (rounding for the dense solver; the Ritz residual for Lanczos)."""
    from scipy import sparse
    n = topology.num_nodes
    edges = topology.edges()
    iu = topology.index_array(edges[:, 0])
    iv = topology.index_array(edges[:, 1])
    adj = sparse.coo_matrix((np.ones(2 * len(edges)), (np.concatenate([iu, iv]),
                                                       np.concatenate([iv, iu]))),
                            shape=(n, n)).tocsr()
    degrees = np.asarray(adj.sum(axis=1)).ravel()
    lap = sparse.diags(degrees) - adj
    scale = 2.0 * max(1.0, float(degrees.max()))
    if n <= _DENSE_EIGEN_NODES:
        values = np.linalg.eigvalsh(lap.toarray())
        return float(values[1]), 1e-9 * scale
    from scipy.sparse.linalg import eigsh
    shifted = sparse.identity(n) * scale - lap      # its largest eigenvalues: L's smallest
    theta, vectors = eigsh(shifted, k=3, which="LA", tol=1e-10,
                           v0=np.random.default_rng(0).standard_normal(n))
    order = np.argsort(theta)[::-1]
    second = order[1]
    residual = np.linalg.norm(shifted @ vectors[:, second] - theta[second] * vectors[:, second])
    return float(scale - theta[second]), float(residual) + 1e-9 * scale


def spectral_lower_bound(topology, numeric=True, numeric_limit=SPECTRAL_MAX_NODES):
    """Spectral lower bound ``cut >= lambda_2 * N / 4``, or None.

    ``lambda_2`` is the Laplacian's algebraic connectivity: for a balanced partition the
    vector +1 on one half and -1 on the other is orthogonal to the constant vector, with
    Rayleigh quotient ``4 * cut / N``, which is at least ``lambda_2``.

    ``lambda_2`` comes from the structure where it is known: 2 for Q(n) and the Mcube
    (two halves joined by a perfect matching, recursively: ``lambda_2 >= min(lambda_2 of
    the halves, 2)``; for the Mcube the defining property of its links is checked on
    every link), ``min(2, 2 - 2 cos(pi/m))`` for DLH(m, d) = Q(d) x C(2m) x K2. Otherwise,
    when ``numeric`` and the network has at most ``numeric_limit`` nodes, it is computed
    numerically (dense up to 512 nodes, else Lanczos), lowered by its error estimate
    (the result is then marked ``numerical``: valid provided the eigensolver has found
    the second-smallest eigenvalue, which a random start vector does with probability 1).
    """
    found = _structural_spectral(topology)
    if found is not None or not numeric or topology.num_nodes > numeric_limit:
        return found
    lam, error = _laplacian_lambda2(topology)
    n = topology.num_nodes
    value = max(0, math.ceil((lam - error) * n / 4 - 1e-9))
    return _spectral(value, f"cut >= lambda_2 N/4 with lambda_2 = {lam:.9g} computed "
                            f"numerically (error <= {error:.1e}) = {value}", numerical=True)


def bisection_lower_bound(topology, numeric=None, numeric_limit=SPECTRAL_MAX_NODES):
    """The best proven lower bound on the bisection width.

    Parameters
    ----------
    topology : Topology
    numeric : bool or None
        Also compute the spectral bound numerically where no structural one exists
        (True), never (False), or only for families without any structural lower bound
        (None, the default).
    numeric_limit : int
        Largest network for the numerical spectral bound.

    Returns
    -------
    LowerBound
        The largest of the candidates (:func:`flow_lower_bound`,
        :func:`spectral_lower_bound`); exact-arithmetic ones win ties. When there is
        none (a large network of an unknown family), the trivial bound 0 (method
        ``none``).

    Every candidate is valid for every balanced partition: see the two functions. The
    structural ones take microseconds at any size (no node is enumerated).
    """
    candidates = _lower_candidates(topology, numeric, numeric_limit)
    return max(candidates, key=lambda c: (c.value, not c.numerical))


def _lower_candidates(topology, numeric, numeric_limit):
    candidates = [c for c in (flow_lower_bound(topology),
                              spectral_lower_bound(topology, numeric=False)) if c is not None]
    if numeric or (numeric is None and not candidates):
        found = spectral_lower_bound(topology, numeric=True, numeric_limit=numeric_limit)
        if found is not None and found.numerical:
            candidates.append(found)
    if not candidates:
        candidates.append(LowerBound(0, "none", "no structural bound is known and the network "
                                               f"exceeds {numeric_limit} nodes"))
    return candidates


# -- upper bound: explicit cuts --------------------------------------------------------

def _bit_side(bit):
    return lambda addresses: ((np.asarray(addresses, dtype=np.int64) >> bit) & 1)


def _hypercube_cut(n):
    return (_bit_side(n - 1), 1 << (n - 1),
            f"address bit {n - 1} set (metacube.txt Table 2's 2^n/2: the links of dimension "
            f"{n - 1}, one per node pair, are cut)")


def _dualcube_side(t):
    top = t.m - 1
    shift = t.m * t.h

    def side(addresses):
        a = np.asarray(addresses, dtype=np.int64)
        own_class = a >> shift
        other_field = np.where(own_class == 0, a >> t.m, a)
        return (other_field >> top) & 1
    return side


def _metacube_cut(t):
    nodes = 1 << t.address_bits
    if t.k == 0:
        return _hypercube_cut(t.m)
    if t.k == 1:
        return (_dualcube_side(t), nodes // 4,
                f"half of the clusters of each class (dual-cube.txt): class 0 nodes with bit "
                f"{t.m - 1} of M_1 set and class 1 nodes with bit {t.m - 1} of M_0 set; the "
                f"cut is the N/2 cross-edges' half whose ends differ in those bits, N/4")
    return (_bit_side(t.m - 1), nodes // (2 * t.h),
            f"bit {t.m - 1} of field M_0 set: half of the clusters of every class c != 0, half "
            f"of every class-0 cluster; the cut is the class-0 cube-edges of dimension "
            f"{t.m - 1}, one per pair of the N/2^k class-0 nodes: N/2^(k+1) (metacube.txt "
            f"Table 2's value; its whole-cluster construction cuts more, docs/errata.md)")


def _dlh_cut(t):
    bit = t.d + t.m - 1
    return (_bit_side(bit), 4 << t.d,
            f"ring positions m..2m-1 (address bit {bit}, the top Johnson-code bit, set): "
            f"two ring links cut in each of the 2^(d+1) rings, 2^(d+2) = N/m")


def _mcube_cut(t):
    bit = t.k - 1
    return (_bit_side(bit), 1 << bit,
            f"address bit {bit} set (the two principals): the cut is the PCLs, the links "
            f"numbered {bit}, one per node pair, N/2")


def _family_cut(topology):
    """``(side function on address arrays, cut from the structure, description)`` or None."""
    return topology.bisection_cut()


def _best_bit_cut(topology, limit):
    """The balanced address-bit cut with the fewest links, by enumeration."""
    if topology.num_nodes > limit:
        raise ValueError(f"{topology.label} has no structural bisection cut and "
                         f"{topology.num_nodes} nodes; cuts are enumerated up to {limit} nodes")
    nodes = topology.nodes()
    best = None
    for bit in range(topology.address_bits):
        sides = _bit_side(bit)(nodes).astype(np.uint8)
        if 2 * int(sides.sum()) == topology.num_nodes:
            cut = cut_size(topology, sides)
            if best is None or cut < best[1]:
                best = (bit, cut, sides)
    if best is None:
        sides = (np.arange(topology.num_nodes) >= topology.num_nodes // 2).astype(np.uint8)
        return UpperBound(cut_size(topology, sides), "dense indices N/2..N-1 (no address "
                          "bit halves the nodes)", "enumeration", sides)
    bit, cut, sides = best
    return UpperBound(cut, f"address bit {bit} set (the best balanced address-bit cut)",
                      "enumeration", sides)


def bisection_upper_bound(topology, partition_limit=PARTITION_MAX_NODES):
    """An explicit balanced partition and the number of links it cuts.

    Parameters
    ----------
    topology : Topology
    partition_limit : int
        Up to this many nodes the partition is also listed (``sides``) and its cut
        recounted edge by edge; the two counts must agree.

    Returns
    -------
    UpperBound
        The cut, counted from the structure (no enumeration, any size), for the families
        here: Q(n) and MC(0, m) by the top address bit (N/2); MC(1, m) by the dual-cube
        paper's half of the clusters of each class (N/4); MC(k, m), k >= 2, by one bit
        of field M_0, which halves the class-0 clusters (N/2^(k+1), metacube.txt's value);
        DLH(m, d) by halving every ring (N/m); the Mcube by its two principals (N/2).
        Other families: the best balanced address-bit cut, by enumeration (ValueError
        beyond ``partition_limit`` nodes).

    Raises
    ------
    RuntimeError
        If the structural count and the enumeration disagree (a model bug).
    """
    check_int("partition limit", partition_limit, 0)
    found = _family_cut(topology)
    if found is None:
        return _best_bit_cut(topology, partition_limit)
    side, value, construction = found
    if topology.num_nodes > partition_limit:
        return UpperBound(value, construction, "structure")
    sides = side(topology.nodes()).astype(np.uint8)
    counted = cut_size(topology, sides)
    if 2 * int(sides.sum()) != topology.num_nodes or counted != value:  # pragma: no cover
        raise RuntimeError(f"{topology.label}: the cut '{construction}' has "
                           f"{int(sides.sum())} of {topology.num_nodes} nodes on side 1 "
                           f"and cuts {counted} links, not {value}")
    return UpperBound(value, construction, "structure and enumeration", sides)


# -- the best available ---------------------------------------------------------------

def bisection(topology, method="auto", time_limit=DEFAULT_TIME_LIMIT,
              exact_max_nodes=EXACT_MAX_NODES, partition_limit=RECOUNT_MAX_NODES):
    """The bisection width: exact where possible, else proven bounds.

    Parameters
    ----------
    topology : Topology
    method : {"auto", "milp", "bounds"}
        ``auto`` (default): the bounds; if they differ, the integer program on networks
        of at most ``exact_max_nodes`` nodes. ``milp``: run the integer program even
        where the bounds meet (for comparisons). ``bounds``: never run it.
    time_limit : float
        Seconds given to the integer program.
    exact_max_nodes : int
        Largest network on which ``auto`` runs the integer program.
    partition_limit : int
        Largest network whose cut is also recounted edge by edge
        (:func:`bisection_upper_bound`).

    Returns
    -------
    Bisection
        ``method == "exact"`` with ``value`` when the structural lower bound equals the
        explicit cut (``exact_by == "bounds"``, any size) or the integer program proved
        its optimum (``exact_by == "milp"``); else ``method == "bounds"`` with the
        interval [``lower``, ``upper``] (the integer program's dual bound and best cut
        folded in when it ran). Every family here meets its bounds at every size.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    check_int("exact max nodes", exact_max_nodes, 0)
    start = time.perf_counter()
    candidates = _lower_candidates(topology, None, SPECTRAL_MAX_NODES)
    lower = max(candidates, key=lambda c: (c.value, not c.numerical))
    upper = bisection_upper_bound(topology, partition_limit)
    run = method == "milp" or (method == "auto" and lower.value < upper.value
                               and topology.num_nodes <= exact_max_nodes)
    milp = bisection_exact(topology, time_limit) if run else None
    if milp is not None and milp.value is None:
        if milp.lower > lower.value:
            lower = LowerBound(milp.lower, "milp",
                               f"HiGHS's dual bound after {milp.seconds:.1f} s")
            candidates.append(lower)
        if milp.upper is not None and milp.upper < upper.value:
            upper = UpperBound(milp.upper, "the integer program's best partition",
                               "enumeration", milp.sides)
    if milp is not None and milp.value is not None:
        value, exact_by = milp.value, "milp"
    elif lower.value == upper.value:
        value, exact_by = upper.value, "bounds"
    else:
        value, exact_by = None, None
    return Bisection(value, value if value is not None else lower.value,
                     value if value is not None else upper.value,
                     "exact" if value is not None else "bounds", exact_by, lower, upper,
                     milp, time.perf_counter() - start, tuple(candidates))
