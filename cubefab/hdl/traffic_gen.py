"""Per-node hardware traffic generators for self-checking fabrics.

A :class:`TrafficGenerator` sits on a node's injection port. Every cycle it draws
64 pseudo-random bits from a xorshift64 generator (a linear feedback shift
generator over GF(2), seeded from a run-time seed XOR a per-node constant) and
creates a packet when 16 of them fall below the injection threshold; the packet's destination follows
one of the patterns of :mod:`cubefab.topology.patterns`, drawn with the same definitions.
Packets wait in a source queue with their creation time (so latency includes
source queueing, as in open-loop measurement) and leave as ``packet_flits`` flits.

With a flit layout that has the ``bcast`` bit (replicating routers), a created packet
is a broadcast with probability ``broadcast_threshold / 2**16``, drawn from a second
xorshift64 generator (so the other draws keep their distribution); a broadcast's
``dest`` is its source and its sequence number counts the source's broadcasts. With
multicast flits (``mmask``) such a packet is a multicast to the source's *group*, the
subcube ``(here, multicast_group)``: the nodes ``x`` with ``(x ^ here) & multicast_group
== 0`` (0: every node, a broadcast).

Packet format (:class:`PacketFormat`): the packet's first data bits (the head's
payload, then as many following flits' data as they take) carry the creation
timestamp and the packet's sequence number in its flow (source, destination; for a
broadcast, the source's broadcasts), followed by check bits; every later flit's data
is a check word of (source, destination, sequence, flit index), so the checker (:mod:`cubefab.hdl.traffic_check`) detects corruption,
misrouting, loss, duplication and reordering. With flits whose header is in the head only
(``layout.header == "head"``) the check word of a body or tail flit fills all its
``data`` bits (:attr:`~cubefab.hdl.flit.FlitLayout.body`).
"""

import contextlib
from dataclasses import dataclass

import numpy as np

from amaranth.hdl import Cat, Const, Module, Mux, Signal, Value
from amaranth.lib import data, stream, wiring
from amaranth.lib.fifo import SyncFIFO
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..topology.patterns import check_pattern, permutation_destination
from ..topology.base import Topology, check_int
from .flit import FlitLayout
from .source_table import SourceTable


__all__ = ["PacketFormat", "TrafficGenerator", "check_generator", "RATE_BITS",
           "SOURCE_LATENCY", "rate_threshold",
           "xorshift64", "node_seed", "dense_to_address"]


#: The injection decision compares 16 random bits with a 17-bit threshold.
RATE_BITS = 16

#: Cycles from a packet's creation to its head entering the router with no packet
#: before it: one in the source queue. A packet of ``L`` flits over ``h`` hops with
#: no contention has latency ``SOURCE_LATENCY + ROUTER_LATENCY + h * HOP_LATENCY +
#: L - 1`` from creation to its tail's delivery (:mod:`cubefab.hdl.router`).
SOURCE_LATENCY = 1

_MASK64 = (1 << 64) - 1
_CHECK_CONSTANT = 0x9E3779B97F4A7C15F39CC0605CEDC834


def rate_threshold(packet_rate):
    """Threshold for a packet creation probability per cycle in [0, 1].

    A packet is created when the 16-bit random draw is below the threshold, so the
    realised probability is ``threshold / 2**16``.
    """
    if isinstance(packet_rate, bool) or not isinstance(packet_rate, (int, float)) \
            or not 0 <= packet_rate <= 1:
        raise ValueError(f"Packet rate must be a number in [0, 1], not {packet_rate!r}")
    return int(round(packet_rate * (1 << RATE_BITS)))


def xorshift64(state):
    """One step of Marsaglia's xorshift64 (13, 7, 17), in Python (the reference)."""
    state ^= (state << 13) & _MASK64
    state ^= state >> 7
    state ^= (state << 17) & _MASK64
    return state


def _splitmix64(z):
    z = (z + 0x9E3779B97F4A7C15) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def node_seed(seed, index):
    """The non-zero 64-bit starting state of node ``index`` for run seed ``seed``, in
    Python; the hardware computes the same: a per-node constant (splitmix64 of the
    index, folded at elaboration) XOR a word made of the seed, so the run-time seed
    costs only XOR gates (no multipliers on an FPGA)."""
    return (_splitmix64(index + 1) ^ seed ^ ((seed ^ 0x9E3779B9) << 32)) or 1


def _xorshift64_hw(x):
    a = x ^ (x << 13)[:64]
    b = a ^ (a >> 7)
    return b ^ (b << 17)[:64]


def _node_seed_hw(m, seed, salt, name):
    """Hardware :func:`node_seed` of a 32-bit ``seed`` signal and the node's salt
    (``_splitmix64(index + 1)``, a constant or a strap)."""
    word = Signal(64, name=f"{name}_word")
    out = Signal(64, name=name)
    m.d.comb += [word.eq(Cat(seed, seed ^ 0x9E3779B9) ^ salt),
                 out.eq(Mux(word == 0, 1, word))]
    return out


def dense_to_address(topology):
    """Split dense index -> address into ``(low_bits, table)``: the low ``low_bits``
    bits pass through and the rest index ``table`` (the address's upper part), or
    ``(None, None)`` when every index is its own address."""
    nodes = topology.nodes()
    n = topology.num_nodes
    if np.array_equal(nodes, np.arange(n)):
        return None, None
    for low in range(topology.address_bits, -1, -1):
        mask = (1 << low) - 1
        idx = np.arange(n)
        if n % (1 << low) == 0 and np.array_equal(nodes & mask, idx & mask):
            high = nodes >> low
            table = high[::1 << low]
            if np.array_equal(table[idx >> low], high):
                return low, [int(v) for v in table]
    raise ValueError(f"{topology.label}: no table form of its dense addresses")  # pragma: no cover


def check_generator(topology, layout, pattern, hotspot, queue_depth):
    """Check the parameters of a :class:`TrafficGenerator` (before building one);
    returns ``(pattern, hotspot, queue_depth)`` with the hotspot's default filled in."""
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    if layout.address_bits != topology.address_bits:
        raise ValueError(f"Layout address width must be {topology.address_bits} for "
                         f"{topology.label}, not {layout.address_bits}")
    check_pattern(pattern)
    hotspot = topology.check_node(topology.address(0) if hotspot is None else hotspot,
                                  "hotspot")
    queue_depth = check_int("Queue depth", queue_depth, 1)
    if pattern in ("transpose", "shuffle", "bitcomp"):
        permutation_destination(topology, pattern)  # raises if undefined anywhere
    if layout.member_bits:
        raise ValueError("Traffic generators multicast to subcubes (mmask), not to member "
                         "vectors")
    return pattern, hotspot, queue_depth


class PacketFormat:
    """How self-checking packets use their flits' data bits.

    Parameters
    ----------
    layout : FlitLayout
    packet_flits : int
        Flits per packet (>= 1).
    timestamp_bits : int
        Width of the creation timestamp; latencies are measured modulo ``2**timestamp_bits``.
    sequence_bits : int
        Width of the per-flow sequence number (0: no order check).

    A packet's *fields*, ``Cat(timestamp, sequence)`` (:attr:`field_bits` bits), fill
    its data bits from the head on: the head's ``payload``, then the data of each
    following flit (:attr:`~cubefab.hdl.flit.FlitLayout.body_payload_width` bits: all
    of a body flit's bits but the flit-type bits and ``vc`` with ``header="head"``),
    as far as they take (:meth:`fields_in`). The rest of the flit where they end
    (:attr:`fields_flit`) is check bits: the check word of (source, destination,
    sequence, flit index) XOR the timestamp folded to their width (and, when the fields
    span flits, the sequence number too), so that a corrupted field shows. Every
    later flit's data is the check word of its index (:meth:`check_word`). When the
    fields fit in the head (``payload_width >= field_bits``) the head's payload is
    ``Cat(timestamp, sequence, check)``.

    Raises
    ------
    ValueError
        If the packet's flits hold fewer data bits than the fields
        (:meth:`fields_capacity`): more flits or a wider payload are needed.
    """

    def __init__(self, layout, packet_flits=1, *, timestamp_bits=16, sequence_bits=8):
        if not isinstance(layout, FlitLayout):
            raise TypeError(f"Layout must be a FlitLayout, not {layout!r}")
        self.layout = layout
        self.packet_flits = check_int("Packet length in flits", packet_flits, 1, 1 << 16)
        self.timestamp_bits = check_int("Timestamp width", timestamp_bits, 1, 32)
        self.sequence_bits = check_int("Sequence number width", sequence_bits, 0, 16)
        #: int: bits of the fields, ``timestamp_bits + sequence_bits``
        self.field_bits = self.timestamp_bits + self.sequence_bits
        capacity = self.fields_capacity(layout, self.packet_flits)
        if capacity < self.field_bits:
            raise ValueError(
                f"Packets must hold the {self.field_bits} bits of their {timestamp_bits}-bit "
                f"timestamp and {sequence_bits}-bit sequence number: "
                f"{self.packet_flits}-flit packets of {layout.payload_width}-bit payloads "
                f"hold {capacity} (packet_flits at least "
                f"{self.flits_for(layout, self.field_bits)}, or a wider payload)")
        self.index_bits = max(1, (self.packet_flits - 1).bit_length())
        #: int: index of the flit that holds the last field bit (0: the head)
        self.fields_flit = self._flit_of(self.field_bits)
        #: int: index of the flit that holds the last timestamp bit
        self.stamp_flit = self._flit_of(self.timestamp_bits)

    @staticmethod
    def fields_capacity(layout, packet_flits):
        """int: the data bits of a ``packet_flits``-flit packet of ``layout``: the
        head's payload and every other flit's data."""
        return layout.payload_width + (packet_flits - 1) * layout.body_payload_width

    @staticmethod
    def flits_for(layout, bits):
        """int: the fewest flits whose data bits hold ``bits`` bits."""
        rest = max(0, bits - layout.payload_width)
        return 1 + -(-rest // layout.body_payload_width)

    def _flit_of(self, bits):
        return self.flits_for(self.layout, bits) - 1

    def data_bits(self, index):
        """int: the data bits of flit ``index``: the head's payload, another flit's
        :attr:`~cubefab.hdl.flit.FlitLayout.body_payload_width`."""
        return self.layout.payload_width if index == 0 else self.layout.body_payload_width

    def fields_in(self, index, bits=None):
        """``(start, width)``: the bits of the fields (of their first ``bits`` bits,
        default all) that flit ``index`` carries, from its data bit 0."""
        bits = self.field_bits if bits is None else bits
        start = 0 if index == 0 else (self.layout.payload_width
                                      + (index - 1) * self.layout.body_payload_width)
        return start, max(0, min(bits, start + self.data_bits(index)) - start)

    def check_word(self, src, dest, sequence, index, width=None):
        """The check value of a flit (an Amaranth value), ``width`` bits wide (default
        ``payload_width``)."""
        width = self.layout.payload_width if width is None else width
        seed = Cat(index, sequence, src, dest) if self.sequence_bits else \
            Cat(index, src, dest)
        copies = -(-width // len(seed))
        return Cat(*([seed] * copies))[:width] ^ Const(_CHECK_CONSTANT & ((1 << width) - 1),
                                                       width)

    def fields_data(self, index, timestamp, sequence, src, dest):
        """The data of flit ``index`` (at most :attr:`fields_flit`; an Amaranth value
        of :meth:`data_bits` bits): its part of the fields, then (in the flit where
        they end) the check bits."""
        fields = Cat(timestamp, sequence) if self.sequence_bits else timestamp
        start, count = self.fields_in(index)
        width = self.data_bits(index)
        if index < self.fields_flit or count == width:
            return fields[start:start + count]
        check = self.check_word(src, dest, sequence, Const(index, self.index_bits),
                                width)[count:]
        # fold the timestamp (spread over flits: the fields) into the check bits, so
        # that a corrupted field shows too
        folded = timestamp if self.fields_flit == 0 else fields
        for first in range(0, len(folded), len(check)):
            check = check ^ folded[first:first + len(check)]
        return Cat(fields[start:start + count], check)

    def body_data(self, index, timestamp, sequence, src, dest):
        """The data of a flit after the head whose index is the value ``index``
        (:attr:`~cubefab.hdl.flit.FlitLayout.body_payload_width` bits): its part of the
        fields up to :attr:`fields_flit` (:meth:`fields_data`), then its check word."""
        value = self.check_word(src, dest, sequence, index, self.layout.body_payload_width)
        for i in range(1, self.fields_flit + 1):
            value = Mux(index == i, self.fields_data(i, timestamp, sequence, src, dest),
                        value)
        return value

    def head_payload(self, timestamp, sequence, src, dest):
        """Head flit payload: its part of the fields (all of them when they fit: then
        timestamp, sequence number and check bits)."""
        return self.fields_data(0, timestamp, sequence, src, dest)


@dataclass(frozen=True)
class _Queued:
    """A generator's source queue and the fields of its oldest entry: destination,
    creation time, the route (waypoints) and whether it is a broadcast (None without
    broadcasts)."""

    queue: SyncFIFO
    dest: Value
    time: Value
    route: Value
    broadcast: Value = None


class TrafficGenerator(wiring.Component):
    """Synthetic traffic source of one node, on its injection port.

    Parameters
    ----------
    topology : Topology
    node : int or None
        This node's address, or ``None`` for a generator whose node-dependent
        constants come from its ``straps`` input (one design for every node).
    fmt : PacketFormat
    pattern : str
        A pattern of :mod:`cubefab.topology.patterns`.
    hotspot : int, optional
        Hot node address for ``hotspot`` traffic (default: dense index 0).
    queue_depth : int
        Packets the source queue holds; a packet created while it is full is refused
        (counted by ``refused``), so offered load is measured, not assumed.
    waypoints : int
        0 (the default): every destination is routed directly. Otherwise the flits'
        headers hold this many waypoints (``fmt.layout.waypoints``), which a
        :class:`~cubefab.hdl.source_table.SourceTable` gives per destination, loaded
        through the ``config_*`` inputs: a packet to a destination whose entry is
        refused is not created but counted by ``unroutable``; a faulty node (its own
        entry refused) creates nothing.
    multicast_group : int
        With multicast flits (``mmask``): the address bits every member of a node's
        group shares with the node (default 0: none; the group is every node).
    random_input : bool
        Add the simulation ports ``random_load``, ``random_value`` and
        ``random_state`` (default False: none, the same hardware as before).

    Members
    -------
    seed : In(32)
        Run seed; sampled while ``start`` is low (the first cycle after reset).
    threshold : In(RATE_BITS + 1)
        Packet creation probability per cycle times ``2**16`` (:func:`rate_threshold`).
    hot_threshold : In(RATE_BITS)
        ``hotspot``: probability times ``2**16`` that a packet goes to the hot node.
    now : In(timestamp_bits)
        The current cycle (modulo ``2**timestamp_bits``).
    flits : Out(stream.Signature(layout))
        To the node's ``local_in``.
    straps : In(strap_layout)
        Only when ``node`` is ``None``: held at :meth:`strap_values` of a node.
    created, refused, injected, flit_sent : Out(1)
        One-cycle pulses: a packet was created (and queued), created but refused
        (queue full), its head entered the network; a flit entered the network.
    hold, config_write, config_dest, config_entry : In
        Only with ``waypoints``: while ``hold`` is 1 (a fabric's configuration cycle)
        the generator stands still (no packet, no random step); ``config_write`` writes
        ``config_entry`` at ``config_dest`` of its source table.
    unroutable : Out(1)
        Only with ``waypoints``: pulse, a packet was drawn to a destination its table
        refuses (not created).
    broadcast_threshold : In(RATE_BITS + 1)
        Only with a ``bcast`` field: probability times ``2**16`` that a created packet
        is a broadcast (``2**16``: every one); with an ``mmask`` field a multicast to
        the group ``multicast_group`` (the parameter: a mask of address bits) of this
        node.
    created_broadcast : Out(1)
        Only with a ``bcast`` field: the packet of ``created`` or ``refused`` is a
        broadcast (the flit on ``flits`` tells for ``injected`` and ``flit_sent``).
    random_load, random_value : In(1), In(64)
        Only with ``random_input``: while ``random_load`` is 1 the cycle draws from
        ``random_value`` instead of the random state, and the state steps from it (a
        simulation harness that left the node alone for some cycles gives it the state
        those cycles would have reached).
    random_state : Out(64)
        Only with ``random_input``: the random state register (for that harness's
        check of its own steps).
    """

    def __init__(self, topology, node, fmt, pattern="uniform", *, hotspot=None,
                 queue_depth=16, waypoints=0, multicast_group=0, random_input=False):
        if not isinstance(fmt, PacketFormat):
            raise TypeError(f"Format must be a PacketFormat, not {fmt!r}")
        self.pattern, self.hotspot, self.queue_depth = check_generator(
            topology, fmt.layout, pattern, hotspot, queue_depth)
        self.topology = topology
        self.node = None if node is None else topology.check_node(node, "node")
        self.fmt = fmt
        self.random_input = bool(random_input)
        self.waypoints = check_int("Number of waypoints", waypoints, 0)
        if self.waypoints != fmt.layout.waypoints:
            raise ValueError(f"Number of waypoints must be the flits' "
                             f"{fmt.layout.waypoints}, not {waypoints}")
        self.table = SourceTable(topology, waypoints, self.node) if waypoints else None
        limit = (1 << topology.address_bits) - 1
        self.multicast_group = check_int("Multicast group mask", multicast_group, 0, limit)
        if multicast_group and not fmt.layout.multicast:
            raise ValueError(f"A multicast group needs multicast flits (mmask), not "
                             f"multicast_group = {multicast_group!r}")
        bits = topology.address_bits
        #: Layout of the node-dependent constants (see :meth:`strap_values`).
        self.strap_layout = data.StructLayout({
            "here": bits,
            "index": max(1, (topology.num_nodes - 1).bit_length()),
            "salt": 64,
            "permuted": bits,
            "neighbors": data.ArrayLayout(bits, topology.degree),
        })
        super().__init__({
            "seed": In(32),
            "threshold": In(RATE_BITS + 1),
            "hot_threshold": In(RATE_BITS),
            "now": In(fmt.timestamp_bits),
            "flits": Out(stream.Signature(fmt.layout)),
            "created": Out(1),
            "refused": Out(1),
            "injected": Out(1),
            "flit_sent": Out(1),
            **({"straps": In(self.strap_layout)} if self.node is None else {}),
            **({"hold": In(1), "config_write": In(1), "config_dest": In(bits),
                "config_entry": In(self.table.layout), "unroutable": Out(1)}
               if waypoints else {}),
            **({"broadcast_threshold": In(RATE_BITS + 1), "created_broadcast": Out(1)}
               if fmt.layout.broadcast else {}),
            **({"random_load": In(1), "random_value": In(64), "random_state": Out(64)}
               if random_input else {}),
        })

    def strap_values(self, node):
        """The node-dependent constants of ``node`` (a dict for ``straps``): its
        address and dense index, the seed salt, its destination under a permutation
        pattern and its neighbours in port order."""
        topo = self.topology
        node = topo.check_node(node, "node")
        index = topo.index(node)
        permuted = node
        if self.pattern in ("transpose", "shuffle", "bitcomp"):
            permuted = int(permutation_destination(topo, self.pattern, [node])[0])
        return {"here": node, "index": index, "salt": _splitmix64(index + 1),
                "permuted": permuted, "neighbors": [int(v) for v in topo.neighbors(node)]}

    def _straps(self):
        """The straps as a value: the input, or the constants of ``node``."""
        if self.node is None:
            return self.straps
        return self.strap_layout.const(self.strap_values(self.node))

    def _uniform_destination(self, m, random32, straps):
        """A node other than this one, uniformly (multiply-shift of 32 random bits)."""
        topo = self.topology
        n = topo.num_nodes
        pick = Signal(range(max(2, n)), name="uniform_pick")
        k = (n - 1).bit_length()
        if n > 1 and n == 1 << k:
            # (random32 * (2**k - 1)) >> 32 without a multiplier: the top k bits of
            # random32, less one when (random32 << k) mod 2**32 < random32 (the
            # borrow of 2**k * random32 - random32 into bit 32): one comparator
            m.d.comb += pick.eq(random32[32 - k:] - ((random32 << k)[:32] < random32))
        else:
            m.d.comb += pick.eq((random32 * (n - 1)) >> 32)
        index = Signal(range(max(2, n)), name="uniform_index")
        m.d.comb += index.eq(pick + (pick >= straps.index))
        low, table = dense_to_address(topo)
        if low is None:
            return index
        address = Signal(topo.address_bits, name="uniform_address")
        upper = Signal(topo.address_bits, name="uniform_upper")
        with m.Switch(index >> low):
            for i, value in enumerate(table):
                with m.Case(i):
                    m.d.comb += upper.eq(value)
        m.d.comb += address.eq((upper << low) | index[:low] if low else upper)
        return address

    def _route_entry(self, m, dest, here, create):
        """With ``waypoints``: the source table looked up at ``dest``, which turns a
        packet to a refused destination (or any packet of a faulty node) into no packet
        (``create`` cleared; ``unroutable`` for a healthy node); returns the waypoints
        to queue (``Cat(count, waypoint)``; an empty value without ``waypoints``)."""
        if not self.waypoints:
            return create, Const(0, 0)
        table = m.submodules.table = self.table
        if self.node is None:
            m.d.comb += table.here.eq(here)
        drawn = create
        create = Signal(name="create_routed")
        m.d.comb += [table.dest.eq(dest), table.write.eq(self.config_write),
                     table.write_dest.eq(self.config_dest),
                     table.write_entry.eq(self.config_entry),
                     create.eq(drawn & ~self.hold & table.healthy & ~table.entry.refused),
                     self.unroutable.eq(drawn & ~self.hold & table.healthy
                                        & table.entry.refused)]
        return create, Cat(table.entry.count, table.entry.waypoint)

    def elaborate(self, platform):
        m = Module()
        straps = self._straps()
        bits = self.topology.address_bits
        here = straps.here if self.node is None else Const(self.node, bits)
        initial, started, state = self._random_state(m, straps)
        draw_rate, draw_hot, draw_dest = state[0:16], state[16:32], state[32:64]
        dest = self._destination(m, straps, draw_hot, draw_dest)
        is_broadcast = None
        if self.fmt.layout.broadcast:
            is_broadcast = self._broadcast_draw(m, initial, started)
            m.d.comb += self.created_broadcast.eq(is_broadcast)
            unicast_dest, dest = dest, Signal(len(dest), name="new_dest_or_source")
            m.d.comb += dest.eq(Mux(is_broadcast, here, unicast_dest))
        queued = self._source_queue(m, dest, here, started, draw_rate, is_broadcast)
        self._packets(m, here, queued)
        return m

    def _random_state(self, m, straps):
        """Random state: loaded from the seed in the first cycle, then one xorshift64
        step per cycle; every decision of a cycle reads disjoint bits of the state.
        Returns the initial state, whether it was loaded, and the cycle's state (with
        ``random_input``: ``random_value`` while ``random_load`` is 1)."""
        started = Signal()
        state = Signal(64, init=1)
        current = state
        if self.random_input:
            current = Signal(64, name="random_current")
            m.d.comb += [current.eq(Mux(self.random_load, self.random_value, state)),
                         self.random_state.eq(state)]
        initial = _node_seed_hw(m, self.seed, straps.salt, "initial_state")
        # (a fault-tolerant generator stands still in configuration cycles)
        with m.If(~self.hold) if self.waypoints else contextlib.nullcontext():
            with m.If(~started):
                m.d.sync += [state.eq(initial), started.eq(1)]
            with m.Else():
                m.d.sync += state.eq(_xorshift64_hw(current))
        return initial, started, current

    def _destination(self, m, straps, draw_hot, draw_dest):
        """The destination of the packet drawn this cycle, by the pattern."""
        topo = self.topology
        dest = Signal(topo.address_bits, name="new_dest")
        if self.pattern in ("bitcomp", "transpose", "shuffle"):
            m.d.comb += dest.eq(straps.permuted)
        elif self.pattern == "neighbor":
            pick = Signal(range(max(2, topo.degree)), name="neighbor_pick")
            m.d.comb += pick.eq((draw_dest * topo.degree) >> 32)
            with m.Switch(pick):
                for p in range(topo.degree):
                    with m.Case(p):
                        m.d.comb += dest.eq(straps.neighbors[p])
        else:
            uniform = self._uniform_destination(m, draw_dest, straps)
            if self.pattern == "hotspot":
                m.d.comb += dest.eq(Mux(draw_hot < self.hot_threshold, self.hotspot, uniform))
            else:
                m.d.comb += dest.eq(uniform)
        return dest

    def _source_queue(self, m, dest, here, started, draw_rate, is_broadcast):
        """Source queue of (destination, creation time[, waypoints][, broadcast]):
        a packet created this cycle enters it. Returns the oldest entry's fields (a
        :class:`_Queued`)."""
        fmt, bits = self.fmt, self.topology.address_bits
        create = Signal()
        m.d.comb += create.eq(started & (draw_rate < self.threshold))
        create, route = self._route_entry(m, dest, here, create)
        extra = Cat(route, is_broadcast) if is_broadcast is not None else route
        queue = m.submodules.queue = SyncFIFO(width=bits + fmt.timestamp_bits + len(extra),
                                              depth=self.queue_depth)
        m.d.comb += [
            queue.w_data.eq(Cat(dest, self.now, extra)),
            queue.w_en.eq(create),
            self.created.eq(create & queue.w_rdy),
            self.refused.eq(create & ~queue.w_rdy),
        ]
        return _Queued(queue, queue.r_data[:bits],
                       queue.r_data[bits:bits + fmt.timestamp_bits],
                       queue.r_data[bits + fmt.timestamp_bits:][:len(route)],
                       queue.r_data[-1] if is_broadcast is not None else None)

    def _sequence(self, m, queued, sent, last):
        """The sequence number of the next packet of each flow from this node (the
        source's broadcasts have a sequence of their own), as the header field."""
        fmt, bits = self.fmt, self.topology.address_bits
        broadcast = queued.broadcast is not None
        sequence = Signal(max(1, fmt.sequence_bits))
        if fmt.sequence_bits:
            seq_mem = m.submodules.sequence = Memory(shape=fmt.sequence_bits,
                                                     depth=1 << bits, init=[])
            rd = seq_mem.read_port(domain="comb")
            wr = seq_mem.write_port()
            if broadcast:
                broadcasts = Signal(fmt.sequence_bits, name="broadcast_sequence")
                with m.If(sent & last & queued.broadcast):
                    m.d.sync += broadcasts.eq(broadcasts + 1)
            m.d.comb += [rd.addr.eq(queued.dest),
                         sequence.eq(Mux(queued.broadcast, broadcasts, rd.data) if broadcast
                                     else rd.data),
                         wr.addr.eq(queued.dest), wr.data.eq(rd.data + 1),
                         wr.en.eq(sent & last & ~queued.broadcast if broadcast
                                  else sent & last)]
        return sequence[:fmt.sequence_bits] if fmt.sequence_bits else Const(0, 1)

    def _packets(self, m, here, queued):
        """The flits of the oldest queued packet onto ``flits``, one a cycle."""
        fmt, out = self.fmt, self.flits
        q_dest, q_route = queued.dest, queued.route
        index = Signal(fmt.index_bits)
        last = Signal()
        m.d.comb += last.eq(index == fmt.packet_flits - 1)
        sent = Signal()
        m.d.comb += sent.eq(out.valid & out.ready)
        seq_field = self._sequence(m, queued, sent, last)
        m.d.comb += [
            out.valid.eq(queued.queue.r_rdy),
            out.payload.head.eq(index == 0),
            out.payload.tail.eq(last),
            out.payload.dest.eq(q_dest),
            out.payload.src.eq(here),
            out.payload.payload.eq(Mux(
                index == 0,
                fmt.head_payload(queued.time, seq_field, here, q_dest),
                fmt.body_data(index, queued.time, seq_field, here, q_dest)
                if fmt.layout.header == "every"
                else fmt.check_word(here, q_dest, seq_field, index))),
            queued.queue.r_en.eq(sent & last),
            self.injected.eq(sent & (index == 0)),
            self.flit_sent.eq(sent),
        ]
        if self.waypoints:   # the header's waypoints from the table, phase 0
            count = len(out.payload.waypoint_count)
            m.d.comb += [out.payload.waypoint_count.eq(q_route[:count]),
                         out.payload.waypoint.eq(q_route[count:]),
                         out.payload.phase.eq(0)]
        if queued.broadcast is not None:
            m.d.comb += out.payload.bcast.eq(queued.broadcast)
        if fmt.layout.multicast:   # every broadcast goes to this node's group
            m.d.comb += out.payload.mmask.eq(self.multicast_group)
        if fmt.layout.header == "head":   # a body flit: the check word in all its data
            body = data.View(fmt.layout.body, out.payload.as_value())
            with m.If(index != 0):   # (after the header fields: it overrides them)
                m.d.comb += body.data.eq(fmt.body_data(index, queued.time, seq_field, here,
                                                       q_dest))
        with m.If(sent):
            m.d.sync += index.eq(Mux(last, 0, index + 1))

    def _broadcast_draw(self, m, initial, started):
        """Whether the packet created this cycle is a broadcast: 16 bits of a second
        xorshift64 generator (seeded from the node's state with its halves swapped)
        below ``broadcast_threshold``."""
        state = Signal(64, init=1, name="broadcast_state")
        seed = Cat(initial[32:], initial[:32])   # non-zero as ``initial`` is
        with m.If(~started):
            m.d.sync += state.eq(seed)
        with m.Else():
            m.d.sync += state.eq(_xorshift64_hw(state))
        is_broadcast = Signal(name="new_broadcast")
        m.d.comb += is_broadcast.eq(state[:RATE_BITS] < self.broadcast_threshold)
        return is_broadcast
