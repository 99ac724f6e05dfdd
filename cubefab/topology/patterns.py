"""Synthetic traffic patterns: the reference definition of where each node sends.

Every pattern is defined on node addresses (docs/conventions.md) so that hardware
generators (:mod:`cubefab.hdl.traffic_gen`) can compute it with a few gates, and
:func:`traffic_matrix` gives its exact destination distribution, the reference
against which the hardware generators and the channel-load bound are checked.

Patterns
--------
uniform
    Every node other than the source, with equal probability.
bitcomp
    The bitwise complement of the source address (all ``address_bits`` bits).
transpose
    The address with its upper and lower halves swapped (even ``address_bits``).
shuffle
    The address rotated left by one bit (the perfect shuffle).
hotspot
    With probability ``hotspot_fraction`` the node ``hotspot`` (default: address 0),
    otherwise uniform.
neighbor
    One of the source's ``degree`` neighbours, with equal probability.

``transpose`` and ``shuffle`` are defined where they map every node to a node (for
DLH, whose addresses are not all nodes, they are usually not); a source they map
to itself delivers locally.
"""

from fractions import Fraction

import numpy as np

from .base import Topology


__all__ = ["PATTERNS", "check_pattern", "permutation_destination", "traffic_matrix"]


PATTERNS = ("uniform", "bitcomp", "transpose", "shuffle", "hotspot", "neighbor")

_PERMUTATIONS = ("bitcomp", "transpose", "shuffle")


def check_pattern(pattern):
    """Return ``pattern`` if it names a pattern of :data:`PATTERNS`, else raise ValueError."""
    if pattern not in PATTERNS:
        raise ValueError(f"traffic pattern must be one of {', '.join(PATTERNS)}, "
                         f"not {pattern!r}")
    return pattern


def _permute(pattern, addresses, bits):
    a = np.asarray(addresses, dtype=np.int64)
    mask = (1 << bits) - 1
    if pattern == "bitcomp":
        return a ^ mask
    if pattern == "transpose":
        half = bits // 2
        return ((a << half) | (a >> half)) & mask
    # shuffle: rotate left by one
    return ((a << 1) | (a >> (bits - 1))) & mask


def permutation_destination(topology, pattern, addresses=None):
    """Destination addresses of a permutation pattern (``bitcomp``, ``transpose``,
    ``shuffle``) for ``addresses`` (default: every node, dense order).

    Raises
    ------
    ValueError
        If the pattern is not a permutation pattern, or is not defined for the
        topology (it maps some node to a word that is not a node, or ``transpose``
        with an odd number of address bits).
    """
    if pattern not in _PERMUTATIONS:
        raise ValueError(f"permutation pattern must be one of {', '.join(_PERMUTATIONS)}, "
                         f"not {pattern!r}")
    bits = topology.address_bits
    if pattern == "transpose" and bits % 2:
        raise ValueError(f"transpose traffic needs an even number of address bits; "
                         f"{topology.label} has {bits}")
    nodes = topology.nodes()
    dest = _permute(pattern, nodes, bits)
    bad = [int(s) for s, t in zip(nodes, dest) if not topology.is_node(int(t))]
    if bad:
        raise ValueError(f"{pattern} traffic is not defined for {topology.label}: node "
                         f"{bad[0]} maps to {int(_permute(pattern, [bad[0]], bits)[0])}, "
                         f"which is not a node")
    if addresses is None:
        return dest
    return _permute(pattern, addresses, bits)


def traffic_matrix(topology, pattern="uniform", *, hotspot=None, hotspot_fraction=0.1):
    """The destination distribution of a traffic pattern.

    Parameters
    ----------
    topology : Topology
    pattern : str
        One of :data:`PATTERNS`.
    hotspot : int, optional
        Hot node address for ``hotspot`` (default: the node of dense index 0).
    hotspot_fraction : float or Fraction
        Probability that a ``hotspot`` packet goes to the hot node, in [0, 1].

    Returns
    -------
    numpy.ndarray, shape (num_nodes, num_nodes)
        ``P[i, j]``: probability that a packet injected at the node of dense index
        ``i`` is destined for the node of dense index ``j``; every row sums to 1.
    """
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    check_pattern(pattern)
    n = topology.num_nodes
    one = 1.0
    P = np.zeros((n, n), dtype=np.float64)
    rows = np.arange(n)
    if pattern in _PERMUTATIONS:
        dest = topology.index_array(permutation_destination(topology, pattern))
        P[rows, dest] = one
        return P
    if pattern == "neighbor":
        nodes = topology.nodes()
        for p in range(topology.degree):
            P[rows, topology.index_array(topology.neighbor_array(nodes, p))] += \
                one / topology.degree
        return P
    if n < 2:
        raise ValueError(f"{pattern} traffic needs at least 2 nodes")
    uniform = one / (n - 1)
    P[:] = uniform
    P[rows, rows] = 0.0
    if pattern == "hotspot":
        if isinstance(hotspot_fraction, bool) or not isinstance(
                hotspot_fraction, (int, float, Fraction)) or not 0 <= hotspot_fraction <= 1:
            raise ValueError(f"hotspot fraction must be a number in [0, 1], "
                             f"not {hotspot_fraction!r}")
        f = float(hotspot_fraction)
        h = topology.index(topology.address(0) if hotspot is None else hotspot)
        P = P * (1 - f)
        P[:, h] += f
    return P
