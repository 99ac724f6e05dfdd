"""The injection side of an AXI4-Stream endpoint: messages in, packets out."""

import math
from types import SimpleNamespace

from amaranth.hdl import Array, C, Cat, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ...topology.base import check_int
from ..config import block_rams_per_buffer
from ..fifo import MemoryFIFO, RegisterFIFO
from .message import MessageFormat, axis_in_layout


__all__ = ["EndpointInject", "AlignedInject", "injection_side"]


#: Messages whose fate is decided (sent or dropped) that the injection side keeps
#: before it stops taking the next message's last beat.
DESCRIPTORS = 2


class EndpointInject(wiring.Component):
    """AXI4-Stream slave that sends each message as one packet into ``local_in``.

    A message is stored whole before its packet starts (store and forward), so that
    one longer than ``max_beats`` beats, or whose ``tdest`` names no node, is
    dropped whole and never reaches the network: its beats are taken and thrown
    away and :attr:`dropped` counts it. The beats of the next messages are taken
    meanwhile, up to :attr:`buffer_beats` beats in all (block RAM on FPGAs).

    The beats are stored :attr:`entry_words` to a buffer entry (the last entry of a
    message may hold fewer), enough for a body flit, so that the packet leaves at a
    flit a cycle even where a flit carries more bits than a beat (``tdata``
    narrower than the payload, or the head-only header's wider body flits).

    Parameters
    ----------
    fmt : MessageFormat
        The message format (router configuration, ``tdata`` width, ``max_beats``).
    node : int or None
        This endpoint's node address (the packets' ``src``), or ``None`` for an
        address-strapped endpoint: the address is then the :attr:`here` input.
    counter_width : int
        Width of :attr:`dropped` (default 16; it stops at its largest value).

    Members
    -------
    axis : In(stream.Signature(axis_in_layout(data_width, address_bits)))
        The messages: ``data`` (``tdata``), ``last`` (``tlast``: the message's last
        beat), ``dest`` (``tdest``: read on the first beat of a message).
    local_in : Out(stream.Signature(layout))
        Packets for the router's ``local_in`` (``src`` this node, ``vc`` 0).
    dropped : Out(counter_width)
        Messages dropped (too long, or ``tdest`` not a node).
    here : In(address_bits)
        Only when ``node`` is ``None``: this endpoint's node address, held.
    acked : In(stream.Signature(address_bits, always_ready=True))
        Only with ``fmt.acknowledged``: node ``payload`` acknowledged this node's
        message (from this node's :class:`EndpointEject`); until then no other
        message to it starts.
    owed : In(stream.Signature(address_bits, always_ready=True))
        Only with ``fmt.acknowledged``: a message from node ``payload`` was delivered
        here; this side sends it an acknowledgement (a one-flit packet, before the
        next message).
    """

    def __init__(self, fmt, node, *, counter_width=16):
        if not isinstance(fmt, MessageFormat):
            raise TypeError(f"Message format must be a MessageFormat, not {fmt!r}")
        self.fmt = fmt
        self.node = None if node is None else fmt.config.topology.check_node(node, "node")
        self.counter_width = check_int("Counter width", counter_width, 1, 64)
        entry_words, buffer_entries = _store_shape(fmt)
        #: int: beats per buffer entry: the fewest that fill a body flit (a flit's
        #: worth of data is read in a cycle)
        self.entry_words = entry_words
        #: int: buffer entries: a whole message and the overflowing beat, twice (a
        #: message is taken while the one before it is sent)
        self.buffer_entries = buffer_entries
        #: int: beats the buffer holds
        self.buffer_beats = self.buffer_entries * self.entry_words
        members = {
            "axis": In(stream.Signature(axis_in_layout(fmt.data_width,
                                                      fmt.address_bits))),
            "local_in": Out(stream.Signature(fmt.layout)),
            "dropped": Out(self.counter_width),
        }
        if self.node is None:
            members["here"] = In(fmt.address_bits)
        if fmt.acknowledged:
            members["acked"] = In(stream.Signature(fmt.address_bits, always_ready=True))
            members["owed"] = In(stream.Signature(fmt.address_bits, always_ready=True))
        super().__init__(members)

    @staticmethod
    def store_block_rams(fmt):
        """int: ``SB_RAM40_4K`` block RAMs of the message store of an endpoint of
        ``fmt`` (:func:`~cubefab.hdl.config.block_rams_per_buffer`: entries of
        :attr:`entry_words` beats and a ``last`` bit, :attr:`buffer_entries` of them)."""
        entry_words, entries = _store_shape(fmt)
        return block_rams_per_buffer(_entry_layout(fmt, entry_words).size, entries)

    def elaborate(self, platform):
        m = Module()
        fmt = self.fmt
        m.submodules.words = memory = MemoryFIFO(width=self._entry.size,
                                                 depth=self.buffer_entries)
        words = self._output_register(m, memory)
        desc = data.StructLayout({"dest": fmt.address_bits, "drop": 1,
                                  "count": max(1, (fmt.max_beats - 1).bit_length())})
        m.submodules.messages = messages = RegisterFIFO(width=desc.size, depth=DESCRIPTORS)
        self._take(m, words, data.View(desc, messages.w_data), messages)
        self._send(m, words, data.View(desc, messages.r_data), messages)
        return m

    def _output_register(self, m, memory):
        """The FIFO ``memory`` with its head in a register (so that no block RAM
        output reaches a flit): an entry written while the FIFO and the register are
        empty (or the register is read) goes straight into the register, readable
        in the next cycle as from the FIFO. Returns the FIFO's ports
        (``w_en``, ``w_data``, ``w_rdy``, ``r_en``, ``r_data``, ``r_rdy``)."""
        width = self._entry.size
        fifo = SimpleNamespace(w_en=Signal(), w_data=Signal(width), w_rdy=memory.w_rdy,
                               r_en=Signal(), r_data=Signal(width), r_rdy=Signal())
        free = ~fifo.r_rdy | fifo.r_en
        refill = free & memory.r_rdy
        bypass = free & ~memory.r_rdy & fifo.w_en
        m.d.comb += [memory.r_en.eq(refill), memory.w_en.eq(fifo.w_en & ~bypass),
                     memory.w_data.eq(fifo.w_data)]
        with m.If(refill):
            m.d.sync += [fifo.r_data.eq(memory.r_data), fifo.r_rdy.eq(1)]
        with m.Elif(bypass):
            m.d.sync += [fifo.r_data.eq(fifo.w_data), fifo.r_rdy.eq(1)]
        with m.Elif(fifo.r_en):
            m.d.sync += fifo.r_rdy.eq(0)
        return fifo

    def _is_node(self, dest):
        """Whether the address ``dest`` names a node (a constant table, only for
        topologies where some address words are not nodes)."""
        topology = self.fmt.config.topology
        table = [topology.is_node(a) for a in range(1 << topology.address_bits)]
        if all(table):
            return C(1, 1)
        return Array(C(bit, 1) for bit in table)[dest]

    @property
    def _entry(self):
        """The layout of a buffer entry: :attr:`entry_words` beats (``data``, the
        first at bit 0; a message's last entry zero-filled) and whether the message
        ends in it (``last``)."""
        return _entry_layout(self.fmt, self.entry_words)

    def _take(self, m, words, desc, messages):
        """Store the beats; decide at the last beat (or the first overflowing beat,
        or a first beat naming no node) whether the message is sent or dropped. The
        beats of an entry are gathered in ``pack``; the entry is written with its
        last beat, or with the message's."""
        fmt, axis = self.fmt, self.axis
        in_msg = Signal()                                   # the first beat was taken
        skip = Signal()                                     # throwing away to tlast
        beats = Signal(range(fmt.max_beats + 1))            # beats stored so far
        dest = Signal(fmt.address_bits)
        pack = Signal((self.entry_words - 1) * fmt.data_width)   # an entry's first beats
        held = Signal(range(self.entry_words))              # beats in pack
        here = Mux(in_msg, dest, axis.payload.dest)
        overflow = beats == fmt.max_beats
        ends = axis.payload.last | overflow
        entry = data.View(self._entry, words.w_data)
        write = ends | (held == self.entry_words - 1)
        m.d.comb += [axis.ready.eq(skip | (words.w_rdy & messages.w_rdy)),
                     entry.data.eq(pack | (axis.payload.data << (held * fmt.data_width))),
                     entry.last.eq(ends),
                     desc.dest.eq(here), desc.count.eq(beats), desc.drop.eq(overflow)]
        drop_now = Signal()
        with m.If(axis.valid & axis.ready):
            m.d.sync += in_msg.eq(~axis.payload.last)
            with m.If(~in_msg):
                m.d.sync += dest.eq(axis.payload.dest)
            with m.If(skip):
                m.d.sync += skip.eq(~axis.payload.last)
            with m.Elif(~in_msg & ~self._is_node(axis.payload.dest)):
                m.d.comb += drop_now.eq(1)
                m.d.sync += skip.eq(~axis.payload.last)
            with m.Else():
                m.d.comb += [words.w_en.eq(write),
                             messages.w_en.eq(ends),
                             drop_now.eq(overflow)]
                m.d.sync += [beats.eq(Mux(ends, 0, beats + 1)),
                             skip.eq(overflow & ~axis.payload.last)]
                if self.entry_words > 1:
                    m.d.sync += [held.eq(Mux(write, 0, held + 1)),
                                 pack.eq(Mux(write, 0, entry.data))]
        saturated = self.dropped == (1 << self.counter_width) - 1
        with m.If(drop_now & ~saturated):
            m.d.sync += self.dropped.eq(self.dropped + 1)

    def _send(self, m, words, desc, messages):
        """Cut each stored message into flits, or throw away a dropped message's
        entries. A flit's data bits are read from ``Cat(A, D)`` at ``off``: ``A`` the
        register of the entry being cut, ``D`` the entry at the FIFO's head (its next),
        ``off`` counted in :attr:`_step` bits (``E``, an entry's bits: ``A`` used up).
        An entry is taken from the FIFO into ``A`` when a flit reaches into it, so no
        shifter moves data into a register. A message found while idle sends its head
        in the cycle it is found; one found as the tail of the one before leaves
        (without taking an entry) is loaded then and follows it without a gap. An
        entry holds at least a body flit's bits, so a flit leaves every cycle."""
        fmt = self.fmt
        step, units = self._step, self._units
        entry = data.View(self._entry, words.r_data)
        reg = {"A": Signal(len(entry.data)), "last": Signal(),
               "flits": Signal(range(fmt.flits(fmt.max_beats) + 1)),
               "off": Signal(range(units + 1), init=units), "active": Signal(),
               "first": Signal(), "dest": Signal(fmt.address_bits),
               "seq": Signal(fmt.seq_width), "count": Signal(fmt.count_width)}
        discard = Signal()
        started = Signal()                  # a message's head leaves, to started_dest
        started_dest = Signal(fmt.address_bits)
        ack, ack_dest, room, seq = self._acknowledgements(m, reg["active"], desc.dest,
                                                          started, started_dest)
        found = (~discard & messages.r_rdy & words.r_rdy & ~ack & room)
        active = reg["active"]
        first = ~active | reg["first"]
        dest = Mux(active, reg["dest"], desc.dest)
        count = desc.count[:fmt.count_width]
        prefix = Cat(C(0, fmt.kind_width), Mux(active, reg["seq"], seq),
                     Mux(active, reg["count"], count))
        chunk = self._chunk(reg, entry)
        have = active | (found & ~desc.drop)
        whole = self._packet_flits(desc.count)      # a found message's flits
        flits = Mux(active, reg["flits"], whole)      # this message's flits from this one
        # (from the registers, or one table lookup of the descriptor's count: this
        # decides whether the FIFOs are read in this cycle)
        tail = Mux(active, reg["flits"] == 1, self._one_flit(desc.count))
        go = have & self.local_in.ready & ~ack
        # ``off`` after this flit (registers only: ``go`` comes late), and whether the
        # flit reaches into D, which is then taken (unless A is the message's last)
        moved = reg["off"] + Mux(first, self._head_units, fmt.body_bits // step)
        reach = self._reach(reg, first)
        cross = go & reach
        flit = self._flit(m, first, tail, dest,
                          Cat(prefix, chunk[:fmt.head_bits - fmt.prefix_width]), chunk)
        if fmt.acknowledged:
            flit = Mux(ack, self._flit(m, 1, 1, ack_dest, C(1, 1), C(0, 0)), flit)
            m.d.comb += [started.eq(go & first), started_dest.eq(dest)]
        m.d.comb += [self.local_in.valid.eq(have | ack), self.local_in.payload.eq(flit)]
        consume = active & go & cross
        free = ~active | (go & tail & ~cross)
        load = {"A": entry.data, "last": entry.last}
        with m.If(go):
            m.d.sync += [reg["off"].eq(Mux(reach, moved - units, moved)), reg["first"].eq(0),
                         reg["flits"].eq(flits - 1)]
        with m.If(go & tail):
            m.d.sync += [reg["active"].eq(0), reg["off"].eq(units)]
        with m.If(consume):
            m.d.sync += [reg[k].eq(v) for k, v in load.items()]
        with m.If(discard):
            m.d.comb += words.r_en.eq(words.r_rdy)
            m.d.sync += discard.eq(~(words.r_rdy & entry.last))
        with m.Elif(consume):
            m.d.comb += words.r_en.eq(1)
        with m.Elif(free & found):
            m.d.comb += [messages.r_en.eq(1), words.r_en.eq(1)]
            with m.If(desc.drop):
                m.d.sync += discard.eq(~entry.last)
            with m.Else():
                m.d.sync += [reg[k].eq(v) for k, v in load.items()]
                m.d.sync += [reg["dest"].eq(desc.dest), reg["seq"].eq(seq),
                             reg["count"].eq(count)]
                with m.If(active):      # the tail leaves now: load the next message
                    m.d.sync += [reg["off"].eq(0), reg["first"].eq(1), reg["active"].eq(1),
                                 reg["flits"].eq(whole)]
                with m.Else():          # its head leaves now, or from A
                    m.d.sync += [reg["off"].eq(Mux(go, Mux(tail, units, moved - units), 0)),
                                 reg["first"].eq(~go), reg["active"].eq(~(go & tail)),
                                 reg["flits"].eq(Mux(go, whole - 1, whole))]

    @property
    def _flits_by_count(self):
        """list of int: the flits of the packet of a message of ``count + 1`` beats
        (:meth:`MessageFormat.flits`), by ``count``."""
        return [self.fmt.flits(beats) for beats in range(1, self.fmt.max_beats + 1)]

    def _packet_flits(self, count):
        """The flits of the packet of a message of ``count + 1`` beats, from a table
        indexed by ``count``."""
        table = self._flits_by_count
        return Array(C(flits, max(table).bit_length()) for flits in table)[count]

    def _one_flit(self, count):
        """Whether the packet of a message of ``count + 1`` beats is one flit (a
        table indexed by ``count``)."""
        return Array(C(flits == 1, 1) for flits in self._flits_by_count)[count]

    def _reach(self, reg, first):
        """Whether the flit sent from the window reaches into ``D`` (``off`` after it
        is over :attr:`_units`), never when ``A`` is the message's last entry: ``off``
        compared with a constant per kind of flit (head or body), ``first`` picking
        one, so that no adder precedes the comparison."""
        units, step = self._units, self._step
        fits = Mux(first, reg["off"] > units - self._head_units,
                   reg["off"] > units - self.fmt.body_bits // step)
        return fits & ~(reg["active"] & reg["last"])

    @property
    def _step(self):
        """int: the bits between the positions a flit's data can start at in an
        entry: the greatest common divisor of an entry's bits and the data bits of a
        head and of a body flit."""
        fmt = self.fmt
        return math.gcd(self.entry_words * fmt.data_width, fmt.head_bits - fmt.prefix_width,
                        fmt.body_bits)

    @property
    def _units(self):
        """int: an entry's bits in steps (:attr:`_step`)."""
        return self.entry_words * self.fmt.data_width // self._step

    @property
    def _head_units(self):
        """int: the data bits of a head flit in steps."""
        return (self.fmt.head_bits - self.fmt.prefix_width) // self._step

    def _chunk(self, reg, entry):
        """The data bits of the flit sent from the window: ``Cat(A, D)`` from ``off``
        on; zero past ``A`` when it is the message's last entry (the tail's padding,
        not the next message's bits)."""
        fmt, step = self.fmt, self._step
        chunk = self._shift_down(Cat(reg["A"], entry.data), reg["off"], fmt.body_bits)
        inside = Cat((reg["off"] * step + j < self._units * step)
                     for j in range(fmt.body_bits))
        return chunk & Mux(reg["active"] & reg["last"], inside, -1)

    def _shift_down(self, value, amount, width):
        """``value >> (amount * step)``, its low ``width`` bits: a log shifter whose
        stages keep only the bits that can still reach the result."""
        step = self._step
        for k in reversed(range(len(amount))):
            need = width + step * ((1 << k) - 1)
            value = Mux(amount[k], value[step << k:(step << k) + need], value[:need])
        return value[:width]

    def _acknowledgements(self, m, active, dest, started, started_dest):
        """With ``fmt.acknowledged``: the acknowledgements owed (a count per address,
        the lowest address served first, while no message is being sent) and the
        window of each destination (its unacknowledged messages and the number of the
        next one). ``started``: a message's head to ``started_dest`` leaves in this
        cycle. Returns ``(ack, ack_dest, room, seq)``: whether an acknowledgement is
        sent in this cycle and to whom, whether a message to ``dest`` may start, and
        its ``seq`` field."""
        fmt = self.fmt
        if not fmt.acknowledged:
            return C(0, 1), C(0, fmt.address_bits), C(1, 1), C(0, 0)
        slots = 1 << fmt.address_bits
        owed = [Signal(range(fmt.window + 1), name=f"owed_{a}") for a in range(slots)]
        ack_dest = Signal(fmt.address_bits)
        for a in reversed(range(slots)):   # the lowest owed address wins
            with m.If(owed[a] != 0):
                m.d.comb += ack_dest.eq(a)
        ack = ~active & Cat(o != 0 for o in owed).any()
        sent = ack & self.local_in.ready
        unacked = [Signal(range(fmt.window + 1), name=f"unacked_{a}") for a in range(slots)]
        seqs = [Signal(fmt.seq_width, name=f"seq_{a}") for a in range(slots)]
        for a in range(slots):
            arrived = self.owed.valid & (self.owed.payload == a)
            m.d.sync += owed[a].eq(owed[a] + arrived - (sent & (ack_dest == a)))
            opened = started & (started_dest == a)
            m.d.sync += unacked[a].eq(unacked[a] + opened
                                      - (self.acked.valid & (self.acked.payload == a)))
            with m.If(opened):
                m.d.sync += seqs[a].eq(seqs[a] + 1)
        room = Array(u != fmt.window for u in unacked)[dest]
        return ack, ack_dest, room, Array(seqs)[dest]

    @property
    def _address(self):
        """This endpoint's address: the constant, or the ``here`` input."""
        return self.here if self.node is None else self.node

    def _flit(self, m, first, tail, dest, head_payload, body_data):
        """A head flit of ``head_payload`` (``first``) or a body flit of ``body_data``."""
        fmt = self.fmt
        layout = fmt.layout
        head = Signal(layout)
        m.d.comb += [head.head.eq(1), head.tail.eq(tail), head.dest.eq(dest),
                     head.src.eq(self._address), head.payload.eq(head_payload)]
        if layout.header == "head":
            body = Signal(layout.body)
            m.d.comb += [body.tail.eq(tail), body.data.eq(body_data[:fmt.body_bits])]
        else:
            body = Signal(layout)
            m.d.comb += [body.tail.eq(tail), body.dest.eq(dest), body.src.eq(self._address),
                         body.payload.eq(body_data[:fmt.body_bits])]
        return Mux(first, head.as_value(), body.as_value())


class AlignedInject(EndpointInject):
    """:class:`EndpointInject` for an aligned format (:attr:`MessageFormat.aligned`):
    every flit carries exactly one beat, or one of its :attr:`MessageFormat.parts`
    equal parts, so a packet is cut without a window or shifter: a flit's data is the
    entry (one beat) at the message store's head, or its next part, and its ``tail``
    the entry's ``last`` at its last part.

    A message found while none is being sent is loaded (its decision taken) and its
    head sent in that cycle when ``local_in`` is ready; its flits then leave one a
    cycle while ``local_in`` is ready, and the next message's head follows its tail
    without a gap. A dropped message's entries are thrown away at one a cycle. With
    a header-flit format (:attr:`MessageFormat.header_flit`) the head carries no
    part and takes nothing from the store.

    Parameters and members are those of :class:`EndpointInject`.
    """

    def __init__(self, fmt, node, *, counter_width=16):
        super().__init__(fmt, node, counter_width=counter_width)
        if not fmt.aligned:
            raise ValueError(f"Aligned injection needs an aligned message format (a beat "
                             f"or part of one per flit), not {fmt!r}")

    def _send(self, m, words, desc, messages):
        """Send the entry at the store's head, part by part, as flits of the message
        it belongs to, or throw away a dropped message's entries."""
        fmt = self.fmt
        entry = data.View(self._entry, words.r_data)
        loaded = Signal()                   # a message's flits are being sent
        first = Signal()                    # ... and its head has not left yet
        discard = Signal()                  # throwing away entries to a message's last
        kept_dest, kept_seq = Signal(fmt.address_bits), Signal(fmt.seq_width)
        started = Signal()                  # a message's head leaves, to started_dest
        started_dest = Signal(fmt.address_bits)
        ack, ack_dest, room, seq = self._acknowledgements(m, loaded, desc.dest,
                                                          started, started_dest)
        part, chunk, whole = self._parts(entry)
        found = ~loaded & ~discard & messages.r_rdy & words.r_rdy & ~ack & room
        have = (loaded & words.r_rdy) | (found & ~desc.drop)
        go = have & self.local_in.ready & ~ack
        head = ~loaded | first
        takes = ~head if fmt.header_flit else C(1, 1)     # the flit carries a part
        ends = entry.last & whole & takes   # the message's last flit (if it leaves)
        dest = Mux(loaded, kept_dest, desc.dest)
        prefix = Cat(C(0, fmt.kind_width), Mux(loaded, kept_seq, seq))
        head_payload = prefix if fmt.header_flit else Cat(prefix, chunk)
        flit = self._flit(m, head, ends, dest, head_payload, chunk)
        if fmt.acknowledged:
            flit = Mux(ack, self._flit(m, 1, 1, ack_dest, C(1, 1), C(0, 0)), flit)
            m.d.comb += [started.eq(go & head), started_dest.eq(dest)]
        m.d.comb += [self.local_in.valid.eq(have | ack), self.local_in.payload.eq(flit)]
        with m.If(discard):
            m.d.comb += words.r_en.eq(words.r_rdy)
            m.d.sync += discard.eq(~(words.r_rdy & entry.last))
        with m.Elif(found):
            m.d.comb += messages.r_en.eq(1)
            with m.If(desc.drop):
                m.d.comb += words.r_en.eq(1)
                m.d.sync += discard.eq(~entry.last)
            with m.Else():
                m.d.comb += words.r_en.eq(go & whole & takes)
                m.d.sync += [kept_dest.eq(desc.dest), kept_seq.eq(seq),
                             loaded.eq(~(go & ends)), first.eq(~go)]
        with m.Elif(go):
            m.d.comb += words.r_en.eq(whole & takes)
            m.d.sync += [loaded.eq(~ends), first.eq(0)]
        if fmt.parts > 1:
            with m.If(go & ~discard & takes):
                m.d.sync += part.eq(Mux(whole, 0, part + 1))

    def _parts(self, entry):
        """The part of ``entry`` that leaves next: ``(part, chunk, whole)``, the part's
        index (a register; ``None`` with one part), its bits and whether it is the
        entry's last."""
        fmt = self.fmt
        if fmt.parts == 1:
            return None, entry.data, C(1, 1)
        part = Signal(range(fmt.parts))
        return (part, entry.data.word_select(part, fmt.part_bits),
                part == fmt.parts - 1)


def injection_side(fmt, node, *, counter_width=16):
    """The injection side for ``fmt``: an :class:`AlignedInject` for an aligned
    format, else an :class:`EndpointInject` (same parameters)."""
    kind = AlignedInject if fmt.aligned else EndpointInject
    return kind(fmt, node, counter_width=counter_width)


def _store_shape(fmt):
    """``(entry_words, buffer_entries)`` of the message store of an endpoint of
    ``fmt`` (:class:`EndpointInject`)."""
    entry_words = max(1, math.ceil(fmt.body_bits / fmt.data_width))
    return entry_words, 2 * math.ceil((fmt.max_beats + 1) / entry_words)


def _entry_layout(fmt, entry_words):
    """The layout of a message store entry of ``entry_words`` beats of ``fmt``
    (:attr:`EndpointInject._entry`)."""
    return data.StructLayout({"data": entry_words * fmt.data_width, "last": 1})
