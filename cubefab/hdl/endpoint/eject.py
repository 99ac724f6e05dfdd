"""The ejection side of an AXI4-Stream endpoint: packets in, messages out."""

from amaranth.hdl import C, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from .message import MessageFormat, axis_out_layout
from .reorder import ReorderBuffer


__all__ = ["EndpointEject"]


class EndpointEject(wiring.Component):
    """AXI4-Stream master presenting each packet of ``local_out`` as one message.

    The router's ``local_out`` delivers a packet's flits consecutively, never
    interleaved with another packet's (:class:`~cubefab.hdl.router.Router`), so a
    message streams through a shift register of about a flit and two beats (no
    reassembly buffer): a beat is presented as soon as its bits have arrived,
    ``tlast`` on the message's last one, ``tid`` the packet's ``src``; the padding
    of the tail flit is dropped. A flit is taken every cycle while the sink takes a
    beat every cycle, and the next packet's head is taken as soon as the tail before
    it is in (into a register of its own), so that the next message's first beat
    follows the last one without a gap. With a window of several unacknowledged
    messages per destination (``fmt.window`` over 1, adaptive routing) the packets
    pass through a :class:`ReorderBuffer` first, which hands them over in the order
    their source numbered them.

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
        Acknowledgements are taken whenever they come.
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

    @property
    def _message(self):
        """The layout of a message's state: its bits not yet presented (``buf``, of
        which ``n``), whether its tail flit is in, its source, and the beats left
        (with a count field)."""
        fmt = self.fmt
        width, body_bits = fmt.data_width, fmt.body_bits
        # room for a body flit whenever fewer bits than that are left after the
        # beats a cycle can take: flits enter every cycle while the sink takes a beat
        # a cycle (whichever of the two carries fewer bits sets the pace)
        size = body_bits + width + min(body_bits, width) - 1
        return data.StructLayout({"buf": size, "n": range(size + 1), "active": 1,
                                  "tail_seen": 1, "src": fmt.address_bits,
                                  "beats_left": range(fmt.max_beats + 1)})

    def elaborate(self, platform):
        m = Module()
        now = Signal(self._message)        # this cycle's message (the registers)
        ahead = Signal(self._message)      # the next packet's head, taken early
        done, after = self._present(m, now, ahead)
        source = self.local_out
        if self.fmt.window > 1:
            m.submodules.reorder = reorder = ReorderBuffer(self.fmt)
            wiring.connect(m, wiring.flipped(self.local_out), reorder.network)
            wiring.connect(m, reorder.acked, wiring.flipped(self.acked))
            source = reorder.flits
        self._receive(m, now, ahead, done, after, source)
        if self.fmt.acknowledged:
            m.d.comb += [self.owed.valid.eq(done), self.owed.payload.eq(now.src)]
        return m

    def _present(self, m, now, ahead):
        """Present the beat at the bottom of ``now.buf``. Returns ``(done, after)``:
        whether the message's last beat leaves in this cycle, and the message state
        after this cycle's beat (the head taken ahead, once the last beat left)."""
        fmt, axis = self.fmt, self.axis
        width = fmt.data_width
        last = ((now.beats_left == 1) if fmt.count_width
                else (now.tail_seen & (now.n < 2 * width)))
        m.d.comb += [axis.valid.eq(now.active & (now.n >= width)),
                     axis.payload.data.eq(now.buf[:width]), axis.payload.last.eq(last),
                     axis.payload.id.eq(now.src)]
        beat = axis.valid & axis.ready
        done = beat & last
        after = Signal(self._message)
        m.d.comb += after.eq(now)
        with m.If(done):
            m.d.comb += after.eq(ahead)
        with m.Elif(beat):
            m.d.comb += [after.buf.eq(now.buf >> width), after.n.eq(now.n - width)]
            if fmt.count_width:
                m.d.comb += after.beats_left.eq(now.beats_left - 1)
        with m.If(done):
            m.d.sync += ahead.active.eq(0)
        return done, after

    def _receive(self, m, now, ahead, done, after, source):
        """Take the flit of ``source`` (``local_out``, or the reorder buffer's
        ``flits``) into the message after this cycle's beat (a body flit, or a head
        when no message is left), or a head into ``ahead`` once the current message's
        tail is in; take every acknowledgement (``local_out``'s)."""
        fmt = self.fmt
        head_bits, body_bits, prefix = fmt.head_bits, fmt.body_bits, fmt.prefix_width
        flit = data.View(fmt.layout, source.payload)
        body = data.View(fmt.layout.body, source.payload.as_value())
        body_data = (body.data if fmt.layout.header == "head" else flit.payload)[:body_bits]
        is_ack = flit.payload[0] if fmt.kind_width and source is self.local_out else C(0, 1)
        size = len(now.buf)
        head = Signal(self._message)       # the state a head flit starts
        m.d.comb += [head.active.eq(1), head.tail_seen.eq(flit.tail), head.src.eq(flit.src),
                     head.buf.eq(flit.payload[prefix:head_bits]),
                     head.n.eq(head_bits - prefix)]
        if fmt.count_width:
            m.d.comb += head.beats_left.eq(
                flit.payload[fmt.tag_width:fmt.tag_width + fmt.count_width] + 1)
        grows = after.active & ~after.tail_seen & (after.n <= size - body_bits)
        starts = ~after.active
        # (the slot ahead is free once its head moved into the message)
        early = after.active & after.tail_seen & (done | ~ahead.active)
        with m.If(flit.head):
            m.d.comb += source.ready.eq(is_ack | starts | early)
        with m.Else():
            m.d.comb += source.ready.eq(grows)
        taken = source.valid & source.ready
        if fmt.acknowledged and source is self.local_out:
            m.d.comb += [self.acked.valid.eq(taken & flit.head & is_ack),
                         self.acked.payload.eq(flit.src)]
        m.d.sync += now.eq(after)
        with m.If(taken & ~(flit.head & is_ack)):
            with m.If(~flit.head):
                m.d.sync += [now.buf.eq(after.buf | (body_data << after.n)),
                             now.n.eq(after.n + body_bits), now.tail_seen.eq(flit.tail)]
            with m.Elif(starts):
                m.d.sync += now.eq(head)
            with m.Else():
                m.d.sync += ahead.eq(head)
