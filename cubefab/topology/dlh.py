"""The double-loop hypercube DLH(m, d) of dlh.txt."""

from fractions import Fraction

import numpy as np

from .broadcast import ONE_PORT
from .base import Parameter, Topology, check_int


__all__ = ["DLH", "johnson_code", "johnson_position"]


def johnson_code(p, m):
    """Johnson code J(p) of ring position ``0 <= p < 2m`` (m bits)."""
    if p <= m:
        return (1 << p) - 1
    return ((1 << m) - 1) ^ ((1 << (p - m)) - 1)


def johnson_position(code, m):
    """Vectorised inverse of :func:`johnson_code` for valid codes."""
    code = np.asarray(code, dtype=np.int64)
    ones = np.bitwise_count(code).astype(np.int64)
    low_filled = ((code & 1) == 1) | (code == 0)
    return np.where(low_filled, ones, 2 * m - ones)


class DLH(Topology):
    """The double-loop hypercube DLH(m, d).

    Parameters
    ----------
    m : int
        Half the ring length, ``m >= 2``; each of the two rings of DL(2m) has ``2m``
        positions.
    d : int
        Hypercube dimension, ``d >= 1``.

    An address has ``n = 1 + m + d`` bits: the ring bit (``m + d``; 1 = outer ring),
    the Johnson code of the ring position (bits ``[d, d+m)``) and the hypercube
    address (bits ``[0, d)``). Only the ``4m * 2**d`` words with a valid Johnson code
    are nodes. Ports ``0..d-1`` flip a cube bit, ``d`` goes to the ring successor,
    ``d+1`` to the predecessor and ``d+2`` to the other ring.

    Routing ``dimension-order`` (dlh.txt section III, case 3, one fixed order): the
    hypercube bits in ascending order, then the ring position the shorter way round
    (successor on a tie, when the positions are ``m`` apart), then the ring bit last
    (as the paper's DL(2m) routing crosses rings only when that reaches the
    destination). Every route is a shortest path.
    """

    name = "dlh"
    title = "the DLH"
    parameters = [Parameter("m", "m", "ring parameter (rings of 2m nodes)", 2, 60),
                  Parameter("d", "d", "hypercube dimension", 1, 59)]
    algorithms = ("dimension-order",)
    tree_algorithm = "dimension-order"

    def __init__(self, m, d):
        self.m = check_int("DLH ring parameter m", m, 2)
        self.d = check_int("DLH hypercube dimension d", d, 1)
        if 1 + self.m + self.d > 62:
            raise ValueError(f"DLH({self.m},{self.d}) has {1 + self.m + self.d}-bit addresses; "
                             f"at most 62 are supported (1 + m + d <= 62)")
        self.address_bits = 1 + self.m + self.d
        self.ring_length = 2 * self.m
        self.num_nodes = 4 * self.m << self.d
        self.degree = self.d + 3
        self._jmask = (1 << self.m) - 1
        self._cmask = (1 << self.d) - 1

    @property
    def params(self):
        return {"m": self.m, "d": self.d}

    @property
    def label(self):
        return f"DLH({self.m},{self.d})"

    # -- addresses --------------------------------------------------------------------

    def make_address(self, ring, position, cube):
        """Address of the node at ``ring`` (0 inner, 1 outer), ring ``position`` and
        hypercube address ``cube``."""
        ring = check_int("ring", ring, 0, 1)
        position = check_int("ring position", position, 0, self.ring_length - 1)
        cube = check_int("cube address", cube, 0, self._cmask)
        return (ring << (self.m + self.d)) | (johnson_code(position, self.m) << self.d) | cube

    def split(self, address):
        """``(ring, position, cube)`` of the node ``address``."""
        address = self.check_node(address)
        j = (address >> self.d) & self._jmask
        return (address >> (self.m + self.d), int(johnson_position(j, self.m)),
                address & self._cmask)

    def _valid_code(self, j):
        inv = ~j & self._jmask
        return ((j & (j + 1)) == 0) | ((inv & (inv + 1)) == 0)

    def _is_node(self, address):
        return bool(self._valid_code((address >> self.d) & self._jmask))

    def _node_rule(self):
        return (f"bits [{self.d}, {self.d + self.m}) must be a {self.m}-bit Johnson code "
                f"(ones filled from bit 0, or from bit {self.m - 1})")

    def index_array(self, addresses):
        a = np.asarray(addresses, dtype=np.int64)
        ring = a >> (self.m + self.d)
        pos = johnson_position((a >> self.d) & self._jmask, self.m)
        return ((ring * self.ring_length + pos) << self.d) | (a & self._cmask)

    def address_array(self, indices):
        i = np.asarray(indices, dtype=np.int64)
        cube = i & self._cmask
        rp = i >> self.d
        ring, pos = rp // self.ring_length, rp % self.ring_length
        codes = np.array([johnson_code(p, self.m) for p in range(self.ring_length)],
                         dtype=np.int64)
        return (ring << (self.m + self.d)) | (codes[pos] << self.d) | cube

    # -- links ------------------------------------------------------------------------

    def neighbor_array(self, addresses, port):
        a = np.asarray(addresses, dtype=np.int64)
        if port < self.d:
            return a ^ (1 << port)
        if port == self.d + 2:
            return a ^ (1 << (self.m + self.d))
        j = (a >> self.d) & self._jmask
        top = self.m - 1
        if port == self.d:        # successor: shift up, complemented top bit enters below
            nj = ((j << 1) | (~j >> top & 1)) & self._jmask
        else:                     # predecessor: shift down, complemented bit 0 enters on top
            nj = (j >> 1) | ((~j & 1) << top)
        return (a & ~(self._jmask << self.d)) | (nj << self.d)

    def _neighbor(self, address, port):
        if port < self.d:
            return address ^ (1 << port)
        if port == self.d + 2:
            return address ^ (1 << (self.m + self.d))
        j = (address >> self.d) & self._jmask
        if port == self.d:
            nj = ((j << 1) | (~j >> (self.m - 1) & 1)) & self._jmask
        else:
            nj = (j >> 1) | ((~j & 1) << (self.m - 1))
        return (address & ~(self._jmask << self.d)) | (nj << self.d)

    # -- routing ----------------------------------------------------------------------

    def _next_port(self, here, dest, algorithm):
        diff = (here ^ dest) & self._cmask
        if diff:
            return (diff & -diff).bit_length() - 1
        p_here = int(johnson_position((here >> self.d) & self._jmask, self.m))
        p_dest = int(johnson_position((dest >> self.d) & self._jmask, self.m))
        delta = (p_dest - p_here) % self.ring_length
        if delta:
            return self.d if delta <= self.m else self.d + 1
        return self.d + 2

    def distance(self, s, t):
        """Exact distance, the Hamming distance of the addresses (dlh.txt section III)."""
        s = self.check_node(s, "s")
        t = self.check_node(t, "t")
        return (s ^ t).bit_count()

    # -- family behaviour (see Topology) ----------------------------------------------

    def translation_mask(self):
        return (1 << self.d) - 1

    def wrap_array(self, addresses, port):
        """A ring hop across the dateline (successor from position ``2m-1`` to 0,
        predecessor from 0 to ``2m-1``)."""
        a = np.asarray(addresses, dtype=np.int64)
        d, m = self.d, self.m
        if port < d or port == d + 2:
            return np.zeros(a.shape, dtype=bool)
        pos = johnson_position((a >> d) & ((1 << m) - 1), m)
        return pos == (2 * m - 1 if port == d else 0)

    @property
    def connectivity(self):
        return self.d + 3

    def broadcast_algorithms(self):
        from .broadcast import BroadcastAlgorithm, dlh_schedule
        return [BroadcastAlgorithm(
            "dlh", ONE_PORT, dlh_schedule, lambda t: t.m + t.d + 1,
            "dlh.txt section III.B: m + d + 1 rounds (holds one-port)")]

    def structural_classes(self):
        from .structure import dlh_distribution, uniform_classes
        return uniform_classes(self.num_nodes, dlh_distribution(self.m, self.d),
                               "DLH = Q(d) x C(2m) x K2: convolution of the factors")

    def uniform_load_bound(self, algorithm):
        from .uniform_load import _dlh
        return _dlh(self, algorithm) if algorithm == "dimension-order" else None

    def bisection_flow_bound(self):
        from .bisection import _dlh_flow
        return _dlh_flow(self)

    def bisection_spectral_bound(self):
        from .bisection import _dlh_spectral
        return _dlh_spectral(self)

    def bisection_cut(self):
        from .bisection import _dlh_cut
        return _dlh_cut(self)

    # -- paper values -----------------------------------------------------------------

    def paper_values(self):
        """Formula values of dlh.txt (section II.B, Lemmas 1-3)."""
        m, d = self.m, self.d
        avg = Fraction(2 * m * m + d * 2 ** (d - 1) + 2, 2 ** d + 4 * m - 2)
        return {
            "nodes": {"value": 4 * m * 2 ** d, "source": "dlh.txt section II.B: 4m x 2^d"},
            "degree": {"value": d + 3, "source": "dlh.txt Lemma 2: d + 3"},
            "diameter": {"value": m + d + 1, "source": "dlh.txt Lemma 1: m + d + 1"},
            "average_distance": {"value": float(avg), "source":
                                 "dlh.txt Lemma 3: (2m^2 + d 2^(d-1) + 2) / (2^d + 4m - 2)"},
        }
