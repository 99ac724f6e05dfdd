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
ordered. A fault-tolerant router (``FloodCopies``) floods the healthy network's
spanning tree instead, written at run time into its ``flood`` input
(:class:`~cubefab.hdl.route.flood.FloodChildren`: the tree ports but the arrival port,
pruned to the members' side for a multicast), on one broadcast VC whose lane a copy
keeps; its one-port copies leave in port order.

Each of these is a copy stage (:mod:`~cubefab.hdl.router.copies`), the one the
router's parts name (:meth:`~cubefab.hdl.modes.Routing.copy_stage`): the queues ask it
for a copy's children, turns, order and VC instead of testing which replication it
is.
"""

from dataclasses import dataclass

from amaranth.hdl import Cat, Mux, Value, unsigned
from amaranth.lib import data

from ..replicate import ReplicatingQueue
from .input_unit import entry_route


__all__ = ["Replica", "check_strapped", "replicating_queues", "replica_requests"]


def check_strapped(config):
    """Raise ValueError unless the replication of ``config`` (a
    :class:`~cubefab.hdl.config.RouterConfig`) can be built with address straps (its
    copy stage's :meth:`CopyStage.check_strapped`: the one-port and multicast units of
    a strapped router tabulate every (node, source) pair,
    :attr:`~cubefab.hdl.route.one_port.OnePortSends.MAX_ENTRIES`)."""
    config.routing.copy_stage(config).check_strapped(config)


@dataclass(frozen=True)
class Replica:
    """A replicating input queue of the router: the queue, the outputs its copies go
    to (a copy per output, in order) and, with the one-port model, the only network
    port on which a copy of its oldest packet may start (``next_port``; None
    otherwise)."""

    queue: ReplicatingQueue
    outputs: list
    next_port: Value = None


def _broadcast_turns(frame, copies):
    """The (input port, output port) pairs broadcast copies take at this router (of
    the copy stage ``copies``; every one with ``turns="all"``)."""
    degree = frame.degree
    if frame.config.turns == "all":
        return {(i, o) for i in range(degree + 1) for o in range(degree + 1)}
    return copies.turns(frame)


def replicating_queues(frame, p, flit, enter, outputs):
    """The replicating queues of input port ``p`` (its broadcast VCs; the injection
    queue, which also holds unicast packets routed to ``outputs``), as
    :class:`Replica` s: an entry's copies are the children of this node in the tree
    of the flit's ``src`` and, unless this node is the source, the local output; a
    unicast flit's is its route (``enter.port``; an adaptive router injects unicasts
    into a FIFO of their own, :meth:`~.frame.Frame.local_queues`)."""
    m, degree, config, layout = frame.m, frame.degree, frame.config, frame.layout
    router = frame.router
    copy_stage = config.routing.copy_stage(config)
    turns = _broadcast_turns(frame, copy_stage)
    outs = [o for o in range(degree + 1) if (p, o) in turns]
    shared = frame.shared_injection(p)   # holds unicasts too
    if shared:
        outs = sorted(set(outs) | set(outputs))
    unit, local = copy_stage.children(frame, p, flit)
    copies = Cat(unit.children[o] if o < degree else local for o in outs)
    if shared:
        copies = Mux(flit.bcast, copies, Cat(enter.port[o] for o in outs))
    route_layout = data.StructLayout({"port": unsigned(len(outs)),
                                      "vc": unsigned(layout["vc"].shape.width)})
    replicas = []
    for v in range(config.link_vcs - config.broadcast_vcs, config.link_vcs) \
            if p < degree else [frame.local_queues() - 1]:
        queue = ReplicatingQueue(m, f"rq_p{p}_vc{v}", config.depth, route_layout, layout)
        next_port = copy_stage.order(frame, queue, outs)
        m.d.comb += queue.w_data.eq(Cat(entry_route(frame, p, v, queue, flit,
                                                    Cat(copies, enter.vc)), flit))
        if p < degree:
            link, arrival = router.link_in[p], frame.arrival(p)
            m.d.comb += queue.w_en.eq(arrival.valid & (arrival.payload.vc == v))
            with m.If(queue.w_en & ~queue.w_rdy):
                m.d.sync += router.overflow.eq(1)
            m.d.sync += link.credit[v].eq(queue.pop)
        else:
            m.d.comb += queue.w_en.eq(frame.injects(bcast=True))
            if shared:   # (else local_in's ready is the router's: beside a FIFO)
                m.d.comb += router.local_in.ready.eq(queue.w_rdy)
        replicas.append(Replica(queue, outs, next_port))
    return replicas


def replica_requests(frame, p, v, replica, out):
    """Per output of ``replica``: the request of its copy, and the flit it sends (on
    its output VC); ``out``: the :class:`~.output_unit.OutputVCs`. A broadcast copy
    starts only on an idle output VC whose downstream buffer is empty (it takes the
    whole packet)."""
    degree, config, layout = frame.degree, frame.config, frame.layout
    vc_at, vc_bits = layout["vc"].offset, layout["vc"].shape.width
    queue = replica.queue
    copy_stage = config.routing.copy_stage(config)
    wants, flits = [], []
    for k, o in enumerate(replica.outputs):
        ready, route, flit = queue.copy(k)
        if o < degree:
            bvc = copy_stage.vc(frame, p, v, o)
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
