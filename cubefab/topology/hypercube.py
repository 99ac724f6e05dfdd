"""The binary hypercube Q(n) with e-cube routing."""

import numpy as np

from .base import Topology, check_int


__all__ = ["Hypercube"]


class Hypercube(Topology):
    """The n-dimensional binary hypercube Q(n).

    Parameters
    ----------
    n : int
        Dimension, ``n >= 1``. Nodes are the n-bit addresses; port ``j`` flips bit ``j``.

    Routing ``ecube`` corrects differing bits in ascending dimension order.
    """

    name = "hypercube"
    algorithms = ("ecube",)

    def __init__(self, n):
        self.n = check_int("Hypercube dimension n", n, 1, 62)
        self.address_bits = self.n
        self.num_nodes = 1 << self.n
        self.degree = self.n

    @property
    def params(self):
        return {"n": self.n}

    @property
    def label(self):
        return f"Q({self.n})"

    def neighbor_array(self, addresses, port):
        return np.asarray(addresses, dtype=np.int64) ^ (1 << port)

    def _neighbor(self, address, port):
        return address ^ (1 << port)

    def _next_port(self, here, dest, algorithm):
        diff = here ^ dest
        return (diff & -diff).bit_length() - 1

    def distance(self, s, t):
        s = self.check_node(s, "s")
        t = self.check_node(t, "t")
        return (s ^ t).bit_count()

    def paper_values(self):
        """Textbook formula values, keyed like :func:`~cubefab.topology.properties.properties`."""
        n = self.n
        src = "hypercube (metacube.txt Table 2)"
        return {
            "nodes": {"value": 2 ** n, "source": src},
            "degree": {"value": n, "source": src},
            "links": {"value": n * 2 ** (n - 1), "source": src},
            "diameter": {"value": n, "source": src},
            "average_distance_with_self": {"value": n / 2, "source": src},
            "cost": {"value": n * n, "source": "metacube.txt Table 2: n^2 (degree x diameter)"},
            "bisection": {"value": 2 ** n // 2, "source": "metacube.txt Table 2: 2^n/2"},
        }
