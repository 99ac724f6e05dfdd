"""Broadcast replication in the router: replicating input queues and the tree's turns.

A router built with ``broadcast_vcs`` (:class:`~cubefab.hdl.config.RouterConfig`)
keeps its broadcast input VCs, and its injection queue, in a
:class:`ReplicatingQueue`: a register FIFO whose oldest packet is read by one *copy*
per output the packet goes to, each at its own position. The copies leave
asynchronously (each when its own output is free), and a flit leaves the queue when
every copy has sent it; the packet is gone after its last copy
(:mod:`cubefab.topology.broadcast_deadlock`, scheme ``"buffered"``). A unicast packet
in the injection queue is a packet with one copy.

The queue knows nothing of routing: an entry is a flit and its *route*: a bit per
output of the queue (the copies it wants) and the VC a unicast packet takes. The
router decides which copies to grant (:meth:`ReplicatingQueue.copy`).
"""

from amaranth.hdl import Array, Cat, Mux, Signal
from amaranth.lib import data

import numpy as np

from ..topology.broadcast import ALL_PORT, ONE_PORT
from ..topology.broadcast_deadlock import broadcast_wrap_array, broadcast_wrap_reads_address
from ..topology.broadcast_tree import broadcast_tree, model_parent_ports, one_port_sends


__all__ = ["broadcast_turns", "broadcast_wrap", "ReplicatingQueue"]


def broadcast_turns(topology, node, model=ALL_PORT):
    """The (input port, output port) pairs broadcast copies take at ``node`` (every
    node when None): from the port to the node's parent in the tree of each source
    under ``model`` (``degree``, the injection port, at the source itself) to each
    child port, and to the local port (``degree``) at every node but the source."""
    degree = topology.degree
    nodes = topology.nodes()
    rows = np.arange(len(nodes)) if node is None else np.array([topology.index(node)])
    turns = set()
    for source in nodes.tolist():
        if model == ONE_PORT:
            parents = model_parent_ports(topology, source, model)
            children = [sum(1 << p for _, p in one_port_sends(topology, source, int(a)))
                        for a in nodes[rows].tolist()]
        else:
            tree = broadcast_tree(topology, source)
            parents = model_parent_ports(topology, source)
            children = [int(tree.children[i]) for i in rows.tolist()]
        for i, mask in zip(rows.tolist(), children):
            parent = int(parents[i])
            turns.update((parent, o) for o in range(degree) if mask >> o & 1)
            if parent != degree:
                turns.add((parent, degree))
    return turns


def broadcast_wrap(topology, node, in_port, port, model=ALL_PORT):
    """``bwrap(node, in_port, port)`` of the broadcast VC rule of ``model``
    (:func:`~cubefab.topology.broadcast_deadlock.broadcast_next_vc`) as a bool, or
    None when it depends on the node's address
    (:func:`~cubefab.topology.broadcast_deadlock.broadcast_wrap_reads_address`) and
    ``node`` is None (the router then reads a strap)."""
    if node is None and broadcast_wrap_reads_address(topology):
        return None
    here = np.array([0 if node is None else node])
    return bool(broadcast_wrap_array(topology, here, np.array([in_port]), port, model)[0])


class ReplicatingQueue:
    """A replicating input queue, built inline in a router's module (see the module
    text).

    Parameters
    ----------
    m : Module
    name : str
        Prefix of its signals.
    depth : int
        Entries; a broadcast packet must fit whole (at most ``depth`` flits).
    route_layout : StructLayout
        The route stored with each flit: a ``port`` field of one bit per copy, and
        ``vc``.
    layout : FlitLayout

    Attributes
    ----------
    w_data, w_en : Signal
        The entry written (``Cat(route, flit)``) and its enable (inputs).
    w_rdy : Signal
        Not full (a register).
    pop : Signal
        The oldest flit leaves this cycle (every copy it goes to has sent it).
    """

    def __init__(self, m, name, depth, route_layout, layout):
        self.m, self.name, self.depth = m, name, depth
        self.route_layout, self.layout = route_layout, layout
        width = route_layout.size + layout.size
        self.copies = route_layout["port"].shape.width
        self.w_data = Signal(width, name=f"{name}_w_data")
        self.w_en = Signal(name=f"{name}_w_en")
        self.w_rdy = Signal(name=f"{name}_w_rdy")
        self.pop = Signal(name=f"{name}_pop")
        self._slots = Array(Signal(width, name=f"{name}_slot{i}") for i in range(depth))
        self._produce = Signal(range(depth), name=f"{name}_produce")
        self._consume = Signal(range(depth), name=f"{name}_consume")
        self._level = Signal(range(depth + 1), name=f"{name}_level")
        # per copy: flits sent that have not left the queue, the tail sent, and the
        # output VC held (from the head sent to the tail sent)
        self._ahead = [Signal(range(depth + 1), name=f"{name}_ahead{k}")
                       for k in range(self.copies)]
        self._done = [Signal(name=f"{name}_done{k}") for k in range(self.copies)]
        #: Per copy: it holds its output VC (sent the head, not yet the tail).
        self.active = [Signal(name=f"{name}_active{k}") for k in range(self.copies)]
        #: Per copy: the grant of its output (drive it).
        self.sent = [Signal(name=f"{name}_sent{k}") for k in range(self.copies)]
        self._copy_entries = [None] * self.copies
        self._build()

    def _index(self, offset):
        at = self._consume + offset
        return Mux(at >= self.depth, at - self.depth, at)[:len(self._consume)] \
            if self.depth > 1 else self._consume

    def _entry(self, value):
        size = self.route_layout.size
        return (data.View(self.route_layout, value[:size]),
                data.View(self.layout, value[size:]))

    def _build(self):
        m, depth = self.m, self.depth
        level, produce, consume = self._level, self._produce, self._consume
        do_write = Signal(name=f"{self.name}_do_write")
        m.d.comb += [self.w_rdy.eq(level != depth), do_write.eq(self.w_en & self.w_rdy)]
        with m.If(do_write):
            m.d.sync += [self._slots[produce].eq(self.w_data),
                         produce.eq(Mux(produce == depth - 1, 0, produce + 1))]
        head_route, head_flit = self._entry(self._slots[consume])
        #: The oldest flit (a View; undefined while empty).
        self.head_flit = head_flit
        #: The copies the oldest packet wants (zero while empty).
        self.wanted = Signal(self.copies, name=f"{self.name}_wanted")
        m.d.comb += self.wanted.eq(Mux(level != 0, head_route.port, 0))
        m.d.comb += self.pop.eq((level != 0) & Cat(
            ~self.wanted[k] | (self._ahead[k] != 0) | self.sent[k]
            for k in range(self.copies)).all())
        with m.If(self.pop):
            m.d.sync += consume.eq(Mux(consume == depth - 1, 0, consume + 1))
        with m.If(do_write & ~self.pop):
            m.d.sync += level.eq(level + 1)
        with m.Elif(self.pop & ~do_write):
            m.d.sync += level.eq(level - 1)
        last = self.pop & head_flit.tail
        for k in range(self.copies):
            ahead, done = self._ahead[k], self._done[k]
            entry = Signal(len(self.w_data), name=f"{self.name}_copy{k}")
            m.d.comb += entry.eq(self._slots[self._index(ahead)])
            self._copy_entries[k] = self._entry(entry)
            flit = self._copy_entries[k][1]
            m.d.sync += ahead.eq(ahead + self.sent[k] - (self.pop & self.wanted[k]))
            with m.If(last):
                m.d.sync += done.eq(0)
            with m.Elif(self.sent[k] & flit.tail):
                m.d.sync += done.eq(1)
            with m.If(self.sent[k]):
                m.d.sync += self.active[k].eq(~flit.tail)

    def unsent(self, k):
        """Whether the oldest packet wants copy ``k`` and its tail has not been sent."""
        return self.wanted[k] & ~self._done[k]

    def copy(self, k):
        """``(ready, route, flit)`` of copy ``k``: whether it has a flit to send (the
        packet wants it, its tail is not sent, the flit has arrived), and the route
        and flit it sends next."""
        ahead = self._ahead[k]
        route, flit = self._copy_entries[k]
        ready = self.wanted[k] & ~self._done[k] & (ahead < self._level)
        return ready, route, flit
