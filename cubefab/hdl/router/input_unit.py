"""Input unit of the router: what arrives on an input port, the synthetic tails of a
failed link's cut packets, and the input buffers (a FIFO per VC, the route of each
entry beside its flit, the route held for a packet's body flits, and the bypass of an
empty buffer in lookahead routers).

Each input VC buffers entries of a route (the output port, one bit per output this
input may turn to, and the VC) and a flit. The oldest entry's route sits in a register
of its own (``head``), so that switch allocation starts the cycle from flip-flops; the
flits are in registers or block RAM. With ``header="every"`` every flit is routed by
its own header: a packet's flits carry its head's ``dest`` and ``src`` and cross each
link on its head's VC, so they all get the head's route (no register holds it for
them); with ``header="head"`` a register per input VC holds it for them
(:func:`entry_route`). An adaptive router's route has two port fields, ``offered`` and
``escape``, and the flow's adaptive VC.
"""

from dataclasses import dataclass

from amaranth.hdl import C, Cat, Mux, Signal, Value, unsigned
from amaranth.lib import data
from amaranth.lib.fifo import FIFOInterface


__all__ = ["PORT_FIELDS", "CutTails", "InputVC", "arriving", "cut_tails", "route_entry",
           "input_buffers", "bypass", "entry_route"]


#: The fields of a buffered route that hold a bit per output port.
PORT_FIELDS = ("port", "offered", "escape")


@dataclass(frozen=True)
class CutTails:
    """What :func:`cut_tails` builds for a network input port: the flit entering
    (``flit``, a real one or a synthetic tail), whether one enters (``valid``) and the
    buffers' room per VC (``room``, driven by :func:`input_buffers`)."""

    flit: data.View
    valid: Value
    room: Signal


@dataclass(frozen=True)
class InputVC:
    """An input VC's buffer: its FIFO interface, and views of its oldest entry's route
    and flit."""

    fifo: FIFOInterface
    route: data.View
    flit: data.View


def arriving(frame, p):
    """The flit arriving on input port ``p`` (``degree``: ``local_in``, whose ``vc``
    and ``cls`` are ignored: taken as 0)."""
    router, layout = frame.router, frame.layout
    if p < frame.degree:
        return frame.arrival(p).payload
    vc_at = layout["vc"].offset
    end = layout["dest"].offset   # vc, and cls if there is one
    injected = router.local_in.payload.as_value()
    vc_end = vc_at + layout["vc"].shape.width
    cls = frame.in_heads(injected[layout["head"].offset], C(0, end - vc_end),
                         injected[vc_end:end])
    return data.View(layout, Cat(injected[:vc_at], C(0, vc_end - vc_at), cls,
                                 injected[end:]))


def cut_tails(frame, p, flit):
    """Sound cut of the packets a failed link ``p`` carried (fault-tolerant
    routers): per input VC, whether a packet is open and its last flit; while
    ``link_up[p]`` is low and no flit arrives, the synthetic tail of the lowest open
    VC whose buffer has room arrives instead (docs/faults.md). Returns the
    :class:`CutTails` of port ``p``.

    A link that fails (``link_up[p]`` low, at both ends) so cuts the packets it was
    carrying: each input VC of port ``p`` remembers whether a packet is open (its
    head arrived, its tail not yet) and its last flit; the synthetic tail is a copy
    of that last flit with ``head`` 0, ``tail`` 1 and ``cut`` 1, which travels on as
    an ordinary tail (releasing every VC the packet holds downstream) to the
    destination, whose checker counts the packet as cut. A flit registered on the
    link the cycle before the failure still arrives (the sender drops only what it
    grants from then on); a dead link's credits are no longer returned."""
    m, layout, vcs = frame.m, frame.layout, frame.config.link_vcs
    link = frame.arrival(p)
    room = Signal(vcs, name=f"cut_room_p{p}")
    opened = [Signal(name=f"open_p{p}_vc{v}") for v in range(vcs)]
    last = [Signal(layout, name=f"last_p{p}_vc{v}") for v in range(vcs)]
    synthetic = Signal(layout, name=f"cut_tail_p{p}")
    cutting = Signal(name=f"cutting_p{p}")
    entering = Signal(layout, name=f"entering_p{p}")
    down = ~frame.router.link_up[p] & ~link.valid
    for v in reversed(range(vcs)):   # the lowest open VC with room wins
        with m.If(down & opened[v] & room[v]):
            m.d.comb += [cutting.eq(1), synthetic.eq(last[v])]
    m.d.comb += [entering.eq(Mux(cutting, synthetic, flit)),
                 entering.head.eq(Mux(cutting, 0, flit.head)),
                 entering.tail.eq(Mux(cutting, 1, flit.tail)),
                 entering.cut.eq(Mux(cutting, 1, flit.cut))]
    for v in range(vcs):
        with m.If((link.valid | cutting) & (entering.vc == v)):
            m.d.sync += [opened[v].eq(~entering.tail), last[v].eq(entering)]
    return CutTails(entering, link.valid | cutting, room)


def route_entry(enter, outputs):
    """The route an input VC of a port that may turn to ``outputs`` buffers with a
    flit, from the route stage's ``enter``: its layout (a bit per output of
    ``outputs`` in the :data:`PORT_FIELDS`) and its value."""
    fields = {name: unsigned(len(outputs) if name in PORT_FIELDS else shape.width)
              for name, shape in ((n, f.shape) for n, f in enter.shape())}
    new = Cat(Cat(enter[n][o] for o in outputs) if n in PORT_FIELDS else enter[n]
              for n in fields)
    return data.StructLayout(fields), new


def _check_turns(frame, p, flit, enter, outputs, fields):
    """Set the router's ``bad_turn`` flag when a head on input port ``p`` wants an
    output this router does not connect to ``p`` (``turns="reference"``)."""
    m, router, degree = frame.m, frame.router, frame.degree
    missing = sum(1 << o for o in range(degree + 1) if o not in outputs)
    wanted = Cat(enter[n] & missing for n in fields if n in PORT_FIELDS)
    with m.If(router.local_in.valid if p == degree else frame.arrival(p).valid):
        head = flit.head
        if frame.config.broadcast:   # (a broadcast flit's unicast route is unused)
            head = head & ~flit.bcast
        with m.If(head & wanted.any()):
            m.d.sync += router.bad_turn.eq(1)


def input_buffers(frame, p, flit, enter, outputs, cut=None):
    """Input buffers: a FIFO per VC of input port ``p`` storing the flits arriving
    (``flit``; with ``cut``, the :class:`CutTails` of the port) and their routes
    (``enter``, its ports as one bit per output of ``outputs``, the ports ``p`` may
    turn to); returns an :class:`InputVC` per VC."""
    m, router, config, layout = frame.m, frame.router, frame.config, frame.layout
    route_layout, new = route_entry(enter, outputs)
    if len(outputs) <= frame.degree:
        _check_turns(frame, p, flit, enter, outputs, [n for n, _ in route_layout])
    buffers = []
    for v in range(frame.fifo_vcs(p)):
        fifo = FIFOInterface(width=route_layout.size + layout.size, depth=config.depth)
        if config.lookahead:   # the buffer behind a bypass
            fifo = bypass(frame, fifo, route_layout.size, f"fifo_p{p}_vc{v}")
        else:
            config.buffer_logic(m, fifo, name=f"fifo_p{p}_vc{v}", head=route_layout.size)
        m.d.comb += fifo.w_data.eq(Cat(entry_route(frame, p, v, fifo, flit, new), flit))
        if p < frame.degree:
            link = router.link_in[p]
            if cut is not None:   # a real flit, or a cut packet's tail
                entering, vc = cut.valid, flit.vc
                m.d.comb += cut.room[v].eq(fifo.w_rdy)
            else:
                arrival = frame.arrival(p)
                entering, vc = arrival.valid, arrival.payload.vc
            m.d.comb += fifo.w_en.eq(entering & (vc == v))
            with m.If(fifo.w_en & ~fifo.w_rdy):
                m.d.sync += router.overflow.eq(1)
            # credit return, registered: one pulse per flit leaving the buffer (a
            # dead link's credits are not returned)
            leaving = fifo.r_en & fifo.r_rdy
            if config.fault_waypoints:
                leaving = leaving & router.link_up[p]
            m.d.sync += link.credit[v].eq(leaving)
        else:
            m.d.comb += fifo.w_en.eq(frame.injects(bcast=False))
            if frame.local_queues() == 1:
                m.d.comb += router.local_in.ready.eq(fifo.w_rdy)
        buffers.append(InputVC(fifo, data.View(route_layout, fifo.r_data[:route_layout.size]),
                               data.View(layout, fifo.r_data[route_layout.size:])))
    return buffers


def bypass(frame, queue, head, name):
    """Bypass of an empty buffer (lookahead routers): ``queue`` (a FIFOInterface)
    is what the router reads and writes; behind it a FIFO of ``config.storage``
    stores the flits. While ``queue`` is empty, the entry being written is the
    oldest: ``queue`` offers it at once (its low ``head`` bits, the route, zero
    while nothing is offered), and when read in the same cycle it is consumed.
    Every entry written is stored, so that the grant stays off the FIFO's write
    path: a consumed one (``{name}_skip``, a flip-flop) is dropped from the FIFO in
    the next cycle, while ``queue`` shows what is behind it (it was alone). The
    FIFO holds one entry more than ``queue`` for that cycle; upstream credits
    cover it (the consumed entry's credit went back when it was read), and the
    local input (``w_rdy``; ``local_in`` writes while valid) is kept exact: a FIFO
    of depth 1 gets two slots and takes an entry only when ``queue`` has room.
    ``empty`` is a flip-flop of its own. Returns ``queue``."""
    m = frame.m
    fifo = FIFOInterface(width=queue.width, depth=max(queue.depth, 2))
    frame.config.buffer_logic(m, fifo, name=name, head=head)
    skip = Signal(name=f"{name}_skip")
    # nothing in ``queue`` but what is arriving (~fifo.r_rdy | skip), a flip-flop
    empty = Signal(init=1, name=f"{name}_empty")
    offered = queue.w_data[:head] & queue.w_en.replicate(head)
    # (an entry is written while ``w_en`` and ``w_rdy``: local_in writes while
    # valid; with depth > 1 the FIFO's room is ``queue``'s, and it refuses itself)
    if queue.depth > 1:
        w_rdy, written = fifo.w_rdy, queue.w_en
    else:
        w_rdy = ~fifo.r_rdy | skip
        written = queue.w_en & w_rdy
    m.d.sync += [
        skip.eq(empty & queue.r_en),
        empty.eq(Mux(empty, ~queue.w_en | queue.r_en,
                     queue.r_en & ~written & (queue.r_level == 1))),
    ]
    m.d.comb += [
        fifo.w_data.eq(queue.w_data),
        fifo.w_en.eq(written),
        fifo.r_en.eq(skip | queue.r_en),
        queue.w_rdy.eq(w_rdy),
        queue.w_level.eq(fifo.w_level - skip),
        queue.r_level.eq(fifo.r_level - skip),
        queue.r_rdy.eq(~empty | queue.w_en),
        queue.r_data.eq(Mux(empty, Cat(offered, queue.w_data[head:]), fifo.r_data)),
    ]
    return queue


def entry_route(frame, p, v, buffer, flit, new):
    """The route buffered with a flit entering input VC ``(p, v)`` (its FIFO or
    replicating queue ``buffer``): ``new``, the route of the flit's own header (a
    replicating queue's: its copies); with ``config.header == "head"`` a body or
    tail flit (whose header bits are data) takes its head's route instead, kept in
    a register per input VC (``held_route_p{p}_vc{v}``) from when the head entered
    (a VC carries one packet at a time: wormhole switching)."""
    if frame.config.header != "head":
        return new
    held = Signal(len(new), name=f"held_route_p{p}_vc{v}")
    with frame.m.If(buffer.w_en & flit.head):
        frame.m.d.sync += held.eq(new)
    return Mux(flit.head, new, held)
