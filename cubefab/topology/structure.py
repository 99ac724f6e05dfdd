"""Exact distance distributions by structure, without enumerating nodes.

Every distribution here is a polynomial in ``x`` written as a list of Python ints
(``counts[i]`` = nodes at distance ``i``), so counts of networks far beyond 2**63
nodes stay exact.

Families and their structure
----------------------------
Hypercube Q(n)
    Binomial: ``C(n, i)`` nodes at distance ``i`` from every node.
Dual-cube MC(1, m)
    Closed form: with ``B = (1 + x)**m`` (one field), a node of class 0 sees
    ``B`` (its own class, other field equal), ``x**2 * B * (B - 1)`` (own class,
    other field differs: cross over and back) and ``x * B**2`` (the other class).
Metacube MC(k, m), k <= 4
    ``d(s, t) = cost[D, c_s, c_t] + sum_i H(M_i(s), M_i(t))`` where ``D`` is the set
    of classes whose field differs and ``cost`` the shortest covering walk of the
    class cube (:class:`~cubefab.topology.classwalk.CoveringWalks`). The targets
    with a given ``D`` and end class contribute ``(B - 1)**|D|`` (the differing
    fields' Hamming weights), so the distribution from class ``c_s`` is
    ``sum over (w, c) of N[w, c] * x**c * (B - 1)**w``, ``N[w, c]`` counting the
    pairs (D, c_t) with ``|D| = w`` and ``cost = c``. All sources of one class have
    the same distribution (XOR with field bits is an automorphism).
DLH(m, d)
    The ports act on separate address parts (cube bits; Johnson-coded ring
    position; ring bit), so DLH(m, d) is the Cartesian product Q(d) x C(2m) x K2
    and its distribution the convolution of theirs.
"""

from fractions import Fraction
from math import comb

import numpy as np

from .classwalk import CoveringWalks


__all__ = ["SourceClass", "uniform_classes", "metacube_classes", "poly_mul", "poly_add",
           "hypercube_distribution",
           "ring_distribution", "dlh_distribution", "dualcube_distribution",
           "metacube_walk_histogram", "metacube_class_distribution",
           "metacube_average_coefficients", "metacube_average_with_self",
           "structural_classes"]


class SourceClass:
    """Sources that share one distance distribution.

    Attributes
    ----------
    name : str
        Which sources (e.g. ``"class 2"`` or ``"every node"``).
    sources : int
        How many nodes the class holds.
    distribution : list of int
        ``distribution[i]``: nodes at distance ``i`` from any one of them.
    """

    __slots__ = ("name", "sources", "distribution")

    def __init__(self, name, sources, distribution):
        self.name = name
        self.sources = sources
        self.distribution = distribution

    def __repr__(self):
        return f"SourceClass({self.name!r}, {self.sources}, {self.distribution})"


def poly_mul(a, b):
    """Product of two integer polynomials (lists of coefficients, lowest first)."""
    out = [0] * (len(a) + len(b) - 1)
    for i, ai in enumerate(a):
        if ai:
            for j, bj in enumerate(b):
                out[i + j] += ai * bj
    return out


def poly_add(a, b):
    """Sum of two integer polynomials."""
    if len(a) < len(b):
        a, b = b, a
    out = list(a)
    for i, bi in enumerate(b):
        out[i] += bi
    return out


def _trim(p):
    while len(p) > 1 and p[-1] == 0:
        p.pop()
    return p


def hypercube_distribution(n):
    """Distance distribution of Q(n) from any node: ``C(n, i)``."""
    return [comb(n, i) for i in range(n + 1)]


def ring_distribution(length):
    """Distance distribution of the cycle C(length) from any node."""
    half = length // 2
    counts = [1] + [2] * half
    if length % 2 == 0:
        counts[half] = 1
    return counts


def dlh_distribution(m, d):
    """Distance distribution of DLH(m, d) = Q(d) x C(2m) x K2 from any node."""
    return poly_mul(poly_mul(hypercube_distribution(d), ring_distribution(2 * m)), [1, 1])


def dualcube_distribution(m):
    """Distance distribution of the dual-cube MC(1, m) from any node (closed form)."""
    b = hypercube_distribution(m)
    b_minus_1 = [0] + b[1:]
    own = poly_add(b, [0, 0] + poly_mul(b, b_minus_1))
    return _trim(poly_add(own, [0] + poly_mul(b, b)))


def metacube_walk_histogram(k, source_class):
    """``N[w, c]``: pairs (D, c_t) with ``|D| = w`` differing classes and shortest
    covering walk ``cost[D, source_class, c_t] = c``, as a numpy int64 array."""
    walks = CoveringWalks.of(k)
    h = 1 << k
    sizes = np.bitwise_count(np.arange(1 << h, dtype=np.int64)).astype(np.int64)
    cost = walks.cost[:, source_class, :].astype(np.int64)        # [D, c_t]
    width = int(cost.max()) + 1
    keys = (sizes[:, None] * width + cost).ravel()
    return np.bincount(keys, minlength=(h + 1) * width).reshape(h + 1, width)


def _field_powers(m, h):
    """``(B - 1)**w`` for ``w = 0..h``, ``B = (1 + x)**m``."""
    b_minus_1 = [0] + hypercube_distribution(m)[1:]
    powers = [[1]]
    for _ in range(h):
        powers.append(poly_mul(powers[-1], b_minus_1))
    return powers


def metacube_class_distribution(k, m, source_class, powers=None):
    """Distance distribution of MC(k, m) from any node of class ``source_class``.

    Parameters
    ----------
    k : int
        ``0 <= k <= 4`` (the covering-walk tables).
    m : int
        ``m >= 1``; any size (exact Python ints).
    """
    h = 1 << k
    hist = metacube_walk_histogram(k, source_class)
    if powers is None:
        powers = _field_powers(m, h)
    out = [0]
    for w in range(h + 1):
        for c in np.flatnonzero(hist[w]).tolist():
            term = [0] * c + [int(hist[w, c]) * v for v in powers[w]]
            out = poly_add(out, term)
    return _trim(out)


def metacube_average_coefficients(k):
    """Coefficients ``beta_j`` of the closed form of the average distance of MC(k, m).

    With ``h = 2**k``, the average over all ordered pairs with s = t included is::

        avg_self(k, m) = m * h / 2 + sum_{j=0..h} beta_j * 2**(-j*m)

    where the field part ``m h / 2`` is the mean Hamming distance and the sum is the
    mean class walk: ``sum_w a_w (Q - 1)**w / (h Q**h)`` with ``Q = 2**m`` and
    ``a_w`` the total walk length over the pairs (D, c_t) with ``|D| = w`` (the same
    for every source class; class 0 is used). Returns a list of Fractions.
    """
    h = 1 << k
    hist = metacube_walk_histogram(k, 0)
    a = [int((hist[w] * np.arange(hist.shape[1])).sum()) for w in range(h + 1)]
    # sum_w a_w (Q-1)^w = sum_w a_w sum_i C(w, i) Q^i (-1)^(w-i); divided by h Q^h,
    # the Q^i term becomes Q^-(h-i): beta_{h-i}
    beta = [Fraction(0)] * (h + 1)
    for w, aw in enumerate(a):
        for i in range(w + 1):
            beta[h - i] += Fraction(aw * comb(w, i) * (-1) ** (w - i), h)
    return beta


def metacube_average_with_self(k, m):
    """Exact average distance of MC(k, m), s = t included, from the closed form."""
    beta = metacube_average_coefficients(k)
    return Fraction(m * (1 << k), 2) + sum(b / Fraction(2) ** (j * m) for j, b in enumerate(beta))


def uniform_classes(num_nodes, distribution, method):
    """``([one class of every node], method)``: the structural classes of a
    node-transitive network whose every source has ``distribution``."""
    return [SourceClass("every node", num_nodes, distribution)], method


def metacube_classes(topology):
    """The structural classes of MC(k, m) (``k <= 4``; None above)."""
    k, m = topology.k, topology.m
    per_class = 1 << (topology.address_bits - k)
    if k == 0:
        return uniform_classes(topology.num_nodes, hypercube_distribution(m),
                               "MC(0, m) = Q(m): binomial C(m, i)")
    if k == 1:
        dist = dualcube_distribution(m)
        return ([SourceClass(f"class {c}", per_class, list(dist)) for c in range(2)],
                "dual-cube closed form B + x^2 B (B-1) + x B^2, B = (1+x)^m")
    if k > 4:
        return None
    powers = _field_powers(m, 1 << k)
    return ([SourceClass(f"class {c}", per_class,
                         metacube_class_distribution(k, m, c, powers))
             for c in range(1 << k)],
            f"class walks: shortest covering walks of Q({k}) + binomial field weights")


def structural_classes(topology):
    """The source classes of ``topology`` with their exact distributions, or None.

    Returns
    -------
    (list of SourceClass, str) or None
        The classes (their ``sources`` add up to ``num_nodes``) and a short
        description of the method; None when the family has no structural method
        here (Mcube, metacubes with k > 4, families added later): the family's
        :meth:`~cubefab.topology.base.Topology.structural_classes`.
    """
    return topology.structural_classes()
