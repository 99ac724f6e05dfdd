"""The router component: it composes the parts of :mod:`cubefab.hdl.router`."""

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ...topology.deadlock import wrap_ports
from ..config import RouterConfig
from ..flit import LinkSignature
from ..replicate import broadcast_wrap
from ..route.lookahead import LookaheadRoute
from .frame import Frame
from .input_unit import arriving, cut_tails, input_buffers
from .link_stage import link_inputs
from .output_unit import output_registers, output_vcs
from .replication import Replica, check_strapped, replicating_queues
from .route_stage import route_stage
from .switch import allocate_switch, crossbar


__all__ = ["Router"]


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
        VC; present only when ``node`` is ``None`` and ``config.broadcast`` (but not
        ``config.floods``), held at :meth:`broadcast_strap_values`' value.
    flood : In(flood_layout(topology, config.multicast))
        Only with ``config.floods`` (fault waypoints and broadcast VCs): the router's
        ports in the spanning tree of the healthy network that broadcasts flood, and
        for a multicast the nodes beyond each
        (:mod:`~cubefab.hdl.route.flood`, :func:`flood_values`); written by the
        fault configuration, all zero (no copies leave) until then.

    A packet's head reserves an output VC (wormhole switching: it stays reserved
    until the tail passes), each output port sends one flit a cycle, chosen among
    the input VCs that may use it by a least-recently-granted (matrix) arbiter: one
    that keeps requesting waits at most one grant per other requester.

    The router is composed of parts, one module each (docs/router.md): the input
    unit (:mod:`~cubefab.hdl.router.input_unit`: buffers, bypass, held routes, the
    synthetic tails of a failed link's cut packets), the route stage of its routing
    and hop (:mod:`~cubefab.hdl.router.route_stage`: deterministic, lookahead,
    adaptive or waypoint) with VC choice (:mod:`~cubefab.hdl.router.vc_choice`),
    replication (:mod:`~cubefab.hdl.router.replication`, with broadcast VCs), switch
    allocation and crossbar (:mod:`~cubefab.hdl.router.switch`; an adaptive router's
    selection, :mod:`~cubefab.hdl.router.adaptive`, with its escape policy,
    :func:`~cubefab.hdl.route.escape_policy`) and the output unit
    (:mod:`~cubefab.hdl.router.output_unit`: credits, output registers, link-down
    drops). Each mode's behaviour is stated in its part's module text.
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
        if self.node is None:
            check_strapped(config)
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
            members.update({name: In(width)
                            for name, width in self.strap_widths(config).items()})
        members.update(config.routing.router_members(config))
        super().__init__(members)

    @staticmethod
    def strap_widths(config):
        """The strap inputs of an address-strapped router of ``config`` (a
        RouterConfig), ``{name: width}`` in member order: ``here`` and ``wrap_mask``,
        then ``bwrap_mask`` (replicating routers that follow the broadcast trees) and
        ``neighbors`` (lookahead hops); :meth:`straps_of` gives their values."""
        topology = config.topology
        degree = topology.degree
        widths = {"here": topology.address_bits, "wrap_mask": degree}
        if config.broadcast and not config.floods:
            widths["bwrap_mask"] = degree
        if config.lookahead:
            widths["neighbors"] = degree * topology.address_bits
        return widths

    @staticmethod
    def strap_values(topology, node):
        """The ``here`` and ``wrap_mask`` inputs of an address-strapped router
        (``node=None``) that make it the router of ``node``."""
        node = topology.check_node(node, "node")
        wraps = wrap_ports(topology, node)
        return {"here": node, "wrap_mask": sum(1 << p for p, w in enumerate(wraps) if w)}

    @classmethod
    def straps_of(cls, config, node):
        """Every strap input of an address-strapped router of ``config`` (a
        RouterConfig) that makes it the router of ``node``: :meth:`strap_values`,
        and :meth:`broadcast_strap_values` and :meth:`lookahead_strap_values` where
        the configuration has those inputs."""
        values = cls.strap_values(config.topology, node)
        widths = cls.strap_widths(config)
        if "bwrap_mask" in widths:
            values.update(cls.broadcast_strap_values(config.topology, node))
        if "neighbors" in widths:
            values.update(cls.lookahead_strap_values(config.topology, node))
        return values

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
        # The pipeline of docs/router.md, a part per stage: behind the link stages'
        # registers (none by default), as a flit enters its input
        # buffer it gets its output port (route) and the VC of the next link (VC
        # choice); every cycle each output grants one input VC (switch allocation),
        # whose flit crosses the crossbar into the output register, and the output
        # VCs' credits and owners follow what left (output unit).
        # (Arbiters, crossbar and buffers are built inline in this module; the Python
        # simulator runs one module much faster than many small ones.)
        m = Module()
        frame = Frame(m, self, link_inputs(m, self))
        stage = route_stage(self.config)
        outputs = self._outputs()
        buffers = []
        for p in range(self.topology.degree + 1):
            buffers += self._input_port(frame, stage, p, outputs[p])
        out = output_vcs(frame)
        # the outputs each input queue may use
        queue_outputs = [b.outputs if isinstance(b, Replica) else outputs[p]
                         for b, (p, _) in zip(buffers, frame.queues())]
        switch = allocate_switch(frame, stage, queue_outputs, buffers, out)
        switched = stage.ahead(frame, crossbar(frame, switch))
        output_registers(frame, switch.grants, switched, out)
        return m

    def _input_port(self, frame, stage, p, outputs):
        """Input port ``p`` (``degree``: ``local_in``), which may turn to ``outputs``:
        what arrives, its route stage, its buffers and replicating queues (a list,
        in VC order)."""
        flit, cut = arriving(frame, p), None
        if "link_up" in self.signature.members and p < self.topology.degree:
            # a router that knows its links' status cuts the packets of a failed one
            cut = cut_tails(frame, p, flit)
            flit = cut.flit
        enter = stage(frame, p, flit)
        buffers = input_buffers(frame, p, flit, enter, outputs, cut)
        if self.config.broadcast:
            buffers += replicating_queues(frame, p, flit, enter, outputs)
        if p == self.topology.degree and frame.local_queues() == 2:
            # the unicast FIFO and the replicating queue of broadcasts
            unicast, broadcast = buffers
            frame.m.d.comb += self.local_in.ready.eq(Mux(
                self.local_in.payload.bcast, broadcast.queue.w_rdy, unicast.fifo.w_rdy))
        return buffers

    def _outputs(self):
        """Per input port, the output ports it may turn to."""
        degree = self.topology.degree
        turns = (None if self.config.turns == "all" else
                 self.config.routing.turns(self.topology, self.node, self.config.algorithm))
        if turns is None:   # every turn
            turns = {(i, o) for i in range(degree + 1) for o in range(degree + 1)}
        return [[o for o in range(degree + 1) if (p, o) in turns]
                for p in range(degree + 1)]
