"""The folded hypercube FQ(n): Q(n) plus a complement link at every node.

El-Amawy and Latifi, "Properties and performance of folded hypercubes", IEEE TPDS 2(1),
1991: FQ(n) joins every node ``x`` of the hypercube Q(n) also to its complement ``~x``.
The extra link shortens the diameter from ``n`` to ``ceil(n/2)`` for one more port.
"""

from math import comb

import numpy as np

from .base import Parameter, Topology, check_int


__all__ = ["FoldedCube"]


class FoldedCube(Topology):
    """The n-dimensional folded hypercube FQ(n).

    Parameters
    ----------
    n : int
        Dimension, ``2 <= n <= 62`` (in FQ(1) the complement link would double the
        cube link). Nodes are the n-bit addresses; port ``j < n`` flips bit ``j``,
        port ``n`` complements every bit.

    The minimal ports (adaptive routing) of a pair differing in ``h`` bits: the
    differing dimensions when ``2h < n + 1``; the complement and the equal dimensions
    when ``2h > n + 1``; every port when ``2h = n + 1``.

    Routing ``fold-ecube``: a packet whose destination differs in ``h`` bits with
    ``2h > n + 1`` takes the complement link first (then ``n - h`` bits differ), then
    corrects the differing bits in ascending dimension order (e-cube). A route takes
    ``min(h, n + 1 - h)`` hops, the distance: every route is a shortest path.

    The complement link is only ever a packet's first hop, so the channel dependencies
    go from complement channels to cube channels and between cube channels in ascending
    dimension: one VC class suffices (no wrap; :mod:`cubefab.topology.deadlock` proves
    it). XOR with any address maps routes onto routes (the decision reads ``here ^
    dest`` only, and the complement commutes with XOR).
    """

    name = "foldedcube"
    title = "the folded hypercube"
    parameters = [Parameter("n", "n", "dimension", 2, 62)]
    algorithms = ("fold-ecube",)
    tree_algorithm = "fold-ecube"

    def __init__(self, n):
        self.n = check_int("Folded hypercube dimension n", n, 2, 62)
        self.address_bits = self.n
        self.num_nodes = 1 << self.n
        self.degree = self.n + 1
        self._mask = (1 << self.n) - 1
        #: Fewest differing bits at which a route takes the complement link first.
        self.fold_distance = (self.n + 1) // 2 + 1
        #: Differing bits at which both ways are shortest (``2h = n + 1``; n odd), or
        #: None: there every port is minimal.
        self.equal_distance = (self.n + 1) // 2 if self.n % 2 else None

    @property
    def params(self):
        return {"n": self.n}

    @property
    def label(self):
        return f"FQ({self.n})"

    def neighbor_array(self, addresses, port):
        a = np.asarray(addresses, dtype=np.int64)
        return a ^ (self._mask if port == self.n else 1 << port)

    def _neighbor(self, address, port):
        return address ^ (self._mask if port == self.n else 1 << port)

    def _next_port(self, here, dest, algorithm):
        diff = here ^ dest
        if diff.bit_count() >= self.fold_distance:
            return self.n
        return (diff & -diff).bit_length() - 1

    def distance(self, s, t):
        """Exact distance ``min(h, n + 1 - h)``, ``h`` the Hamming distance."""
        s = self.check_node(s, "s")
        t = self.check_node(t, "t")
        h = (s ^ t).bit_count()
        return min(h, self.n + 1 - h)

    # -- family behaviour (see Topology) ----------------------------------------------

    def translation_mask(self):
        return self._mask

    @property
    def connectivity(self):
        """``n + 1``: FQ(n) is maximally connected (El-Amawy and Latifi, Theorem 4)."""
        return self.n + 1

    def structural_classes(self):
        from .structure import uniform_classes
        return uniform_classes(self.num_nodes, self.distance_distribution(),
                               "folded hypercube: C(n, h) nodes at min(h, n + 1 - h)")

    def distance_distribution(self):
        """Nodes at each distance from any node: ``C(n, h)`` at ``min(h, n + 1 - h)``."""
        out = [0] * ((self.n + 1) // 2 + 1)
        for h in range(self.n + 1):
            out[min(h, self.n + 1 - h)] += comb(self.n, h)
        return out

    def paper_values(self):
        """Formula values of El-Amawy and Latifi (1991), keyed like
        :func:`~cubefab.topology.properties.properties`."""
        n = self.n
        src = "El-Amawy & Latifi 1991"
        return {
            "nodes": {"value": 2 ** n, "source": src + ": 2^n"},
            "degree": {"value": n + 1, "source": src + ": n + 1"},
            "links": {"value": (n + 1) * 2 ** (n - 1), "source": src + ": (n + 1) 2^(n-1)"},
            "diameter": {"value": (n + 1) // 2, "source": src + ": ceil(n/2)"},
        }
