"""The ejection side of an AXI4-Stream endpoint: packets in, messages out."""

import math

from amaranth.hdl import Array, C, Cat, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from .message import MessageFormat, axis_out_layout
from .reorder import ReorderBuffer
from .skid import SkidBuffer


__all__ = ["EndpointEject", "AlignedEject", "ejection_side"]


class EndpointEject(wiring.Component):
    """AXI4-Stream master presenting each packet of ``local_out`` as one message.

    The router's ``local_out`` delivers a packet's flits consecutively, never
    interleaved with another packet's (:class:`~cubefab.hdl.router.Router`), so a
    message streams through a ring of a few body flits (no reassembly buffer): each
    flit is written whole into the next slot (a head's data bits at the end of slot
    0, so that every message starts at the same place) and a beat is read from one
    of the few positions a beat can start at (the ring holds a whole number of beats
    where that costs least). A beat is presented as soon as its bits have arrived,
    ``tlast`` on the message's last one, ``tid`` the packet's ``src``; the padding
    of the tail flit is dropped. A flit is taken every cycle while the sink takes a
    beat every cycle, and the next packet's head is taken as soon as the tail before
    it is in (into a register of its own), so that the next message's first beat
    follows the last one without a gap. ``local_out.ready`` is a register: the
    flits pass through a :class:`SkidBuffer` first, which holds a flit that the ring
    cannot take in its cycle (and only then refuses the next), so that no
    combinational path runs from ``axis.ready`` or this cycle's beat to the router,
    and the pace above is kept. With a window of several unacknowledged messages per
    destination (``fmt.window`` over 1, adaptive routing) the packets then pass
    through a :class:`ReorderBuffer`, which hands them over in the order their
    source numbered them.

    Parameters
    ----------
    fmt : MessageFormat
        The message format.

    Members
    -------
    local_out : In(stream.Signature(layout))
        Packets from the router's ``local_out``; ``ready`` is high exactly when the
        skid buffer holds no flit (a register).
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
    def _limit(self):
        """int: the most bits a message may have waiting: a body flit is taken while
        at most ``limit - body_bits`` wait after this cycle's beat, so that flits
        enter every cycle while the sink takes a beat a cycle (whichever of the two
        carries fewer bits sets the pace)."""
        width, body_bits = self.fmt.data_width, self.fmt.body_bits
        return body_bits + width + min(body_bits, width) - 1

    @property
    def _start(self):
        """int: where a message's first data bit is in the ring: the head's data
        bits end with slot 0."""
        fmt = self.fmt
        return fmt.body_bits - (fmt.head_bits - fmt.prefix_width)

    @property
    def _slots(self):
        """int: slots of ``body_bits`` bits in the ring, the fewest for which the
        beat mux is smallest (each beat starts at one of :attr:`_positions`) and a
        body flit always finds a free slot when the waiting bits allow it
        (:attr:`_limit`)."""
        fmt = self.fmt
        width, body_bits = fmt.data_width, fmt.body_bits
        step = math.gcd(body_bits, fmt.head_bits - fmt.prefix_width, width)
        waiting = (self._limit - body_bits) // step * step     # before a body flit enters
        least = -(-(body_bits - step + waiting) // body_bits) + 1
        cycle = math.lcm(body_bits, width) // body_bits

        def cost(slots):                    # flip-flops and beat mux inputs
            bits = slots * body_bits
            return bits + 2 * width * (bits // math.gcd(bits, width) - 1)
        return min(range(least, least + cycle), key=cost)

    @property
    def _positions(self):
        """list of int: the ring positions a beat starts at: the message's first bit,
        then every ``data_width`` bits round the ring."""
        bits = self._slots * self.fmt.body_bits
        count = bits // math.gcd(bits, self.fmt.data_width)
        return [(self._start + i * self.fmt.data_width) % bits for i in range(count)]

    @property
    def _message(self):
        """The layout of a message's state: the bits not yet presented (``n``),
        whether its tail flit is in, its source, the beats left (with a count field),
        the position of its next beat (``read``, an index into :attr:`_positions`)
        and the slot of its next body flit (``write``)."""
        fmt = self.fmt
        return data.StructLayout({"n": range(self._limit + 1), "active": 1,
                                  "tail_seen": 1, "src": fmt.address_bits,
                                  "beats_left": range(fmt.max_beats + 1),
                                  "read": range(len(self._positions)),
                                  "write": range(self._slots)})

    def elaborate(self, platform):
        m = Module()
        ring = [Signal(self.fmt.body_bits, name=f"slot_{k}") for k in range(self._slots)]
        now = Signal(self._message)        # this cycle's message (the registers)
        ahead = Signal(self._message)      # the next packet's head, taken early
        ahead_bits = Signal(self.fmt.body_bits)   # its data bits, as slot 0 holds them
        done, after = self._present(m, ring, now, ahead)
        self._receive(m, ring, now, ahead, ahead_bits, done, after, self._flits(m))
        if self.fmt.acknowledged:
            m.d.comb += [self.owed.valid.eq(done), self.owed.payload.eq(now.src)]
        return m

    def _flits(self, m):
        """The skid buffer (and, with a window over 1, the reorder buffer) in front;
        returns the stream of flits they pass on."""
        m.submodules.skid = skid = SkidBuffer(self.fmt.layout)
        wiring.connect(m, wiring.flipped(self.local_out), skid.w_stream)
        if self.fmt.window == 1:
            return skid.r_stream
        m.submodules.reorder = reorder = ReorderBuffer(self.fmt)
        wiring.connect(m, skid.r_stream, reorder.network)
        wiring.connect(m, reorder.acked, wiring.flipped(self.acked))
        return reorder.flits

    @property
    def _beat_taken(self):
        """Whether the sink takes a beat in this cycle."""
        return self.axis.valid & self.axis.ready

    def _beat(self, ring, read):
        """The ``data_width`` bits of ``ring`` from position :attr:`_positions`
        [``read``] on (round the ring)."""
        width, bits = self.fmt.data_width, Cat(*ring)
        beats = [Cat(bits, bits)[at:at + width] for at in self._positions]
        return Array(beats)[read] if len(beats) > 1 else beats[0]

    def _present(self, m, ring, now, ahead):
        """Present the beat at ``now.read``. Returns ``(done, after)``: whether the
        message's last beat leaves in this cycle, and the message state after this
        cycle's beat (the head taken ahead, once the last beat left)."""
        fmt, axis = self.fmt, self.axis
        width = fmt.data_width
        last = ((now.beats_left == 1) if fmt.count_width
                else (now.tail_seen & (now.n < 2 * width)))
        m.d.comb += [axis.valid.eq(now.active & (now.n >= width)),
                     axis.payload.data.eq(self._beat(ring, now.read)),
                     axis.payload.last.eq(last), axis.payload.id.eq(now.src)]
        beat = self._beat_taken
        done = beat & last
        after = Signal(self._message)
        m.d.comb += after.eq(now)
        with m.If(done):
            m.d.comb += after.eq(ahead)
        with m.Elif(beat):
            m.d.comb += [after.n.eq(now.n - width),
                         after.read.eq(_next(now.read, len(self._positions)))]
            if fmt.count_width:
                m.d.comb += after.beats_left.eq(now.beats_left - 1)
        with m.If(done):
            m.d.sync += ahead.active.eq(0)
        return done, after

    def _room(self, now, ahead, done):
        """Whether the message after this cycle's beat takes a body flit (``grows``),
        has ended (``starts``: a head starts the next in slot 0) or has its tail in
        with the slot ahead free (``early``: a head goes ahead; the slot is free once
        its head moved into the message). Each is decided from the registers of
        ``now`` and ``ahead`` for the three cases (last beat, other beat, none), and
        this cycle's beat only picks one, last, so that its path is short."""
        width, room = self.fmt.data_width, self._limit - self.fmt.body_bits
        beat = self._beat_taken
        grows = Mux(done, ahead.active & ~ahead.tail_seen & (ahead.n <= room),
                    now.active & ~now.tail_seen
                    & Mux(beat, now.n <= room + width, now.n <= room))
        starts = Mux(done, ~ahead.active, ~now.active)
        early = Mux(done, ahead.active & ahead.tail_seen,
                    now.active & now.tail_seen & ~ahead.active)
        return grows, starts, early

    def _grown(self, now, ahead, done):
        """The bits waiting after this cycle's beat and a body flit: as
        :meth:`_room`, a sum per case, picked by this cycle's beat."""
        width, body_bits = self.fmt.data_width, self.fmt.body_bits
        beat = self._beat_taken
        return Mux(done, ahead.n + body_bits,
                   Mux(beat, now.n + body_bits - width, now.n + body_bits))

    def _receive(self, m, ring, now, ahead, ahead_bits, done, after, source):
        """Take the flit of ``source`` (the skid buffer's ``r_stream``, or the
        reorder buffer's ``flits``) into the message after this cycle's beat (a body
        flit into slot ``after.write``, or a head into slot 0 when no message is
        left), or a head into ``ahead`` once the current message's tail is in (it moves into slot 0
        when the last beat leaves); take every acknowledgement (with a window of 1)."""
        fmt = self.fmt
        head_bits, body_bits, prefix = fmt.head_bits, fmt.body_bits, fmt.prefix_width
        flit = data.View(fmt.layout, source.payload)
        body = data.View(fmt.layout.body, source.payload.as_value())
        body_data = (body.data if fmt.layout.header == "head" else flit.payload)[:body_bits]
        head_data = Cat(C(0, self._start), flit.payload[prefix:head_bits])
        acks = fmt.kind_width and fmt.window == 1   # (else the reorder buffer takes them)
        is_ack = flit.payload[0] if acks else C(0, 1)
        head = Signal(self._message)       # the state a head flit starts
        m.d.comb += [head.active.eq(1), head.tail_seen.eq(flit.tail), head.src.eq(flit.src),
                     head.n.eq(head_bits - prefix), head.write.eq(1 % self._slots)]
        if fmt.count_width:
            m.d.comb += head.beats_left.eq(
                flit.payload[fmt.tag_width:fmt.tag_width + fmt.count_width] + 1)
        grows, starts, early = self._room(now, ahead, done)
        with m.If(flit.head):
            m.d.comb += source.ready.eq(is_ack | starts | early)
        with m.Else():
            m.d.comb += source.ready.eq(grows)
        taken = source.valid & source.ready
        if fmt.acknowledged and fmt.window == 1:
            m.d.comb += [self.acked.valid.eq(taken & flit.head & is_ack),
                         self.acked.payload.eq(flit.src)]
        m.d.sync += now.eq(after)
        with m.If(done & ahead.active):
            m.d.sync += ring[0].eq(ahead_bits)
        with m.If(taken & ~(flit.head & is_ack)):
            with m.If(~flit.head):
                m.d.sync += [now.n.eq(self._grown(now, ahead, done)),
                             now.tail_seen.eq(flit.tail),
                             now.write.eq(_next(after.write, self._slots))]
                for k, slot in enumerate(ring):
                    with m.If(after.write == k):
                        m.d.sync += slot.eq(body_data)
            with m.Elif(starts):
                m.d.sync += [now.eq(head), ring[0].eq(head_data)]
            with m.Else():
                m.d.sync += [ahead.eq(head), ahead_bits.eq(head_data)]


class AlignedEject(EndpointEject):
    """:class:`EndpointEject` for an aligned format (:attr:`MessageFormat.aligned`):
    every flit carries exactly one beat, or one of its :attr:`MessageFormat.parts`
    equal parts, so a beat is a flit (or its parts joined) and needs no ring.

    The flits pass through a :class:`SkidBuffer` (``local_out.ready`` a register)
    and, with a window over 1, a :class:`ReorderBuffer`. A beat's first parts are
    kept in a register; its last part (or its one flit) is loaded with them into the
    output registers (``tdata``, ``tlast`` from the flit's ``tail``, ``tid`` from its
    head's ``src``) when they are empty or their beat leaves, so the beats leave at
    the flits' pace while the sink takes them, the next message's first right after
    the last one. An acknowledgement (adaptive routing, window 1) is taken whenever
    it comes and reported on ``acked``. With a header-flit format
    (:attr:`MessageFormat.header_flit`) a head carries no part: it is taken whenever
    it comes, its ``src`` kept for the beats.

    Parameters and members are those of :class:`EndpointEject`.
    """

    def __init__(self, fmt):
        super().__init__(fmt)
        if not fmt.aligned:
            raise ValueError(f"Aligned ejection needs an aligned message format (a beat "
                             f"or part of one per flit), not {fmt!r}")

    def elaborate(self, platform):
        m = Module()
        source = self._flits(m)
        self._load(m, source)
        if self.fmt.acknowledged:
            beat = self.axis
            m.d.comb += [self.owed.valid.eq(beat.valid & beat.ready & beat.payload.last),
                         self.owed.payload.eq(beat.payload.id)]
        return m

    def _load(self, m, source):
        """Join the parts of each beat of ``source`` and load the beat into the output
        registers (an acknowledgement only into ``acked``)."""
        fmt, axis = self.fmt, self.axis
        flit = data.View(fmt.layout, source.payload)
        body = data.View(fmt.layout.body, source.payload.as_value())
        body_data = (body.data if fmt.layout.header == "head" else flit.payload)
        if fmt.header_flit:                       # the head carries no part
            chunk, carries = body_data[:fmt.part_bits], ~flit.head
        else:
            head_data = flit.payload[fmt.tag_width:fmt.tag_width + fmt.part_bits]
            chunk, carries = Mux(flit.head, head_data, body_data[:fmt.part_bits]), C(1, 1)
        is_ack = (flit.head & flit.payload[0] if fmt.kind_width and fmt.window == 1
                  else C(0, 1))
        src = Signal(fmt.address_bits)            # the source of the packet's head
        free = ~axis.valid | axis.ready           # the output registers take a beat
        kept, whole = self._parts(m, source, chunk, is_ack | ~carries)
        m.d.comb += source.ready.eq(free | ~whole | is_ack | ~carries)
        taken = source.valid & source.ready
        with m.If(taken & flit.head):
            m.d.sync += src.eq(flit.src)
        with m.If(free):
            m.d.sync += [axis.valid.eq(source.valid & whole & ~is_ack & carries),
                         axis.payload.data.eq(Cat(kept, chunk)),
                         axis.payload.last.eq(flit.tail),
                         axis.payload.id.eq(Mux(flit.head, flit.src, src))]
        if fmt.acknowledged and fmt.window == 1:
            m.d.comb += [self.acked.valid.eq(taken & is_ack),
                         self.acked.payload.eq(flit.src)]

    def _parts(self, m, source, chunk, partless):
        """The parts of the beat before its last: ``(kept, whole)``, the register of
        the parts before the one arriving and whether this flit's is the beat's last
        (counted in a register of the part's index; ``partless``: the flit carries no
        part). A part that is not the last is always taken, into ``kept``."""
        fmt = self.fmt
        if fmt.parts == 1:
            return C(0, 0), C(1, 1)
        part = Signal(range(fmt.parts))
        kept = Signal((fmt.parts - 1) * fmt.part_bits)
        whole = part == fmt.parts - 1
        with m.If(source.valid & source.ready & ~partless):
            m.d.sync += part.eq(Mux(whole, 0, part + 1))
            for k in range(fmt.parts - 1):
                with m.If(part == k):
                    m.d.sync += kept.word_select(k, fmt.part_bits).eq(chunk)
        return kept, whole


def ejection_side(fmt):
    """The ejection side for ``fmt``: an :class:`AlignedEject` for an aligned format,
    else an :class:`EndpointEject`."""
    return AlignedEject(fmt) if fmt.aligned else EndpointEject(fmt)


def _next(index, count):
    """``index + 1`` modulo ``count``."""
    if count & (count - 1) == 0:
        return (index + 1)[:max(0, (count - 1).bit_length())]
    return Mux(index == count - 1, 0, index + 1)
