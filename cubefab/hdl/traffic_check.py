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
"""

from dataclasses import dataclass

from amaranth.hdl import Const, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..topology.base import Topology
from .traffic_gen import PacketFormat


__all__ = ["TrafficChecker"]


@dataclass(frozen=True)
class _OpenPacket:
    """The registers of the packet a checker is receiving: whether one is open, the
    index of its next flit, its head's ``src``, ``dest``, sequence number and time
    stamp, and whether it is wrong (``bad``, any check) or corrupted (``broken``)."""

    inside: Signal
    index: Signal
    src: Signal
    dest: Signal
    sequence: Signal
    stamp: Signal
    bad: Signal
    broken: Signal


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
        ts_bits, seq_bits = fmt.timestamp_bits, fmt.sequence_bits
        flit = self.flits.payload
        arrive = Signal()
        m.d.comb += [self.flits.ready.eq(1), arrive.eq(self.flits.valid),
                     self.flit_received.eq(arrive)]
        packet = self._open_packet()
        head_seq = flit.payload[ts_bits:ts_bits + seq_bits] if seq_bits else Const(0, 1)
        expected, writes = self._expected(m, flit)
        checks = self._checks(m, flit, packet, head_seq, expected)
        m.d.comb += self.latency.eq(self.now - packet.stamp)
        if fmt.layout.broadcast:
            m.d.comb += self.delivered_broadcast.eq(self.delivered & flit.bcast)
        with m.If(arrive):
            self._receive(m, flit, packet, checks, head_seq, writes)
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
        return _OpenPacket(inside, index, src, dest, sequence, stamp, bad, broken)

    def _expected(self, m, flit):
        """The sequence number expected of the arriving head's flow (its source's
        next; with broadcasts, a broadcast's next of its source), and the write ports
        that advance it: ``(expected, (write, broadcast write))``, the ports None
        where there are none."""
        fmt, bits, seq_bits = self.fmt, self.topology.address_bits, self.fmt.sequence_bits
        expected = Signal(max(1, seq_bits))
        wr = bwr = None
        if seq_bits and self.ordered:
            mem = m.submodules.expected = Memory(shape=seq_bits, depth=1 << bits, init=[])
            rd = mem.read_port(domain="comb")
            wr = mem.write_port()
            m.d.comb += [rd.addr.eq(flit.src), expected.eq(rd.data)]
            if fmt.layout.broadcast:   # the next broadcast of each source
                bmem = m.submodules.expected_broadcast = Memory(
                    shape=seq_bits, depth=1 << bits, init=[])
                brd = bmem.read_port(domain="comb")
                bwr = bmem.write_port()
                m.d.comb += [brd.addr.eq(flit.src),
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

    def _checks(self, m, flit, packet, head_seq, expected):
        """Checks of the arriving flit, as if it were the next one of a packet:
        ``(is_head, head_intact, head_ok, body_ok)``."""
        fmt, ts_bits = self.fmt, self.fmt.timestamp_bits
        arrived_right = self._arrived_right(flit)
        is_head = Signal()
        in_order = Signal(init=1)
        head_intact = Signal()
        head_ok = Signal()
        body_ok = Signal()
        m.d.comb += [
            is_head.eq(flit.head),
            head_intact.eq((flit.payload == fmt.head_payload(
                               flit.payload[:ts_bits], head_seq, flit.src, flit.dest))
                           & (flit.tail == (fmt.packet_flits == 1))),
            head_ok.eq(arrived_right & head_intact & in_order),
            body_ok.eq(self._body_intact(flit, packet.src, packet.dest, packet.sequence,
                                         packet.index[:fmt.index_bits])
                       & (flit.tail == (packet.index == fmt.packet_flits - 1))),
        ]
        if fmt.sequence_bits and self.ordered:
            m.d.comb += in_order.eq(head_seq == expected)
        return is_head, head_intact, head_ok, body_ok

    def _receive(self, m, flit, packet, checks, head_seq, writes):
        """An arriving flit: a head opens a packet, a body flit extends it, a tail (or
        a synthetic tail of a cut packet) closes it and counts it."""
        fmt, p = self.fmt, packet
        is_head, _, _, body_ok = checks
        with m.If(is_head):
            self._receive_head(m, flit, packet, checks, head_seq, writes)
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
            m.d.sync += [p.index.eq(p.index + 1), p.bad.eq(p.bad | ~body_ok),
                         p.broken.eq(p.broken | ~body_ok)]
            with m.If(flit.tail):
                m.d.sync += p.inside.eq(0)
                m.d.comb += [self.delivered.eq(1), self.error.eq(p.bad | ~body_ok),
                             self.corrupted.eq(p.broken | ~body_ok)]

    def _receive_head(self, m, flit, packet, checks, head_seq, writes):
        """An arriving head: it opens a packet (a head while a packet is open ends
        that packet as an error); a one-flit packet is counted at once."""
        ts_bits, p = self.fmt.timestamp_bits, packet
        _, head_intact, head_ok, _ = checks
        wr, bwr = writes
        m.d.sync += [p.inside.eq(~flit.tail), p.index.eq(1), p.src.eq(flit.src),
                     p.dest.eq(flit.dest), p.sequence.eq(head_seq),
                     p.stamp.eq(flit.payload[:ts_bits]), p.bad.eq(~head_ok),
                     p.broken.eq(~head_intact)]
        if wr is not None:
            # resynchronise on the sequence number received, so one error is counted
            # once
            m.d.comb += [wr.addr.eq(flit.src), wr.data.eq(head_seq + 1), wr.en.eq(1)]
            if bwr is not None:
                m.d.comb += [bwr.addr.eq(flit.src), bwr.data.eq(head_seq + 1),
                             bwr.en.eq(flit.bcast), wr.en.eq(~flit.bcast)]
        with m.If(p.inside):
            m.d.comb += [self.error.eq(1), self.corrupted.eq(1)]
        with m.If(flit.tail):
            m.d.comb += [self.delivered.eq(1), self.error.eq(~head_ok),
                         self.corrupted.eq(~head_intact),
                         self.latency.eq(self.now - flit.payload[:ts_bits])]

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
