"""The wormhole virtual-channel router of one node."""

from amaranth.hdl import Module, Signal, Cat, Mux, C, unsigned
from amaranth.lib import data, stream, wiring
from amaranth.lib.fifo import FIFOInterface
from amaranth.lib.wiring import In, Out

from ..topology.adaptive import needs_adaptive
from ..topology.deadlock import lane_bits, next_vc, wrap_ports
from ..topology.turns import adaptive_turns, router_turns
from .allocator import least_recently_granted
from .config import BUFFERS, RouterConfig
from .crossbar import one_hot_mux
from .flit import LinkSignature
from .replicate import ReplicatingQueue, broadcast_turns, broadcast_wrap
from .route import route_unit
from .route.adaptive import adaptive_route_unit
from .route.waypoint import WaypointRoute
from .route.broadcast import broadcast_children_unit
from .route.multicast import MulticastChildren
from .route.one_port import OnePortSends
from .route.lookahead import LookaheadRoute


__all__ = ["Router", "HOP_LATENCY", "ROUTER_LATENCY", "HOP_LATENCIES", "ROUTER_LATENCIES",
           "zero_load_latency"]


#: The fields of a buffered route that hold a bit per output port.
PORT_FIELDS = ("port", "offered", "escape")


#: Cycles a head flit takes per hop with no contention: one in the input buffer, one
#: in the output register (``link_out[p].flit`` is a register).
HOP_LATENCY = 2

#: Cycles from a flit accepted on ``local_in`` to it appearing on ``local_out`` of the
#: same router (a packet to itself); a packet of ``L`` flits over ``h`` hops has
#: latency ``ROUTER_LATENCY + h * HOP_LATENCY + L - 1`` from its head's acceptance to
#: its tail's appearance, with no contention.
ROUTER_LATENCY = 2

#: :data:`HOP_LATENCY` by ``RouterConfig.hop``: with ``"lookahead"`` a head flit that
#: finds its input VC empty and its output free goes from the link to the output
#: register in the cycle it arrives.
HOP_LATENCIES = {"buffered": HOP_LATENCY, "lookahead": 1}

#: :data:`ROUTER_LATENCY` by ``RouterConfig.hop`` (the injection queue is bypassed
#: too).
ROUTER_LATENCIES = {"buffered": ROUTER_LATENCY, "lookahead": 1}


def _escape_first(bits, escape, width):
    """Of the ports ``bits`` (a bit per port, ``width`` bits), the escape port if it is
    one of them (``escape``, one-hot), else the lowest; one-hot, or zero."""
    preferred = bits & escape
    return Mux(preferred.any(), preferred, (bits & (~bits + 1))[:width])


def zero_load_latency(config, hops, flits):
    """Cycles from a packet's head accepted on ``local_in`` to its tail on
    ``local_out`` with no contention, for routers of ``config`` (a RouterConfig):
    ``ROUTER_LATENCIES[hop] + hops * HOP_LATENCIES[hop] + flits - 1`` (buffered:
    ``2 + 2 * hops + flits - 1``; lookahead: ``hops + flits``)."""
    if not isinstance(config, RouterConfig):
        raise TypeError(f"Router configuration must be a RouterConfig, not {config!r}")
    if not isinstance(hops, int) or hops < 0:
        raise ValueError(f"Hops must be a non-negative integer, not {hops!r}")
    if not isinstance(flits, int) or flits < 1:
        raise ValueError(f"Packet length in flits must be a positive integer, not {flits!r}")
    return ROUTER_LATENCIES[config.hop] + hops * HOP_LATENCIES[config.hop] + flits - 1


class Router(wiring.Component):
    """Input-buffered wormhole router with virtual channels and credit flow control.

    Parameters
    ----------
    config : RouterConfig
        The topology, routing algorithm, virtual channels, buffers and turns; ports are
        numbered as in docs/conventions.md.
    node : int or None
        This router's node address, or ``None`` for a router whose address comes
        from its ``here`` and ``wrap_mask`` inputs (address straps): one design for
        every node, which a simulator or synthesis tool then builds once. With
        ``turns="reference"`` a router connects the turns reference routes make at
        its node (at any node when ``node`` is ``None``); a flit wanting another
        turn stays in its buffer and sets :attr:`bad_turn`.

    Members
    -------
    link_in : In(LinkSignature(layout)).array(degree)
        ``link_in[p]``: flits arriving through network port ``p``; the router returns
        a credit on ``link_in[p].credit[v]`` when a flit of VC ``v`` leaves its buffer.
    link_out : Out(LinkSignature(layout)).array(degree)
        ``link_out[p]``: flits leaving through network port ``p`` (registered); the
        router sends on VC ``v`` only with a credit, and starts with ``config.depth``.
    local_in : In(stream.Signature(layout))
        Injection. Packets must be well formed (a head, body flits, a tail; ``head``
        and ``tail`` both set for one flit), every flit carrying its head's ``dest``
        and ``src`` (each flit is routed by its own); ``vc`` is ignored. With
        ``config.header == "head"`` only the head carries them (and its ``cls`` is
        ignored): the others are ``layout.body`` flits, routed by their head's route
        (kept per input VC; a broadcast's copies too) and passed on untouched but
        for ``vc``.
    local_out : Out(stream.Signature(layout))
        Ejection (registered); a packet's flits leave consecutively, never
        interleaved with another packet's. ``vc`` holds the VC of the last link.
    here : In(topology.address_bits)
        This router's address; present only when ``node`` is ``None``, and then
        held at a node's address (see :meth:`strap_values`).
    wrap_mask : In(topology.degree)
        Bit ``p``: a packet leaving through port ``p`` moves up one VC; present only
        when ``node`` is ``None``, held at :meth:`strap_values`' value.
    link_up : In(topology.degree)
        Only with ``config.fault_waypoints``: per-port link status, as a link layer
        drives it (all ones from the start). A flit granted to a port whose link is
        down is dropped (no credit used, the port never stalls) and pulses that
        port's bit of ``lost_to_fault``.
    lost_to_fault : Out(topology.degree)
        Only with ``config.fault_waypoints``: bit ``p`` pulses for each flit dropped at
        port ``p``.
    lost_heads : Out(topology.degree)
        Only with ``config.fault_waypoints``: bit ``p`` pulses when the flit dropped at
        port ``p`` is a head (a packet dropped whole: its other flits follow it).
    neighbors : In(topology.degree * topology.address_bits)
        Only with ``config.lookahead`` when ``node`` is ``None``: the neighbours'
        addresses, port by port, held at :meth:`lookahead_strap_values`' value.
    bwrap_mask : In(topology.degree)
        Bit ``p``: a broadcast copy leaving through port ``p`` moves up one broadcast
        VC; present only when ``node`` is ``None`` and ``config.broadcast``, held at
        :meth:`broadcast_strap_values`' value.

    A packet's head reserves an output VC (wormhole switching: it stays reserved
    until the tail passes), each output port sends one flit a cycle, chosen among
    the input VCs that may use it by a least-recently-granted (matrix) arbiter: one
    that keeps requesting waits at most one grant per other requester.

    With ``config.adaptive_vcs`` the router routes adaptively (docs/router.md,
    "Adaptive routing"): a head takes an offered port whose adaptive VC for its flow
    is idle and has a credit (by congestion: its escape port while that VC is at least
    half empty, then, where the escape port is offered, the escape VC of its class
    while that is at least three quarters empty, then the first port in port order),
    else its escape port on the escape VC of its class; an injected head first steers
    clear of the ports the network queues' heads prefer; the rest of the packet follows
    the head's choice.

    With ``config.fault_waypoints`` the router routes by waypoints around faults
    (docs/faults.md): each input port's route unit is a
    :class:`~cubefab.hdl.route.waypoint.WaypointRoute`, a flit leaves on VC
    ``phase_out * C + class`` (the class restarting at 0 on a new leg) with
    ``phase_out`` written into its header, and every turn is connected.

    With ``config.fault_waypoints`` a link that fails (``link_up[p]`` low, at both
    ends) also cuts the packets it was carrying: each input VC of port ``p``
    remembers whether a packet is open (its head arrived, its tail not yet) and its
    last flit; while the link is down and no flit arrives, the lowest open VC with
    room in its buffer gets a synthetic tail, a copy of that last flit with ``head``
    0, ``tail`` 1 and ``cut`` 1, which travels on as an ordinary tail (releasing
    every VC the packet holds downstream) to the destination, whose checker counts
    the packet as cut. A flit registered on the link the cycle before the failure
    still arrives (the sender drops only what it grants from then on); a dead
    link's credits are no longer returned.

    With ``config.broadcast_vcs`` the router replicates broadcast packets (``bcast``
    set; docs/broadcast.md, "Replication in the router"): the broadcast VCs of its
    inputs and its injection queue are :class:`~cubefab.hdl.replicate.ReplicatingQueue`
    s; a broadcast packet goes to the children of this node in the tree of its ``src``
    (:func:`~cubefab.hdl.route.broadcast.broadcast_children_unit`) and, at every node
    but the source, to ``local_out``. Each copy leaves when its output is free, on the
    broadcast VC of :func:`~cubefab.topology.broadcast_deadlock.broadcast_next_vc`,
    and starts only when the downstream buffer of that VC is empty (the whole packet
    fits: broadcast packets are at most ``config.depth`` flits); the packet leaves its
    input buffer after its last copy. With ``config.multicast`` a ``bcast`` packet goes
    only to its members (the subcube ``(dest, mmask)``, or the nodes whose bit of
    ``members`` is set), along the tree pruned to them
    (:class:`~cubefab.hdl.route.multicast.MulticastChildren`). With
    ``config.broadcast_model == "one-port"`` the copies follow the one-port tree and
    leave one at a time in the schedule's order: each replicating queue counts the
    network copies of its oldest packet whose tail has left, and
    :class:`~cubefab.hdl.route.one_port.OnePortSends` (the packet's ``src``, that count)
    names the only port on which a copy may start; the local copy is not ordered.

    With ``config.hop == "lookahead"`` (docs/router.md, "One cycle per hop") a head
    flit arriving on a network port carries its output port here in ``next_port``
    (the router before computed it; ``local_in``'s is ignored, the injection queue's
    route unit computes it), and a departing head gets ``next_port`` for the router it
    travels to (:class:`~cubefab.hdl.route.lookahead.LookaheadRoute`); a flit arriving
    at an empty input VC is offered to switch allocation in the cycle it arrives and,
    when granted, goes straight to its output register (its credit is returned as for
    a flit leaving the buffer, which stores it anyway and drops it in the next cycle);
    VC choice and wraps are unchanged.
    """

    def __init__(self, config, node):
        if not isinstance(config, RouterConfig):
            raise TypeError(f"Router configuration must be a RouterConfig, not {config!r}")
        topology = config.topology
        #: RouterConfig: what this router is built from
        self.config = config
        self.topology = topology
        #: FlitLayout: the flits of its links
        self.layout = config.layout
        self.node = None if node is None else topology.check_node(node, "node")
        if config.multicast and self.node is None:
            raise ValueError("Multicast routers need a constant node address, not None")
        if config.broadcast_model == "one-port" and self.node is None:
            raise ValueError("One-port replicating routers need a constant node address "
                             "(OnePortSends tabulates one node's schedule), not None")
        degree = topology.degree
        #: Sticky flag for simulation: a flit arrived at a full buffer (a broken
        #: credit protocol); never set in a correct network.
        self.overflow = Signal()
        #: Sticky flag for simulation: a flit needs a turn this router was built
        #: without (``turns="reference"``); never set in a fabric of these routers.
        self.bad_turn = Signal()
        members = {
            "link_in": In(LinkSignature(self.layout)).array(degree),
            "link_out": Out(LinkSignature(self.layout)).array(degree),
            "local_in": In(stream.Signature(self.layout)),
            "local_out": Out(stream.Signature(self.layout)),
        }
        if self.node is None:
            members["here"] = In(topology.address_bits)
            members["wrap_mask"] = In(degree)
            if config.broadcast:
                members["bwrap_mask"] = In(degree)
            if config.lookahead:
                members["neighbors"] = In(degree * topology.address_bits)
        if config.fault_waypoints:
            members["link_up"] = In(degree, init=(1 << degree) - 1)
            members["lost_to_fault"] = Out(degree)
            members["lost_heads"] = Out(degree)
        super().__init__(members)

    @staticmethod
    def strap_values(topology, node):
        """The ``here`` and ``wrap_mask`` inputs of an address-strapped router
        (``node=None``) that make it the router of ``node``."""
        node = topology.check_node(node, "node")
        wraps = wrap_ports(topology, node)
        return {"here": node, "wrap_mask": sum(1 << p for p, w in enumerate(wraps) if w)}

    @staticmethod
    def lookahead_strap_values(topology, node):
        """The ``neighbors`` input of an address-strapped lookahead router that makes
        it the router of ``node``: the neighbours' addresses, port by port
        (:meth:`~cubefab.hdl.route.lookahead.LookaheadRoute.strap_value`)."""
        return {"neighbors": LookaheadRoute.strap_value(topology, node)}

    @staticmethod
    def broadcast_strap_values(topology, node):
        """The ``bwrap_mask`` input of an address-strapped replicating router that
        makes it the router of ``node``: bit ``p`` is ``bwrap(node, p)`` (0 on the
        Mcube, whose rule reads only the ports)."""
        node = topology.check_node(node, "node")
        degree = topology.degree
        strapped = [broadcast_wrap(topology, None, degree, p) is None
                    for p in range(degree)]
        return {"bwrap_mask": sum(1 << p for p in range(degree)
                                  if strapped[p] and broadcast_wrap(topology, node, degree, p))}

    def elaborate(self, platform):
        m = Module()
        # The pipeline of docs/router.md, a method per stage: as a flit enters its input
        # buffer it gets its output port (route) and the VC of the next link (VC
        # choice); every cycle each output grants one input VC (switch allocation),
        # whose flit crosses the crossbar into the output register, and the output
        # VCs' credits and owners follow what left (credits).
        # (Arbiters, crossbar and buffers are built inline in this module; the Python
        # simulator runs one module much faster than many small ones.)
        degree = self.topology.degree
        turns = self._turns()
        # outputs[p]: the output ports input port p may turn to
        outputs = [[o for o in range(degree + 1) if (p, o) in turns]
                   for p in range(degree + 1)]
        buffers = []
        # (fault-tolerant routers, per network port: the buffers' room per VC for a
        # synthetic tail, and whether a flit enters; see _cut_tails)
        self._cut_room, self._entering = {}, {}
        for p in range(degree + 1):
            arriving = self._arriving(p)
            if self.config.fault_waypoints and p < degree:
                arriving = self._cut_tails(m, p, arriving)
            if self.config.adaptive:
                enter = self._route_adaptive(m, p, arriving)
            elif self.config.fault_waypoints:
                enter = self._route_waypoints(m, p, arriving)
            else:
                enter, port = self._route(m, p, arriving)
                self._choose_vc(m, p, arriving, port, enter, arriving.vc[self._lanes():])
            buffers += self._input_buffers(m, p, arriving, enter, outputs[p])
            if self.config.broadcast:
                buffers += self._replicating_queues(m, p, arriving, enter, outputs[p])
        busy, credits, has_credit, can_send = self._output_vcs(m)
        # the outputs each input queue may use
        queue_outputs = [b.outputs if isinstance(b, ReplicatingQueue) else outputs[p]
                         for b, (p, _) in zip(buffers, self._queues())]
        grants, users, departing, delivering = self._allocate_switch(
            m, queue_outputs, buffers, busy, can_send, credits)
        switched = self._crossbar(m, users, grants, departing, delivering)
        if self.config.lookahead:
            switched = self._look_ahead(m, switched)
        self._output_and_credits(m, grants, switched, busy, credits, has_credit,
                                 local_free=can_send[degree])
        return m

    def _turns(self):
        """The (input port, output port) pairs this router connects."""
        degree = self.topology.degree
        if self.config.turns == "all" or self.config.fault_waypoints:
            return {(i, o) for i in range(degree + 1) for o in range(degree + 1)}
        if self.config.adaptive:
            return adaptive_turns(self.topology, self.node, self.config.algorithm)
        return router_turns(self.topology, self.node, self.config.algorithm)

    def _lanes(self):
        """Bits of a VC number that pick the VC within its class."""
        return lane_bits(self.config.vcs_per_class)

    def _wraps(self):
        """Per network port, ``wrap(here, port)``: a constant or a strap bit."""
        if self.node is None:
            return [self.wrap_mask[o] for o in range(self.topology.degree)]
        return wrap_ports(self.topology, self.node)

    def _queues(self):
        """The input queues, (input port, VC): every VC of every network port, then
        the one of ``local_in``."""
        degree = self.topology.degree
        network = [(p, v) for p in range(degree) for v in range(self.config.link_vcs)]
        return network + [(degree, 0)]

    def _arriving(self, p):
        """The flit arriving on input port ``p`` (``degree``: ``local_in``, whose ``vc``
        and ``cls`` are ignored: taken as 0)."""
        if p < self.topology.degree:
            return self.link_in[p].flit.payload
        layout = self.layout
        vc_at = layout["vc"].offset
        end = layout["dest"].offset   # vc, and cls if there is one
        injected = self.local_in.payload.as_value()
        vc_end = vc_at + layout["vc"].shape.width
        cls = self._in_heads(injected[layout["head"].offset], C(0, end - vc_end),
                             injected[vc_end:end])
        return data.View(layout, Cat(injected[:vc_at], C(0, vc_end - vc_at), cls,
                                     injected[end:]))

    def _in_heads(self, is_head, value, kept):
        """``value``, for a header field the router writes (or clears); with
        ``config.header == "head"`` only heads carry header fields, so a body flit
        (``is_head`` 0) keeps ``kept``, its data bits there."""
        if self.config.header != "head" or not len(value):
            return value
        return Mux(is_head, value, kept)[:len(value)]

    def _cut_tails(self, m, p, arriving):
        """Sound cut of the packets a failed link ``p`` carried (fault-tolerant
        routers): per input VC, whether a packet is open and its last flit; while
        ``link_up[p]`` is low and no flit arrives, the synthetic tail of the lowest
        open VC whose buffer has room (``self._cut_room[p]``, driven by
        :meth:`_input_buffers`) arrives instead. Returns the flit entering port ``p``
        (``self._entering[p]``: it is valid)."""
        layout, vcs = self.layout, self.config.link_vcs
        link = self.link_in[p]
        room = Signal(vcs, name=f"cut_room_p{p}")
        opened = [Signal(name=f"open_p{p}_vc{v}") for v in range(vcs)]
        last = [Signal(layout, name=f"last_p{p}_vc{v}") for v in range(vcs)]
        synthetic = Signal(layout, name=f"cut_tail_p{p}")
        cutting = Signal(name=f"cutting_p{p}")
        entering = Signal(layout, name=f"entering_p{p}")
        down = ~self.link_up[p] & ~link.flit.valid
        for v in reversed(range(vcs)):   # the lowest open VC with room wins
            with m.If(down & opened[v] & room[v]):
                m.d.comb += [cutting.eq(1), synthetic.eq(last[v])]
        m.d.comb += [entering.eq(Mux(cutting, synthetic, arriving)),
                     entering.head.eq(Mux(cutting, 0, arriving.head)),
                     entering.tail.eq(Mux(cutting, 1, arriving.tail)),
                     entering.cut.eq(Mux(cutting, 1, arriving.cut))]
        for v in range(vcs):
            with m.If((link.flit.valid | cutting) & (entering.vc == v)):
                m.d.sync += [opened[v].eq(~entering.tail), last[v].eq(entering)]
        self._cut_room[p] = room
        self._entering[p] = link.flit.valid | cutting
        return entering

    def _route(self, m, p, arriving):
        """Route: the route unit of input port ``p``. Returns ``enter``, the route of
        a flit entering its buffer (``port``: the output port, one-hot; ``vc``: the VC
        of the next link, see :meth:`_choose_vc`), and the output port number."""
        # (expressions rather than named signals where possible: every named signal
        # costs the Python simulator an update per evaluation)
        if self.config.lookahead and p < self.topology.degree:
            return self._route_ahead(m, p, arriving)
        ru = m.submodules[f"route_p{p}"] = route_unit(self.topology, self.node,
                                                      self.config.algorithm)
        m.d.comb += ru.dest.eq(arriving.dest)
        if self.node is None:
            m.d.comb += ru.here.eq(self.here)
        if hasattr(ru, "src") and "src" in ru.signature.members:
            m.d.comb += ru.src.eq(arriving.src)
        enter = Signal(data.StructLayout({
            "port": unsigned(self.topology.degree + 1),
            "vc": unsigned(self.layout["vc"].shape.width),
        }), name=f"enter_p{p}")
        m.d.comb += enter.port.eq(ru.request)
        return enter, ru.port

    def _route_ahead(self, m, p, arriving):
        """Route of a lookahead router's network input ``p``: the ``next_port`` the
        arriving flit carries (see :meth:`_route`)."""
        degree = self.topology.degree
        enter = Signal(data.StructLayout({
            "port": unsigned(degree + 1),
            "vc": unsigned(self.layout["vc"].shape.width),
        }), name=f"enter_p{p}")
        m.d.comb += enter.port.eq(C(1, degree + 1) << arriving.next_port)
        return enter, arriving.next_port

    def _look_ahead(self, m, switched):
        """Lookahead: each network output's flit, a head getting ``next_port``, its
        output port at the router it travels to (``switched[degree]``, the local
        output's, unchanged)."""
        degree = self.topology.degree
        unit = m.submodules["lookahead"] = LookaheadRoute(self.topology, self.node,
                                                          self.config.algorithm)
        if self.node is None:
            m.d.comb += unit.neighbors.eq(self.neighbors)
        ahead = []
        for o in range(degree):
            flit = Signal(self.layout, name=f"ahead_p{o}")
            m.d.comb += [unit.dest[o].eq(switched[o].dest), flit.eq(switched[o])]
            if unit.needs_src:
                m.d.comb += unit.src[o].eq(switched[o].src)
            m.d.comb += flit.next_port.eq(self._in_heads(switched[o].head, unit.port[o],
                                                         switched[o].next_port))
            ahead.append(flit)
        return ahead + [switched[degree]]

    def _route_adaptive(self, m, p, arriving):
        """Route of an adaptive router: the adaptive route unit of input port ``p``.
        Returns ``enter``: ``offered`` (the adaptive ports, a bit per port),
        ``escape`` (the escape port, one-hot), ``vc`` (the escape VC: the class the
        packet carries, ``arriving.cls``, one up on a wrap link, and the flow's VC
        within the class), ``lane`` (the flow's adaptive VC, from the first) and, on
        the local input of an Mcube routing Mroute, ``short`` (the unit's
        ``ecube_short``: e-cube's route is as short as Mroute's)."""
        degree, config = self.topology.degree, self.config
        ru = m.submodules[f"route_p{p}"] = adaptive_route_unit(self.topology, self.node,
                                                               config.algorithm)
        m.d.comb += ru.dest.eq(arriving.dest)
        if self.node is None:
            m.d.comb += ru.here.eq(self.here)
        fields = {
            "offered": unsigned(degree + 1),
            "escape": unsigned(degree + 1),
            "vc": unsigned(self.layout["vc"].shape.width),
            "lane": unsigned(lane_bits(config.adaptive_vcs)),
        }
        short = p == degree and "ecube_short" in ru.signature.members
        if short:
            fields["short"] = unsigned(1)
        enter = Signal(data.StructLayout(fields), name=f"enter_p{p}")
        if short:
            m.d.comb += enter.short.eq(ru.ecube_short)
        m.d.comb += [enter.offered.eq(ru.offered),
                     enter.escape.eq(C(1, degree + 1) << ru.escape),
                     enter.lane.eq(self._flow_lane(arriving, len(enter.lane)))]
        self._choose_vc(m, p, arriving, ru.escape, enter, self._class_of(arriving))
        return enter

    def _route_waypoints(self, m, p, arriving):
        """Route of a fault-tolerant router: the waypoint stage of input port ``p``
        (:class:`~cubefab.hdl.route.waypoint.WaypointRoute`, equal to
        :func:`~cubefab.topology.fault_routing.waypoint_step`). Returns ``enter``:
        ``port`` (one-hot), ``vc`` (``phase_out * C + class``: the class of the arriving
        flit within its phase's set, or 0 on a new leg, one up on a wrap link) and
        ``phase`` (``phase_out``, written into the departing flit)."""
        config = self.config
        wr = m.submodules[f"route_p{p}"] = WaypointRoute(
            self.topology, config.fault_waypoints, self.node, config.algorithm)
        m.d.comb += [wr.dest.eq(arriving.dest), wr.waypoint.eq(arriving.waypoint),
                     wr.count.eq(arriving.waypoint_count), wr.phase.eq(arriving.phase)]
        if self.node is None:
            m.d.comb += wr.here.eq(self.here)
        enter = Signal(data.StructLayout({
            "port": unsigned(self.topology.degree + 1),
            "vc": unsigned(self.layout["vc"].shape.width),
            "phase": unsigned(len(wr.phase_out)),
        }), name=f"enter_p{p}")
        m.d.comb += [enter.port.eq(wr.request), enter.phase.eq(wr.phase_out)]
        classes = config.vc_classes
        width = max(1, (classes - 1).bit_length())
        # the arriving class within its phase's set (injected flits: vc 0, phase 0)
        arriving_class = (arriving.vc[self._lanes():] - arriving.phase * classes)[:width]
        vc_class = Mux(wr.advanced, 0, arriving_class) if classes > 1 else C(0, 0)
        self._choose_vc(m, p, arriving, wr.port, enter, vc_class, phase=wr.phase_out)
        return enter

    def _class_of(self, flit):
        """The escape class ``flit`` carries (a 0-bit value without a ``cls`` field)."""
        return flit.cls if self.config.class_width else C(0, 0)

    @staticmethod
    def _flow_lane(arriving, bits):
        """flow_lane of the flit: ``src ^ dest`` XOR-folded to ``bits`` bits."""
        flow = arriving.src ^ arriving.dest
        lane = C(0, 0)
        if not bits:
            return lane
        for at in range(0, len(flow), bits):
            lane = lane ^ flow[at:at + bits]
        return lane

    def _choose_vc(self, m, p, arriving, port, enter, vc_class, phase=None):
        """VC choice: drive ``enter.vc``, the VC on the next link of a flit arriving on
        input port ``p`` in class ``vc_class`` and leaving through ``port``: its class
        by the VC-assignment function (one class up on a wrap link, ``wraps(here,
        port)``, up to the last), the VC within the class by the flow (flow_lane:
        XOR-folded src ^ dest); with ``phase`` (waypoint routing) the class is that of
        the phase's set, ``phase * classes + class``."""
        config = self.config
        classes, lanes = config.vc_classes, self._lanes()
        wraps = self._wraps()
        next_class = Signal(len(vc_class), name=f"next_class_p{p}")
        m.d.comb += next_class.eq(vc_class)
        with m.Switch(port):
            for o in range(self.topology.degree):
                if wraps[o] is not False and classes > 1:  # a strap or a constant True
                    with m.Case(o):
                        m.d.comb += next_class.eq(Mux(wraps[o] & (vc_class != classes - 1),
                                                      vc_class + 1, vc_class))
        if phase is not None:
            next_class = (next_class + phase * classes)[:len(enter.vc) - lanes]
        if lanes:
            m.d.comb += enter.vc.eq(Cat(self._flow_lane(arriving, lanes), next_class))
        else:
            m.d.comb += enter.vc.eq(next_class)

    def _input_buffers(self, m, p, arriving, enter, outputs):
        """Input buffers: a FIFO per VC of input port ``p`` storing the flits arriving
        and their routes (``enter``, its ports as one bit per output of ``outputs``, the
        ports ``p`` may turn to); returns a ``(fifo, route, flit)`` per VC, ``route``
        and ``flit`` views of the oldest entry."""
        degree, layout = self.topology.degree, self.layout
        local = degree   # the input port of local_in
        # Each input VC buffers entries of a route (the output port, one bit per output
        # this input may turn to, and the VC) and a flit. The oldest entry's route sits
        # in a register of its own (``head``), so that switch allocation starts the
        # cycle from flip-flops; the flits are in registers or block RAM. With
        # header="every" every flit is routed by its own header: a packet's flits carry
        # its head's dest and src and cross each link on its head's VC, so they all get
        # the head's route (no register holds it for them); with header="head" a
        # register per input VC holds it for them (_entry_route).
        # (an adaptive router's route has two port fields, offered and escape, and the
        # flow's adaptive VC)
        fields = {name: unsigned(len(outputs) if name in PORT_FIELDS else shape.width)
                  for name, shape in ((n, f.shape) for n, f in enter.shape())}
        route_layout = data.StructLayout(fields)
        new = Cat(Cat(enter[n][o] for o in outputs) if n in PORT_FIELDS else enter[n]
                  for n in fields)
        if len(outputs) <= degree:
            missing = sum(1 << o for o in range(degree + 1) if o not in outputs)
            wanted = Cat(enter[n] & missing for n in fields if n in PORT_FIELDS)
            with m.If(self.local_in.valid if p == local else self.link_in[p].flit.valid):
                head = arriving.head
                if self.config.broadcast:   # (a broadcast flit's unicast route is unused)
                    head = head & ~arriving.bcast
                with m.If(head & wanted.any()):
                    m.d.sync += self.bad_turn.eq(1)
        buffers = []
        for v in range(self._fifo_vcs(p)):
            fifo = FIFOInterface(width=route_layout.size + layout.size,
                                 depth=self.config.depth)
            if self.config.lookahead:   # the buffer behind a bypass
                fifo = self._bypass(m, fifo, route_layout.size, f"fifo_p{p}_vc{v}")
            else:
                BUFFERS[self.config.storage](m, fifo, name=f"fifo_p{p}_vc{v}",
                                            head=route_layout.size)
            m.d.comb += fifo.w_data.eq(Cat(self._entry_route(m, p, v, fifo, arriving, new),
                                           arriving))
            if p < degree:
                link = self.link_in[p]
                if self.config.fault_waypoints:   # a real flit, or a cut packet's tail
                    entering, vc = self._entering[p], arriving.vc
                    m.d.comb += self._cut_room[p][v].eq(fifo.w_rdy)
                else:
                    entering, vc = link.flit.valid, link.flit.payload.vc
                m.d.comb += fifo.w_en.eq(entering & (vc == v))
                with m.If(fifo.w_en & ~fifo.w_rdy):
                    m.d.sync += self.overflow.eq(1)
                # credit return, registered: one pulse per flit leaving the buffer (a
                # dead link's credits are not returned)
                leaving = fifo.r_en & fifo.r_rdy
                if self.config.fault_waypoints:
                    leaving = leaving & self.link_up[p]
                m.d.sync += link.credit[v].eq(leaving)
            else:
                m.d.comb += [fifo.w_en.eq(self.local_in.valid),
                             self.local_in.ready.eq(fifo.w_rdy)]
            buffers.append((fifo, data.View(route_layout, fifo.r_data[:route_layout.size]),
                            data.View(layout, fifo.r_data[route_layout.size:])))
        return buffers

    def _bypass(self, m, queue, head, name):
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
        fifo = FIFOInterface(width=queue.width, depth=max(queue.depth, 2))
        BUFFERS[self.config.storage](m, fifo, name=name, head=head)
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

    def _entry_route(self, m, p, v, buffer, arriving, new):
        """The route buffered with a flit entering input VC ``(p, v)`` (its FIFO or
        replicating queue ``buffer``): ``new``, the route of the flit's own header (a
        replicating queue's: its copies); with ``config.header == "head"`` a body or
        tail flit (whose header bits are data) takes its head's route instead, kept in
        a register per input VC (``held_route_p{p}_vc{v}``) from when the head entered
        (a VC carries one packet at a time: wormhole switching)."""
        if self.config.header != "head":
            return new
        held = Signal(len(new), name=f"held_route_p{p}_vc{v}")
        with m.If(buffer.w_en & arriving.head):
            m.d.sync += held.eq(new)
        return Mux(arriving.head, new, held)

    def _fifo_vcs(self, p):
        """VCs of input port ``p`` buffered in FIFOs (the first ones; a replicating
        router keeps its broadcast VCs and injection queue in replicating queues)."""
        return self.config.fifo_vcs(local=p == self.topology.degree)

    def _broadcast_turns(self):
        """The (input port, output port) pairs broadcast copies take at this router."""
        degree = self.topology.degree
        if self.config.turns == "all":
            return {(i, o) for i in range(degree + 1) for o in range(degree + 1)}
        return broadcast_turns(self.topology, self.node, self.config.broadcast_model)

    def _replicating_queues(self, m, p, arriving, enter, outputs):
        """The replicating queues of input port ``p`` (its broadcast VCs; the injection
        queue, which also holds unicast packets routed to ``outputs``): an entry's copies
        are the children of this node in the tree of the flit's ``src`` and, unless
        this node is the source, the local output; a unicast flit's is its route."""
        degree, config, layout = self.topology.degree, self.config, self.layout
        turns = self._broadcast_turns()
        outs = [o for o in range(degree + 1) if (p, o) in turns]
        if p == degree:
            outs = sorted(set(outs) | set(outputs))
        here = self.here if self.node is None else self.node
        local = arriving.src != here
        if config.multicast == "subcube":   # the tree pruned to the subcube (dest, mmask)
            unit = MulticastChildren(self.topology, self.node, "subcube")
            m.d.comb += [unit.value.eq(arriving.dest), unit.mask.eq(arriving.mmask)]
            local = local & (((arriving.dest ^ here) & arriving.mmask) == 0)
        elif config.multicast == "vector":   # ... to the members named bit by bit
            unit = MulticastChildren(self.topology, self.node, "vector")
            m.d.comb += unit.member_vector.eq(arriving.members)
            local = local & arriving.members[self.topology.index(self.node)]
        elif config.broadcast_model == "one-port":   # every port the node sends to
            unit = OnePortSends(self.topology, self.node)
        else:
            unit = broadcast_children_unit(self.topology, self.node)
        m.submodules[f"children_p{p}"] = unit
        m.d.comb += unit.source.eq(arriving.src)
        if self.node is None:
            m.d.comb += unit.here.eq(self.here)
        copies = Cat(unit.children[o] if o < degree else local for o in outs)
        if p == degree:
            copies = Mux(arriving.bcast, copies, Cat(enter.port[o] for o in outs))
        route_layout = data.StructLayout({"port": unsigned(len(outs)),
                                          "vc": unsigned(layout["vc"].shape.width)})
        queues = []
        for v in range(config.link_vcs - config.broadcast_vcs, config.link_vcs) \
                if p < degree else [0]:
            queue = ReplicatingQueue(m, f"rq_p{p}_vc{v}", config.depth, route_layout, layout)
            queue.outputs = outs
            if config.broadcast_model == "one-port":
                self._one_port_order(m, queue)
            m.d.comb += queue.w_data.eq(Cat(self._entry_route(m, p, v, queue, arriving,
                                                              Cat(copies, enter.vc)),
                                            arriving))
            if p < degree:
                link = self.link_in[p]
                m.d.comb += queue.w_en.eq(link.flit.valid & (link.flit.payload.vc == v))
                with m.If(queue.w_en & ~queue.w_rdy):
                    m.d.sync += self.overflow.eq(1)
                m.d.sync += link.credit[v].eq(queue.pop)
            else:
                m.d.comb += [queue.w_en.eq(self.local_in.valid),
                             self.local_in.ready.eq(queue.w_rdy)]
            queues.append(queue)
        return queues

    def _one_port_order(self, m, queue):
        """One-port order of a replicating queue: ``queue.next_port``, the only network
        port on which a copy of the oldest (broadcast) packet may start: the port of
        the node's send number ``index`` in its source's schedule, ``index`` counting the
        packet's network copies whose tail has left (back to 0 when the packet
        leaves)."""
        degree = self.topology.degree
        sends = m.submodules[f"{queue.name}_order"] = OnePortSends(self.topology, self.node)
        index = Signal.like(sends.index, name=f"{queue.name}_index")
        tails = []
        for k, o in enumerate(queue.outputs):
            if o < degree:
                flit = queue.copy(k)[2]
                tails.append(queue.sent[k] & flit.tail & flit.bcast)
        last = queue.pop & queue.head_flit.tail
        with m.If(last):
            m.d.sync += index.eq(0)
        with m.Elif(Cat(tails).any()):
            m.d.sync += index.eq(index + 1)
        m.d.comb += [sends.source.eq(queue.head_flit.src), sends.index.eq(index)]
        queue.next_port = sends.port

    def _broadcast_vc(self, p, v, o):
        """The output VC of a broadcast copy from input queue ``(p, v)`` through network
        port ``o``: the broadcast VC rule (``broadcast_next_vc``) offset by the
        unicast VCs."""
        config, degree = self.config, self.topology.degree
        first = config.link_vcs - config.broadcast_vcs
        lane = v - first if p < degree else 0
        wrap = broadcast_wrap(self.topology, self.node, p, o, config.broadcast_model)
        up = min(lane + 1, config.broadcast_vcs - 1)
        width = self.layout["vc"].shape.width
        if wrap is None:
            return Mux(self.bwrap_mask[o], C(first + up, width), C(first + lane, width))
        return C(first + (up if wrap else lane), width)

    def _replica_requests(self, m, p, v, queue, vc_state, credits):
        """Per output of ``queue``: the request of its copy, and the flit it sends (on
        its output VC). A broadcast copy starts only on an idle output VC whose
        downstream buffer is empty (it takes the whole packet)."""
        degree, config, layout = self.topology.degree, self.config, self.layout
        vc_at, vc_bits = layout["vc"].offset, layout["vc"].shape.width
        one_port = config.broadcast_model == "one-port"
        wants, flits = [], []
        for k, o in enumerate(queue.outputs):
            ready, route, flit = queue.copy(k)
            if o < degree:
                bvc = self._broadcast_vc(p, v, o)
                out_vc = Mux(flit.bcast, bvc, route.vc) if p == degree else bvc
                empty = Cat(count == config.depth for count in credits[o])
                if one_port:   # a copy starts on its turn only (one port per step)
                    empty = empty & (queue.next_port == o).replicate(len(empty))
                room = empty.bit_select(out_vc, 1) | ~flit.bcast
                value = flit.as_value()
                flits.append(Cat(value[:vc_at], out_vc, value[vc_at + vc_bits:]))
            else:
                out_vc, room = 0, 1
                flits.append(flit.as_value())
            busy, credit = vc_state(o, out_vc)
            wants.append(ready & (queue.active[k] | (~busy & room)) & credit)
        return wants, flits

    def _output_vcs(self, m):
        """The state of the output VCs: a busy bit per output VC (held from head to
        tail), a credit counter per network output VC and its registered "has a
        credit" flag; and per output, ``can_send``: the flags of its VCs (the local
        output: its output register is free)."""
        degree, vcs, depth = self.topology.degree, self.config.link_vcs, self.config.depth
        # The local output has one VC and uses its output register's handshake instead
        # of credits.
        out_vcs = [vcs] * degree + [1]
        busy = [[Signal(name=f"busy_p{o}_vc{w}") for w in range(out_vcs[o])]
                for o in range(degree + 1)]
        credits = [[Signal(range(depth + 1), init=depth, name=f"credit_p{o}_vc{w}")
                    for w in range(vcs)] for o in range(degree)]
        has_credit = [[Signal(init=1, name=f"has_credit_p{o}_vc{w}") for w in range(vcs)]
                      for o in range(degree)]
        can_send = [Cat(flags) for flags in has_credit]
        if self.config.fault_waypoints:   # a dead link takes every flit (and drops it)
            can_send = [flags | (~self.link_up[o]).replicate(vcs)
                        for o, flags in enumerate(can_send)]
        local_free = Signal()
        m.d.comb += local_free.eq(~self.local_out.valid | self.local_out.ready)
        can_send.append(local_free)
        return busy, credits, has_credit, can_send

    def _allocate_switch(self, m, outputs, buffers, busy, can_send, credits):
        """Switch allocation: an arbiter per output among the input queues that may
        turn to it (``outputs[q]``: the outputs queue ``q`` may use). Returns the
        grants (per output, a bit per queue of ``users``), ``users`` (per output, the
        queues that may turn to it), and the flits each queue offers to network
        outputs (``departing``, on their output VC) and to the local output
        (``delivering``): a flit, or for a replicating queue a dict output -> flit."""
        degree, layout = self.topology.degree, self.layout
        vc_at, vc_bits = layout["vc"].offset, layout["vc"].shape.width
        queues = self._queues()
        # An arbiter grants the least recently granted requester (a matrix arbiter: two
        # LUT levels, where a round-robin carry chain was the critical path). The route
        # FIFO heads are zero while empty, so that a request is one LUT: route port bit,
        # VC free or held by this queue, credit.
        users = [[q for q in range(len(queues)) if o in outputs[q]]
                 for o in range(degree + 1)]
        requests = [Signal(len(users[o]), name=f"requests_p{o}") for o in range(degree + 1)]
        grants = [Signal(len(users[o]), name=f"grants_p{o}") for o in range(degree + 1)]
        # contenders[o]: the route head bits of the queues that may turn to o;
        # request_vcs[o]: the VC each of them requests there (an int where constant)
        contenders = [[None] * len(users[o]) for o in range(degree + 1)]
        request_vcs = [[None] * len(users[o]) for o in range(degree + 1)]
        departing, delivering = [], []
        adaptive = self.config.adaptive

        def vc_state(o, vc):   # (busy, has a credit) of VC ``vc`` of output ``o``
            if o < degree and isinstance(vc, int):
                return busy[o][vc], can_send[o][vc]
            if o < degree:
                return Cat(busy[o]).bit_select(vc, 1), can_send[o].bit_select(vc, 1)
            return busy[o][0], can_send[o]

        # per network output, two bits per VC: its downstream buffer is at least half
        # empty, and at least three quarters empty (computed once per output, shared by
        # every queue's choice). Where the escape port is no adaptive one (the Mcube's
        # Mroute), the second means at most one flit downstream (_adaptive_choice).
        depth = self.config.depth
        half, ample = (depth + 1) // 2, depth - depth // 4
        if needs_adaptive(self.topology, self.config.algorithm):
            ample = depth - 1
        room = [Signal(len(credits[o]), name=f"room_p{o}") for o in range(degree)
                ] if adaptive else []
        nearly_empty = [Signal(len(credits[o]), name=f"ample_p{o}") for o in range(degree)
                        ] if adaptive else []
        for o, flags in enumerate(room):
            m.d.comb += [flags.eq(Cat(count >= half for count in credits[o])),
                         nearly_empty[o].eq(Cat(count >= ample for count in credits[o]))]

        def vc_room(o, vc):   # VC ``vc`` of network output ``o`` has half its credits
            return room[o].bit_select(vc, 1)

        def vc_ample(o, vc):   # VC ``vc`` of network output ``o`` is nearly empty
            return nearly_empty[o].bit_select(vc, 1)

        # per output, whether a network input queue's head prefers it (an adaptive
        # router's injection queue steers clear of those outputs where it can)
        network_wants = [[] for _ in range(degree + 1)]
        for q, (p, v) in enumerate(queues):
            if isinstance(buffers[q], ReplicatingQueue):
                queue = buffers[q]
                wants, flits = self._replica_requests(m, p, v, queue, vc_state, credits)
                for k, o in enumerate(queue.outputs):
                    i = users[o].index(q)
                    m.d.comb += [requests[o][i].eq(wants[k]), queue.sent[k].eq(grants[o][i])]
                departing.append(dict(zip(queue.outputs, flits)))
                delivering.append(departing[-1])
                continue
            fifo, route, head = buffers[q]
            active = Signal(name=f"active_p{p}_vc{v}")
            if adaptive:
                contested = (Cat(Cat(network_wants[o]).any() for o in outputs[q])
                             if p == degree else None)
                want, out_vc, cls = self._adaptive_choice(m, p, v, outputs[q], fifo, route,
                                                          head, active, vc_state, vc_room,
                                                          vc_ample, contested)
                if p < degree:
                    # the port the queue's head prefers, from its buffered route
                    # (flip-flops: in parallel with its choice, not after it); the
                    # queues are in port order, so the injection queue, last, sees
                    # every network queue's
                    prefers = Mux(route.offered.any(),
                                  _escape_first(route.offered, route.escape,
                                                len(outputs[q])),
                                  route.escape)
                    for k, o in enumerate(outputs[q]):
                        network_wants[o].append(prefers[k])
            else:
                out_vc = route.vc[:vc_bits]
                vcs = [self._request_vc(p, v, o, out_vc) for o in outputs[q]]
                want = [route.port[k] & (active | ~vc_state(o, vc)[0]) & vc_state(o, vc)[1]
                        for k, (o, vc) in enumerate(zip(outputs[q], vcs))]
            granted = []
            for k, o in enumerate(outputs[q]):
                i = users[o].index(q)
                m.d.comb += requests[o][i].eq(want[k])
                if not adaptive:
                    contenders[o][i] = route.port[k]
                    request_vcs[o][i] = vcs[k]
                granted.append(grants[o][i])
            granted = Cat(granted).any()
            m.d.comb += fifo.r_en.eq(granted)
            flit = head.as_value()   # the flit leaves on its output VC (and class)
            if adaptive:   # vc, and cls if there is one, then dest
                cls = self._in_heads(head.head, cls, flit[vc_at + vc_bits:][:len(cls)])
                departing.append(Cat(flit[:vc_at], out_vc, cls,
                                     flit[layout["dest"].offset:]))
            elif self.config.fault_waypoints:   # vc, and the phase after this node
                phase_at, phase_bits = layout["phase"].offset, len(route.phase)
                phase = self._in_heads(head.head, route.phase,
                                       flit[phase_at:phase_at + phase_bits])
                departing.append(Cat(flit[:vc_at], out_vc, flit[vc_at + vc_bits:phase_at],
                                     phase, flit[phase_at + phase_bits:]))
            else:
                departing.append(Cat(flit[:vc_at], out_vc, flit[vc_at + vc_bits:]))
            delivering.append(flit)  # ejected flits keep the VC of their last link
            with m.If(granted):
                m.d.sync += active.eq(~head.tail)

        for o in range(degree + 1):
            if not users[o]:
                continue
            if len(busy[o]) == 1 and not adaptive and not self.config.broadcast:
                # One output VC: while it is free, no queue routed to it is active (an
                # active queue owns the VC it sends on), so the queues whose route
                # head names it all request (with a credit) or none does; while it is
                # busy, only its owner may request. The arbiter can then compare the
                # route bits (flip-flops) instead of the requests: one LUT level less
                # from the start of the cycle to the grants, and the same grants.
                least_recently_granted(m, requests[o], grants[o], 1, name=f"prio_p{o}",
                                       contenders=Cat(contenders[o]),
                                       uncontested=busy[o][0])
            elif all(isinstance(vc, int) for vc in request_vcs[o]):
                # Each queue requests a constant VC of o. Against queue i, a queue on
                # the same VC requests exactly when its route head names o and the VC
                # is free (were the VC busy and i requesting, i would own it); a queue
                # on another VC, when it requests: one LUT of flip-flops either way.
                least_recently_granted(m, requests[o], grants[o], 1, name=f"prio_p{o}",
                                       contenders=[Cat(
                                           contenders[o][j] & ~busy[o][w]
                                           if request_vcs[o][j] == w else requests[o][j]
                                           for j in range(len(users[o])))
                                           for w in request_vcs[o]])
            else:
                least_recently_granted(m, requests[o], grants[o], 1, name=f"prio_p{o}")
        return grants, users, departing, delivering

    def _request_vc(self, p, v, o, out_vc):
        """The output VC whose state a request of input queue ``(p, v)`` for output
        ``o`` reads: ``out_vc`` (the buffered route's), or the same VC as a constant
        where the router knows it (a constant node and one VC per class: the class of
        the next link is that of the queue's VC, :func:`next_vc`, a flit entering queue
        ``(p, v)`` arrives on VC ``v``), so that a request is one LUT of flip-flops."""
        config = self.config
        if (self.node is None or o == self.topology.degree or config.link_vcs == 1
                or self._lanes() or config.broadcast or config.fault_waypoints
                or config.adaptive):
            return out_vc
        vc_in = v if p < self.topology.degree else 0
        return next_vc(self.topology, self.node, o, vc_in, config.vc_classes)

    def _adaptive_choice(self, m, p, v, outputs, fifo, route, head, active, vc_state,
                         vc_room, vc_ample, contested=None):
        """Output choice of input queue ``(p, v)`` of an adaptive router. A packet's
        head, at the front of the queue, wants a port of ``route.offered`` whose
        adaptive VC for its flow (``vcs + route.lane``) is idle and has a credit,
        preferring one whose downstream buffer is at least half empty (``vc_room``):
        the escape port if it is such a port; else the escape port, if it is offered,
        on its escape VC (``route.vc``) if that is idle and its downstream buffer at
        least three quarters empty (``vc_ample``: the deterministic route is kept while
        it has room, which a complement permutation, whose deterministic routes do not
        conflict, needs); else the first port whose adaptive VC is at least half empty
        (in the order of ``outputs``), else the escape port if it has a credit at all,
        else the first port that has; when none is, the escape port on its escape VC if
        that is idle and has a credit. Where the escape port is no adaptive one (the
        Mcube's Mroute over an e-cube escape,
        :func:`~cubefab.topology.adaptive.needs_adaptive`) the escape VC
        instead comes right after the offered ports whose adaptive VC holds at most one
        flit downstream (``vc_ample`` there), while it is at least half empty; and a
        head that arrived on an escape VC takes it first, while at least half empty
        (it keeps to the escape routing). A head of the injection queue (``p`` is the
        local port) takes only a VC whose downstream buffer is at least half empty,
        adaptive or escape: the packets already in the network come first, which holds
        the accepted throughput past saturation; and it steers clear of the outputs
        that a network queue's head prefers (``contested``, a bit per port of
        ``outputs``: the escape port if offered, else the first offered port, else the
        escape port, read from the buffered routes, so that it does not wait for the
        other queues' choices), which the arbiter would most likely grant to that
        queue: an uncontested port among those it may take first (the escape port
        first among them; while the escape port's adaptive VC is at least half empty,
        another port only if its adaptive VC is at least three quarters empty), then
        the escape port on its escape VC if uncontested, else the choice above. Where
        the escape port is offered, it yields a contested port: it takes a VC there
        only while at least three quarters empty, and the escape VC only while the
        escape port's adaptive VC has room too. Where the escape port is no adaptive
        one, it takes its escape port on its escape VC, while uncontested and at
        least half empty, before anything else where e-cube's route is as short as
        Mroute's (``route.short``) or its destination is the queue's previous
        packet's (a stream). Once the head is granted, the packet's
        other flits want the same port and VC (``held_*``), with a credit. Returns the
        request bit per output of ``outputs``, the output VC and the class the flit
        leaves with (``cls``, one up on a wrap link)."""
        config, degree = self.config, self.topology.degree
        vc_bits = self.layout["vc"].shape.width
        n = len(outputs)
        # (each intermediate is a signal: an expression used twice would be emitted
        # twice, and the nested uses below would multiply the netlist)
        def named(name, width, value):
            signal = Signal(width, name=f"{name}_p{p}_vc{v}")
            m.d.comb += signal.eq(value)
            return signal

        def per_port(flag, vc):   # a bit per port of ``outputs``: ``flag`` of its VC
            return Cat(flag(o, vc) if o < degree else C(0, 1) for o in outputs)

        adaptive_vc = named("adaptive_vc", vc_bits,
                            (C(config.vcs, vc_bits) + route.lane)[:vc_bits])
        free_adaptive = named("free_adaptive", n, Cat(
            route.offered[k] & ~vc_state(o, adaptive_vc)[0] & vc_state(o, adaptive_vc)[1]
            if o < degree else C(0, 1) for k, o in enumerate(outputs)))
        roomy = named("roomy", n, free_adaptive & per_port(vc_room, adaptive_vc))
        free_escape = named("free_escape", n, Cat(
            route.escape[k] & ~vc_state(o, route.vc)[0] & vc_state(o, route.vc)[1]
            & (vc_room(o, route.vc) if p == degree and o < degree else 1)
            for k, o in enumerate(outputs)))
        escape_offered = not needs_adaptive(self.topology, config.algorithm)
        # (the injection queue's escape port has room on its adaptive VC)
        escape_roomy = (named("escape_roomy", 1, (roomy & route.escape).any())
                        if escape_offered else None)
        if p == degree:
            # Injection waits for room: a new packet takes a network VC only while its
            # downstream buffer is at least half empty, so past saturation the packets
            # already in the network keep the links (accepted throughput held).
            free_adaptive = roomy
            if contested is not None and escape_offered:
                # It yields an output that a network queue's head prefers, unless its
                # VC there is nearly empty (at least three quarters: the transit head
                # is then likely granted first, and the link has room for both); its
                # escape VC there only while the escape port's adaptive VC is roomy too.
                roomy = free_adaptive = named("welcome", n, roomy & ~(
                    contested & ~per_port(vc_ample, adaptive_vc)))
                free_escape = named("welcome_escape", n, free_escape & ~(
                    contested & ~(escape_roomy.replicate(n)
                                  & per_port(vc_ample, route.vc))))
        # Congestion decides: a port whose downstream buffer is at least half empty
        # (the escape port first: the deterministic route keeps its balance at low load,
        # and then the escape port's escape VC while it is nearly empty), then any port
        # with a credit, then the escape VC.
        candidates = named("candidates", n, Mux(roomy.any(), roomy, free_adaptive))
        first = _escape_first(candidates, route.escape, n)
        if not escape_offered:
            # Where the escape port is no adaptive one (the Mcube's Mroute over an
            # e-cube escape) a head keeps to an offered port only while its adaptive
            # VC holds at most one flit downstream (``vc_ample`` there); else it takes
            # its escape VC while that is at least half empty; else as below (a roomy
            # offered port, any offered port with a credit, then the escape VC). A head
            # that arrived on an escape VC (a network queue of one) stays on the escape
            # routing while that VC is at least half empty, before the offered ports:
            # a packet that left Mroute's crowded links follows e-cube on, rather than
            # rejoining Mroute's routes from the middle of an e-cube one.
            ample_escape = named("roomy_escape", n,
                                 free_escape & per_port(vc_room, route.vc))
            clear = named("clear", n, free_adaptive & per_port(vc_ample, adaptive_vc))
            escaped = p < degree and v < config.vcs
            stay = named("stay", 1, (C(1, 1) if escaped else ~clear.any())
                         & ample_escape.any())
        else:
            # the deterministic route kept: the escape VC, nearly empty, before another
            # port (where the escape port is an adaptive one)
            ample_escape = named("ample_escape", n, free_escape & route.offered[:n]
                                 & per_port(vc_ample, route.vc))
            stay = named("stay", 1, ~(roomy & route.escape).any() & ample_escape.any())
        choice = Mux(stay, ample_escape, Mux(free_adaptive.any(), first, free_escape))
        choice_vc = Mux(stay | ~free_adaptive.any(), route.vc, adaptive_vc)
        if contested is not None:
            # The injection queue steers clear of the outputs a network queue's head
            # prefers (the arbiter would most likely grant that one): an uncontested
            # adaptive port first (the escape port first among them), then the escape
            # port on its escape VC if uncontested, else as above. Where the escape
            # port is offered, it leaves a roomy escape port only for a port whose
            # adaptive VC is nearly empty: where every route is as busy (a permutation
            # at saturation) leaving the deterministic route gains nothing and costs
            # throughput.
            calm = free_adaptive & ~contested
            if escape_offered:
                calm = calm & Mux(escape_roomy,
                                  route.escape | per_port(vc_ample, adaptive_vc),
                                  C((1 << n) - 1, n))
            calm = named("calm", n, calm)
            calm_escape = named("calm_escape", n, free_escape & ~contested)
            choice = Mux(calm.any(), _escape_first(calm, route.escape, n),
                         Mux(calm_escape.any(), calm_escape, choice))
            choice_vc = Mux(calm.any(), adaptive_vc,
                            Mux(calm_escape.any(), route.vc, choice_vc))
            if not escape_offered:
                # The Mcube with Mroute: e-cube first, on the escape VC while it is
                # uncontested and has room, for a packet that loses no hop on it (its
                # e-cube route as short as Mroute's, ``route.short``, the model's) and
                # for a packet to the previous injected packet's destination (a
                # stream): a stream keeps one route, in order, and a complement
                # permutation's e-cube routes share no link.
                last_dest = Signal(len(head.dest), name=f"last_dest_p{p}_vc{v}")
                any_last = Signal(name=f"any_last_p{p}_vc{v}")   # (none since reset)
                stream = any_last & (head.dest == last_dest)
                ecube_first = named("ecube_first", 1,
                                    (route.short | stream) & calm_escape.any())
                choice = Mux(ecube_first, calm_escape, choice)
                choice_vc = Mux(ecube_first, route.vc, choice_vc)
                with m.If(~active & fifo.r_en):
                    m.d.sync += [last_dest.eq(head.dest), any_last.eq(1)]
        choice = named("choice", n, choice)
        held = Signal(n, name=f"held_port_p{p}_vc{v}")
        held_vc = Signal(vc_bits, name=f"held_vc_p{p}_vc{v}")
        following = Cat(held[k] & fifo.r_rdy & vc_state(o, held_vc)[1]
                        for k, o in enumerate(outputs))
        want = named("want", n, Mux(active, following, choice))
        port = named("port", n, Mux(active, held, choice))
        with m.If(~active & choice.any()):
            m.d.sync += [held.eq(choice), held_vc.eq(choice_vc)]
        # the class: one up on a wrap link, as the escape VCs' (Duato's model)
        cls = self._class_of(head)
        wraps = self._wraps()
        wrapping = [port[k] if wraps[o] is True else port[k] & wraps[o]
                    for k, o in enumerate(outputs) if o < degree and wraps[o] is not False]
        if len(cls) and wrapping:
            wrapped = Cat(wrapping).any()
            cls = Mux(wrapped & (cls != config.vc_classes - 1), cls + 1, cls)[:len(cls)]
        return [want[k] for k in range(n)], Mux(active, held_vc, choice_vc), cls

    def _crossbar(self, m, users, grants, departing, delivering):
        """Crossbar: per output, the flit of the queue granted it (one-hot AND-OR
        multiplexers); network outputs take ``departing``, the local one
        ``delivering``."""
        degree = self.topology.degree
        switched = [Signal(self.layout, name=f"switched_p{o}") for o in range(degree + 1)]
        for o in range(degree + 1):
            leaving = delivering if o == degree else departing
            # (a replicating queue offers each output its copy's flit)
            offered = [leaving[q][o] if isinstance(leaving[q], dict) else leaving[q]
                       for q in users[o]]
            if len(users[o]) == 1:
                # one input: no multiplexer (the payload of an invalid flit is undefined)
                m.d.comb += switched[o].eq(offered[0])
            elif users[o]:
                m.d.comb += switched[o].eq(one_hot_mux(grants[o], offered))
        return switched

    def _output_and_credits(self, m, grants, switched, busy, credits, has_credit, *,
                            local_free):
        """Credits: the switched flits into the output registers; per network output
        VC a credit counter counts what left and what came back, and an output VC is
        busy from a packet's head until its tail has left."""
        degree, local = self.topology.degree, self.topology.degree
        for o in range(degree):
            out = self.link_out[o]
            sent = grants[o].any()
            m.d.sync += [out.flit.valid.eq(sent), out.flit.payload.eq(switched[o])]
            moved = sent   # (a flit granted to a dead link is dropped: no credit used)
            if self.config.fault_waypoints:
                up = self.link_up[o]
                m.d.sync += out.flit.valid.eq(sent & up)
                m.d.comb += [self.lost_to_fault[o].eq(sent & ~up),
                             self.lost_heads[o].eq(sent & ~up & switched[o].head)]
                moved = sent & up
            for w in range(self.config.link_vcs):
                used = moved & (switched[o].vc == w)
                count = credits[o][w]
                m.d.sync += [count.eq(count + out.credit[w] - used),
                             has_credit[o][w].eq(out.credit[w] | (count > 1)
                                                 | ((count == 1) & ~used))]
                with m.If(sent & (switched[o].vc == w)):
                    m.d.sync += busy[o][w].eq(~switched[o].tail)
        with m.If(local_free):
            m.d.sync += [self.local_out.valid.eq(grants[local].any()),
                         self.local_out.payload.eq(switched[local])]
        with m.If(grants[local].any()):
            m.d.sync += busy[local][0].eq(~switched[local].tail)
