"""A netrace trace as a run: which packets, on which nodes, in which flits, when.

:class:`TracePlan` turns the packets of a trace (:mod:`cubefab.sim.netrace`) into the
packets a fabric of routers carries: the trace's nodes mapped onto the network's, each
packet's length in flits from its size in bytes and the flits' payload, and its
dependencies within the packets chosen. :class:`ClosedLoop` is the run's bookkeeping,
the same for every engine: it decides which flit each node offers in a cycle (a packet
is injected no earlier than its trace cycle, and, closed-loop, not before every packet
it depends on has been delivered), and checks each packet a node ejects against the
plan (its destination, source, sequence number and every flit's contents).

Flits: a packet's head carries its destination and source, and in its payload the
source's sequence number of the packet (modulo ``2**payload_width``), which names it
among the source's packets in flight; every other flit's payload (with a head-only
header: its ``data``) is a check word of the source, the sequence number and the flit's
index (:func:`check_word`), so that a flit that is corrupted, lost, duplicated or
delivered to another packet is found.
"""

import collections
import functools
import heapq
import math
from dataclasses import dataclass

from amaranth.lib import data

from ..hdl.flit import FlitLayout
from ..topology.base import Topology, check_int
from .netrace import Trace


__all__ = ["TracePacketPlan", "TracePlan", "ClosedLoop", "TraceCheckError", "check_word",
           "packet_flits"]


_MIX = (0x9E3779B1, 0x85EBCA77, 0xC2B2AE3D)


def check_word(src, sequence, index, width):
    """The ``width``-bit check word of flit ``index`` of the packet of ``sequence`` from
    ``src``: a mix of the three in which every input bit changes about half the output
    bits (what the harnesses of both engines compute alike)."""
    x = (src * _MIX[0] ^ sequence * _MIX[1] ^ (index + 1) * _MIX[2]) & 0xFFFFFFFF
    x ^= x >> 15
    x = (x * 0x2C1B3C6D) & 0xFFFFFFFF
    x ^= x >> 12
    x = (x * 0x297A2D39) & 0xFFFFFFFF
    x ^= x >> 15
    return x & ((1 << width) - 1) if width <= 32 else \
        (x | check_word(src, sequence, index + 0x10000, width - 32) << 32)


def packet_flits(size, layout):
    """Flits of a packet of ``size`` bytes with flits of ``layout``: its head carries
    ``payload_width`` bits, every other flit ``body_payload_width``; at least one."""
    bits = 8 * check_int("Packet size in bytes", size, 1)
    rest = max(0, bits - layout.payload_width)
    return 1 + math.ceil(rest / layout.body_payload_width)


class TraceCheckError(AssertionError):
    """A packet the fabric delivered is not one the plan sent (misrouted, corrupted,
    duplicated), or one it sent was never delivered."""


@dataclass(frozen=True)
class TracePacketPlan:
    """One packet of a run.

    Attributes
    ----------
    index : int
        Its place in the run (packets in the trace's order).
    id, type_name : int, str
        Its trace id and type.
    src, dst : int
        The network's nodes it goes between (addresses).
    trace_src, trace_dst : int
        Its trace nodes.
    cycle : int
        Its trace cycle.
    flits : int
        Its length in flits.
    sequence : int
        Its place among its source's packets in the run (the head's payload holds it
        modulo ``2**payload_width``).
    waits_for : int
        The run's packets it depends on (0 when dependencies are ignored).
    dependents : tuple of int
        The indices of the run's packets that depend on it.
    """

    index: int
    id: int
    type_name: str
    src: int
    dst: int
    trace_src: int
    trace_dst: int
    cycle: int
    flits: int
    sequence: int
    waits_for: int
    dependents: tuple


class TracePlan:
    """The packets of ``trace`` a run on ``topology`` injects, with flits of ``layout``.

    Parameters
    ----------
    trace : Trace
        The trace (:func:`~cubefab.sim.netrace.read_trace`).
    topology : Topology
        The network; trace node ``i`` is the network's ``i``-th node in address order
        (node ``i`` where addresses are dense). It must have at least the trace's
        nodes.
    layout : FlitLayout
        The flits of the routers' links (payload widths).
    region : int, optional
        Only the packets of this region (default: the whole trace).
    packets : int, optional
        Only the first ``packets`` packets (by id) of the region or trace.
    ignore_dependencies : bool
        Inject each packet at its trace cycle, whatever was delivered (default False:
        closed loop).

    Attributes
    ----------
    packets : list of TracePacketPlan
    start : int
        The trace cycle the run's cycle 0 stands for (its region's first cycle).
    trace_cycles : int
        The trace's own span of the chosen packets: the region's (or trace's) cycles,
        or with ``packets``, up to the last chosen packet's cycle.
    """

    def __init__(self, trace, topology, layout, *, region=None, packets=None,
                 ignore_dependencies=False):
        if not isinstance(trace, Trace):
            raise TypeError(f"Trace must be a netrace Trace, not {trace!r}")
        if not isinstance(topology, Topology):
            raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
        if not isinstance(layout, FlitLayout):
            raise TypeError(f"Layout must be a FlitLayout, not {layout!r}")
        if packets is not None:
            check_int("Trace packets", packets, 1)
        if topology.num_nodes < trace.nodes:
            raise ValueError(f"{topology.label} has {topology.num_nodes} nodes; the trace "
                             f"{trace.benchmark!r} has {trace.nodes}: take a network of "
                             f"at least {trace.nodes} nodes")
        self.trace, self.topology, self.layout = trace, topology, layout
        self.region = region
        self.ignore_dependencies = bool(ignore_dependencies)
        chosen = self._choose(region, packets)
        first = trace.region(region).first_cycle if region is not None else 0
        self.start = first
        self.trace_cycles = (chosen[-1].cycle - first + 1 if packets is not None and chosen
                             else trace.region(region).cycles if region is not None
                             else trace.cycles)
        self.packets = self._plan(chosen)

    def _choose(self, region, packets):
        """The trace's packets of ``region`` (the first ``packets`` by id), in the
        trace's order."""
        read = self.trace.packets(region)
        if packets is None:
            return list(read)
        return sorted(heapq.nsmallest(packets, read, key=lambda p: p.id),
                      key=lambda p: (p.cycle, p.id))

    def _plan(self, chosen):
        nodes = [int(a) for a in self.topology.nodes()[:self.trace.nodes]]
        index = {p.id: i for i, p in enumerate(chosen)}
        waits = [0] * len(chosen)
        dependents, sequences, count = [], [], {}
        for p in chosen:
            inside = tuple(index[d] for d in p.dependents if d in index)
            dependents.append(() if self.ignore_dependencies else inside)
            for d in dependents[-1]:
                waits[d] += 1
            sequences.append(count.get(p.src, 0))
            count[p.src] = sequences[-1] + 1
        return [TracePacketPlan(i, p.id, p.type_name, nodes[p.src], nodes[p.dst], p.src,
                                p.dst, p.cycle, packet_flits(p.size, self.layout),
                                sequences[i], waits[i], dependents[i])
                for i, p in enumerate(chosen)]

    def flit_words(self, packet):
        """The raw flits of ``packet`` (a :class:`TracePacketPlan`): the head with its
        destination, source and sequence number, the others with their check words
        (the fields the router fills in, such as ``vc``, 0)."""
        layout = self.layout
        body = layout.body if layout.header == "head" else layout
        sequence = packet.sequence & ((1 << layout.payload_width) - 1)
        words = [_packed(layout, head=1, tail=int(packet.flits == 1), dest=packet.dst,
                         src=packet.src, payload=sequence)]
        for k in range(1, packet.flits):
            fields = {"tail": int(k == packet.flits - 1)}
            word = check_word(packet.src, packet.sequence, k, layout.body_payload_width)
            if body is layout:
                fields.update(dest=packet.dst, src=packet.src, payload=word)
            else:
                fields["data"] = word
            words.append(_packed(body, **fields))
        return words

    def checked_bits(self):
        """``(head, body)``: masks of the bits of a head and of any other flit that
        must arrive as they were sent (all but the fields routers rewrite: ``vc``,
        ``cls``, the lookahead fields)."""
        layout = self.layout
        body = layout.body if layout.header == "head" else layout
        return (_mask(layout, ("head", "tail", "dest", "src", "payload")),
                _mask(body, ("head", "tail", "data") if body is not layout
                      else ("head", "tail", "dest", "src", "payload")))


@functools.lru_cache(maxsize=None)
def _fields(layout):
    """``{name: (offset, mask)}`` of the fields of ``layout`` (a StructLayout)."""
    return {name: (field.offset, (1 << field.shape.width) - 1) for name, field in layout}


def _packed(layout, **values):
    """The bits of a flit of ``layout`` whose fields ``values`` are given, the others 0
    (``layout.const(values).as_bits()`` of unsigned fields, packed with integers: the
    plan of a trace has a flit word per flit)."""
    fields, out = _fields(layout), 0
    for name, value in values.items():
        offset, mask = fields[name]
        out |= (value & mask) << offset
    return out


def _mask(layout, names):
    out = 0
    for name in names:
        field = layout[name]
        out |= ((1 << field.shape.width) - 1) << field.offset
    return out


class ClosedLoop:
    """The bookkeeping of a run of ``plan`` (engine-independent; see the module text).

    Every cycle the engine asks :meth:`offer` which flit each node offers (a raw flit),
    tells :meth:`accepted` which nodes' flits entered the fabric, and gives
    :meth:`ejected` every flit a node's ejection port delivered; :meth:`advance` ends
    the cycle. A packet joins its source's queue in the first cycle at or after its
    trace cycle in which every packet it waits for has been delivered (a delivery in
    cycle ``c`` releases its dependents from cycle ``c + 1``); a source sends its
    queue's packets in order, one flit per cycle as its router accepts them.
    """

    def __init__(self, plan):
        if not isinstance(plan, TracePlan):
            raise TypeError(f"Plan must be a TracePlan, not {plan!r}")
        self.plan = plan
        packets = plan.packets
        self._words = [plan.flit_words(p) for p in packets]
        self._head_mask, self._body_mask = plan.checked_bits()
        self._names = 1 << plan.layout.payload_width   # sequence numbers a head holds
        self._in_flight = {}       # (src, sequence mod names) -> index
        self.cycle = 0
        self.inject_cycle = [None] * len(packets)
        self.deliver_cycle = [None] * len(packets)
        self._waits = [p.waits_for for p in packets]
        self._timed = [(p.cycle - plan.start, p.index) for p in packets]
        heapq.heapify(self._timed)
        self._released = set()
        self._queues = {}          # node -> indices of its packets ready to go, in order
        self._sending = {}         # node -> [index, next flit]
        self._receiving = {}       # node -> flits of the packet it is ejecting
        self.delivered = 0

    @property
    def done(self):
        """bool: every packet delivered."""
        return self.delivered == len(self.plan.packets)

    def _release(self):
        while self._timed and self._timed[0][0] <= self.cycle:
            _, i = heapq.heappop(self._timed)
            self._released.add(i)
            if not self._waits[i]:
                self._enqueue(i)

    def _enqueue(self, i):
        self._queues.setdefault(self.plan.packets[i].src, collections.deque()).append(i)

    def offer(self):
        """``{node: raw flit}``: the flit each node with a packet to send offers in this
        cycle."""
        self._release()
        offers = {}
        for node, queue in self._queues.items():
            sending = self._sending.get(node)
            if sending is None and queue:
                sending = self._sending[node] = [queue.popleft(), 0]
            if sending is not None:
                offers[node] = self._words[sending[0]][sending[1]]
        return offers

    def accepted(self, node):
        """The flit ``node`` offered entered the fabric."""
        sending = self._sending[node]
        index, flit = sending
        if flit == 0:
            self.inject_cycle[index] = self.cycle
            packet = self.plan.packets[index]
            key = (packet.src, packet.sequence % self._names)
            if key in self._in_flight:
                raise TraceCheckError(f"node {packet.src} has {self._names} packets in "
                                      f"flight: a head's {self._names.bit_length() - 1}-bit "
                                      f"sequence number would name two")
            self._in_flight[key] = index
        sending[1] += 1
        if sending[1] == len(self._words[index]):
            del self._sending[node]

    def ejected(self, node, raw):
        """``node``'s ejection port delivered the flit ``raw`` in this cycle: checked at
        its packet's tail (:class:`TraceCheckError` for a packet the plan did not send
        there, or not as it was sent)."""
        flits = self._receiving.setdefault(node, [])
        flits.append(raw)
        if data.Const(self.plan.layout, raw).tail:
            del self._receiving[node]
            self._delivered(node, flits)

    def _delivered(self, node, flits):
        head = data.Const(self.plan.layout, flits[0])
        index = self._in_flight.pop((int(head.src), int(head.payload)), None)
        if not head.head or index is None:
            raise TraceCheckError(f"node {node} ejected a packet the run did not send or "
                                  f"had delivered: from {int(head.src)}, sequence "
                                  f"{int(head.payload)}")
        plan, sent = self.plan.packets[index], self._words[index]
        if node != plan.dst or len(flits) != len(sent) or any(
                (got ^ want) & (self._body_mask if k else self._head_mask)
                for k, (got, want) in enumerate(zip(flits, sent))):
            raise TraceCheckError(f"trace packet {plan.id} ({plan.src} -> {plan.dst}, "
                                  f"{len(sent)} flits) arrived at node {node} with "
                                  f"{len(flits)} flits, not as it was sent")
        self.deliver_cycle[index] = self.cycle
        self.delivered += 1
        for d in plan.dependents:
            self._waits[d] -= 1
            if not self._waits[d] and d in self._released:
                self._enqueue(d)

    def advance(self):
        """End the cycle."""
        self.cycle += 1

    def lost(self):
        """The trace ids of the packets not delivered (yet)."""
        return [p.id for p, c in zip(self.plan.packets, self.deliver_cycle) if c is None]
