"""A fabric that tests itself: traffic generators, checkers and global counters.

:class:`SelfCheckingFabric` is a network of nodes
(:class:`~cubefab.hdl.selfcheck_node.SelfCheckingNode`): a router per node with a
:class:`~cubefab.hdl.traffic_gen.TrafficGenerator` on its injection port and a
:class:`~cubefab.hdl.traffic_check.TrafficChecker` on its ejection port. Its only inputs are run settings held constant during a run (seed, injection
threshold, hotspot threshold) and its outputs are counters, so the same design
runs unchanged in Amaranth's simulator, in Verilator, and on an FPGA (tie the
inputs to constants or switches and read the counters out).

:meth:`SelfCheckingFabric.node_verilog` gives the Verilog of the address-strapped
node (:data:`NODE_MODULE`: its address and every other node-dependent constant are
input ports), from which a simulator can build the whole fabric compiling one node,
not one per node (:mod:`cubefab.sim.verilator_fabric`).
"""

from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..topology.base import Topology, check_int
from .config import FabricConfig
from .fabric import connect_links
from .ports import reset_less_verilog
from .selfcheck_node import NODE_EVENTS, SelfCheckingNode
from .traffic_gen import PacketFormat, RATE_BITS


__all__ = ["SelfCheckingFabric", "COUNTERS", "COUNTER_BITS", "NODE_MODULE"]


#: Width of every event counter.
COUNTER_BITS = 48

#: The event counters, in output order (besides ``latency_sum`` and ``hist_<b>``).
COUNTERS = ("cycles",) + NODE_EVENTS

#: Verilog module name of :meth:`SelfCheckingFabric.node_verilog`.
NODE_MODULE = "cubefab_node"


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
    payload_width, vcs, depth, algorithm, vcs_per_class
        Router parameters (see :class:`~cubefab.hdl.fabric.Fabric`).
    hotspot : int, optional
        Hot node for ``hotspot`` traffic.
    queue_depth : int
        Source queue depth of every generator.
    timestamp_bits, sequence_bits : int
        See :class:`~cubefab.hdl.traffic_gen.PacketFormat`.
    Raises
    ------
    DeadlockError
        If the router configuration can deadlock (see :class:`~cubefab.hdl.fabric.Fabric`).

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
                 timestamp_bits=16, sequence_bits=8, vcs_per_class=1):
        if not isinstance(topology, Topology):
            raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
        self.config = FabricConfig.for_topology(
            topology, payload_width=payload_width, vcs=vcs, depth=depth,
            algorithm=algorithm, vcs_per_class=vcs_per_class)
        self.topology, self.layout = topology, self.config.router.layout
        self.fmt = PacketFormat(self.layout, packet_flits,
                                timestamp_bits=timestamp_bits, sequence_bits=sequence_bits)
        # The strapped node design: checks the generator and router parameters here
        # rather than in elaborate(); elaborated only by node_verilog().
        self.node_design = self._node(None, pattern, hotspot, queue_depth)
        for design in (self.node_design, self.node_design.router,
                       self.node_design.generator, self.node_design.checker):
            design._MustUse__silence = True
        self.pattern, self.hotspot = pattern, hotspot
        self.queue_depth = check_int("Queue depth", queue_depth, 1)
        members = {"seed": In(32), "threshold": In(RATE_BITS + 1),
                   "hot_threshold": In(RATE_BITS)}
        for name in COUNTERS:
            members[name] = Out(COUNTER_BITS)
        members["latency_sum"] = Out(64)
        for b in range(timestamp_bits):
            members[f"hist_{b}"] = Out(COUNTER_BITS)
        super().__init__(members)

    def _node(self, node, pattern, hotspot, queue_depth):
        return SelfCheckingNode(
            self.topology, node, self.fmt, pattern=pattern, hotspot=hotspot,
            queue_depth=queue_depth,
            router_config=self.config.router)

    @property
    def histogram_buckets(self):
        """Number of latency histogram buckets (``timestamp_bits``)."""
        return self.fmt.timestamp_bits

    def node_verilog(self):
        """Verilog of the address-strapped node, module :data:`NODE_MODULE`: ports
        ``clk`` (no reset: registers start at their ``init`` values, as this fabric's
        do from power-up), ``straps`` (held at the node's
        :meth:`~cubefab.hdl.selfcheck_node.SelfCheckingNode.strap_values`) and the
        members of :class:`~cubefab.hdl.selfcheck_node.SelfCheckingNode`. Node ``i``
        of this fabric is that module strapped to ``i``, with ``now`` the low bits of
        ``cycles`` and its links wired as :func:`~cubefab.hdl.fabric.connect_links`
        wires them; for simulation."""
        return reset_less_verilog(self.node_design, NODE_MODULE)

    def elaborate(self, platform):
        m = Module()
        topo, fmt = self.topology, self.fmt
        now = Signal(fmt.timestamp_bits)
        m.d.comb += now.eq(self.cycles[:fmt.timestamp_bits])
        m.d.sync += self.cycles.eq(self.cycles + 1)

        nodes = []
        for address in (int(a) for a in topo.nodes()):
            node = m.submodules[f"node_{address}"] = self._node(
                address, self.pattern, self.hotspot, self.queue_depth)
            m.d.comb += [node.seed.eq(self.seed), node.threshold.eq(self.threshold),
                         node.hot_threshold.eq(self.hot_threshold), node.now.eq(now)]
            nodes.append(node)
        connect_links(m, topo, nodes)

        # Global totals: add this cycle's events of every node (adder trees).
        for name in NODE_EVENTS:
            counter = getattr(self, name)
            m.d.sync += counter.eq(counter + _tree_sum(getattr(n, name) for n in nodes))
        m.d.sync += self.latency_sum.eq(self.latency_sum + _tree_sum(n.latency for n in nodes))
        for b in range(fmt.timestamp_bits):
            counter = getattr(self, f"hist_{b}")
            m.d.sync += counter.eq(counter + _tree_sum(n.bucket[b] for n in nodes))
        return m
