"""A fabric with an AXI4-Stream endpoint at every node."""

import dataclasses

from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..config import FabricConfig
from ..fabric import Fabric
from .eject import ejection_side
from .inject import EndpointInject, injection_side
from .message import MessageFormat, axis_in_layout, axis_out_layout
from .reorder import ReorderBuffer


__all__ = ["EndpointFabric", "endpoint_block_rams", "routers_budget"]


def endpoint_block_rams(fmt):
    """int: ``SB_RAM40_4K`` block RAMs of one node's endpoints of ``fmt``: the
    injection side's message store and (a window over 1) the ejection side's reorder
    buffer."""
    return EndpointInject.store_block_rams(fmt) + ReorderBuffer.block_rams(fmt)


def routers_budget(config, fmt):
    """``config`` (a :class:`FabricConfig`) with its routers' ``block_ram_budget``
    less the block RAMs of an endpoint of ``fmt`` at every node
    (:func:`endpoint_block_rams`), so that the ``"auto"`` buffer rule keeps the
    routers' buffers in block RAM only when routers and endpoints fit together;
    ``config`` itself when the buffers were chosen by hand."""
    router = config.router
    if not router.buffer_auto:
        return config
    left = max(0, router.block_ram_budget
               - config.topology.num_nodes * endpoint_block_rams(fmt))
    return dataclasses.replace(
        config, router=dataclasses.replace(router, block_ram_budget=left))


class EndpointFabric(wiring.Component):
    """A :class:`~cubefab.hdl.fabric.Fabric` whose nodes speak AXI4-Stream: an
    :class:`EndpointInject` on every ``local_in`` and an :class:`EndpointEject` on
    every ``local_out``.

    Parameters
    ----------
    config : FabricConfig
        The fabric (deterministic or adaptive routing: see :class:`MessageFormat`;
        with adaptive routing each node's ejection side passes acknowledgements to
        its injection side). Routers whose buffers the ``"auto"`` rule chooses keep
        them in block RAM only when the endpoints leave enough
        (:func:`routers_budget`).
    data_width : int
        ``tdata`` bits (8 to 512, whole bytes).
    max_beats : int
        The longest message in beats; longer ones are dropped at their source.
    counter_width : int
        Width of each ``dropped`` counter (default 16).
    window : int
        With adaptive routing: unacknowledged messages per destination (default 1;
        see :class:`MessageFormat`).
    packing : str
        How beats are cut into flits (default ``"auto"``; see :class:`MessageFormat`).

    Members
    -------
    s_axis : In(stream.Signature(axis_in_layout(...))).array(num_nodes)
        Messages sent by each node (dense index order): ``data``, ``last``, ``dest``.
    m_axis : Out(stream.Signature(axis_out_layout(...))).array(num_nodes)
        Messages received by each node: ``data``, ``last``, ``id`` (the source).
    dropped : Out(counter_width).array(num_nodes)
        Messages each node dropped (too long, or ``dest`` not a node).
    """

    def __init__(self, config, data_width, max_beats, *, counter_width=16, window=1,
                 packing="auto"):
        if not isinstance(config, FabricConfig):
            raise TypeError(f"Fabric configuration must be a FabricConfig, not {config!r}")
        config = routers_budget(config, MessageFormat(config.router, data_width, max_beats,
                                                      window=window, packing=packing))
        #: MessageFormat: the messages' packets
        self.fmt = MessageFormat(config.router, data_width, max_beats, window=window,
                                 packing=packing)
        #: FabricConfig: the fabric's (:func:`routers_budget` of the one given)
        self.config = config
        self.topology = config.topology
        self.fabric = Fabric(config)
        self.injectors = [injection_side(self.fmt, int(a), counter_width=counter_width)
                          for a in self.topology.nodes()]
        self.ejectors = [ejection_side(self.fmt) for _ in self.injectors]
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
