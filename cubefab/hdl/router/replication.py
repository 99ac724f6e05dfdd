"""Replication in the router (docs/broadcast.md, "Replication in the router").

With broadcast VCs the broadcast VCs of the router's inputs and its injection queue
are :class:`~cubefab.hdl.replicate.ReplicatingQueue` s; a broadcast packet goes to
the children of this node in the tree of its ``src``
(:func:`~cubefab.hdl.route.broadcast.broadcast_children_unit`) and, at every node but
the source, to ``local_out``. Each copy leaves when its output is free, on the
broadcast VC of :func:`~cubefab.topology.broadcast_deadlock.broadcast_next_vc`, and
starts only when the downstream buffer of that VC is empty (the whole packet fits:
broadcast packets are at most ``config.depth`` flits); the packet leaves its input
buffer after its last copy. With multicast a ``bcast`` packet goes only to its
members (the subcube ``(dest, mmask)``, or the nodes whose bit of ``members`` is
set), along the tree pruned to them
(:class:`~cubefab.hdl.route.multicast.MulticastChildren`). With the one-port model
the copies follow the one-port tree and leave one at a time in the schedule's order:
each replicating queue counts the network copies of its oldest packet whose tail has
left, and :class:`~cubefab.hdl.route.one_port.OnePortSends` (the packet's ``src``,
that count) names the only port on which a copy may start; the local copy is not
ordered. A fault-tolerant router (``config.floods``) floods the healthy network's
spanning tree instead, written at run time into its ``flood`` input
(:class:`~cubefab.hdl.route.flood.FloodChildren`: the tree ports but the arrival port,
pruned to the members' side for a multicast), on one broadcast VC whose lane a copy
keeps; its one-port copies leave in port order.
"""

from dataclasses import dataclass
from math import isqrt

from amaranth.hdl import C, Cat, Mux, Signal, Value, unsigned
from amaranth.lib import data

from ..replicate import ReplicatingQueue, broadcast_turns, broadcast_wrap
from ..route.broadcast import broadcast_children_unit
from ..route.flood import FloodChildren
from ..route.multicast import MulticastChildren
from ..route.one_port import OnePortSends
from .input_unit import entry_route


__all__ = ["Replica", "check_strapped", "replicating_queues", "replica_requests"]


def check_strapped(config):
    """Raise ValueError unless the replication of ``config`` (a
    :class:`~cubefab.hdl.config.RouterConfig`) can be built with address straps: the
    one-port and multicast units of a strapped router tabulate every (node, source)
    pair (:attr:`~cubefab.hdl.route.one_port.OnePortSends.MAX_ENTRIES`)."""
    topology = config.topology
    if config.floods:   # (the tree is written at run time: no table)
        return
    if config.multicast:
        unit, forms = MulticastChildren, (config.multicast,)
    elif config.broadcast and config.broadcast_model == "one-port":
        unit, forms = OnePortSends, ()
    else:
        return
    if topology.num_nodes ** 2 > unit.MAX_ENTRIES:
        raise ValueError(f"{config.replication.kind} routers with address straps tabulate "
                         f"every (node, source) pair; they are built for at most "
                         f"{isqrt(unit.MAX_ENTRIES)} nodes, not {topology.num_nodes}")
    unit.check(topology, None, *forms)


@dataclass(frozen=True)
class Replica:
    """A replicating input queue of the router: the queue, the outputs its copies go
    to (a copy per output, in order) and, with the one-port model, the only network
    port on which a copy of its oldest packet may start (``next_port``; None
    otherwise)."""

    queue: ReplicatingQueue
    outputs: list
    next_port: Value = None


def _broadcast_turns(frame):
    """The (input port, output port) pairs broadcast copies take at this router."""
    degree = frame.degree
    if frame.config.turns == "all" or frame.config.floods:
        return {(i, o) for i in range(degree + 1) for o in range(degree + 1)}
    return broadcast_turns(frame.topology, frame.node, frame.config.broadcast_model)


def _children(frame, p, flit):
    """The copies of a broadcast flit on input port ``p``: the unit naming the network
    children (added to the module as ``children_p{p}``) and whether this node takes a
    local copy."""
    m, config, here = frame.m, frame.config, frame.here
    local = flit.src != here
    if config.floods:
        return _flood_children(frame, p, flit, local)
    if config.multicast == "subcube":   # the tree pruned to the subcube (dest, mmask)
        unit = MulticastChildren(frame.topology, frame.node, "subcube")
        m.d.comb += [unit.value.eq(flit.dest), unit.mask.eq(flit.mmask)]
        local = local & (((flit.dest ^ here) & flit.mmask) == 0)
    elif config.multicast == "vector":   # ... to the members named bit by bit
        unit = MulticastChildren(frame.topology, frame.node, "vector")
        m.d.comb += unit.member_vector.eq(flit.members)
        local = local & (unit.is_member if frame.node is None
                         else flit.members[frame.topology.index(frame.node)])
    elif config.broadcast_model == "one-port":   # every port the node sends to
        unit = OnePortSends(frame.topology, frame.node)
    else:
        unit = broadcast_children_unit(frame.topology, frame.node)
    m.submodules[f"children_p{p}"] = unit
    m.d.comb += unit.source.eq(flit.src)
    if frame.node is None:
        m.d.comb += unit.here.eq(frame.router.here)
    return unit, local


def _flood_children(frame, p, flit, local):
    """:func:`_children` of a fault-tolerant router: the healthy tree's ports but the
    arrival port (pruned to the members' side for a multicast), from the flood
    configuration written at run time (:class:`~cubefab.hdl.route.flood.FloodChildren`)."""
    m, config, here = frame.m, frame.config, frame.here
    unit = FloodChildren(frame.topology, p, config.multicast or None)
    m.submodules[f"children_p{p}"] = unit
    m.d.comb += unit.flood.eq(frame.router.flood)
    if config.multicast == "subcube":
        m.d.comb += [unit.value.eq(flit.dest), unit.mask.eq(flit.mmask)]
        local = local & (((flit.dest ^ here) & flit.mmask) == 0)
    elif config.multicast == "vector":
        m.d.comb += unit.member_vector.eq(flit.members)
        local = local & _member_here(frame, flit.members, p)
    return unit, local


def _member_here(frame, members, p):
    """Whether this node's bit of a member vector is set (its dense index: a constant,
    or looked up from the ``here`` strap), for the flits of input port ``p``."""
    topology = frame.topology
    if frame.node is not None:
        return members[topology.index(frame.node)]
    m = frame.m
    member = Signal(name=f"member_here_p{p}")
    with m.Switch(frame.router.here):
        for i, x in enumerate(topology.nodes().tolist()):
            with m.Case(x):
                m.d.comb += member.eq(members[i])
    return member


def replicating_queues(frame, p, flit, enter, outputs):
    """The replicating queues of input port ``p`` (its broadcast VCs; the injection
    queue, which also holds unicast packets routed to ``outputs``), as
    :class:`Replica` s: an entry's copies are the children of this node in the tree
    of the flit's ``src`` and, unless this node is the source, the local output; a
    unicast flit's is its route (``enter.port``; an adaptive router injects unicasts
    into a FIFO of their own, :meth:`~.frame.Frame.local_queues`)."""
    m, degree, config, layout = frame.m, frame.degree, frame.config, frame.layout
    router = frame.router
    turns = _broadcast_turns(frame)
    outs = [o for o in range(degree + 1) if (p, o) in turns]
    shared = frame.shared_injection(p)   # holds unicasts too
    if shared:
        outs = sorted(set(outs) | set(outputs))
    unit, local = _children(frame, p, flit)
    copies = Cat(unit.children[o] if o < degree else local for o in outs)
    if shared:
        copies = Mux(flit.bcast, copies, Cat(enter.port[o] for o in outs))
    route_layout = data.StructLayout({"port": unsigned(len(outs)),
                                      "vc": unsigned(layout["vc"].shape.width)})
    replicas = []
    for v in range(config.link_vcs - config.broadcast_vcs, config.link_vcs) \
            if p < degree else [frame.local_queues() - 1]:
        queue = ReplicatingQueue(m, f"rq_p{p}_vc{v}", config.depth, route_layout, layout)
        next_port = (None if config.broadcast_model != "one-port" else
                     _flood_order(frame, queue, outs) if config.floods else
                     _one_port_order(frame, queue, outs))
        m.d.comb += queue.w_data.eq(Cat(entry_route(frame, p, v, queue, flit,
                                                    Cat(copies, enter.vc)), flit))
        if p < degree:
            link = router.link_in[p]
            m.d.comb += queue.w_en.eq(link.flit.valid & (link.flit.payload.vc == v))
            with m.If(queue.w_en & ~queue.w_rdy):
                m.d.sync += router.overflow.eq(1)
            m.d.sync += link.credit[v].eq(queue.pop)
        else:
            m.d.comb += queue.w_en.eq(frame.injects(bcast=True))
            if shared:   # (else local_in's ready is the router's: beside a FIFO)
                m.d.comb += router.local_in.ready.eq(queue.w_rdy)
        replicas.append(Replica(queue, outs, next_port))
    return replicas


def _one_port_order(frame, queue, outputs):
    """One-port order of a replicating queue whose copies go to ``outputs``: the only
    network port on which a copy of the oldest (broadcast) packet may start: the port
    of the node's send number ``index`` in its source's schedule, ``index`` counting
    the packet's network copies whose tail has left (back to 0 when the packet
    leaves)."""
    m, degree = frame.m, frame.degree
    sends = m.submodules[f"{queue.name}_order"] = OnePortSends(frame.topology, frame.node)
    if frame.node is None:
        m.d.comb += sends.here.eq(frame.router.here)
    index = Signal.like(sends.index, name=f"{queue.name}_index")
    tails = []
    for k, o in enumerate(outputs):
        if o < degree:
            flit = queue.copy(k)[2]
            tails.append(queue.sent[k] & flit.tail & flit.bcast)
    last = queue.pop & queue.head_flit.tail
    with m.If(last):
        m.d.sync += index.eq(0)
    with m.Elif(Cat(tails).any()):
        m.d.sync += index.eq(index + 1)
    m.d.comb += [sends.source.eq(queue.head_flit.src), sends.index.eq(index)]
    return sends.port


def _flood_order(frame, queue, outputs):
    """One-port order of a fault-tolerant router's replicating queue: its copies leave
    one at a time in port order, so the only network port on which a copy may start is
    the lowest one whose copy the oldest packet wants and has not finished."""
    m, degree = frame.m, frame.degree
    port = Signal(range(degree + 1), name=f"{queue.name}_next_port")
    m.d.comb += port.eq(degree)
    for k, o in reversed(list(enumerate(outputs))):
        if o < degree:
            with m.If(queue.unsent(k)):
                m.d.comb += port.eq(o)
    return port


def _broadcast_vc(frame, p, v, o):
    """The output VC of a broadcast copy from input queue ``(p, v)`` through network
    port ``o``: the broadcast VC rule (``broadcast_next_vc``) offset by the
    unicast VCs."""
    config, degree = frame.config, frame.degree
    first = config.link_vcs - config.broadcast_vcs
    lane = v - first if p < degree else 0
    if config.floods:   # a walk on a tree never closes a cycle: the lane is kept
        return C(first + lane, frame.layout["vc"].shape.width)
    wrap = broadcast_wrap(frame.topology, frame.node, p, o, config.broadcast_model)
    up = min(lane + 1, config.broadcast_vcs - 1)
    width = frame.layout["vc"].shape.width
    if wrap is None:
        return Mux(frame.router.bwrap_mask[o], C(first + up, width),
                   C(first + lane, width))
    return C(first + (up if wrap else lane), width)


def replica_requests(frame, p, v, replica, out):
    """Per output of ``replica``: the request of its copy, and the flit it sends (on
    its output VC); ``out``: the :class:`~.output_unit.OutputVCs`. A broadcast copy
    starts only on an idle output VC whose downstream buffer is empty (it takes the
    whole packet)."""
    degree, config, layout = frame.degree, frame.config, frame.layout
    vc_at, vc_bits = layout["vc"].offset, layout["vc"].shape.width
    queue = replica.queue
    wants, flits = [], []
    for k, o in enumerate(replica.outputs):
        ready, route, flit = queue.copy(k)
        if o < degree:
            bvc = _broadcast_vc(frame, p, v, o)
            # (an injection queue that holds unicasts too sends them on their route's VC)
            out_vc = Mux(flit.bcast, bvc, route.vc) if frame.shared_injection(p) else bvc
            empty = Cat(count == config.depth for count in out.credits[o])
            if replica.next_port is not None:   # a copy starts on its turn only
                empty = empty & (replica.next_port == o).replicate(len(empty))
            room = empty.bit_select(out_vc, 1) | ~flit.bcast
            value = flit.as_value()
            flits.append(Cat(value[:vc_at], out_vc, value[vc_at + vc_bits:]))
        else:
            out_vc, room = 0, 1
            flits.append(flit.as_value())
        busy, credit = out.state(o, out_vc)
        wants.append(ready & (queue.active[k] | (~busy & room)) & credit)
    return wants, flits
