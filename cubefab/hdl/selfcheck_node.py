"""One node of a self-checking fabric: router, traffic generator and checker."""

from amaranth.hdl import Module, Mux
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from .flit import LinkSignature
from .router import Router
from .traffic_check import TrafficChecker
from .traffic_gen import PacketFormat, RATE_BITS, TrafficGenerator


__all__ = ["SelfCheckingNode", "NODE_EVENTS"]


#: One-cycle event outputs of a node, summed into the fabric's counters.
NODE_EVENTS = ("created", "refused", "injected", "injected_flits", "delivered",
               "delivered_flits", "errors")


class SelfCheckingNode(wiring.Component):
    """A router with a :class:`~cubefab.hdl.traffic_gen.TrafficGenerator` on its
    injection port and a :class:`~cubefab.hdl.traffic_check.TrafficChecker` on its
    ejection port.

    Parameters
    ----------
    topology : Topology
    node : int or None
        This node's address, or ``None`` for the address-strapped node: every
        node-dependent constant comes from the ``straps`` input, so one design
        (compiled once by Verilator or synthesis) serves every node of a fabric.
    fmt : PacketFormat
    pattern, hotspot, queue_depth
        Generator parameters (see :class:`~cubefab.hdl.traffic_gen.TrafficGenerator`).
    router_config : RouterConfig
        The router's configuration (:class:`~cubefab.hdl.config.RouterConfig`), for
        ``topology`` and matching ``fmt.layout``.

    Members
    -------
    seed, threshold, hot_threshold, now : In
        Run settings and the current cycle, shared by every node.
    link_in, link_out
        The router's network ports.
    straps : In(strap_layout)
        Only when ``node`` is ``None``: held at :meth:`strap_values` of a node.
    created, refused, injected, injected_flits, delivered, delivered_flits, errors : Out(1)
        This cycle's events (see :class:`~cubefab.hdl.selfcheck.SelfCheckingFabric`).
    latency : Out(timestamp_bits)
        Latency of the packet delivered this cycle, 0 when none.
    bucket : Out(timestamp_bits)
        One-hot latency histogram bucket of the packet delivered this cycle (bit
        ``b``: latency in ``[2**b, 2**(b+1))``, bit 0 also for latency 0), 0 when none.
    """

    def __init__(self, topology, node, fmt, *, pattern="uniform", hotspot=None,
                 queue_depth=16, router_config):
        if not isinstance(fmt, PacketFormat):
            raise TypeError(f"Format must be a PacketFormat, not {fmt!r}")
        self.topology = topology
        self.fmt = fmt
        self.router = Router(router_config, node)
        self.node = self.router.node
        if self.router.layout != fmt.layout:
            raise ValueError("Router parameters must give the packet format's flit layout")
        self.generator = TrafficGenerator(topology, node, fmt, pattern, hotspot=hotspot,
                                          queue_depth=queue_depth)
        self.checker = TrafficChecker(topology, node, fmt)
        layout = self.router.layout
        ts_bits = fmt.timestamp_bits
        #: Layout of the node-dependent constants of a strapped node.
        self.strap_layout = data.StructLayout({
            "generator": self.generator.strap_layout,
            "wrap_mask": topology.degree,
        })
        members = {
            "seed": In(32), "threshold": In(RATE_BITS + 1), "hot_threshold": In(RATE_BITS),
            "now": In(ts_bits),
            "link_in": In(LinkSignature(layout)).array(topology.degree),
            "link_out": Out(LinkSignature(layout)).array(topology.degree),
        }
        if self.node is None:
            members["straps"] = In(self.strap_layout)
        for name in NODE_EVENTS:
            members[name] = Out(1)
        members["latency"] = Out(ts_bits)
        members["bucket"] = Out(ts_bits)
        super().__init__(members)

    def strap_values(self, node):
        """The ``straps`` value (a dict) that makes a strapped node the node ``node``."""
        router = Router.strap_values(self.topology, node)
        return {"generator": self.generator.strap_values(node),
                "wrap_mask": router["wrap_mask"]}

    def elaborate(self, platform):
        m = Module()
        fmt = self.fmt
        router = m.submodules.router = self.router
        gen = m.submodules.generator = self.generator
        chk = m.submodules.checker = self.checker
        if self.node is None:
            here = self.straps.generator.here
            m.d.comb += [router.here.eq(here), router.wrap_mask.eq(self.straps.wrap_mask),
                         gen.straps.eq(self.straps.generator), chk.here.eq(here)]
        for p in range(self.topology.degree):
            wiring.connect(m, wiring.flipped(self.link_in[p]), router.link_in[p])
            wiring.connect(m, router.link_out[p], wiring.flipped(self.link_out[p]))
        wiring.connect(m, gen.flits, router.local_in)
        wiring.connect(m, router.local_out, chk.flits)
        m.d.comb += [gen.seed.eq(self.seed), gen.threshold.eq(self.threshold),
                     gen.hot_threshold.eq(self.hot_threshold), gen.now.eq(self.now),
                     chk.now.eq(self.now)]
        m.d.comb += [self.created.eq(gen.created), self.refused.eq(gen.refused),
                     self.injected.eq(gen.injected), self.injected_flits.eq(gen.flit_sent),
                     self.delivered.eq(chk.delivered),
                     self.delivered_flits.eq(chk.flit_received), self.errors.eq(chk.error),
                     self.latency.eq(Mux(chk.delivered, chk.latency, 0))]
        # Histogram bucket: the position of the latency's leading one (0 -> bucket 0).
        for b in range(fmt.timestamp_bits):
            low = 0 if b == 0 else 1 << b
            m.d.comb += self.bucket[b].eq(chk.delivered & (chk.latency >= low)
                                          & (chk.latency < (1 << (b + 1))))
        return m
