"""The harness checks of a self-checking fabric run, beside its hardware checkers.

Both engines watch every flit of the run and apply the same checks, in the same order,
so that they report the same counts (Python here for the Amaranth engine; the C++ of
:mod:`cubefab.sim.verilator_fabric`, ``cxx/fabric_main.cpp`` and ``cxx/checks.h``,
for Verilator):

misrouted
    Flits on a link or VC that the router mode's reference rule does not allow, plus
    flits ejected at a node other than their destination (a copy at a node that is
    none of its source's receivers). The rules are the parts' own
    (:meth:`~cubefab.hdl.modes.Routing.reference` for unicast flits,
    :meth:`~cubefab.hdl.modes.Routing.copy_reference` for broadcast copies;
    :mod:`cubefab.topology.references`), in Python for this engine and in the C++
    header each rule names for Verilator. Deterministic routers: the hop the
    reference route from ``src`` to ``dest`` takes from this node
    (:meth:`Topology.next_port`), on the VC the VC-assignment function gives it
    (:func:`~cubefab.topology.deadlock.hop_vcs`); adaptive routers: an offered
    adaptive port on the flow's adaptive VC, or the escape port on the escape VC of
    the class the flit carries (:class:`AdaptiveReference`); fault-tolerant routers:
    the waypoint routes of the run's fault sets (:class:`WaypointReference`).
reordered, duplicated, lost
    Packets are identified by their flow (``src``, ``dest``) and creation timestamp
    (unique per source: one packet a cycle at most, and timestamps do not wrap within
    a run). A packet delivered after a later packet of its flow is ``reordered``; one
    delivered again ``duplicated``; one never delivered although a later packet of its
    flow was, or still undelivered when a drain ran to its limit, ``lost``. Packets
    undelivered otherwise (the run ended with them on their way) are ``in_flight``.
    Adaptive routing may reorder a flow's packets: then ``reordered`` is a figure, not
    an error, and an overtaken packet is ``lost`` only when a drain ran to its limit.

broadcast copies (replicating routers)
    A copy of a broadcast from ``src`` may cross link ``(here, port)`` only when it is
    a link of the tree of ``src`` (:class:`BroadcastReference`: the replication's
    trees, pruned to a multicast group), on the broadcast VC of the rule
    (:func:`~cubefab.topology.broadcast_deadlock.broadcast_next_vc`); fault-tolerant
    replicating routers flood one spanning tree of the healthy network instead
    (:class:`FloodReference`). Each broadcast is a packet in the ledger to each of its
    source's receivers (the rule's ``receivers``), in the flow from its source to it
    (keyed apart from unicast flows), so a lost, duplicated or reordered copy counts
    as a unicast packet does. The latency of a broadcast is from its creation to its
    last copy's tail (:class:`BroadcastLatency`, from the copies seen).

With the header in the head flit only (``RouterConfig(header="head")``) a body or tail
flit carries no ``src`` or ``dest``: both engines check it as its packet's head, which
they remember per link and VC, and per ejection port (:meth:`FlitFields.with_head`),
with its own VC.

A packet's creation timestamp may not fit in its head's payload: it then continues in
the next flits' data (:class:`~cubefab.hdl.traffic_gen.PacketFormat`). Both engines read
it whole at the injection and ejection ports, whose packets' flits pass one after
another (:class:`PacketStamps`): a packet enters the ledger, and leaves it, with the
flit where its timestamp ends. A packet whose flits end before that flit (cut short by
a failed link, or a flit lost or duplicated), and a head dropped at a failed link,
show only the timestamp's low bits: the ledger takes the oldest outstanding packet of
the flow whose timestamp has them (:meth:`Ledger.drop`, :meth:`Ledger.resolve`), the
packet itself while a flow's outstanding packets were created less than ``2**bits``
cycles apart (a duplicate is one whose bits are no outstanding packet's).

Corruption (payload check words, framing) is counted by the hardware checkers.
"""

from amaranth.hdl import Shape

from ..topology.references import FlitHeader


__all__ = ["references", "FlitFields", "PacketStamps", "Ledger", "BroadcastLatency"]


def references(design, faults=None):
    """``(route rule, copy rule)``: the reference rules of the misrouted check of a run
    of ``design`` (a :class:`~cubefab.hdl.selfcheck.SelfCheckConfig`) under ``faults``
    (a :class:`~cubefab.sim.selfcheck_run.FaultConfiguration`, whose ``routings`` and
    ``tree`` are its fault sets' routings and the tree its routers flood; or None: the
    fault-free network), asked of its router's routing
    (:meth:`~cubefab.hdl.modes.Routing.reference`,
    :meth:`~cubefab.hdl.modes.Routing.copy_reference`)."""
    router = design.router
    routings = faults.routings if faults is not None else None
    tree = faults.tree if faults is not None else None
    return (router.routing.reference(router, routings),
            router.routing.copy_reference(router, design.multicast_group, tree))


class FlitFields:
    """Decoding of raw flits (integers) of a :class:`~cubefab.hdl.flit.FlitLayout`
    whose payload starts with a ``timestamp_bits``-bit timestamp."""

    def __init__(self, layout, timestamp_bits):
        self.offsets = {name: (layout[name].offset, layout[name].shape.width)
                        for name in ("head", "tail", "vc", "dest", "src", "payload")}
        self.offsets["bcast"] = ((layout["bcast"].offset, 1) if "bcast" in dict(layout)
                                 else (0, 0))
        # (a deterministic router's flits have no cls field: read as 0)
        self.offsets["cls"] = ((layout["cls"].offset, layout["cls"].shape.width)
                               if "cls" in dict(layout) else (0, 0))
        #: Waypoints the header holds (0: no waypoint fields, read as 0).
        self.waypoints = layout.waypoints
        self.address_bits = layout.address_bits
        for name in ("waypoint_count", "phase", "waypoint", "cut"):
            self.offsets[name] = ((layout[name].offset,
                                   Shape.cast(layout[name].shape).width)
                                  if self.waypoints else (0, 0))
        self.timestamp_bits = timestamp_bits
        #: bool: the header is in the head flit only (:meth:`with_head`)
        self.head_only = layout.header == "head"
        #: int: the timestamp bits a head carries (the low ones)
        self.head_stamp_bits = min(timestamp_bits, layout.payload_width)
        #: int: where a later flit's data starts, and its width
        self.data_lo = (layout.body["data"].offset if self.head_only
                        else layout["payload"].offset)
        self.data_bits = layout.body_payload_width
        #: int: index of the flit where the timestamp ends (0: the head)
        self.stamp_flit = -(-(timestamp_bits - self.head_stamp_bits) // self.data_bits)
        #: int: the bits every flit carries for itself: flit type and ``vc``
        self.own_bits = sum(((1 << width) - 1) << offset for offset, width in
                            (self.offsets[k] for k in ("head", "tail", "bcast", "vc")
                             + ("cut",) * self.head_only))
        self.heads = {}

    def with_head(self, key, raw):
        """``raw`` as the checks read it: with the header in the head flit only, a head
        is remembered under ``key`` (a link and VC, an ejection port) and a body or tail
        flit reads as that head but for its own flit-type and ``vc`` bits; else
        ``raw`` itself."""
        if not self.head_only:
            return raw
        if raw >> self.offsets["head"][0] & 1:
            self.heads[key] = raw
            return raw
        return (self.heads.get(key, 0) & ~self.own_bits) | (raw & self.own_bits)

    def get(self, raw, name):
        offset, width = self.offsets[name]
        return (raw >> offset) & ((1 << width) - 1)

    def header(self, raw):
        """What the reference rules read of ``raw``
        (:class:`~cubefab.topology.references.FlitHeader`)."""
        get = self.get
        return FlitHeader(get(raw, "src"), get(raw, "dest"), get(raw, "vc"),
                          get(raw, "cls"), self.waypoints_of(raw), get(raw, "phase"))

    def waypoints_of(self, raw):
        """The waypoints a flit's header names (a tuple; empty without waypoints)."""
        if not self.waypoints:
            return ()
        words = self.get(raw, "waypoint")
        bits = self.address_bits
        return tuple((words >> (bits * i)) & ((1 << bits) - 1)
                     for i in range(self.get(raw, "waypoint_count")))

    def timestamp(self, raw):
        """The timestamp bits a head ``raw`` carries (:attr:`head_stamp_bits`)."""
        return self.get(raw, "payload") & ((1 << self.head_stamp_bits) - 1)

    def stamp_piece(self, raw, index):
        """The timestamp bits flit ``index`` (after the head, at most
        :attr:`stamp_flit`) of a packet carries, at their place in the timestamp."""
        start = self.head_stamp_bits + (index - 1) * self.data_bits
        width = min(self.data_bits, self.timestamp_bits - start)
        return ((raw >> self.data_lo) & ((1 << width) - 1)) << start


class PacketStamps:
    """The timestamps of the packets whose flits pass places one after another (an
    injection or an ejection port), read from the flits that carry them.

    Parameters
    ----------
    fields : FlitFields
    """

    def __init__(self, fields):
        self.fields = fields
        self.open = {}   # place -> [head, index of the flit, stamp so far, its bits]

    def read(self, place, raw):
        """The flit ``raw`` at ``place``: a list of ``(head, stamp, bits)`` of the
        packets whose timestamp this flit ends (its ``bits`` all the timestamp's), or
        which ended before theirs did (a tail or a synthetic tail of a cut packet too
        early, or the next head: the timestamp's low ``bits`` bits)."""
        fields, state = self.fields, self.open.get(place)
        ended = []
        if fields.get(raw, "head"):
            if state is not None:   # the packet before ended early
                ended.append(tuple(state[i] for i in (0, 2, 3)))
            state = self.open[place] = [raw, 0, fields.timestamp(raw),
                                        fields.head_stamp_bits]
        elif state is not None:
            state[1] += 1
            if fields.get(raw, "cut") or fields.get(raw, "tail") \
                    and state[1] < fields.stamp_flit:
                del self.open[place]
                return [(state[0], state[2], state[3])]
            state[2] |= fields.stamp_piece(raw, state[1])
            state[3] = min(fields.timestamp_bits, state[3] + fields.data_bits)
        if state is not None and state[1] == fields.stamp_flit:
            del self.open[place]
            ended.append((state[0], state[2], state[3]))
        return ended


class Ledger:
    """Packets injected and delivered, flow by flow (see the module's description)."""

    def __init__(self):
        self.flows = {}          # (src, dest) -> [outstanding [stamp, overtaken]], last
        self.reordered = 0
        self.duplicated = 0

    def inject(self, src, dest, stamp):
        """A packet's head entered the network."""
        flow = self.flows.setdefault((src, dest), [[], -1])
        flow[0].append([stamp, False])
        flow[1] = stamp

    def deliver(self, src, dest, stamp):
        """A packet's head was ejected."""
        flow = self.flows.get((src, dest))
        if flow is None:
            return               # never injected: a corrupted header (the checker counts it)
        waiting = flow[0]
        for i, (s, overtaken) in enumerate(waiting):
            if s == stamp:
                if overtaken:
                    self.reordered += 1
                for earlier in waiting[:i]:
                    earlier[1] = True
                del waiting[i]
                return
        if stamp <= flow[1]:
            self.duplicated += 1

    def drop(self, src, dest, stamp, bits=None):
        """A packet's head was dropped at a failed link (the packet is lost to the
        fault, counted by the fabric): it leaves the flow's outstanding packets
        without marking any overtaken. ``bits``: the timestamp's low bits known
        (:meth:`resolve`; default all). Returns its timestamp, or None when no such
        packet is outstanding (a head dropped twice, or never injected)."""
        stamp = self.resolve(src, dest, stamp, bits)
        flow = self.flows.get((src, dest))
        for i, (s, _) in enumerate(flow[0] if flow else ()):
            if s == stamp:
                del flow[0][i]
                return stamp
        return None

    def resolve(self, src, dest, stamp, bits=None):
        """The timestamp of the oldest outstanding packet of the flow whose timestamp's
        low ``bits`` bits are ``stamp`` (``bits`` None: ``stamp`` itself), or
        ``stamp`` when there is none."""
        if bits is None:
            return stamp
        flow = self.flows.get((src, dest))
        mask = (1 << bits) - 1
        return next((s for s, _ in (flow[0] if flow else ()) if s & mask == stamp), stamp)

    def inject_broadcast(self, src, receivers, stamp):
        """A broadcast's head entered the network: a packet to each of ``receivers``."""
        for r in receivers:
            self.inject(("broadcast", src), r, stamp)

    def deliver_broadcast(self, src, here, stamp):
        """A broadcast copy's head was ejected at ``here``."""
        self.deliver(("broadcast", src), here, stamp)

    def counts(self, drain_expired):
        """``lost`` and ``in_flight`` at the end of a run; ``drain_expired``: the run
        ended at the end of a drain with packets undelivered."""
        lost = in_flight = 0
        for waiting, _ in self.flows.values():
            for _, overtaken in waiting:
                if overtaken or drain_expired:
                    lost += 1
                else:
                    in_flight += 1
        return {"lost": lost, "in_flight": in_flight, "reordered": self.reordered,
                "duplicated": self.duplicated}


class BroadcastLatency:
    """Latency of each broadcast, from its creation to the tail of its last copy
    (``copies`` of them), from the copies' tails as they are ejected."""

    def __init__(self, copies):
        #: int, or a dict: source -> copies of each of its broadcasts
        self.copies = copies
        self.seen = {}          # (src, stamp) -> copies whose tail was ejected
        self.histogram = {}     # latency -> broadcasts (the window's)

    def tail(self, src, stamp, cycle, measured, now_mask):
        """A copy's tail of the broadcast ``(src, stamp)`` was ejected in ``cycle``."""
        key = (src, stamp)
        count = self.seen.get(key, 0) + 1
        if count < (self.copies[src] if isinstance(self.copies, dict) else self.copies):
            self.seen[key] = count
            return
        self.seen.pop(key, None)
        if measured:
            latency = (cycle - stamp) & now_mask
            self.histogram[latency] = self.histogram.get(latency, 0) + 1
