"""Verilog of an :class:`~cubefab.hdl.endpoint.EndpointFabric` with the AXI4-Stream
port names of Vivado's IP integrator and cocotb's bus helpers.

The top module's ports are exactly ``aclk``, ``aresetn`` (active low, synchronous)
and, for every node ``n`` (its decimal address), ``s_axis_n{n}_tdata``, ``_tvalid``,
``_tready``, ``_tlast``, ``_tdest``; ``m_axis_n{n}_tdata``, ``_tvalid``, ``_tready``,
``_tlast``, ``_tid``; and ``dropped_n{n}`` (docs/endpoints.md).
"""

from amaranth.hdl import ClockDomain, Module, Signal

from ..hdl.emit import emit_verilog
from ..hdl.endpoint import EndpointFabric


__all__ = ["axi_stream_ports", "axi_stream_verilog"]


#: The AXI4-Stream signals of each side, by the ``lib.stream`` member they carry.
_SLAVE = (("tdata", "data"), ("tvalid", None), ("tready", None), ("tlast", "last"),
          ("tdest", "dest"))
_MASTER = (("tdata", "data"), ("tvalid", None), ("tready", None), ("tlast", "last"),
           ("tid", "id"))


def _member(stream, signal, field):
    if field is not None:
        return getattr(stream.payload, field)
    return stream.valid if signal == "tvalid" else stream.ready


def axi_stream_ports(fabric, m):
    """Wire the ports of the top module to ``fabric`` in ``m`` and return them in
    order: ``aclk``, ``aresetn``, then per node its slave, master and ``dropped``
    signals (the ports' Verilog names are these signals' names)."""
    if not isinstance(fabric, EndpointFabric):
        raise TypeError(f"Fabric must be an EndpointFabric, not {fabric!r}")
    aclk, aresetn = Signal(name="aclk"), Signal(name="aresetn")
    m.domains.sync = sync = ClockDomain("sync")
    m.d.comb += [sync.clk.eq(aclk), sync.rst.eq(~aresetn)]
    ports = [aclk, aresetn]
    for i, node in enumerate(int(a) for a in fabric.topology.nodes()):
        for prefix, stream, signals, inward in (
                ("s_axis", fabric.s_axis[i], _SLAVE, True),
                ("m_axis", fabric.m_axis[i], _MASTER, False)):
            for signal, field in signals:
                inner = _member(stream, signal, field)
                port = Signal(len(inner), name=f"{prefix}_n{node}_{signal}")
                driven_in = inward != (signal == "tready")
                m.d.comb += inner.eq(port) if driven_in else port.eq(inner)
                ports.append(port)
        dropped = Signal(len(fabric.dropped[i]), name=f"dropped_n{node}")
        m.d.comb += dropped.eq(fabric.dropped[i])
        ports.append(dropped)
    return ports


def axi_stream_verilog(fabric, name="top"):
    """Verilog of ``fabric`` (an EndpointFabric) as top module ``name`` with the
    AXI4-Stream ports of :func:`axi_stream_ports`."""
    m = Module()
    m.submodules.fabric = fabric
    ports = axi_stream_ports(fabric, m)
    return emit_verilog(m, name, ports,
                        made_by=f"cubefab.build.axi_stream.axi_stream_verilog(EndpointFabric(...), {name!r})")
