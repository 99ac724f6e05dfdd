"""The metacube MC(k, m) and its special cases, the dual-cube and the hypercube."""

from fractions import Fraction

import numpy as np

from .broadcast import ONE_PORT
from .base import Parameter, Topology, check_int
from .classwalk import weak_hamiltonian_path, walk_successors, CoveringWalks


__all__ = ["Metacube", "DualCube", "MAX_ADDRESS_BITS", "ARRAY_ADDRESS_BITS"]

#: Widest address of a metacube model. Scalar operations (routes, distances, exact
#: properties by structure) use Python ints; MC(4, 4) has 68 bits, MC(4, 63) 1012.
MAX_ADDRESS_BITS = 1024

#: Widest address that numpy address arrays (int64) hold.
ARRAY_ADDRESS_BITS = 62


class Metacube(Topology):
    """The metacube MC(k, m) of metacube.txt.

    Parameters
    ----------
    k : int
        Dimension of the class cube, ``k >= 0``; there are ``h = 2**k`` classes.
    m : int
        Dimension of the clusters, ``m >= 1``.

    Addresses have ``n = k + m * 2**k`` bits (at most :data:`MAX_ADDRESS_BITS`; numpy
    address arrays, hence BFS and simulation, at most 62): the class ``c`` in the top
    ``k`` bits and the fields ``M_i`` at bits ``[i*m, i*m + m)``. Ports ``0..k-1`` are
    cross-edges (flip class bit ``j``); ports ``k..k+m-1`` are cube-edges (flip bit
    ``j`` of ``M_c``).

    Routing algorithms
    ------------------
    ``minimal`` (default)
        A shortest path for every pair, memoryless: in class ``c`` fix ``M_c`` in
        ascending bit order, then move one class-bit along a shortest walk of the class
        cube that starts here, visits every class whose field still differs, and ends
        at the destination's class (lowest class bit among optimal first steps).
        Tabulated for ``k <= 4``.
    ``paper``
        Algorithm 1 of metacube-disjoint-paths.txt: follow Lemma 1's weak Hamiltonian
        path from ``c_s`` to ``c_t``, fixing each visited class's field in ascending
        bit order. Reads the source address from the header.
    """

    name = "metacube"
    title = "the metacube"
    parameters = [Parameter("k", "k", "class-cube dimension", 0, 9),
                  Parameter("m", "m", "cluster dimension", 1, MAX_ADDRESS_BITS)]
    algorithms = ("minimal", "paper")
    header_fields = {"paper": ("src",)}
    tree_algorithm = "minimal"

    def __init__(self, k, m):
        self.k = check_int("Metacube class dimension k", k, 0)
        self.m = check_int("Metacube cluster dimension m", m, 1)
        self.h = 1 << self.k
        n = self.k + self.m * self.h
        if n > MAX_ADDRESS_BITS:
            raise ValueError(f"MC({self.k},{self.m}) has {n}-bit addresses; at most "
                             f"{MAX_ADDRESS_BITS} are supported (k + m*2**k <= "
                             f"{MAX_ADDRESS_BITS})")
        self.address_bits = n
        self.num_nodes = 1 << n
        self.degree = self.k + self.m
        self._class_shift = self.m * self.h
        self._field_mask = (1 << self.m) - 1
        self._successor_cache = {}

    @property
    def params(self):
        return {"k": self.k, "m": self.m}

    @property
    def label(self):
        return f"MC({self.k},{self.m})"

    # -- address fields ---------------------------------------------------------------

    def class_of(self, address):
        """The class (top ``k`` bits) of ``address``."""
        return address >> self._class_shift

    def field(self, address, i):
        """Field ``M_i`` of ``address``."""
        return (address >> (i * self.m)) & self._field_mask

    def with_field(self, address, i, value):
        """``address`` with its field ``M_i`` set to ``value``."""
        shift = i * self.m
        return (address & ~(self._field_mask << shift)) | (value << shift)

    def with_class(self, address, c):
        """``address`` with its class set to ``c`` (the fields kept)."""
        return (address & ((1 << self._class_shift) - 1)) | (c << self._class_shift)

    def _check_array_width(self):
        if self.address_bits > ARRAY_ADDRESS_BITS:
            raise ValueError(f"{self.label} has {self.address_bits}-bit addresses; address "
                             f"arrays (BFS, edge lists, simulation) hold at most "
                             f"{ARRAY_ADDRESS_BITS} bits")

    def nodes(self):
        self._check_array_width()
        return super().nodes()

    def index_array(self, addresses):
        self._check_array_width()
        return super().index_array(addresses)

    def address_array(self, indices):
        self._check_array_width()
        return super().address_array(indices)

    def neighbor_array(self, addresses, port):
        self._check_array_width()
        a = np.asarray(addresses, dtype=np.int64)
        if port < self.k:
            return a ^ (1 << (self._class_shift + port))
        shift = (a >> self._class_shift) * self.m + (port - self.k)
        return a ^ (np.int64(1) << shift)

    def _neighbor(self, address, port):
        if port < self.k:
            return address ^ (1 << (self._class_shift + port))
        return address ^ (1 << ((address >> self._class_shift) * self.m + port - self.k))

    # -- routing ----------------------------------------------------------------------

    def _differing_classes(self, here, dest):
        diff = here ^ dest
        mask = 0
        for i in range(self.h):
            if (diff >> (i * self.m)) & self._field_mask:
                mask |= 1 << i
        return mask

    def _fix_field(self, here, dest):
        """Port correcting the lowest differing bit of the current class's field, or None."""
        c = self.class_of(here)
        diff = self.field(here ^ dest, c)
        if diff:
            return self.k + (diff & -diff).bit_length() - 1
        return None

    def walk(self, cs, ct):
        """Lemma 1's weak Hamiltonian path of the class cube from ``cs`` to ``ct``."""
        cs = check_int("class cs", cs, 0, self.h - 1)
        ct = check_int("class ct", ct, 0, self.h - 1)
        return weak_hamiltonian_path(self.k, cs, ct)

    def _next_port(self, here, dest, algorithm, src=None):
        port = self._fix_field(here, dest)
        if port is not None:
            return port
        c = self.class_of(here)
        if algorithm == "paper":
            successor = self._successors(self.class_of(src), self.class_of(dest))
            if c not in successor:
                # Only off-route: the end class of a Hamiltonian path, reached last, with
                # its field already fixed yet here != dest. Keep the function total.
                return 0
            return (c ^ successor[c]).bit_length() - 1
        walks = self._covering_walks()
        rest = self._differing_classes(here, dest)
        return int(walks.step[rest, c, self.class_of(dest)])

    def _successors(self, cs, ct):
        key = (cs, ct)
        if key not in self._successor_cache:
            self._successor_cache[key] = walk_successors(weak_hamiltonian_path(self.k, cs, ct))
        return self._successor_cache[key]

    def _covering_walks(self):
        if self.k > 4:
            raise ValueError(f"minimal routing tables are built for k <= 4, not k = {self.k}")
        return CoveringWalks.of(self.k)

    def class_walk_table(self):
        """The ``minimal`` algorithm's class-step table ``step[D, c, t]``.

        ``D`` is the mask of classes other than ``c`` whose field still differs,
        ``c`` the current class and ``t`` the destination's; the entry is the class
        bit to flip (the cross port), or 255 when the packet has arrived.
        """
        return self._covering_walks().step

    def distance(self, s, t):
        """Exact distance: the field Hamming distances plus the shortest covering walk."""
        s = self.check_node(s, "s")
        t = self.check_node(t, "t")
        cube_hops = sum(self.field(s ^ t, i).bit_count() for i in range(self.h))
        if self.k > 4:
            return super().distance(s, t)
        walks = self._covering_walks()
        return cube_hops + int(walks.cost[self._differing_classes(s, t),
                                          self.class_of(s), self.class_of(t)])

    # -- paper values -----------------------------------------------------------------

    def paper_values(self):
        """Formula values of metacube.txt (Tables 1-2, Theorem 2), and of dual-cube.txt
        for k = 1, keyed like :func:`~cubefab.topology.properties.properties`."""
        k, m, n = self.k, self.m, self.address_bits
        src = "metacube.txt Table 2 / Theorem 2"
        values = {
            "nodes": {"value": 2 ** n, "source": "metacube.txt Table 1"},
            "degree": {"value": m + k, "source": src},
            "links": {"value": 2 ** n * (m + k) // 2, "source": src},
            "diameter": {"value": (m + 1) * 2 ** k, "source": src},
            "average_distance_with_self_upper_bound":
                {"value": m * 2 ** k / 2 + 2 ** k, "source": src},
            "cost": {"value": (m + 1) * 2 ** k * (m + k),
                     "source": "metacube.txt Table 2: (m+1)2^k(m+k) (degree x diameter)"},
            "bisection": {"value": 2 ** (m * 2 ** k) // 2,
                          "source": "metacube.txt Table 2 / section 3: 2^(m2^k)/2, "
                                    "claimed minimum"},
        }
        if k == 1:
            r = m + 1
            values["average_distance_with_self"] = {
                "value": float(Fraction(n, 2) + 1 - Fraction(1, 2 ** ((n - 1) // 2))),
                "source": "dual-cube.txt Table 1 / metacube.txt Table 2: n/2 + 1 - 1/2^((n-1)/2)"}
            values["diameter"] = {"value": 2 * r, "source": "dual-cube.txt Theorem 1: 2r"}
            values["cost"] = {"value": (n + 1) ** 2 // 2, "source":
                              "dual-cube.txt Table 1 / metacube.txt Table 2: (n+1)^2/2"}
            values["bisection"] = {"value": 2 ** n // 4, "source": "dual-cube.txt Table 1 / "
                                   "section 2: 2^n/4, claimed minimum"}
        if k == 2:
            values["average_distance_with_self"] = {
                "value": n / 2 + 3, "source": "metacube.txt Table 2: n/2 + 3"}
            values["cost"] = {"value": n * n // 4 + 2 * n + 3,
                              "source": "metacube.txt Table 2: n^2/4 + 2n + 3"}
            values["bisection"] = {"value": 2 ** n // 8, "source": "metacube.txt Table 2: 2^n/8"}
        return values


    # -- family behaviour (see Topology) ----------------------------------------------

    def translation_mask(self):
        return (1 << (self.m * self.h)) - 1

    def wrap_array(self, addresses, port):
        """A cross-edge that clears a class bit (a step down the class cube)."""
        a = np.asarray(addresses, dtype=np.int64)
        if port >= self.k:
            return np.zeros(a.shape, dtype=bool)
        return ((a >> (self.m * self.h + port)) & 1).astype(bool)

    def source_key_shift(self, algorithm):
        """``paper`` reads the source's class only (the top ``k`` bits)."""
        return self.m * self.h if algorithm == "paper" else 0

    @property
    def connectivity(self):
        return self.k + self.m

    def broadcast_algorithms(self):
        from .broadcast import BroadcastAlgorithm, dualcube_schedule, metacube_schedule
        return [
            BroadcastAlgorithm(
                "dual-cube", ONE_PORT, dualcube_schedule, lambda t: 2 * (t.m + 1),
                "dual-cube.txt Theorem 2: 2r steps, r = m + 1", lambda t: t.k == 1),
            BroadcastAlgorithm(
                "metacube", ONE_PORT, metacube_schedule,
                lambda t: (t.m + 1) * 2 ** t.k + t.k - 1,
                "metacube.txt Theorem 3: (m + 1) 2^k + k - 1 steps"),
        ]

    def check_tree_routing(self):
        if self.k > 4:
            raise ValueError(f"broadcast trees follow the metacube's minimal routing, "
                             f"tabulated for k <= 4, not k = {self.k}")

    def disjoint_paths_construction(self):
        from .paths import _metacube
        return _metacube

    def disjoint_paths_method(self, s, t, paths):
        from .paths import metacube_disjoint_paths, remove_loops
        paper = [remove_loops(p) for p in metacube_disjoint_paths(self, s, t)]
        if paths == paper:
            return "Algorithm 4 (metacube-disjoint-paths.txt)"
        return "Algorithm 4, repaired (see docs/errata.md)"

    def disjoint_paths_bound(self, s, t):
        from .paths import metacube_path_bound
        return (metacube_path_bound(self, s, t),
                "metacube-disjoint-paths.txt Theorem 2: H(s, t) + 2^k + m + 5")

    def structural_classes(self):
        from .structure import metacube_classes
        return metacube_classes(self)

    def uniform_load_bound(self, algorithm):
        from .uniform_load import _metacube
        return _metacube(self, algorithm) if algorithm == "minimal" and self.k <= 4 else None

    def bisection_flow_bound(self):
        from .bisection import _metacube_flow
        return _metacube_flow(self)

    def bisection_spectral_bound(self):
        from .bisection import _matching_spectral
        return _matching_spectral(self) if self.k == 0 else None

    def bisection_cut(self):
        from .bisection import _metacube_cut
        return _metacube_cut(self)


def DualCube(m):
    """The dual-cube F_{m+1} = MC(1, m) of dual-cube.txt."""
    return Metacube(1, m)


Metacube.aliases = {"dualcube": (DualCube, [Parameter(
    "m", "m", "cluster dimension (MC(1,m))", 1, (MAX_ADDRESS_BITS - 1) // 2)])}
