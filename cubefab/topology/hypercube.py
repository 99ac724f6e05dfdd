"""The binary hypercube Q(n) with e-cube routing."""

import numpy as np

from .broadcast import ONE_PORT
from .base import Parameter, Topology, check_int


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
    title = "the hypercube"
    parameters = [Parameter("n", "n", "dimension", 1, 62)]
    algorithms = ("ecube",)
    tree_algorithm = "ecube"

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

    # -- family behaviour (see Topology) ----------------------------------------------

    def translation_mask(self):
        return (1 << self.address_bits) - 1

    @property
    def connectivity(self):
        return self.n

    def broadcast_algorithms(self):
        from .broadcast import BroadcastAlgorithm, binomial_schedule
        return [BroadcastAlgorithm("binomial", ONE_PORT, binomial_schedule, lambda t: t.n,
                                   "binomial tree: n steps")]

    def disjoint_paths_construction(self):
        from .paths import _hypercube
        return _hypercube

    def disjoint_paths_method(self, s, t, paths):
        return "Algorithms 2-3 (metacube-disjoint-paths.txt)"

    def structural_classes(self):
        from .structure import hypercube_distribution, uniform_classes
        return uniform_classes(self.num_nodes, hypercube_distribution(self.n),
                               "hypercube: binomial C(n, i)")

    def uniform_load_bound(self, algorithm):
        from .uniform_load import _hypercube
        return _hypercube(self, algorithm, self.n) if algorithm == "ecube" else None

    def bisection_flow_bound(self):
        from .bisection import _hypercube_flow
        return _hypercube_flow(self.n)

    def bisection_spectral_bound(self):
        from .bisection import _matching_spectral
        return _matching_spectral(self)

    def bisection_cut(self):
        from .bisection import _hypercube_cut
        return _hypercube_cut(self.n)
