"""A fabric with an AXI4-Stream endpoint at every node."""

from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..config import FabricConfig
from ..fabric import Fabric
from .eject import EndpointEject
from .inject import EndpointInject
from .message import MessageFormat, axis_in_layout, axis_out_layout


__all__ = ["EndpointFabric"]


class EndpointFabric(wiring.Component):
    """A :class:`~cubefab.hdl.fabric.Fabric` whose nodes speak AXI4-Stream: an
    :class:`EndpointInject` on every ``local_in`` and an :class:`EndpointEject` on
    every ``local_out``.

    Parameters
    ----------
    config : FabricConfig
        The fabric (deterministic or adaptive routing: see :class:`MessageFormat`;
        with adaptive routing each node's ejection side passes acknowledgements to
        its injection side).
    data_width : int
        ``tdata`` bits (8 to 512, whole bytes).
    max_beats : int
        The longest message in beats; longer ones are dropped at their source.
    counter_width : int
        Width of each ``dropped`` counter (default 16).
    window : int
        With adaptive routing: unacknowledged messages per destination (default 1;
        see :class:`MessageFormat`).

    Members
    -------
    s_axis : In(stream.Signature(axis_in_layout(...))).array(num_nodes)
        Messages sent by each node (dense index order): ``data``, ``last``, ``dest``.
    m_axis : Out(stream.Signature(axis_out_layout(...))).array(num_nodes)
        Messages received by each node: ``data``, ``last``, ``id`` (the source).
    dropped : Out(counter_width).array(num_nodes)
        Messages each node dropped (too long, or ``dest`` not a node).
    """

    def __init__(self, config, data_width, max_beats, *, counter_width=16, window=1):
        if not isinstance(config, FabricConfig):
            raise TypeError(f"Fabric configuration must be a FabricConfig, not {config!r}")
        #: MessageFormat: the messages' packets
        self.fmt = MessageFormat(config.router, data_width, max_beats, window=window)
        self.config = config
        self.topology = config.topology
        self.fabric = Fabric(config)
        self.injectors = [EndpointInject(self.fmt, int(a), counter_width=counter_width)
                          for a in self.topology.nodes()]
        self.ejectors = [EndpointEject(self.fmt) for _ in self.injectors]
        n, bits = self.topology.num_nodes, self.topology.address_bits
        super().__init__({
            "s_axis": In(stream.Signature(axis_in_layout(data_width, bits))).array(n),
            "m_axis": Out(stream.Signature(axis_out_layout(data_width, bits))).array(n),
            "dropped": Out(counter_width).array(n),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.fabric = fabric = self.fabric
        for i, node in enumerate(int(a) for a in self.topology.nodes()):
            inject = m.submodules[f"inject_{node}"] = self.injectors[i]
            eject = m.submodules[f"eject_{node}"] = self.ejectors[i]
            wiring.connect(m, wiring.flipped(self.s_axis[i]), inject.axis)
            wiring.connect(m, inject.local_in, fabric.local_in[i])
            wiring.connect(m, fabric.local_out[i], eject.local_out)
            wiring.connect(m, eject.axis, wiring.flipped(self.m_axis[i]))
            m.d.comb += self.dropped[i].eq(inject.dropped)
            if self.fmt.acknowledged:
                wiring.connect(m, eject.acked, inject.acked)
                wiring.connect(m, eject.owed, inject.owed)
        return m
