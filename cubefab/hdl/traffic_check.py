"""Per-node hardware checkers of delivered packets for self-checking fabrics.

A :class:`TrafficChecker` sits on a node's ejection port, always ready. It checks
every packet :class:`~cubefab.hdl.traffic_gen.TrafficGenerator`\\ s send (see
:class:`~cubefab.hdl.traffic_gen.PacketFormat`): it arrived at its destination, its
flits are framed head ... tail with the right count, every flit's source,
destination and payload check word are intact, and its sequence number is the next
of its flow (no loss, duplication or reordering between a source and this node).
It reports each delivered packet's latency, from creation to the tail's delivery.

A broadcast copy (``bcast`` set) must come from another node, carry its source as
``dest``, and hold the next sequence number of its source's broadcasts (a second
table, per source): a lost, duplicated or reordered copy breaks the sequence. With
multicast flits (``mmask``) a copy must also arrive in its source's subcube ``(dest,
mmask)``: the generators multicast to their node's group, so every member receives
every one of its source's multicasts and the sequence check holds as for broadcasts.

With flits whose header is in the head only (``layout.header == "head"``) a body or
tail flit is checked against what the checker remembered of its packet's head: its
``data`` must be the check word of the head's source, destination and sequence number
and the flit's index.

When the timestamp and sequence number do not fit in the head's payload, they continue
in the following flits' data (:class:`~cubefab.hdl.traffic_gen.PacketFormat`): the
checker keeps their bits until the flit where they end
(:attr:`~cubefab.hdl.traffic_gen.PacketFormat.fields_flit`), and checks their check
bits and the sequence number there.
"""

from dataclasses import dataclass

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..topology.base import Topology
from .traffic_gen import PacketFormat


__all__ = ["TrafficChecker"]


@dataclass(frozen=True)
class _Fields:
    """The timestamp and sequence number an arriving flit completes."""

    stamp: Value
    sequence: Value


@dataclass(frozen=True)
class _Checks:
    """The checks of an arriving flit: whether it is a head, a head's framing and
    fields intact (``head_intact``) and all its checks (``head_ok``); a later flit's
    framing and check bits intact (``body_intact``) and all its checks (``body_ok``)."""

    is_head: Value
    head_intact: Value
    head_ok: Value
    body_intact: Value
    body_ok: Value


@dataclass(frozen=True)
class _OpenPacket:
    """The registers of the packet a checker is receiving: whether one is open, the
    index of its next flit, its head's ``src``, ``dest``, sequence number and time
    stamp, and whether it is wrong (``bad``, any check) or corrupted (``broken``);
    ``partial``: the bits of the fields received in flits before the one where they
    end."""

    inside: Signal
    index: Signal
    src: Signal
    dest: Signal
    sequence: Signal
    stamp: Signal
    bad: Signal
    broken: Signal
    partial: Signal


class TrafficChecker(wiring.Component):
    """Checker of the packets ejected at one node.

    Parameters
    ----------
    topology : Topology
    node : int or None
        This node's address, or ``None`` to take it from the ``here`` input.
    fmt : PacketFormat
    ordered : bool
        Check that each packet's sequence number is the next of its flow (default
        True). False for adaptive routing, which may reorder a flow's packets: then
        the simulation harness counts reordering, loss and duplication
        (:mod:`cubefab.sim.checks`) and the checker everything else.

    Members
    -------
    flits : In(stream.Signature(layout))
        From the node's ``local_out``; ``ready`` is always 1.
    now : In(timestamp_bits)
        The current cycle (modulo ``2**timestamp_bits``).
    delivered : Out(1)
        Pulse: a packet's tail arrived (``latency`` and ``error`` describe it).
    flit_received : Out(1)
        Pulse: a flit arrived.
    error : Out(1)
        Pulse: a packet was wrong (with ``delivered``: misrouted, corrupted, badly
        framed or out of order), or a flit arrived outside any packet.
    corrupted : Out(1)
        Pulse: a packet was corrupted (with ``delivered``: a payload check word or
        its framing was wrong), or a flit arrived outside any packet, or a head cut
        an open packet short.
    latency : Out(timestamp_bits)
        Cycles from the packet's creation to its tail's arrival, with ``delivered``.
    delivered_broadcast : Out(1)
        Only with a ``bcast`` field: the packet of ``delivered`` is a broadcast copy.
    cut : Out(1)
        Only with waypoint headers (fault-tolerant routers): pulse, the open packet
        ended with a synthetic tail (``cut`` set: a failed link cut it short; see
        :class:`~cubefab.hdl.router.Router`). It counts as lost to the fault, not as
        delivered; with ``error`` when its flits so far (or the tail's header) were
        wrong.
    here : In(topology.address_bits)
        This node's address; present only when ``node`` is ``None``.
    """

    def __init__(self, topology, node, fmt, ordered=True):
        if not isinstance(topology, Topology):
            raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
        if not isinstance(fmt, PacketFormat):
            raise TypeError(f"Format must be a PacketFormat, not {fmt!r}")
        self.topology = topology
        self.node = None if node is None else topology.check_node(node, "node")
        self.fmt = fmt
        self.ordered = bool(ordered)
        super().__init__({
            **({"here": In(topology.address_bits)} if self.node is None else {}),
            "flits": In(stream.Signature(fmt.layout)),
            "now": In(fmt.timestamp_bits),
            "delivered": Out(1),
            "flit_received": Out(1),
            "error": Out(1),
            "corrupted": Out(1),
            "latency": Out(fmt.timestamp_bits),
            **({"delivered_broadcast": Out(1)} if fmt.layout.broadcast else {}),
            **({"cut": Out(1)} if fmt.layout.waypoints else {}),
        })

    def elaborate(self, platform):
        m = Module()
        fmt = self.fmt
        flit = self.flits.payload
        arrive = Signal()
        m.d.comb += [self.flits.ready.eq(1), arrive.eq(self.flits.valid),
                     self.flit_received.eq(arrive)]
        packet = self._open_packet()
        fields = self._fields(flit, packet)
        expected, writes = self._expected(m, flit, packet)
        checks = self._checks(m, flit, packet, fields, expected)
        m.d.comb += self.latency.eq(self.now - packet.stamp)
        if fmt.layout.broadcast:
            m.d.comb += self.delivered_broadcast.eq(self.delivered & flit.bcast)
        with m.If(arrive):
            self._receive(m, flit, packet, checks, fields, writes)
        return m

    def _open_packet(self):
        """State of the packet being received (ejection never interleaves packets)."""
        fmt, bits = self.fmt, self.topology.address_bits
        inside = Signal()
        index = Signal(fmt.index_bits + 1)
        src = Signal(bits)
        dest = Signal(bits)
        sequence = Signal(max(1, fmt.sequence_bits))
        stamp = Signal(fmt.timestamp_bits)
        bad = Signal()          # the open packet is wrong (any check)
        broken = Signal()       # the open packet is corrupted (payload or framing)
        partial = Signal(max(1, fmt.fields_in(fmt.fields_flit)[0]))
        return _OpenPacket(inside, index, src, dest, sequence, stamp, bad, broken, partial)

    def _data(self, flit):
        """The data bits of an arriving flit after the head: its ``payload``, or with
        the header in the head only its whole ``data``."""
        if self.fmt.layout.header == "head":
            return data.View(self.fmt.layout.body, flit.as_value()).data
        return flit.payload

    def _fields(self, flit, packet):
        """The timestamp and sequence number of the arriving flit read as the flit
        where they end (:attr:`~.traffic_gen.PacketFormat.fields_flit`): the head's, or
        the bits kept from the flits before (``partial``) and this flit's."""
        fmt, ts_bits, seq_bits = self.fmt, self.fmt.timestamp_bits, self.fmt.sequence_bits
        if fmt.fields_flit == 0:
            fields = flit.payload
        else:
            start, count = fmt.fields_in(fmt.fields_flit)
            fields = Cat(packet.partial[:start], self._data(flit)[:count])
        sequence = fields[ts_bits:ts_bits + seq_bits] if seq_bits else Const(0, 1)
        return _Fields(fields[:ts_bits], sequence)

    def _expected(self, m, flit, packet):
        """The sequence number expected of the arriving packet's flow (its source's
        next; with broadcasts, a broadcast's next of its source), and the write ports
        that advance it: ``(expected, (write, broadcast write))``, the ports None
        where there are none."""
        fmt, bits, seq_bits = self.fmt, self.topology.address_bits, self.fmt.sequence_bits
        expected = Signal(max(1, seq_bits))
        src = flit.src if fmt.fields_flit == 0 else packet.src
        wr = bwr = None
        if seq_bits and self.ordered:
            mem = m.submodules.expected = Memory(shape=seq_bits, depth=1 << bits, init=[])
            rd = mem.read_port(domain="comb")
            wr = mem.write_port()
            m.d.comb += [rd.addr.eq(src), expected.eq(rd.data)]
            if fmt.layout.broadcast:   # the next broadcast of each source
                bmem = m.submodules.expected_broadcast = Memory(
                    shape=seq_bits, depth=1 << bits, init=[])
                brd = bmem.read_port(domain="comb")
                bwr = bmem.write_port()
                m.d.comb += [brd.addr.eq(src),
                             expected.eq(Mux(flit.bcast, brd.data, rd.data))]
        return expected, (wr, bwr)

    def _arrived_right(self, flit):
        """Where a head belongs: a unicast packet here, a broadcast copy anywhere but
        its source (which it names as dest)."""
        fmt = self.fmt
        here = self.here if self.node is None else self.node
        arrived_right = flit.dest == here
        if fmt.layout.broadcast:
            copy_right = (flit.src != here) & (flit.dest == flit.src)
            if fmt.layout.multicast and not fmt.layout.member_bits:   # here a member
                copy_right = copy_right & (((flit.dest ^ here) & flit.mmask) == 0)
            arrived_right = Mux(flit.bcast, copy_right, arrived_right)
        return arrived_right

    def _checks(self, m, flit, packet, fields, expected):
        """Checks of the arriving flit, as if it were the next one of a packet
        (:class:`_Checks`)."""
        fmt, p = self.fmt, packet
        arrived_right = self._arrived_right(flit)
        is_head = Signal()
        in_order = Signal(init=1)
        head_intact = Signal()
        head_ok = Signal()
        body_ok = Signal()
        head_fields = (flit.payload == fmt.head_payload(fields.stamp, fields.sequence,
                                                        flit.src, flit.dest)
                       if fmt.fields_flit == 0 else 1)
        m.d.comb += [is_head.eq(flit.head),
                     head_intact.eq(head_fields & (flit.tail == (fmt.packet_flits == 1)))]
        body = self._body_intact(flit, p.src, p.dest, p.sequence, p.index[:fmt.index_bits])
        framing = flit.tail == (p.index == fmt.packet_flits - 1)
        if fmt.fields_flit == 0:
            body_intact = body_ok
            m.d.comb += [head_ok.eq(arrived_right & head_intact & in_order),
                         body_ok.eq(body & framing)]
        else:   # the fields end in a later flit: checked there
            k = fmt.fields_flit
            at_fields = p.index == k
            intact = self._data(flit) == fmt.fields_data(k, fields.stamp, fields.sequence,
                                                         p.src, p.dest)
            if fmt.layout.header == "every":
                intact = intact & (flit.src == p.src) & (flit.dest == p.dest)
            body_intact = Signal()
            m.d.comb += [head_ok.eq(arrived_right & head_intact),
                         body_intact.eq(framing & Mux(p.index < k, 1,
                                                      Mux(at_fields, intact, body))),
                         body_ok.eq(body_intact & (~at_fields | in_order))]
        if fmt.sequence_bits and self.ordered:
            m.d.comb += in_order.eq(fields.sequence == expected)
        return _Checks(is_head, head_intact, head_ok, body_intact, body_ok)

    def _receive(self, m, flit, packet, checks, fields, writes):
        """An arriving flit: a head opens a packet, a body flit extends it, a tail (or
        a synthetic tail of a cut packet) closes it and counts it."""
        fmt, p = self.fmt, packet
        with m.If(checks.is_head):
            self._receive_head(m, flit, packet, checks, fields, writes)
        with m.Elif(~p.inside):
            # a body flit outside any packet
            m.d.comb += [self.error.eq(1), self.corrupted.eq(1)]
        if fmt.layout.waypoints:
            with m.Elif(flit.cut):
                # a synthetic tail: the packet was cut by a failed link
                m.d.sync += p.inside.eq(0)
                wrong = p.bad | ~flit.tail
                if fmt.layout.header == "every":   # (else a synthetic tail's data)
                    wrong = wrong | (flit.src != p.src) | (flit.dest != p.dest)
                m.d.comb += [self.cut.eq(1), self.error.eq(wrong)]
        with m.Else():
            m.d.sync += [p.index.eq(p.index + 1), p.bad.eq(p.bad | ~checks.body_ok),
                         p.broken.eq(p.broken | ~checks.body_intact)]
            if fmt.fields_flit:
                self._receive_fields(m, flit, packet, fields, writes)
            with m.If(flit.tail):
                m.d.sync += p.inside.eq(0)
                m.d.comb += [self.delivered.eq(1), self.error.eq(p.bad | ~checks.body_ok),
                             self.corrupted.eq(p.broken | ~checks.body_intact)]
                if 0 < fmt.fields_flit == fmt.packet_flits - 1:   # they end in the tail
                    m.d.comb += self.latency.eq(self.now - fields.stamp)

    def _receive_fields(self, m, flit, packet, fields, writes):
        """A flit after the head of a packet whose fields span flits: before the flit
        where they end its bits are kept (``partial``); in that flit the sequence number
        and timestamp are taken (and the flow's next sequence number written)."""
        fmt, p = self.fmt, packet
        for i in range(1, fmt.fields_flit):
            start, count = fmt.fields_in(i)
            with m.If(p.index == i):
                m.d.sync += p.partial[start:start + count].eq(self._data(flit)[:count])
        with m.If(p.index == fmt.fields_flit):
            m.d.sync += [p.sequence.eq(fields.sequence), p.stamp.eq(fields.stamp)]
            self._advance(m, flit, p.src, fields.sequence, writes)

    def _advance(self, m, flit, src, sequence, writes):
        """Write the next sequence number of the flow of ``src`` (the checker
        resynchronises on the number received, so that one error is counted once)."""
        wr, bwr = writes
        if wr is None:
            return
        m.d.comb += [wr.addr.eq(src), wr.data.eq(sequence + 1), wr.en.eq(1)]
        if bwr is not None:
            m.d.comb += [bwr.addr.eq(src), bwr.data.eq(sequence + 1),
                         bwr.en.eq(flit.bcast), wr.en.eq(~flit.bcast)]

    def _receive_head(self, m, flit, packet, checks, fields, writes):
        """An arriving head: it opens a packet (a head while a packet is open ends
        that packet as an error); a one-flit packet is counted at once."""
        p, whole = packet, self.fmt.fields_flit == 0   # the fields in the head
        m.d.sync += [p.inside.eq(~flit.tail), p.index.eq(1), p.src.eq(flit.src),
                     p.dest.eq(flit.dest),
                     *([p.sequence.eq(fields.sequence), p.stamp.eq(fields.stamp)]
                       if whole else []),
                     p.bad.eq(~checks.head_ok), p.broken.eq(~checks.head_intact)]
        if whole:
            self._advance(m, flit, flit.src, fields.sequence, writes)
        else:   # the head's payload: the first bits of the fields
            m.d.sync += p.partial[:len(flit.payload)].eq(flit.payload)
        with m.If(p.inside):
            m.d.comb += [self.error.eq(1), self.corrupted.eq(1)]
        with m.If(flit.tail):
            m.d.comb += [self.delivered.eq(1), self.error.eq(~checks.head_ok),
                         self.corrupted.eq(~checks.head_intact),
                         self.latency.eq(self.now - fields.stamp)]

    def _body_intact(self, flit, src, dest, sequence, index):
        """Whether a body or tail ``flit`` of the open packet (its head's ``src``,
        ``dest`` and ``sequence``; the flit's ``index``) is intact: it repeats the
        head's ``src`` and ``dest`` and carries the check word; with the header in the
        head only, its whole ``data`` is the check word."""
        fmt = self.fmt
        if fmt.layout.header == "head":
            body = data.View(fmt.layout.body, flit.as_value())
            return body.data == fmt.check_word(src, dest, sequence, index, len(body.data))
        return ((flit.src == src) & (flit.dest == dest)
                & (flit.payload == fmt.check_word(src, dest, sequence, index)))
