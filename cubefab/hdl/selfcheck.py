"""A fabric that tests itself: traffic generators, checkers and global counters.

:class:`SelfCheckingFabric` wraps a :class:`~cubefab.hdl.fabric.Fabric` with a
:class:`~cubefab.hdl.traffic_gen.TrafficGenerator` on every injection port and a
:class:`~cubefab.hdl.traffic_check.TrafficChecker` on every ejection port. Its
only inputs are run settings held constant during a run (seed, injection
threshold, hotspot threshold) and its outputs are counters, so the same design
runs unchanged in Amaranth's simulator, in Verilator, and on an FPGA (tie the
inputs to constants or switches and read the counters out).
"""

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..topology.base import Topology, check_int
from .fabric import Fabric
from .traffic_check import TrafficChecker
from .traffic_gen import PacketFormat, RATE_BITS, TrafficGenerator


__all__ = ["SelfCheckingFabric", "COUNTERS", "COUNTER_BITS"]


#: Width of every event counter.
COUNTER_BITS = 48

#: The event counters, in output order (besides ``latency_sum`` and ``hist_<b>``).
COUNTERS = ("cycles", "created", "refused", "injected", "injected_flits", "delivered",
            "delivered_flits", "errors")


def _tree_sum(values):
    """Balanced adder tree (short critical path, few wide adders)."""
    values = list(values)
    if not values:
        return 0
    while len(values) > 1:
        values = [values[i] + values[i + 1] if i + 1 < len(values) else values[i]
                  for i in range(0, len(values), 2)]
    return values[0]


class SelfCheckingFabric(wiring.Component):
    """A fabric with a traffic generator and a checker on every node.

    Parameters
    ----------
    topology : Topology
    pattern : str
        Traffic pattern of :mod:`cubefab.sim.patterns`.
    packet_flits : int
        Flits per packet.
    payload_width, vcs, depth, algorithm
        Router parameters (see :class:`~cubefab.hdl.fabric.Fabric`).
    hotspot : int, optional
        Hot node for ``hotspot`` traffic.
    queue_depth : int
        Source queue depth of every generator.
    timestamp_bits, sequence_bits : int
        See :class:`~cubefab.hdl.traffic_gen.PacketFormat`.

    Members
    -------
    seed : In(32)
    threshold : In(17)
        Packet creation probability per node per cycle times ``2**16``.
    hot_threshold : In(16)
        Probability times ``2**16`` that a ``hotspot`` packet goes to the hot node.
    cycles, created, refused, injected, injected_flits, delivered, delivered_flits,
    errors : Out(48)
        Totals over all nodes since the start: cycles run, packets created (queued),
        created but refused (queue full), whose head entered the network; flits that
        entered; packets and flits delivered; packets found wrong (plus stray flits).
    latency_sum : Out(64)
        Sum of the latencies of delivered packets (creation to tail delivery).
    hist_<b> : Out(48), for b in range(timestamp_bits)
        Delivered packets with latency in ``[2**b, 2**(b+1))`` (``hist_0``: 0 or 1).
    """

    def __init__(self, topology, *, pattern="uniform", packet_flits=1, payload_width=32,
                 vcs=None, depth=4, algorithm=None, hotspot=None, queue_depth=16,
                 timestamp_bits=16, sequence_bits=8):
        if not isinstance(topology, Topology):
            raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
        self.topology = topology
        self.fabric = Fabric(topology, payload_width=payload_width, vcs=vcs, depth=depth,
                             algorithm=algorithm)
        self.fmt = PacketFormat(self.fabric.layout, packet_flits,
                                timestamp_bits=timestamp_bits, sequence_bits=sequence_bits)
        self.pattern = pattern
        self.hotspot = hotspot
        self.queue_depth = check_int("Queue depth", queue_depth, 1)
        # Build one generator first so bad patterns fail here, not in elaborate().
        probe = TrafficGenerator(topology, int(topology.nodes()[0]), self.fmt, pattern,
                                 hotspot=hotspot, queue_depth=queue_depth)
        probe._MustUse__silence = True      # built only to validate, never elaborated
        members = {"seed": In(32), "threshold": In(RATE_BITS + 1),
                   "hot_threshold": In(RATE_BITS)}
        for name in COUNTERS:
            members[name] = Out(COUNTER_BITS)
        members["latency_sum"] = Out(64)
        for b in range(timestamp_bits):
            members[f"hist_{b}"] = Out(COUNTER_BITS)
        super().__init__(members)

    @property
    def histogram_buckets(self):
        """Number of latency histogram buckets (``timestamp_bits``)."""
        return self.fmt.timestamp_bits

    def elaborate(self, platform):
        m = Module()
        topo, fmt = self.topology, self.fmt
        fabric = m.submodules.fabric = self.fabric
        now = Signal(fmt.timestamp_bits)
        m.d.comb += now.eq(self.cycles[:fmt.timestamp_bits])
        m.d.sync += self.cycles.eq(self.cycles + 1)

        events = {name: [] for name in COUNTERS if name != "cycles"}
        latencies = []
        buckets = [[] for _ in range(fmt.timestamp_bits)]
        for i, node in enumerate(int(a) for a in topo.nodes()):
            gen = m.submodules[f"gen_{node}"] = TrafficGenerator(
                topo, node, fmt, self.pattern, hotspot=self.hotspot,
                queue_depth=self.queue_depth)
            chk = m.submodules[f"check_{node}"] = TrafficChecker(topo, node, fmt)
            m.d.comb += [gen.seed.eq(self.seed), gen.threshold.eq(self.threshold),
                         gen.hot_threshold.eq(self.hot_threshold), gen.now.eq(now),
                         chk.now.eq(now)]
            wiring.connect(m, gen.flits, fabric.local_in[i])
            wiring.connect(m, fabric.local_out[i], chk.flits)
            events["created"].append(gen.created)
            events["refused"].append(gen.refused)
            events["injected"].append(gen.injected)
            events["injected_flits"].append(gen.flit_sent)
            events["delivered"].append(chk.delivered)
            events["delivered_flits"].append(chk.flit_received)
            events["errors"].append(chk.error)
            lat = Signal(fmt.timestamp_bits, name=f"latency_{node}")
            m.d.comb += lat.eq(Mux(chk.delivered, chk.latency, 0))
            latencies.append(lat)
            for b in range(fmt.timestamp_bits):
                low = 0 if b == 0 else 1 << b
                buckets[b].append(chk.delivered & (chk.latency >= low)
                                  & (chk.latency < (1 << (b + 1))))

        # Global totals: add this cycle's events of every node (adder trees).
        for name, pulses in events.items():
            counter = getattr(self, name)
            m.d.sync += counter.eq(counter + _tree_sum(pulses))
        m.d.sync += self.latency_sum.eq(self.latency_sum + _tree_sum(latencies))
        for b, pulses in enumerate(buckets):
            counter = getattr(self, f"hist_{b}")
            m.d.sync += counter.eq(counter + _tree_sum(pulses))
        return m
