"""Traffic generators: which node creates a packet for which node, and when.

Destinations follow the patterns of :mod:`cubefab.topology.patterns` (uniform,
bit-complement, transpose, shuffle, hotspot, nearest-neighbour); the injection
process is Bernoulli: every cycle each node creates a packet of ``packet_flits``
flits with probability ``rate / packet_flits``, so ``rate`` is the offered load in
flits per node per cycle. Packets wait in an unbounded source queue until the
network accepts them; latency counts that wait.
"""

import numpy as np

from ..topology.base import Topology, check_int
from ..topology.patterns import PATTERNS, check_pattern, traffic_matrix


__all__ = ["Traffic", "PATTERNS"]


class Traffic:
    """A seeded packet source for every node.

    Parameters
    ----------
    topology : Topology
    pattern : str
        One of :data:`~cubefab.topology.patterns.PATTERNS`.
    rate : float
        Offered load, flits per node per cycle, in [0, 1].
    packet_flits : int
        Flits per packet (>= 1).
    seed : int
        Seed of the random generator; equal seeds give equal traffic.
    hotspot, hotspot_fraction
        Options of the ``hotspot`` pattern.
    """

    def __init__(self, topology, pattern="uniform", rate=0.1, packet_flits=1, seed=1,
                 *, hotspot=None, hotspot_fraction=0.1):
        if not isinstance(topology, Topology):
            raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
        self.topology = topology
        self.pattern = check_pattern(pattern)
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) \
                or not 0 <= rate <= 1:
            raise ValueError(f"Injection rate must be a number in [0, 1], not {rate!r}")
        self.rate = float(rate)
        self.packet_flits = check_int("Packet length (flits)", packet_flits, 1)
        self.seed = check_int("Seed", seed, 0)
        P = traffic_matrix(topology, pattern, hotspot=hotspot,
                           hotspot_fraction=hotspot_fraction)
        self._cdf = np.cumsum(P, axis=1)
        self._cdf[:, -1] = 1.0
        self._rng = np.random.default_rng(self.seed)
        self._p = self.rate / self.packet_flits

    def generate(self):
        """The packets created this cycle: a list of (source, destination) dense indices."""
        n = self.topology.num_nodes
        if self._p <= 0:
            return []
        sources = np.flatnonzero(self._rng.random(n) < self._p)
        if not len(sources):
            return []
        u = self._rng.random(len(sources))
        rows = self._cdf[sources]
        dests = (rows < u[:, None]).sum(axis=1)
        return list(zip(sources.tolist(), np.minimum(dests, n - 1).tolist()))
