"""One node of a self-checking fabric: router, traffic generator and checker."""

from amaranth.hdl import Cat, Module, Mux, Shape, Signal
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from ..topology.broadcast_tree import subcube_members
from .flit import LinkSignature
from .modes import BROADCAST_EVENTS, CONFIG_INPUTS, FAULT_EVENTS, FLOOD_INPUT
from .endpoint import MessageToPacket, PacketToMessage, ejection_side, injection_side
from .route.flood import beyond_vector, flood_layout
from .router import Router
from .traffic_check import TrafficChecker
from .traffic_gen import PacketFormat, RATE_BITS, TrafficGenerator


__all__ = ["SelfCheckingNode", "NODE_EVENTS", "FAULT_EVENTS", "LOST_EVENTS",
           "BROADCAST_EVENTS",
           "node_events", "DEFECTS", "defect_inputs", "DEFECT_INPUTS", "CONFIG_INPUTS",
           "FLOOD_INPUT", "config_inputs", "flood_word_width", "flood_writes"]


#: One-cycle event outputs of a node, summed into the fabric's counters.
NODE_EVENTS = ("created", "refused", "injected", "injected_flits", "delivered",
               "delivered_flits", "errors", "corrupted")

#: The events of :data:`FAULT_EVENTS` that end a packet without delivering it: a
#: created packet is delivered, or one of these, or still in flight.
LOST_EVENTS = ("dropped", "cut")


def config_inputs(router_config):
    """The configuration port of a node whose router has ``router_config``:
    :data:`CONFIG_INPUTS`, and :data:`FLOOD_INPUT` where the router floods (none for
    fault-free routers): what its routing part says
    (:meth:`~cubefab.hdl.modes.Routing.config_inputs`)."""
    return router_config.routing.config_inputs(router_config)


def _router_straps(router_config):
    """The router's strap inputs a strapped node's ``straps`` hold, ``{name: width}``
    (all but ``here``, which the generator's straps hold)."""
    widths = Router.strap_widths(router_config)
    del widths["here"]
    return widths


def _copies_bits(topology):
    return (topology.num_nodes - 1).bit_length()


def flood_word_width(topology, multicast):
    """Bits of a flood configuration word: word 0 holds the tree ports (``degree``
    bits) and, above them, the copies a broadcast of the node makes; with
    ``multicast`` words ``1 + p`` hold the nodes beyond port ``p`` (a bit per node)."""
    return max(topology.degree + _copies_bits(topology),
               topology.num_nodes if multicast else 0)


def flood_writes(tree, copies, multicast):
    """The flood configuration writes ``(node, word, value)`` of every healthy node of
    ``tree`` (a :class:`~cubefab.topology.fault_broadcast.HealthyTree`): its tree ports
    and ``copies[node]`` (the copies its broadcasts make) in word 0 and, with
    ``multicast``, the nodes beyond each tree port (:func:`~.route.flood.beyond_vector`)
    in word ``1 + p``. A faulty node's words stay 0: it sends nothing."""
    degree = tree.topology.degree
    writes = []
    for node in tree.nodes:
        writes.append((node, 0, tree.ports[node] | copies[node] << degree))
        if multicast:
            writes.extend((node, 1 + p, beyond_vector(tree, node, p))
                          for p in range(degree) if tree.ports[node] >> p & 1)
    return writes


def node_events(router_config):
    """The event outputs of a node whose router has ``router_config``:
    :data:`NODE_EVENTS`, then the events its routing part adds (:data:`FAULT_EVENTS`:
    fault-tolerant routers) and those its replication part adds
    (:data:`BROADCAST_EVENTS`: replicating routers), in that order."""
    return NODE_EVENTS + router_config.routing.events + router_config.replication.events

#: The inputs of a node (and a fabric) built with ``defects=True``.
DEFECT_INPUTS = ("defect", "defect_node", "defect_port")

#: Deliberate defects a node built with ``defects=True`` can be told to make (input
#: ``defect``: 0 for none, else 1 + the index here), for mutation tests of the checks:
#: ``drop``, ``duplicate`` (at the node's ejection port: the first flit ejected is lost,
#: or delivered twice), ``corrupt`` (the first flit sent on link ``defect_port`` has
#: its last payload bit flipped), ``wrong_hop`` (it leaves through the next port instead),
#: ``wrong_vc`` (its VC bit 0 is flipped). Only the node ``defect_node`` makes it.
DEFECTS = ("drop", "duplicate", "corrupt", "wrong_hop", "wrong_vc")


def defect_inputs(defect, topology):
    """The ``defect``, ``defect_node`` and ``defect_port`` inputs for a defect
    description: None, or a dict ``{"kind": one of DEFECTS, "node": address (default:
    dense index 0), "port": network port (default 0)}``."""
    if defect is None:
        return {"defect": 0, "defect_node": 0, "defect_port": 0}
    if not isinstance(defect, dict) or defect.get("kind") not in DEFECTS:
        raise ValueError(f"Defect must be None or a dict with kind one of "
                         f"{', '.join(DEFECTS)}, not {defect!r}")
    unknown = set(defect) - {"kind", "node", "port"}
    if unknown:
        raise ValueError(f"Defect keys must be kind, node and port, not {sorted(unknown)}")
    node = topology.check_node(defect.get("node", topology.address(0)), "defect node")
    port = topology.check_port(defect.get("port", 0), "defect port")
    return {"defect": 1 + DEFECTS.index(defect["kind"]), "defect_node": node,
            "defect_port": port}


#: The events that count copies in a node with replicating routers.
_COPY_EVENTS = ("created", "refused", "injected", "injected_flits")


class SelfCheckingNode(wiring.Component):
    """A router with a :class:`~cubefab.hdl.traffic_gen.TrafficGenerator` on its
    injection port and a :class:`~cubefab.hdl.traffic_check.TrafficChecker` on its
    ejection port.

    Parameters
    ----------
    topology : Topology
    node : int or None
        This node's address, or ``None`` for the address-strapped node: every
        node-dependent constant comes from the ``straps`` input, so one design
        (compiled once by Verilator or synthesis) serves every node of a fabric.
    fmt : PacketFormat
    pattern, hotspot, queue_depth
        Generator parameters (see :class:`~cubefab.hdl.traffic_gen.TrafficGenerator`).
    router_config : RouterConfig
        The router's configuration (:class:`~cubefab.hdl.config.RouterConfig`), for
        ``topology`` and matching ``fmt.layout``.
    defects : bool
        Build the deliberate defects of :data:`DEFECTS` in, chosen at run time by the
        inputs :data:`DEFECT_INPUTS` (for mutation tests of the checks; default False:
        a plain node).
    multicast_group : int
        With multicast routers (``router_config.multicast == "subcube"``): the
        generator's broadcasts go to this node's group, the nodes that share its
        address bits under this mask (:class:`~cubefab.hdl.traffic_gen.TrafficGenerator`);
        they count as the copies they make, one per other member.
    random_input : bool
        Give the generator's random state the simulation ports ``random_load``,
        ``random_value`` and ``random_state`` (default False).
    endpoints : MessageFormat, optional
        Run the traffic through AXI4-Stream endpoints of this format: generator ->
        :class:`~cubefab.hdl.endpoint.PacketToMessage` ->
        :class:`~cubefab.hdl.endpoint.EndpointInject` -> router ->
        :class:`~cubefab.hdl.endpoint.EndpointEject` ->
        :class:`~cubefab.hdl.endpoint.MessageToPacket` -> checker (which then checks
        each pair's order whatever the routing: the endpoints keep it). The events
        count at the generator and the checker (``injected``: a packet's head taken
        by the endpoint side).

    Members
    -------
    seed, threshold, hot_threshold, now : In
        Run settings and the current cycle, shared by every node.
    link_in, link_out
        The router's network ports.
    straps : In(strap_layout)
        Only when ``node`` is ``None``: held at :meth:`strap_values` of a node.
    created, refused, injected, injected_flits, delivered, delivered_flits, errors,
    corrupted : Out(1)
        This cycle's events (see :class:`~cubefab.hdl.selfcheck.SelfCheckingFabric`);
        a fault-tolerant node adds :data:`FAULT_EVENTS`.
    config_write, config_node, config_dest, config_entry : In
        Only for a fault-tolerant router: the fault configuration port
        (:data:`CONFIG_INPUTS`).
    link_up : In(topology.degree)
        Only for a fault-tolerant router: the router's per-port link status (all ones
        at start; a failed link is low at both its ends).
    dropped_ports : Out(topology.degree)
        Only for a fault-tolerant router, an observation tap: bit ``p`` is set when the
        flit in ``link_out[p]``'s payload register (not valid) was dropped at a failed
        link in the cycle before.
        with replicating routers the first four count copies (``N - 1`` for a
        broadcast), and are as wide as that takes.
    broadcasts, copies_delivered, broadcast_threshold
        Only with replicating routers: events :data:`BROADCAST_EVENTS` and the
        generator's input.
    inject_flit, eject_flit : Out(layout)
        Observation taps for a simulation harness: the flit entering the router's
        ``local_in`` (valid with ``injected_flits``) and the flit leaving its
        ``local_out`` into the checker (valid with ``delivered_flits``); with
        ``endpoints``, the generator's flit into its bridge and the flit the
        checker takes.
    latency : Out(timestamp_bits)
        Latency of the packet delivered this cycle, 0 when none.
    random_load, random_value, random_state
        Only with ``random_input``: the generator's
        (:class:`~cubefab.hdl.traffic_gen.TrafficGenerator`), for a simulation harness
        that leaves quiet nodes alone.
    """

    def __init__(self, topology, node, fmt, *, pattern="uniform", hotspot=None,
                 queue_depth=16, router_config, defects=False, multicast_group=0,
                 endpoints=None, random_input=False):
        if not isinstance(fmt, PacketFormat):
            raise TypeError(f"Format must be a PacketFormat, not {fmt!r}")
        self.topology = topology
        self.defects = bool(defects)
        self.fmt = fmt
        self._build_parts(node, router_config, pattern=pattern, hotspot=hotspot,
                          queue_depth=queue_depth, multicast_group=multicast_group,
                          endpoints=endpoints, random_input=random_input)
        self.broadcast = router_config.broadcast
        #: Layout of the node-dependent constants of a strapped node.
        self.strap_layout = self._strap_layout(router_config)
        #: The event outputs (:func:`node_events`).
        self.events = node_events(router_config)
        super().__init__({**self._link_members(), **self._config_members(router_config),
                          **self._event_members()})

    def _build_parts(self, node, router_config, *, pattern, hotspot, queue_depth,
                     multicast_group, endpoints, random_input):
        """Build the node's parts, in this order: the router (``self.router``, and
        ``self.node`` its address), the generator, the endpoints' parts (with
        ``endpoints``: :meth:`_endpoint_parts`) and the checker; set ``waypoints``,
        ``copies``, ``multicast_group`` and ``endpoints``.

        Raises
        ------
        ValueError
            If the router's flit layout is not the packet format's, or the endpoints'
            parts refuse the router (:meth:`_endpoint_parts`).
        """
        topology, fmt = self.topology, self.fmt
        self.router = Router(router_config, node)
        self.node = self.router.node
        if self.router.layout != fmt.layout:
            raise ValueError("Router parameters must give the packet format's flit layout")
        self.waypoints = router_config.routing.waypoints
        inputs = router_config.routing.config_inputs(router_config)
        #: bool: the node has a configuration port (its routing's configuration inputs)
        self.configurable = bool(inputs)
        #: bool: that port also writes its router's flood configuration
        self.flood_input = FLOOD_INPUT in inputs
        self.generator = TrafficGenerator(topology, node, fmt, pattern, hotspot=hotspot,
                                          queue_depth=queue_depth,
                                          waypoints=self.waypoints,
                                          multicast_group=multicast_group,
                                          random_input=random_input)
        #: Copies a broadcast of this node makes: ``N - 1``, or the other members of
        #: its multicast group (a strap of a strapped multicast node: :meth:`_copies`).
        self.copies = topology.num_nodes - 1
        self.multicast_group = multicast_group if router_config.multicast else None
        if router_config.multicast and self.node is not None:
            self.copies = self._copies(self.node)
        self.endpoints = endpoints
        if endpoints is not None:
            self._endpoint_parts(topology, fmt, endpoints)
        # adaptive routing may reorder a flow's packets: the harness counts that
        # (and a failed link may drop packets whole, leaving a gap in a flow's
        # sequence: with fault-tolerant routers the harness checks the order); the
        # endpoints keep each pair's order whatever the routing
        routing = router_config.routing
        self.checker = TrafficChecker(topology, node, fmt,
                                      ordered=endpoints is not None
                                      or (routing.in_order and not routing.loses_packets))

    def _strap_layout(self, router_config):
        """The layout of the ``straps`` of a strapped node with ``router_config``: the
        generator's straps (which hold the address), the router's other strap inputs
        (:meth:`~cubefab.hdl.router.Router.strap_widths`) and the copies (multicast)."""
        topology = self.topology
        return data.StructLayout({
            "generator": self.generator.strap_layout,
            **_router_straps(router_config),
            **({"copies": (topology.num_nodes - 1).bit_length()}
               if router_config.multicast else {}),
        })

    def _link_members(self):
        """The first members of the signature, in port order: the run settings,
        ``now``, the links, then ``straps`` (a strapped node) and the
        :data:`DEFECT_INPUTS` (``defects``)."""
        topology, layout = self.topology, self.router.layout
        members = {
            "seed": In(32), "threshold": In(RATE_BITS + 1), "hot_threshold": In(RATE_BITS),
            "now": In(self.fmt.timestamp_bits),
            "link_in": In(LinkSignature(layout)).array(topology.degree),
            "link_out": Out(LinkSignature(layout)).array(topology.degree),
        }
        if self.node is None:
            members["straps"] = In(self.strap_layout)
        if self.defects:
            members.update({"defect": In(range(len(DEFECTS) + 1)),
                            "defect_node": In(topology.address_bits),
                            "defect_port": In(range(topology.degree))})
        return members

    def _config_members(self, router_config):
        """The members of a fault-tolerant router's node (none otherwise), in port
        order: :data:`FLOOD_INPUT` (flooding routers, whose ``config_entry`` is a plain
        number as wide as a table entry or a flood word), :data:`CONFIG_INPUTS`,
        ``link_up`` and ``dropped_ports``."""
        if not self.configurable:
            return {}
        topology = self.topology
        members = {}
        entry = self.generator.table.layout
        if self.flood_input:   # (a plain number: a table entry or a flood word)
            entry = max(Shape.cast(entry).width,
                        flood_word_width(topology, router_config.multicast))
            members[FLOOD_INPUT] = In(1)
        members.update({"config_write": In(1), "config_node": In(topology.address_bits),
                        "config_dest": In(topology.address_bits),
                        "config_entry": In(entry),
                        "link_up": In(topology.degree,
                                      init=(1 << topology.degree) - 1),
                        "dropped_ports": Out(topology.degree)})
        return members

    def _event_members(self):
        """The last members of the signature, in port order: the :attr:`events` (the
        copy-counting ones as wide as ``N - 1`` with replicating routers, the
        per-port losses as wide as the degree), ``broadcast_threshold`` (replicating
        routers), the observation taps ``inject_flit``, ``eject_flit`` and
        ``latency``, and the generator's random ports (``random_input``)."""
        topology, layout = self.topology, self.router.layout
        members = {}
        copies = (topology.num_nodes - 1).bit_length() if self.broadcast else 1
        ports = topology.degree.bit_length()   # (a flit dropped per port at most)
        for name in self.events:
            members[name] = Out(copies if name in _COPY_EVENTS and self.broadcast
                                else ports if name in ("lost_to_fault", "dropped") else 1)
        if self.broadcast:
            members["broadcast_threshold"] = In(RATE_BITS + 1)
        members["inject_flit"] = Out(layout)
        members["eject_flit"] = Out(layout)
        members["latency"] = Out(self.fmt.timestamp_bits)
        if self.generator.random_input:
            members.update(random_load=In(1), random_value=In(64), random_state=Out(64))
        return members

    def _endpoint_parts(self, topology, fmt, endpoints):
        """The bridges and endpoints of a node whose traffic runs through them (a
        strapped node's injection side takes its address from the straps)."""
        if self.router.config.broadcast or self.waypoints:
            raise ValueError("AXI4-Stream endpoints carry unicast packets routed "
                             "deterministically or adaptively")
        width = endpoints.data_width
        self.to_message = PacketToMessage(fmt.layout, width)
        self.inject = injection_side(endpoints, self.node)
        self.eject = ejection_side(endpoints)
        self.to_packet = MessageToPacket(fmt.layout, fmt.packet_flits, width, self.node)

    def _endpoint_wiring(self, m, gen, router, here):
        """Generator -> endpoints -> router -> endpoints; returns the ejection stream
        ``(valid, payload, ready)`` for :meth:`_outputs`."""
        to_message = m.submodules.to_message = self.to_message
        inject = m.submodules.inject = self.inject
        eject = m.submodules.eject = self.eject
        to_packet = m.submodules.to_packet = self.to_packet
        wiring.connect(m, gen.flits, to_message.flits)
        wiring.connect(m, to_message.axis, inject.axis)
        wiring.connect(m, inject.local_in, router.local_in)
        if self.node is None:
            m.d.comb += [inject.here.eq(here), to_packet.here.eq(here)]
        if self.endpoints.acknowledged:
            wiring.connect(m, eject.acked, inject.acked)
            wiring.connect(m, eject.owed, inject.owed)
        wiring.connect(m, router.local_out, eject.local_out)
        wiring.connect(m, eject.axis, to_packet.axis)
        return to_packet.flits.valid, to_packet.flits.payload.as_value(), \
            to_packet.flits.ready

    def strap_values(self, node):
        """The ``straps`` value (a dict) that makes a strapped node the node ``node``."""
        # (the generator holds the address: the router's ``here`` is its)
        router = Router.straps_of(self.router.config, node)
        del router["here"]
        values = {"generator": self.generator.strap_values(node), **router}
        if self.multicast_group is not None:
            values["copies"] = self._copies(node)
        return values

    def _copies(self, node):
        """The copies a multicast of ``node`` makes: the other members of its group."""
        return int(subcube_members(self.topology, node, self.multicast_group).sum()) - 1

    def elaborate(self, platform):
        m = Module()
        fmt = self.fmt
        router = m.submodules.router = self.router
        gen = m.submodules.generator = self.generator
        chk = m.submodules.checker = self.checker
        if self.node is None:
            here = self.straps.generator.here
            m.d.comb += [router.here.eq(here), router.wrap_mask.eq(self.straps.wrap_mask),
                         gen.straps.eq(self.straps.generator), chk.here.eq(here)]
            for name in _router_straps(self.router.config):
                if name != "wrap_mask":
                    m.d.comb += getattr(router, name).eq(self.straps[name])
        for p in range(self.topology.degree):
            wiring.connect(m, wiring.flipped(self.link_in[p]), router.link_in[p])
            m.d.comb += router.link_out[p].credit.eq(self.link_out[p].credit)
        address = here if self.node is None else self.node
        ejection = None
        if self.endpoints is None:
            wiring.connect(m, gen.flits, router.local_in)
        else:
            ejection = self._endpoint_wiring(m, gen, router, address)
        if self.generator.random_input:
            m.d.comb += [gen.random_load.eq(self.random_load),
                         gen.random_value.eq(self.random_value),
                         self.random_state.eq(gen.random_state)]
        m.d.comb += [gen.seed.eq(self.seed), gen.threshold.eq(self.threshold),
                     gen.hot_threshold.eq(self.hot_threshold), gen.now.eq(self.now),
                     chk.now.eq(self.now)]
        self._outputs(m, address, ejection)
        if self.configurable:
            table_write = self.config_write & (self.config_node == address)
            entry = self.config_entry
            if self.flood_input:   # (a plain number: a table entry's low bits)
                table_write = table_write & ~getattr(self, FLOOD_INPUT)
                copies = self._flood_configuration(m, router, address)
                entry = entry[:Shape.cast(gen.config_entry.shape()).width]
            m.d.comb += [gen.hold.eq(self.config_write),
                         gen.config_write.eq(table_write),
                         gen.config_dest.eq(self.config_dest),
                         gen.config_entry.eq(entry),
                         self.unroutable.eq(gen.unroutable),
                         router.link_up.eq(self.link_up),
                         self.lost_to_fault.eq(sum(router.lost_to_fault)),
                         self.dropped.eq(sum(router.lost_heads)),
                         self.cut.eq(chk.cut)]
            # (registered: the dropped flits are then in link_out's payload registers)
            m.d.sync += self.dropped_ports.eq(router.lost_to_fault)
        if self.broadcast:
            self._broadcast_events(m, gen, chk, router,
                                   copies if self.flood_input else None)
        else:
            m.d.comb += [self.created.eq(gen.created), self.refused.eq(gen.refused),
                         self.injected.eq(gen.injected),
                         self.injected_flits.eq(gen.flit_sent)]
        m.d.comb += [self.inject_flit.eq(router.local_in.payload if self.endpoints is None
                                         else gen.flits.payload),
                     self.eject_flit.eq(chk.flits.payload),
                     self.delivered.eq(chk.delivered),
                     self.delivered_flits.eq(chk.flit_received), self.errors.eq(chk.error),
                     self.corrupted.eq(chk.corrupted),
                     self.latency.eq(Mux(chk.delivered, chk.latency, 0))]
        return m

    def _flood_configuration(self, m, router, address):
        """The flood configuration of a fault-tolerant replicating router, registers
        written through the configuration port (:func:`flood_writes`), to the router's
        ``flood`` input; returns the copies a broadcast of this node makes (word 0)."""
        topology = self.topology
        degree = topology.degree
        flood = Signal(flood_layout(topology, bool(self.router.config.multicast)),
                       name="flood")
        copies = Signal(_copies_bits(topology), name="flood_copies")
        write = (self.config_write & getattr(self, FLOOD_INPUT)
                 & (self.config_node == address))
        with m.If(write & (self.config_dest == 0)):
            m.d.sync += [flood.tree_ports.eq(self.config_entry[:degree]),
                         copies.eq(self.config_entry[degree:degree + len(copies)])]
        if self.router.config.multicast:
            for p in range(degree):
                with m.If(write & (self.config_dest == 1 + p)):
                    m.d.sync += flood.beyond[p].eq(self.config_entry[:topology.num_nodes])
        m.d.comb += router.flood.eq(flood)
        return copies

    def _broadcast_events(self, m, gen, chk, router, copies=None):
        """The events of a node with replicating routers: a broadcast counts as the
        copies it makes (:attr:`copies`; ``copies``, a signal, where the fault
        configuration sets them)."""
        if copies is None:
            copies = self.copies
            if self.multicast_group is not None and self.node is None:
                copies = self.straps.copies
        sending = router.local_in.payload.bcast     # the flit offered is a broadcast's

        def weight(pulse, broadcast):
            return Mux(pulse, Mux(broadcast, copies, 1), 0)

        m.d.comb += [gen.broadcast_threshold.eq(self.broadcast_threshold),
                     self.created.eq(weight(gen.created, gen.created_broadcast)),
                     self.refused.eq(weight(gen.refused, gen.created_broadcast)),
                     self.injected.eq(weight(gen.injected, sending)),
                     self.injected_flits.eq(weight(gen.flit_sent, sending)),
                     self.broadcasts.eq(gen.injected & sending),
                     self.copies_delivered.eq(chk.delivered_broadcast)]

    def _outputs(self, m, here, ejection=None):
        """The router's link outputs to ``link_out`` and its ejection port (or the
        endpoints' ``ejection``, ``(valid, payload, ready)``) to the checker: wires,
        or through this node's defect."""
        router, chk, degree = self.router, self.checker, self.topology.degree
        flits = [router.link_out[p].flit for p in range(degree)]
        valid = [f.valid for f in flits]
        payload = [f.payload.as_value() for f in flits]
        if ejection is None:
            ejection = (router.local_out.valid, router.local_out.payload.as_value(),
                        router.local_out.ready)
        eject_valid, eject, eject_ready = ejection
        m.d.comb += eject_ready.eq(chk.flits.ready)
        if self.defects:
            layout = self.router.layout
            kind = {name: (self.defect == 1 + i) & (self.defect_node == here)
                    for i, name in enumerate(DEFECTS)}
            # a defect strikes once: at the first flit through its place
            fired = Signal(name="defect_fired")
            fire_eject = Signal(name="defect_fire_eject")
            m.d.comb += fire_eject.eq(~fired & eject_valid)
            # the copy of a duplicate follows in the first cycle the ejection is idle
            pending = Signal(name="defect_pending")
            copy = Signal(layout.size, name="defect_copy")
            with m.If(fire_eject & kind["duplicate"]):
                m.d.sync += [pending.eq(1), copy.eq(eject), fired.eq(1)]
            with m.If(pending & ~eject_valid):
                m.d.sync += pending.eq(0)
            with m.If(fire_eject & kind["drop"]):
                m.d.sync += fired.eq(1)
            eject = Mux(eject_valid, eject, copy)
            eject_valid = (eject_valid & ~(fire_eject & kind["drop"])) | pending
            # link defects: at the first flit on link defect_port
            on_link = Signal(name="defect_on_link")
            m.d.comb += on_link.eq(~fired & Cat(valid).bit_select(self.defect_port, 1))
            flip = Signal(layout.size, name="defect_flip")
            m.d.comb += flip.eq(Mux(on_link & kind["corrupt"], 1 << (layout.size - 1), 0)
                                | Mux(on_link & kind["wrong_vc"] & (layout["vc"].shape.width > 0),
                                      1 << layout["vc"].offset, 0))
            swap = Signal(name="defect_swap")
            m.d.comb += swap.eq(on_link & kind["wrong_hop"])
            with m.If(on_link & (kind["corrupt"] | kind["wrong_vc"] | kind["wrong_hop"])):
                m.d.sync += fired.eq(1)
            new_valid, new_payload = [], []
            for p in range(degree):
                # wrong_hop: this cycle, defect_port's flit leaves through the next port
                # and that port's flit through defect_port
                nxt, prv = (p + 1) % degree, (p - 1) % degree
                mine = self.defect_port == p
                theirs = self.defect_port == prv
                new_valid.append(Mux(swap & mine, valid[nxt],
                                     Mux(swap & theirs, valid[prv], valid[p])))
                new_payload.append(Mux(swap & mine, payload[nxt],
                                       Mux(swap & theirs, payload[prv], payload[p]))
                                   ^ Mux(mine, flip, 0))
            valid, payload = new_valid, new_payload
        for p in range(degree):
            m.d.comb += [self.link_out[p].flit.valid.eq(valid[p]),
                         self.link_out[p].flit.payload.eq(payload[p])]
        m.d.comb += [chk.flits.valid.eq(eject_valid), chk.flits.payload.eq(eject)]
