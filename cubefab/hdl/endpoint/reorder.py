"""A receiver's reorder buffer: an adaptive fabric's messages back in their order."""

from amaranth.hdl import Array, C, Cat, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..config import block_rams_per_buffer
from .message import MessageFormat


__all__ = ["ReorderBuffer"]


class ReorderBuffer(wiring.Component):
    """Passes the packets of ``network`` on to ``flits`` in the order their sources
    numbered them, per source.

    With a window of ``W`` messages per destination (:attr:`MessageFormat.window`), a
    source has at most ``W`` unacknowledged messages to this node, numbered mod ``W``
    (the head's ``seq`` field), and adaptive routing may deliver them in any order.
    The buffer keeps, per source, the number of the message it passes on next. A
    packet that comes with that number while nothing else is being passed on goes
    straight through (a flit a cycle, back-pressured by ``flits``); any other is
    written whole into its slot (one slot of the longest packet per source and
    number, in a memory), at a flit a cycle and never held up: its slot is free,
    since its source sent it only once this node had acknowledged the message ``W``
    before it (an acknowledgement leaves with the last beat). A stored packet whose
    number comes up is read out to ``flits``; stored packets go before packets
    passing through. Acknowledgements are taken whenever they come and reported on
    ``acked``. So ``network`` waits only for a packet passing through, on ``flits``.

    Parameters
    ----------
    fmt : MessageFormat
        The message format; its :attr:`~MessageFormat.window` must be over 1.

    Members
    -------
    network : In(stream.Signature(layout))
        Packets from the router's ``local_out``.
    flits : Out(stream.Signature(layout))
        The messages' packets, in order per source, never interleaved.
    acked : Out(stream.Signature(address_bits, always_ready=True))
        An acknowledgement from node ``payload`` arrived.
    """

    def __init__(self, fmt):
        if not isinstance(fmt, MessageFormat):
            raise TypeError(f"Message format must be a MessageFormat, not {fmt!r}")
        if fmt.window < 2:
            raise ValueError(f"Reorder buffer needs a window over 1, not {fmt.window}")
        self.fmt = fmt
        index_bits, depth = _slots_shape(fmt)
        #: int: address bits of a flit within its slot
        self.index_bits = index_bits
        #: int: memory entries: a slot of ``2 ** index_bits`` flits per source address
        #: and number
        self.depth = depth
        super().__init__({
            "network": In(stream.Signature(fmt.layout)),
            "flits": Out(stream.Signature(fmt.layout)),
            "acked": Out(stream.Signature(fmt.address_bits, always_ready=True)),
        })

    @staticmethod
    def block_rams(fmt):
        """int: ``SB_RAM40_4K`` block RAMs of the slots of a reorder buffer of ``fmt``
        (:func:`~cubefab.hdl.config.block_rams_per_buffer`; 0 with a window of 1,
        which needs no reorder buffer)."""
        if fmt.window < 2:
            return 0
        return block_rams_per_buffer(fmt.layout.size, _slots_shape(fmt)[1])

    def _slot(self, index, seq, src):
        """The memory address of flit ``index`` of slot (``src``, ``seq``)."""
        return Cat(index, seq, src)

    def elaborate(self, platform):
        m = Module()
        fmt = self.fmt
        m.submodules.slots = memory = Memory(shape=fmt.layout.size, depth=self.depth, init=[])
        slots = 1 << fmt.address_bits
        expected = [Signal(fmt.seq_width, name=f"expected_{a}") for a in range(slots)]
        stored = Signal(slots * fmt.window)    # bit (src, seq): a whole packet is stored
        due, pick = self._due(m, expected, stored)
        draining = Signal()
        direct = self._arrivals(m, memory.write_port(), expected, stored, due, draining)
        self._drain(m, memory.read_port(), expected, stored, due, pick, draining, direct)
        return m

    def _due(self, m, expected, stored):
        """Whether a stored packet's number has come up, and the lowest source
        address with one."""
        due = Cat(stored.bit_select(Cat(e, C(a, self.fmt.address_bits)), 1)
                  for a, e in enumerate(expected))
        pick = Signal(self.fmt.address_bits)
        for a in reversed(range(len(expected))):
            with m.If(due[a]):
                m.d.comb += pick.eq(a)
        return due.any(), pick

    def _arrivals(self, m, write, expected, stored, due, draining):
        """Sort the network's packets: acknowledgements reported, the next packet of
        its source passed through (when no stored one is due or being read), every
        other one written into its slot. Returns the stream of packets passing
        through: ``(valid, flit, passing)``, ``passing`` whether a packet passing
        through is open (its head passed, its tail not yet)."""
        fmt, net = self.fmt, self.network
        flit = data.View(fmt.layout, net.payload)
        is_ack = flit.payload[0]
        seq = flit.payload[fmt.kind_width:fmt.tag_width]
        in_order = Array(expected)[flit.src] == seq
        passing, storing = Signal(), Signal()          # the open packet's way
        wr_src, wr_seq = Signal(fmt.address_bits), Signal(fmt.seq_width)
        wr_index = Signal(self.index_bits)
        message = flit.head & ~is_ack
        direct = Signal()                               # this flit passes through
        m.d.comb += direct.eq(Mux(flit.head, message & in_order & ~draining & ~due,
                                  passing))
        m.d.comb += [net.ready.eq(Mux(direct, self.flits.ready, 1)),
                     self.acked.valid.eq(net.valid & flit.head & is_ack),
                     self.acked.payload.eq(flit.src)]
        taken = net.valid & net.ready
        keep = taken & Mux(flit.head, message & ~direct, storing)
        m.d.comb += [write.en.eq(keep), write.data.eq(net.payload),
                     write.addr.eq(Mux(flit.head, self._slot(C(0, self.index_bits), seq,
                                                             flit.src),
                                       self._slot(wr_index, wr_seq, wr_src)))]
        with m.If(keep & flit.head):
            m.d.sync += [wr_src.eq(flit.src), wr_seq.eq(seq), wr_index.eq(1),
                         storing.eq(~flit.tail)]
        with m.Elif(keep):
            m.d.sync += [wr_index.eq(wr_index + 1), storing.eq(~flit.tail)]
        with m.If(keep & flit.tail):
            slot = Mux(flit.head, Cat(seq, flit.src), Cat(wr_seq, wr_src))
            m.d.sync += stored.bit_select(slot, 1).eq(1)
        with m.If(taken & direct):
            m.d.sync += passing.eq(~flit.tail)
        for a, e in enumerate(expected):
            with m.If(taken & direct & flit.head & (flit.src == a)):
                m.d.sync += e.eq(e + 1)
        return net.valid & direct, net.payload, passing

    def _drain(self, m, read, expected, stored, due, pick, draining, direct):
        """Read a due packet out of its slot to ``flits`` (a flit a cycle, the memory's
        read port holding a flit until it is taken), or pass ``direct`` through."""
        fmt, out = self.fmt, self.flits
        passing_valid, passing_flit, passing = direct
        d_src, d_seq = Signal(fmt.address_bits), Signal(fmt.seq_width)
        index = Signal(self.index_bits)
        held = Signal()                                 # read.data holds a flit
        flit = data.View(fmt.layout, read.data)
        start = ~draining & ~passing & due
        first_seq = Array(expected)[pick]
        taken = draining & held & out.ready
        m.d.comb += [read.en.eq(start | (taken & ~flit.tail)),
                     read.addr.eq(Mux(start, self._slot(C(0, self.index_bits), first_seq,
                                                        pick),
                                      self._slot(index, d_seq, d_src))),
                     out.valid.eq(Mux(draining, held, passing_valid)),
                     out.payload.eq(Mux(draining, read.data, passing_flit))]
        with m.If(start):
            m.d.sync += [draining.eq(1), held.eq(1), index.eq(1), d_src.eq(pick),
                         d_seq.eq(first_seq),
                         stored.bit_select(Cat(first_seq, pick), 1).eq(0)]
            for a, e in enumerate(expected):
                with m.If(pick == a):
                    m.d.sync += e.eq(e + 1)
        with m.If(taken & ~flit.tail):
            m.d.sync += index.eq(index + 1)
        with m.If(taken & flit.tail):
            m.d.sync += [draining.eq(0), held.eq(0)]


def _slots_shape(fmt):
    """``(index_bits, depth)`` of the slots of a :class:`ReorderBuffer` of ``fmt``."""
    index_bits = (fmt.flits(fmt.max_beats) - 1).bit_length()
    return index_bits, 1 << (index_bits + fmt.seq_width + fmt.address_bits)
