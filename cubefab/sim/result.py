"""The result of a fabric simulation, common to every engine."""

from .stats import latency_stats, throughput


__all__ = ["SimResult"]


class SimResult:
    """What a simulation run measured and what its scoreboard found.

    Attributes
    ----------
    counts : dict
        The scoreboard's summary (``created``, ``injected``, ``delivered``, ``lost``,
        ``pending``, ``duplicated``, ``corrupted``, ``misrouted``, ``reordered``,
        ``hop_mismatches``).
    packets : list of Packet
        The delivered packets.
    stalled : bool
        The progress watchdog fired (packets outstanding, nothing moved).
    """

    def __init__(self, topology, board, *, engine, cycles, simulated_cycles, drain_cycles,
                 window_flits, injected_flits, stalled, watchdog, seconds, traffic, config):
        self.topology = topology
        self.board = board
        self.engine = engine
        self.cycles = cycles
        self.simulated_cycles = simulated_cycles
        self.drain_cycles = drain_cycles
        self.window_flits = window_flits
        self.injected_flits = injected_flits
        self.stalled = stalled
        self.watchdog = watchdog
        self.seconds = seconds
        self.traffic = traffic
        self.config = config
        self.counts = board.summary()
        self.packets = board.delivered

    @property
    def ok(self):
        """Every packet delivered exactly once, intact, in order, on its reference
        route, and the run never stalled."""
        c = self.counts
        return (not self.stalled and c["lost"] == 0 and c["pending"] == 0
                and c["duplicated"] == 0 and c["corrupted"] == 0
                and c["hop_mismatches"] == 0 and c["vc_mismatches"] == 0 and c["delivered"] == c["created"])

    def as_dict(self):
        """The JSON document of ``cubefab sim``."""
        n = self.topology.num_nodes
        doc = {"topology": self.topology.label, "engine": self.engine}
        if self.traffic is not None:
            doc.update({"traffic": self.traffic.pattern, "rate": self.traffic.rate,
                        "packet_flits": self.traffic.packet_flits,
                        "seed": self.traffic.seed})
        doc.update(self.config)
        doc.update({
            "cycles": self.cycles,
            "drain_cycles": self.drain_cycles,
            "simulated_cycles": self.simulated_cycles,
        })
        doc.update(self.counts)
        doc.update(latency_stats(p.latency for p in self.packets))
        net = latency_stats(p.network_latency for p in self.packets)
        doc["avg_network_latency"] = net["avg_latency"]
        hops = [len(p.hops) for p in self.packets if p.hops]
        doc["avg_hops"] = sum(hops) / len(hops) if hops else None
        doc["offered"] = None if self.traffic is None else self.traffic.rate
        doc["injection_rate"] = throughput(self.injected_flits, n, self.simulated_cycles)
        doc["throughput"] = throughput(self.window_flits, n, self.cycles)
        doc["stalled"] = self.stalled
        doc["ok"] = self.ok
        doc["errors"] = list(self.board.events)
        doc["seconds"] = round(self.seconds, 3)
        doc["cycles_per_second"] = (round(self.simulated_cycles / self.seconds, 1)
                                    if self.seconds > 0 else None)
        return doc
