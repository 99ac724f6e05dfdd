"""The ejection side of an AXI4-Stream endpoint: packets in, messages out."""

from amaranth.hdl import C, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from .message import MessageFormat, axis_out_layout


__all__ = ["EndpointEject"]


class EndpointEject(wiring.Component):
    """AXI4-Stream master presenting each packet of ``local_out`` as one message.

    The router's ``local_out`` delivers a packet's flits consecutively, never
    interleaved with another packet's (:class:`~cubefab.hdl.router.Router`), so a
    message streams through a shift register of a flit and a beat (no reassembly
    buffer): a beat is presented as soon as its bits have arrived, ``tlast`` on the
    message's last one, ``tid`` the packet's ``src``; the padding of the tail flit
    is dropped. The head of the next packet is taken in the cycle the last beat
    leaves.

    Parameters
    ----------
    fmt : MessageFormat
        The message format.

    Members
    -------
    local_out : In(stream.Signature(layout))
        Packets from the router's ``local_out``.
    axis : Out(stream.Signature(axis_out_layout(data_width, address_bits)))
        The messages: ``data`` (``tdata``), ``last`` (``tlast``), ``id`` (``tid``:
        the source node's address).
    acked : Out(stream.Signature(address_bits, always_ready=True))
        Only with ``fmt.acknowledged``: an acknowledgement from node ``payload``
        arrived (for this node's :class:`EndpointInject`; it is not presented).
    owed : Out(stream.Signature(address_bits, always_ready=True))
        Only with ``fmt.acknowledged``: the last beat of a message from node
        ``payload`` left; this node's :class:`EndpointInject` acknowledges it.
    """

    def __init__(self, fmt):
        if not isinstance(fmt, MessageFormat):
            raise TypeError(f"Message format must be a MessageFormat, not {fmt!r}")
        self.fmt = fmt
        members = {
            "local_out": In(stream.Signature(fmt.layout)),
            "axis": Out(stream.Signature(axis_out_layout(fmt.data_width,
                                                        fmt.address_bits))),
        }
        if fmt.acknowledged:
            members["acked"] = Out(stream.Signature(fmt.address_bits, always_ready=True))
            members["owed"] = Out(stream.Signature(fmt.address_bits, always_ready=True))
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        fmt = self.fmt
        width, head_bits, body_bits, count_width, kind_width = (
            fmt.data_width, fmt.head_bits, fmt.body_bits, fmt.count_width, fmt.kind_width)
        prefix = fmt.prefix_width
        size = body_bits + width
        buf = Signal(size)
        n = Signal(range(size + 1))
        active, tail_seen = Signal(), Signal()
        src = Signal(fmt.address_bits)
        beats_left = Signal(range(fmt.max_beats + 1))
        axis = self.axis
        last = (beats_left == 1) if count_width else (tail_seen & (n < 2 * width))
        m.d.comb += [axis.valid.eq(active & (n >= width)),
                     axis.payload.data.eq(buf[:width]), axis.payload.last.eq(last),
                     axis.payload.id.eq(src)]
        beat = axis.valid & axis.ready
        done = beat & last
        n_after = Signal.like(n)
        m.d.comb += n_after.eq(Mux(done, 0, Mux(beat, n - width, n)))
        buf_after = Mux(beat, buf >> width, buf)
        flit = data.View(fmt.layout, self.local_out.payload)
        body = data.View(fmt.layout.body, self.local_out.payload.as_value())
        body_data = body.data if fmt.layout.header == "head" else flit.payload
        m.d.comb += self.local_out.ready.eq(
            ~active | done | (~tail_seen & (n <= size - body_bits)))
        m.d.sync += [buf.eq(buf_after), n.eq(n_after)]
        if count_width:
            with m.If(beat):
                m.d.sync += beats_left.eq(beats_left - 1)
        with m.If(done):
            m.d.sync += active.eq(0)
        is_ack = flit.payload[0] if kind_width else C(0, 1)
        taken = self.local_out.valid & self.local_out.ready
        if fmt.acknowledged:
            m.d.comb += [self.acked.valid.eq(taken & flit.head & is_ack),
                         self.acked.payload.eq(flit.src),
                         self.owed.valid.eq(done), self.owed.payload.eq(src)]
        with m.If(taken & ~(flit.head & is_ack)):
            m.d.sync += tail_seen.eq(flit.tail)
            with m.If(flit.head):
                m.d.sync += [active.eq(1), src.eq(flit.src),
                             buf.eq(flit.payload[prefix:]),
                             n.eq(head_bits - prefix)]
                if count_width:
                    m.d.sync += beats_left.eq(
                        flit.payload[kind_width:kind_width + count_width] + 1)
            with m.Else():
                m.d.sync += [buf.eq(buf_after | (body_data << n_after)),
                             n.eq(n_after + body_bits)]
        return m
