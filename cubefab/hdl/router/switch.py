"""Switch allocation and crossbar: per output an arbiter among the input queues that
may turn to it, and the multiplexer of the flit it grants.

An arbiter grants the least recently granted requester (a matrix arbiter,
:func:`~cubefab.hdl.allocator.least_recently_granted`: two LUT levels, where a
round-robin carry chain was the critical path). The route FIFO heads are zero while
empty, so that a request is one LUT: route port bit, VC free or held by this queue,
credit.
"""

from dataclasses import dataclass, field

from amaranth.hdl import Cat, Signal

from ...topology.deadlock import next_vc
from ..allocator import least_recently_granted
from ..crossbar import one_hot_mux
from .replication import Replica, replica_requests


__all__ = ["Switch", "allocate_switch", "crossbar", "request_vc"]


@dataclass
class Switch:
    """What switch allocation builds: per output, the input queues that may turn to it
    (``users``), their requests and grants (a bit per user), and per queue the flit it
    offers to network outputs (``departing``, on its output VC) and to the local one
    (``delivering``): a flit, or for a replicating queue a dict output -> flit.
    ``contenders`` and ``request_vcs`` (per output, per user: the route head bit and
    the VC it requests, an int where constant) let the arbiters compare flip-flops."""

    users: list
    requests: list
    grants: list
    contenders: list
    request_vcs: list
    departing: list = field(default_factory=list)
    delivering: list = field(default_factory=list)

    def connect(self, m, q, outputs, wants):
        """Drive queue ``q``'s requests to ``outputs`` (``wants``, in order); returns
        its grants."""
        granted = []
        for k, o in enumerate(outputs):
            i = self.users[o].index(q)
            m.d.comb += self.requests[o][i].eq(wants[k])
            granted.append(self.grants[o][i])
        return granted


def request_vc(frame, p, v, o, out_vc):
    """The output VC whose state a request of input queue ``(p, v)`` for output
    ``o`` reads: ``out_vc`` (the buffered route's), or the same VC as a constant
    where the router knows it (a constant node and one VC per class: the class of
    the next link is that of the queue's VC, :func:`next_vc`, a flit entering queue
    ``(p, v)`` arrives on VC ``v``; a routing whose hops take :func:`next_vc`'s VC,
    :attr:`~cubefab.hdl.modes.Routing.constant_vcs`), so that a request is one LUT of
    flip-flops."""
    config, degree = frame.config, frame.degree
    if (frame.node is None or o == degree or config.link_vcs == 1
            or frame.lanes() or config.broadcast or not config.routing.constant_vcs):
        return out_vc
    vc_in = v if p < degree else 0
    return next_vc(frame.topology, frame.node, o, vc_in, config.vc_classes)


def _replica_queue(frame, switch, q, p, v, replica, out):
    """Switch allocation of replicating queue ``q`` (``(p, v)``)."""
    wants, flits = replica_requests(frame, p, v, replica, out)
    for k, o in enumerate(replica.outputs):
        i = switch.users[o].index(q)
        frame.m.d.comb += [switch.requests[o][i].eq(wants[k]),
                           replica.queue.sent[k].eq(switch.grants[o][i])]
    switch.departing.append(dict(zip(replica.outputs, flits)))
    switch.delivering.append(switch.departing[-1])


def _fifo_queue(frame, switch, q, p, v, vc, outputs, out, select, network_wants,
                stage):
    """Switch allocation of the FIFO input queue ``q`` (``(p, v)``, its
    :class:`~.input_unit.InputVC` ``vc``) that may turn to ``outputs``: its requests
    (deterministic: its route's port; adaptive: ``select``'s choice), its read, and
    the flits it offers (on their output VC, their header as ``stage``, the route
    stage, writes it)."""
    m, route = frame.m, vc.route
    vc_bits = frame.layout["vc"].shape.width
    active = Signal(name=f"active_p{p}_vc{v}")
    cls = None
    if select is not None:
        contested = (Cat(Cat(network_wants[o]).any() for o in outputs)
                     if p == frame.degree else None)
        want, out_vc, cls = select.choose(p, v, outputs, vc, active, contested)
        if p < frame.degree:
            # the queues are in port order, so the injection queue, last, sees every
            # network queue's preference
            prefers = select.prefers(route, len(outputs))
            for k, o in enumerate(outputs):
                network_wants[o].append(prefers[k])
    else:
        out_vc = route.vc[:vc_bits]
        vcs = [request_vc(frame, p, v, o, out_vc) for o in outputs]
        want = [route.port[k] & (active | ~out.state(o, w)[0]) & out.state(o, w)[1]
                for k, (o, w) in enumerate(zip(outputs, vcs))]
    granted = switch.connect(m, q, outputs, want)
    if select is None:
        for k, o in enumerate(outputs):
            i = switch.users[o].index(q)
            switch.contenders[o][i] = route.port[k]
            switch.request_vcs[o][i] = vcs[k]
    granted = Cat(granted).any()
    m.d.comb += vc.fifo.r_en.eq(granted)
    switch.departing.append(stage.depart(frame, vc, out_vc, cls))
    switch.delivering.append(vc.flit.as_value())  # ejected flits keep their last VC
    with m.If(granted):
        m.d.sync += active.eq(~vc.flit.tail)


def _arbiters(frame, switch, out, adaptive):
    """An arbiter per output among its users' requests (``adaptive``: queues choose
    among outputs and VCs)."""
    m = frame.m
    broadcast = frame.config.broadcast
    for o in range(frame.degree + 1):
        users, busy = switch.users[o], out.busy[o]
        if not users:
            continue
        requests, grants = switch.requests[o], switch.grants[o]
        contenders, request_vcs = switch.contenders[o], switch.request_vcs[o]
        if len(busy) == 1 and not adaptive and not broadcast:
            # One output VC: while it is free, no queue routed to it is active (an
            # active queue owns the VC it sends on), so the queues whose route
            # head names it all request (with a credit) or none does; while it is
            # busy, only its owner may request. The arbiter can then compare the
            # route bits (flip-flops) instead of the requests: one LUT level less
            # from the start of the cycle to the grants, and the same grants.
            least_recently_granted(m, requests, grants, 1, name=f"prio_p{o}",
                                   contenders=Cat(contenders), uncontested=busy[0])
        elif all(isinstance(vc, int) for vc in request_vcs):
            # Each queue requests a constant VC of o. Against queue i, a queue on
            # the same VC requests exactly when its route head names o and the VC
            # is free (were the VC busy and i requesting, i would own it); a queue
            # on another VC, when it requests: one LUT of flip-flops either way.
            least_recently_granted(m, requests, grants, 1, name=f"prio_p{o}",
                                   contenders=[Cat(
                                       contenders[j] & ~busy[w]
                                       if request_vcs[j] == w else requests[j]
                                       for j in range(len(users)))
                                       for w in request_vcs])
        else:
            least_recently_granted(m, requests, grants, 1, name=f"prio_p{o}")


def allocate_switch(frame, stage, outputs, buffers, out):
    """Switch allocation: an arbiter per output among the input queues that may
    turn to it (``outputs[q]``: the outputs queue ``q`` may use; ``buffers[q]``: its
    :class:`~.input_unit.InputVC` or :class:`~.replication.Replica`; ``out``: the
    :class:`~.output_unit.OutputVCs`; ``stage``: the route stage, which writes the
    header of a departing flit). Returns the :class:`Switch`."""
    degree = frame.degree
    queues = frame.queues()
    users = [[q for q in range(len(queues)) if o in outputs[q]] for o in range(degree + 1)]
    switch = Switch(
        users=users,
        requests=[Signal(len(users[o]), name=f"requests_p{o}") for o in range(degree + 1)],
        grants=[Signal(len(users[o]), name=f"grants_p{o}") for o in range(degree + 1)],
        contenders=[[None] * len(users[o]) for o in range(degree + 1)],
        request_vcs=[[None] * len(users[o]) for o in range(degree + 1)])
    select = stage.selection(frame, out)
    # per output, whether a network input queue's head prefers it (an adaptive
    # router's injection queue steers clear of those outputs where it can)
    network_wants = [[] for _ in range(degree + 1)]
    for q, (p, v) in enumerate(queues):
        if isinstance(buffers[q], Replica):
            _replica_queue(frame, switch, q, p, v, buffers[q], out)
        else:
            _fifo_queue(frame, switch, q, p, v, buffers[q], outputs[q], out, select,
                        network_wants, stage)
    _arbiters(frame, switch, out, adaptive=select is not None)
    return switch


def crossbar(frame, switch):
    """Crossbar: per output, the flit of the queue granted it (one-hot AND-OR
    multiplexers); network outputs take ``departing``, the local one
    ``delivering``."""
    m, degree = frame.m, frame.degree
    switched = [Signal(frame.layout, name=f"switched_p{o}") for o in range(degree + 1)]
    for o in range(degree + 1):
        leaving = switch.delivering if o == degree else switch.departing
        users = switch.users[o]
        # (a replicating queue offers each output its copy's flit)
        offered = [leaving[q][o] if isinstance(leaving[q], dict) else leaving[q]
                   for q in users]
        if len(users) == 1:
            # one input: no multiplexer (the payload of an invalid flit is undefined)
            m.d.comb += switched[o].eq(offered[0])
        elif users:
            m.d.comb += switched[o].eq(one_hot_mux(switch.grants[o], offered))
    return switched
