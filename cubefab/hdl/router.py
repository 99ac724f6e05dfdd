"""The wormhole virtual-channel router of one node."""

from amaranth.hdl import Module, Signal, Cat, Mux, C, unsigned
from amaranth.lib import data, stream, wiring
from amaranth.lib.fifo import FIFOInterface
from amaranth.lib.wiring import In, Out

from ..topology.base import Topology, check_int
from ..topology.deadlock import lane_bits, required_vcs, wrap_ports
from ..topology.turns import router_turns
from .allocator import least_recently_granted
from .crossbar import one_hot_mux
from .fifo import memory_fifo_logic, register_fifo_logic
from .flit import FlitLayout, LinkSignature
from .route import route_unit


__all__ = ["Router", "HOP_LATENCY", "ROUTER_LATENCY", "BUFFERS", "TURNS", "configure_router"]


#: Cycles a head flit takes per hop with no contention: one in the input buffer, one
#: in the output register (``link_out[p].flit`` is a register).
HOP_LATENCY = 2

#: Cycles from a flit accepted on ``local_in`` to it appearing on ``local_out`` of the
#: same router (a packet to itself); a packet of ``L`` flits over ``h`` hops has
#: latency ``ROUTER_LATENCY + h * HOP_LATENCY + L - 1`` from its head's acceptance to
#: its tail's appearance, with no contention.
ROUTER_LATENCY = 2

#: Flit storage of the input buffers: the FIFO logic that builds each.
BUFFERS = {"registers": register_fifo_logic, "memory": memory_fifo_logic}

#: Which turns (input port to output port) a router can make.
TURNS = ("reference", "all")


def configure_router(obj, topology, payload_width, vcs, depth, algorithm,
                     buffer="registers", turns="reference", vcs_per_class=1):
    """Check router parameters and set ``topology``, ``algorithm``, ``vcs`` (default:
    what the VC assignment needs times ``vcs_per_class``), ``vcs_per_class``,
    ``vc_classes``, ``depth``, ``buffer``, ``turns``, ``layout`` and ``payload_width``
    on ``obj`` (a router, or a fabric of such routers)."""
    if buffer not in BUFFERS:
        raise ValueError(f"Buffer must be one of {', '.join(map(repr, BUFFERS))}, "
                         f"not {buffer!r}")
    if turns not in TURNS:
        raise ValueError(f"Turns must be one of {', '.join(map(repr, TURNS))}, "
                         f"not {turns!r}")
    obj.buffer, obj.turns = buffer, turns
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    obj.topology = topology
    obj.algorithm = topology.check_algorithm(algorithm)
    lane_bits(vcs_per_class)   # a power of two
    obj.vcs_per_class = vcs_per_class
    if vcs is None:
        vcs = required_vcs(topology, obj.algorithm) * obj.vcs_per_class
    obj.vcs = check_int("Number of virtual channels", vcs, 1)
    if obj.vcs % obj.vcs_per_class:
        raise ValueError(f"Number of virtual channels must be a multiple of "
                         f"vcs_per_class = {obj.vcs_per_class}, not {obj.vcs}")
    obj.vc_classes = obj.vcs // obj.vcs_per_class
    obj.depth = check_int("Buffer depth", depth, 1)
    obj.layout = FlitLayout(topology.address_bits, payload_width, obj.vcs)
    obj.payload_width = obj.layout.payload_width


class Router(wiring.Component):
    """Input-buffered wormhole router with virtual channels and credit flow control.

    Parameters
    ----------
    topology : Topology
        The network; ports are numbered as in docs/conventions.md.
    node : int or None
        This router's node address, or ``None`` for a router whose address comes
        from its ``here`` and ``wrap_mask`` inputs (address straps): one design for
        every node, which a simulator or synthesis tool then builds once.
    payload_width : int
        Width of a flit's ``payload`` field.
    vcs : int or None
        Virtual channels per link (default: what the VC-assignment function of
        :mod:`cubefab.topology.deadlock` needs to be deadlock-free, times
        ``vcs_per_class``).
    vcs_per_class : int
        VCs of each class (a power of two; consecutive VC numbers; ``vcs`` is a
        multiple of it). The VC-assignment function picks a packet's class on each
        hop, its flow the VC within the class
        (:func:`cubefab.topology.deadlock.flow_lane`): flows spread over more
        buffers (less head-of-line blocking) and each stays in order. Deadlock
        freedom is the class-level property (each flow's VCs form a copy of the
        class-level channel dependency graph).
    depth : int
        Flits of buffering per input virtual channel (>= 1; 4 sustains one flit per
        cycle on one VC across the credit loop).
    algorithm : str or None
        Routing algorithm (the topology's default when ``None``).
    buffer : str
        Flit storage of the input buffers: ``"registers"`` (flip-flops; fastest in
        the Python simulator) or ``"memory"`` (``lib.memory``, block RAM on FPGAs:
        fewer LUTs and flip-flops). Both have the same timing.
    turns : str
        ``"reference"`` (default): the crossbar and arbiters connect only the turns
        (input port to output port) that reference routes make at this node (at any
        node when ``node`` is ``None``; :func:`cubefab.topology.turns.router_turns`):
        all that a fabric of these routers ever needs, in less logic and a shorter
        critical path. A flit wanting another turn stays in its buffer and sets
        :attr:`bad_turn`. ``"all"``: a flit on any input port may leave through any
        output port.

    Members
    -------
    link_in : In(LinkSignature(layout)).array(degree)
        ``link_in[p]``: flits arriving through network port ``p``; the router returns
        a credit on ``link_in[p].credit[v]`` when a flit of VC ``v`` leaves its buffer.
    link_out : Out(LinkSignature(layout)).array(degree)
        ``link_out[p]``: flits leaving through network port ``p`` (registered); the
        router sends on VC ``v`` only with a credit, and starts with ``depth``.
    local_in : In(stream.Signature(layout))
        Injection. Packets must be well formed (a head, body flits, a tail; ``head``
        and ``tail`` both set for one flit), every flit carrying its head's ``dest``
        and ``src`` (each flit is routed by its own); ``vc`` is ignored.
    local_out : Out(stream.Signature(layout))
        Ejection (registered); a packet's flits leave consecutively, never
        interleaved with another packet's. ``vc`` holds the VC of the last link.
    here : In(topology.address_bits)
        This router's address; present only when ``node`` is ``None``, and then
        held at a node's address (see :meth:`strap_values`).
    wrap_mask : In(topology.degree)
        Bit ``p``: a packet leaving through port ``p`` moves up one VC; present only
        when ``node`` is ``None``, held at :meth:`strap_values`' value.

    A packet's head reserves an output VC (wormhole switching: it stays reserved
    until the tail passes), each output port sends one flit a cycle, chosen among
    the input VCs that may use it by a least-recently-granted (matrix) arbiter: one
    that keeps requesting waits at most one grant per other requester.
    """

    def __init__(self, topology, node, *, payload_width=16, vcs=None, depth=4,
                 algorithm=None, buffer="registers", turns="reference", vcs_per_class=1):
        try:
            configure_router(self, topology, payload_width, vcs, depth, algorithm,
                             buffer, turns, vcs_per_class)
            self.node = None if node is None else topology.check_node(node, "node")
        except (TypeError, ValueError):
            self._MustUse__silence = True      # refused, not forgotten: no unused warning
            raise
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
        super().__init__(members)

    @staticmethod
    def strap_values(topology, node):
        """The ``here`` and ``wrap_mask`` inputs of an address-strapped router
        (``node=None``) that make it the router of ``node``."""
        node = topology.check_node(node, "node")
        wraps = wrap_ports(topology, node)
        return {"here": node, "wrap_mask": sum(1 << p for p, w in enumerate(wraps) if w)}

    def elaborate(self, platform):
        m = Module()
        topo, layout = self.topology, self.layout
        degree, vcs, depth = topo.degree, self.vcs, self.depth
        classes, lanes = self.vc_classes, lane_bits(self.vcs_per_class)
        if self.node is None:
            wraps = [self.wrap_mask[p] for p in range(degree)]
        else:
            wraps = wrap_ports(topo, self.node)
        local = degree
        vc_bits = layout["vc"].shape.width
        vc_at = layout["vc"].offset
        vc_end = vc_at + vc_bits

        # Route computation happens as a flit enters its input buffer (one route unit
        # per input port); the buffer stores the flit and its route: the output port
        # (one-hot) and the VC it takes on the next link: vc_out = min(vc_in +
        # wrap(here, port), vcs - 1).
        entry = data.StructLayout({
            "port": unsigned(degree + 1),
            "vc": unsigned(layout["vc"].shape.width),
        })
        queues = [(p, v) for p in range(degree) for v in range(vcs)] + [(local, 0)]
        if self.turns == "all":
            turns = {(i, o) for i in range(degree + 1) for o in range(degree + 1)}
        else:
            turns = router_turns(topo, self.node, self.algorithm)
        # outputs[p]: the output ports input port p may turn to
        outputs = [[o for o in range(degree + 1) if (p, o) in turns] for p in range(degree + 1)]
        heads, fifos = [], []
        for p in range(degree + 1):
            # (expressions rather than named signals where possible: every named
            # signal costs the Python simulator an update per evaluation)
            if p < degree:
                arriving = self.link_in[p].flit.payload
            else:
                arriving = data.View(layout, Cat(self.local_in.payload.as_value()[:vc_at],
                                                 C(0, vc_bits),
                                                 self.local_in.payload.as_value()[vc_end:]))
            ru = m.submodules[f"route_p{p}"] = route_unit(topo, self.node, self.algorithm)
            m.d.comb += ru.dest.eq(arriving.dest)
            if self.node is None:
                m.d.comb += ru.here.eq(self.here)
            if hasattr(ru, "src") and "src" in ru.signature.members:
                m.d.comb += ru.src.eq(arriving.src)
            enter = Signal(entry, name=f"enter_p{p}")
            # The VC of the next link: its class by the VC-assignment function, the VC
            # within the class by the flow (flow_lane: XOR-folded src ^ dest).
            vc_class = arriving.vc[lanes:]
            next_class = Signal(len(vc_class), name=f"next_class_p{p}")
            m.d.comb += [enter.port.eq(ru.request), next_class.eq(vc_class)]
            with m.Switch(ru.port):
                for o in range(degree):
                    if wraps[o] is not False and classes > 1:  # a strap or a constant True
                        with m.Case(o):
                            m.d.comb += next_class.eq(Mux(wraps[o] & (vc_class != classes - 1),
                                                          vc_class + 1, vc_class))
            if lanes:
                flow = arriving.src ^ arriving.dest
                lane = 0
                for at in range(0, len(flow), lanes):
                    lane = lane ^ flow[at:at + lanes]
                m.d.comb += enter.vc.eq(Cat(lane, next_class))
            else:
                m.d.comb += enter.vc.eq(next_class)
            # Each input VC buffers entries of a route (the output port, one bit per
            # output this input may turn to, and the VC) and a flit. The oldest
            # entry's route sits in a register of its own (``head``), so that switch
            # allocation starts the cycle from flip-flops; the flits are in registers
            # or block RAM. Every flit is routed by its own header: a packet's flits
            # carry its head's dest and src and cross each link on its head's VC, so
            # they all get the head's route (no register holds it for them).
            route_layout = data.StructLayout({"port": unsigned(len(outputs[p])),
                                              "vc": entry["vc"].shape})
            new = Cat(Cat(enter.port[o] for o in outputs[p]), enter.vc)
            if len(outputs[p]) <= degree:
                missing = sum(1 << o for o in range(degree + 1) if o not in outputs[p])
                with m.If(self.local_in.valid if p == local else self.link_in[p].flit.valid):
                    with m.If(arriving.head & (enter.port & missing).any()):
                        m.d.sync += self.bad_turn.eq(1)
            for v in range(vcs if p < degree else 1):
                fifo = FIFOInterface(width=route_layout.size + layout.size, depth=depth)
                BUFFERS[self.buffer](m, fifo, name=f"fifo_p{p}_vc{v}",
                                     head=route_layout.size)
                m.d.comb += fifo.w_data.eq(Cat(new, arriving))
                if p < degree:
                    link = self.link_in[p]
                    m.d.comb += fifo.w_en.eq(link.flit.valid & (link.flit.payload.vc == v))
                    with m.If(fifo.w_en & ~fifo.w_rdy):
                        m.d.sync += self.overflow.eq(1)
                    # credit return, registered: one pulse per flit leaving the buffer
                    m.d.sync += link.credit[v].eq(fifo.r_en & fifo.r_rdy)
                else:
                    m.d.comb += [fifo.w_en.eq(self.local_in.valid),
                                 self.local_in.ready.eq(fifo.w_rdy)]
                heads.append((data.View(route_layout, fifo.r_data[:route_layout.size]),
                              data.View(layout, fifo.r_data[route_layout.size:])))
                fifos.append(fifo)

        # Output state: a busy bit per output VC (held from head to tail) and a credit
        # counter per network output VC, with a registered "has a credit" flag. The
        # local output has one VC and uses its output register's handshake instead.
        out_vcs = [vcs] * degree + [1]
        busy = [[Signal(name=f"busy_p{o}_vc{w}") for w in range(out_vcs[o])]
                for o in range(degree + 1)]
        credits = [[Signal(range(depth + 1), init=depth, name=f"credit_p{o}_vc{w}")
                    for w in range(vcs)] for o in range(degree)]
        has_credit = [[Signal(init=1, name=f"has_credit_p{o}_vc{w}") for w in range(vcs)]
                      for o in range(degree)]
        can_send = [Cat(flags) for flags in has_credit]
        local_free = Signal()
        m.d.comb += local_free.eq(~self.local_out.valid | self.local_out.ready)
        can_send.append(local_free)

        # Switch allocation: an arbiter per output among the input VCs whose input
        # port may turn to it, granting the least recently granted one (a matrix
        # arbiter: two LUT levels, where a round-robin carry chain was the critical
        # path). The route FIFO heads are zero while empty, so that a request is one
        # LUT: route port bit, VC free or held by this queue, credit.
        # (Arbiters, crossbar and buffers are built inline in this module; the Python
        # simulator runs one module much faster than many small ones.)
        users = [[q for q, (p, _) in enumerate(queues) if (p, o) in turns]
                 for o in range(degree + 1)]
        requests = [Signal(len(users[o]), name=f"requests_p{o}") for o in range(degree + 1)]
        grants = [Signal(len(users[o]), name=f"grants_p{o}") for o in range(degree + 1)]
        # contenders[o]: the route head bits of the queues that may turn to o
        contenders = [[None] * len(users[o]) for o in range(degree + 1)]
        departing, delivering = [], []
        for q, (p, v) in enumerate(queues):
            fifo, (route, head) = fifos[q], heads[q]
            active = Signal(name=f"active_p{p}_vc{v}")
            out_vc = route.vc[:vc_bits]
            granted = []
            for k, o in enumerate(outputs[p]):
                if o < degree:
                    vc_busy = Cat(busy[o]).bit_select(out_vc, 1)
                    credit = can_send[o].bit_select(out_vc, 1)
                else:
                    vc_busy, credit = busy[o][0], can_send[o]
                i = users[o].index(q)
                m.d.comb += requests[o][i].eq(route.port[k] & (active | ~vc_busy) & credit)
                contenders[o][i] = route.port[k]
                granted.append(grants[o][i])
            granted = Cat(granted).any()
            m.d.comb += fifo.r_en.eq(granted)
            flit = head.as_value()   # the flit leaves on its output VC
            departing.append(Cat(flit[:vc_at], out_vc, flit[vc_end:]))
            delivering.append(flit)  # ejected flits keep the VC of their last link
            with m.If(granted):
                m.d.sync += active.eq(~head.tail)

        for o in range(degree + 1):
            if not users[o]:
                continue
            if out_vcs[o] == 1:
                # One output VC: while it is free, no queue routed to it is active (an
                # active queue owns the VC it sends on), so the queues whose route
                # head names it all request (with a credit) or none does; while it is
                # busy, only its owner may request. The arbiter can then compare the
                # route bits (flip-flops) instead of the requests: one LUT level less
                # from the start of the cycle to the grants, and the same grants.
                least_recently_granted(m, requests[o], grants[o], 1, name=f"prio_p{o}",
                                       contenders=Cat(contenders[o]),
                                       uncontested=busy[o][0])
            else:
                least_recently_granted(m, requests[o], grants[o], 1, name=f"prio_p{o}")

        # Crossbar into the registered outputs.
        switched = [Signal(layout, name=f"switched_p{o}") for o in range(degree + 1)]
        for o in range(degree + 1):
            leaving = delivering if o == local else departing
            if len(users[o]) == 1:
                # one input: no multiplexer (the payload of an invalid flit is undefined)
                m.d.comb += switched[o].eq(leaving[users[o][0]])
            elif users[o]:
                m.d.comb += switched[o].eq(one_hot_mux(grants[o],
                                                       [leaving[q] for q in users[o]]))
        for o in range(degree):
            out = self.link_out[o]
            sent = grants[o].any()
            m.d.sync += [out.flit.valid.eq(sent), out.flit.payload.eq(switched[o])]
            for w in range(vcs):
                used = sent & (switched[o].vc == w)
                count = credits[o][w]
                m.d.sync += [count.eq(count + out.credit[w] - used),
                             has_credit[o][w].eq(out.credit[w] | (count > 1)
                                                 | ((count == 1) & ~used))]
                # an output VC is busy from a packet's head until its tail has left
                with m.If(used):
                    m.d.sync += busy[o][w].eq(~switched[o].tail)
        with m.If(local_free):
            m.d.sync += [self.local_out.valid.eq(grants[local].any()),
                         self.local_out.payload.eq(switched[local])]
        with m.If(grants[local].any()):
            m.d.sync += busy[local][0].eq(~switched[local].tail)
        return m
