"""A fabric that tests itself: traffic generators, checkers and global counters.

:class:`SelfCheckingFabric` is a network of nodes
(:class:`~cubefab.hdl.selfcheck_node.SelfCheckingNode`): a router per node with a
:class:`~cubefab.hdl.traffic_gen.TrafficGenerator` on its injection port and a
:class:`~cubefab.hdl.traffic_check.TrafficChecker` on its ejection port. Its only inputs are run settings held constant during a run (seed, injection
threshold, hotspot threshold) and its outputs are counters, so the same design
runs unchanged in Amaranth's simulator, in Verilator, and on an FPGA (tie the
inputs to constants or switches and read the counters out).

:meth:`SelfCheckConfig.node_verilog` gives the Verilog of the address-strapped
node (:data:`NODE_MODULE`: its address and every other node-dependent constant are
input ports), from which a simulator can build the whole fabric compiling one node,
not one per node (:mod:`cubefab.sim.verilator_fabric`).
"""

from amaranth.hdl import Module, Shape, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..topology.base import Topology, check_int
from ..topology.broadcast_tree import subcube_members
from .config import SIMULATION_DEFAULTS, FabricConfig, RouterConfig
from .modes import Multicast
from .options import SUBCUBE, option
from .endpoint import EndpointInterface, MessageFormat, routers_budget
from .fabric import connect_links
from .ports import reset_less_verilog
from .selfcheck_node import (DEFECT_INPUTS, SelfCheckingNode, config_inputs,
                             node_events)
from .traffic_gen import PacketFormat, RATE_BITS, check_generator


__all__ = ["SelfCheckConfig", "SelfCheckingFabric", "COUNTER_BITS", "NODE_MODULE",
           "TIMESTAMP_BITS", "SEQUENCE_BITS", "FIELD_BITS", "packet_flits_for"]


#: Width of every event counter.
COUNTER_BITS = 48

#: Widths of the creation timestamp and the per-flow sequence number every packet of the
#: self-checking traffic carries in its first data bits (the defaults of
#: :class:`SelfCheckConfig`; :class:`~cubefab.hdl.traffic_gen.PacketFormat`), and the
#: bits they take: the data bits a packet must have at least.
TIMESTAMP_BITS = 24
SEQUENCE_BITS = 8
FIELD_BITS = TIMESTAMP_BITS + SEQUENCE_BITS

#: Verilog module name of :meth:`SelfCheckConfig.node_verilog`.
NODE_MODULE = "cubefab_node"


def packet_flits_for(layout, field_bits=FIELD_BITS):
    """int: the fewest flits of ``layout`` (a :class:`~cubefab.hdl.flit.FlitLayout`)
    whose data bits hold ``field_bits`` bits (the timestamp and sequence number): the
    default packet length of the self-checking traffic (1 from 32-bit payloads; 2 at
    the default 16-bit payloads)."""
    return PacketFormat.flits_for(layout, field_bits)


def _tree_sum(values):
    """Balanced adder tree (short critical path, few wide adders)."""
    values = list(values)
    if not values:
        return 0
    while len(values) > 1:
        values = [values[i] + values[i + 1] if i + 1 < len(values) else values[i]
                  for i in range(0, len(values), 2)]
    return values[0]


def _interface_of(interface, data_width, max_beats, window, packing):
    """The :class:`EndpointInterface` of :meth:`SelfCheckConfig.of`'s keywords, or
    None."""
    given = any(v is not None for v in (data_width, max_beats, window, packing))
    if interface is None or interface == "flits":
        if given:
            raise ValueError("data_width, max_beats, message_window and packing need "
                             "interface='axi-stream'")
        return None
    if interface == "axi-stream":
        if data_width is None:
            raise ValueError("interface='axi-stream' needs data_width")
        return EndpointInterface(data_width, max_beats, 1 if window is None else window,
                                 "auto" if packing is None else packing)
    if given:
        raise ValueError("data_width, max_beats, message_window and packing go with "
                         "interface='axi-stream', not with an EndpointInterface")
    return interface


class SelfCheckConfig:
    """The checked parameters of a self-checking fabric, and its nodes.

    Parameters
    ----------
    router : RouterConfig
        Every router's configuration, whole (its topology is the fabric's); the fabric
        keeps it with ``routers`` set to the node count (:class:`FabricConfig`). With
        broadcast replication the generators also make broadcasts (input
        ``broadcast_threshold``), which must fit a buffer (``packet_flits <= depth``);
        with multicast replication, multicasts to ``multicast_group``.
    pattern : str
        Traffic pattern of :mod:`cubefab.topology.patterns`.
    packet_flits : int, optional
        Flits per packet (default: :func:`packet_flits_for`, the fewest that hold the
        timestamp and sequence number). Fewer: ValueError.
    hotspot : int, optional
        Hot node for ``hotspot`` traffic.
    queue_depth : int
        Source queue depth of every generator.
    timestamp_bits, sequence_bits : int
        See :class:`~cubefab.hdl.traffic_gen.PacketFormat`. Latencies are exact in
        runs shorter than ``2**timestamp_bits`` cycles (the simulation engines refuse
        longer ones).
    defects : bool
        Build the deliberate defects of
        :data:`~cubefab.hdl.selfcheck_node.DEFECTS` in, chosen at run time by the
        inputs :data:`~cubefab.hdl.selfcheck_node.DEFECT_INPUTS` (for mutation tests of
        the checks; default False).
    multicast_group : int, optional
        Multicast routers (and only they): the generators' broadcasts become
        multicasts to their node's group, the nodes that share its address bits under
        this mask (routers of constant addresses); every group must hold another node.
    interface : EndpointInterface, optional
        Run the traffic through AXI4-Stream endpoints (docs/endpoints.md): each node's
        generator sends every packet as one message into an
        :class:`~cubefab.hdl.endpoint.EndpointInject`, and an
        :class:`~cubefab.hdl.endpoint.EndpointEject` gives its checker the messages
        back as packets (:class:`~cubefab.hdl.endpoint.PacketToMessage`,
        :class:`~cubefab.hdl.endpoint.MessageToPacket`). Its ``max_beats`` (default:
        the beats of one packet) must hold a packet; the routers must route unicast
        packets deterministically or adaptively (no replication, no waypoints). The
        endpoints keep each pair's order, so the checkers check it with adaptive
        routers too. The routers are then those of an
        :class:`~cubefab.hdl.endpoint.EndpointFabric`: an ``"auto"`` buffer rule
        sizes for the block RAMs the endpoints leave
        (:func:`~cubefab.hdl.endpoint.routers_budget`).

    Raises
    ------
    DeadlockError
        If the router configuration can deadlock (see :class:`~cubefab.hdl.fabric.Fabric`).

    Nothing is built until asked for (:meth:`node`, :meth:`node_verilog`,
    :class:`SelfCheckingFabric`), so a configuration can be checked, or describe a
    compiled simulation, without constructing designs that are never elaborated.
    """

    def __init__(self, router, *, pattern="uniform", packet_flits=None, hotspot=None,
                 queue_depth=16, timestamp_bits=TIMESTAMP_BITS, sequence_bits=SEQUENCE_BITS, defects=False,
                 multicast_group=None, interface=None):
        if not isinstance(router, RouterConfig):
            raise TypeError(f"Router configuration must be a RouterConfig, not {router!r}")
        #: FabricConfig: the routers' configuration, proved deadlock-free
        self.fabric = FabricConfig(router)
        #: RouterConfig: every router's configuration
        self.router = self.fabric.router
        self._router_given = self.router       # (what the key records)
        topology = router.topology
        self.topology, self.layout = topology, self.router.layout
        if packet_flits is None:
            packet_flits = packet_flits_for(self.layout, timestamp_bits + sequence_bits)
        self.fmt = PacketFormat(self.layout, packet_flits,
                                timestamp_bits=timestamp_bits, sequence_bits=sequence_bits)
        self.hotspot_given = hotspot
        self.pattern, self.hotspot, self.queue_depth = check_generator(
            topology, self.layout, pattern, hotspot, queue_depth)
        self.defects = bool(defects)
        #: int or None: the mask of the generators' multicast groups
        self.multicast_group = multicast_group
        self._check_multicast_group()
        if self.router.broadcast and packet_flits > self.router.depth:
            raise ValueError(f"Broadcast packets must fit a buffer: packet_flits must be "
                             f"at most depth = {self.router.depth}, not {packet_flits}")
        #: EndpointInterface or None: the endpoints the traffic runs through (its
        #: ``max_beats`` filled in)
        self.interface = None
        #: MessageFormat or None: the endpoints' messages
        self.message_format = None
        if interface is not None:
            self._check_interface(interface)

    def _check_interface(self, interface):
        if not isinstance(interface, EndpointInterface):
            raise TypeError(f"Interface must be an EndpointInterface, not {interface!r}")
        if self.router.broadcast:
            raise ValueError("AXI4-Stream endpoints send unicast messages: the routers "
                             "must not replicate (broadcast_vcs 0, no multicast)")
        self.interface = interface.for_packets(self.layout, self.fmt.packet_flits)
        self.message_format = MessageFormat(self.router, self.interface.data_width,
                                            self.interface.max_beats,
                                            window=self.interface.window,
                                            packing=self.interface.packing)
        # the routers an EndpointFabric builds: the "auto" buffer rule counts the
        # endpoints' block RAMs too
        self.fabric = routers_budget(self.fabric, self.message_format)
        self.router = self.fabric.router

    def _check_multicast_group(self):
        multicast = isinstance(self.router.replication, Multicast)
        group, topology = self.multicast_group, self.topology
        if group is None:
            if multicast:
                raise ValueError("Multicast routers need the generators' multicast group "
                                 "(multicast_group)")
            return
        if not multicast:
            raise ValueError(f"A multicast group needs multicast routers (replication "
                             f"Multicast), not {self.router.replication!r}")
        check_int("Multicast group mask", group, 0, (1 << topology.address_bits) - 1)
        for s in topology.nodes().tolist():
            if subcube_members(topology, s, group).sum() < 2:
                raise ValueError(f"Multicast group mask {group} leaves node "
                                 f"{s} alone in its group")

    @classmethod
    def of(cls, topology, *, pattern="uniform", packet_flits=None, hotspot=None,
           queue_depth=16, timestamp_bits=TIMESTAMP_BITS, sequence_bits=SEQUENCE_BITS, defects=False,
           multicast_group=None, interface=None, data_width=None, max_beats=None,
           message_window=None, packing=None, defaults=SIMULATION_DEFAULTS, **router):
        """The configuration described by flat keywords (the fields of :meth:`key`):
        ``router`` holds the fields of
        :meth:`RouterConfig.as_dict <cubefab.hdl.config.RouterConfig.as_dict>` (those
        of :class:`~cubefab.hdl.config.RouterConfig` and the flat mode fields of
        :func:`~cubefab.hdl.modes.parts`: ``adaptive_vcs``, ``fault_waypoints``,
        ``broadcast_vcs``, ``broadcast_model``; :meth:`RouterConfig.from_dict
        <cubefab.hdl.config.RouterConfig.from_dict>`); the router parameters left
        unsaid are ``defaults``'. ``interface``: None (or
        ``"flits"``), an :class:`~cubefab.hdl.endpoint.EndpointInterface`, or
        ``"axi-stream"`` with ``data_width``, ``max_beats`` (default: one packet's
        beats), ``message_window`` (the endpoints' window, default 1) and ``packing``
        (default ``"auto"``)."""
        interface = _interface_of(interface, data_width, max_beats, message_window,
                                  packing)
        if not isinstance(topology, Topology):
            raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
        if multicast_group is not None:
            router.setdefault("multicast", SUBCUBE)
        for name in ("depth", "vcs_per_class", "payload_width"):
            router.setdefault(name, option(name).default_for(defaults))
        config = RouterConfig.from_dict(topology, router)
        return cls(config, pattern=pattern, packet_flits=packet_flits, hotspot=hotspot,
                   queue_depth=queue_depth, timestamp_bits=timestamp_bits,
                   sequence_bits=sequence_bits, defects=defects,
                   multicast_group=multicast_group, interface=interface)

    def key(self):
        """The configuration as a JSON-able dict (what runs report, and the key of a
        compiled simulation): the topology, the generators' settings (the multicast
        group when there is one) and the router's
        :meth:`~cubefab.hdl.config.RouterConfig.as_dict` as given (before endpoints
        take their block RAMs from its budget). :meth:`of` of its fields (but
        ``design``, ``family`` and ``params``) makes the same configuration."""
        topology = self.topology
        key = {"design": "SelfCheckingFabric", "family": topology.name,
               "params": dict(topology.params), "pattern": self.pattern,
               "packet_flits": self.fmt.packet_flits, "hotspot": self.hotspot_given,
               "queue_depth": self.queue_depth, "timestamp_bits": self.fmt.timestamp_bits,
               "sequence_bits": self.fmt.sequence_bits, "defects": self.defects,
               **self._router_given.as_dict()}
        if self.multicast_group is not None:
            key["multicast_group"] = self.multicast_group
        if self.interface is not None:
            key.update(interface="axi-stream", data_width=self.interface.data_width,
                       max_beats=self.interface.max_beats)
            if self.interface.window != 1:
                key["message_window"] = self.interface.window
            if self.interface.packing != "auto":
                key["packing"] = self.interface.packing
        return key

    def events(self):
        """The node events summed into counters (:func:`.selfcheck_node.node_events`:
        :data:`.selfcheck_node.NODE_EVENTS`, and ``unroutable`` with fault-tolerant routers or
        broadcasts and copies delivered with replicating routers)."""
        return node_events(self.router)

    def node(self, address, *, random_input=False):
        """The :class:`~cubefab.hdl.selfcheck_node.SelfCheckingNode` of ``address``
        (``None``: the address-strapped node); ``random_input``: with the generator's
        random ports (for a harness that leaves quiet nodes alone)."""
        return SelfCheckingNode(
            self.topology, address, self.fmt, pattern=self.pattern, hotspot=self.hotspot,
            queue_depth=self.queue_depth, defects=self.defects,
            router_config=self.router, multicast_group=self.multicast_group or 0,
            endpoints=self.message_format, random_input=random_input)

    def node_verilog(self, node=None):
        """Verilog of the address-strapped node ``node`` (default: a new one), module
        :data:`NODE_MODULE`: ports ``clk`` (no reset: registers start at their
        ``init`` values, as the fabric's do from power-up), ``straps`` (held at the
        node's :meth:`~cubefab.hdl.selfcheck_node.SelfCheckingNode.strap_values`) and
        the members of :class:`~cubefab.hdl.selfcheck_node.SelfCheckingNode`. Node
        ``i`` of the fabric is that module strapped to ``i``, with ``now`` the low bits
        of ``cycles``, its links wired as :func:`~cubefab.hdl.fabric.connect_links`
        wires them and its events summed into the counters; for simulation."""
        return reset_less_verilog(self.node(None) if node is None else node, NODE_MODULE)

    def inputs(self):
        """The run-setting inputs of the fabric (and of each node, but ``now``)."""
        return (("seed", "threshold", "hot_threshold")
                + (("broadcast_threshold",) if self.router.broadcast else ())
                + (DEFECT_INPUTS if self.defects else ())
                + config_inputs(self.router))

    def counters(self):
        """The event counters, in output order (besides ``latency_sum``):
        ``cycles``, then :meth:`events`."""
        return ("cycles",) + self.events()

    def counter_members(self):
        """The output members of the fabric: :meth:`counters` and ``latency_sum``."""
        members = {name: Out(COUNTER_BITS) for name in self.counters()}
        members["latency_sum"] = Out(64)
        return members


class SelfCheckingFabric(wiring.Component):
    """A fabric with a traffic generator and a checker on every node.

    Parameters
    ----------
    topology : Topology or SelfCheckConfig
        The network, or a whole configuration (then no ``params``).
    **params
        :class:`SelfCheckConfig` keywords (router, traffic, packet format, defects).

    Members
    -------
    seed : In(32)
    threshold : In(17)
        Packet creation probability per node per cycle times ``2**16``.
    hot_threshold : In(16)
        Probability times ``2**16`` that a ``hotspot`` packet goes to the hot node.
    cycles, created, refused, injected, injected_flits, delivered, delivered_flits,
    errors, corrupted : Out(48)
        Totals over all nodes since the start: cycles run, packets created (queued),
        created but refused (queue full), whose head entered the network; flits that
        entered; packets and flits delivered; packets found wrong (plus stray flits);
        of those, packets corrupted (payload or framing).
    latency_sum : Out(64)
        Sum of the latencies of delivered packets (creation to tail delivery).
    config_write, config_node, config_dest, config_entry : In
        Only with ``fault_waypoints``: the fault configuration port
        (:data:`~cubefab.hdl.selfcheck_node.CONFIG_INPUTS`); a cycle with
        ``config_write`` is no cycle of the run (``cycles`` does not count it, the
        generators stand still).
    config_flood : In(1)
        Only with ``fault_waypoints`` and broadcast VCs (``RouterConfig.floods``): the
        write sets a word of node ``config_node``'s flood configuration
        (:func:`~cubefab.hdl.selfcheck_node.flood_writes`) instead of a table entry.
    unroutable : Out(48)
        Only with ``fault_waypoints``: packets drawn to a destination their source's
        table refuses (not created).
    link_up : In(num_nodes * degree)
        Only with ``fault_waypoints``: the status of every directed channel, bit
        ``i * degree + p`` for port ``p`` of the node of dense index ``i``; all ones at
        start. To fail a link mid-run, clear the bits of both its ends in the same
        cycle.
    lost_to_fault, dropped, cut : Out(48)
        Only with ``fault_waypoints``: flits dropped at failed links, of which heads
        (packets dropped whole), and packets delivered cut short by a failure (a
        synthetic tail); a created packet is delivered, dropped, cut or in flight.

    The nodes are in :attr:`nodes` (dense order) once elaborated.
    """

    def __init__(self, topology, **params):
        if isinstance(topology, SelfCheckConfig):
            if params:
                raise TypeError(f"A SelfCheckConfig takes no more parameters, "
                                f"not {sorted(params)}")
            self.config = topology
        else:
            self.config = SelfCheckConfig.of(topology, **params)
        self.topology = topology = self.config.topology
        self.fmt = self.config.fmt
        self.layout = self.config.layout
        self.nodes = [self.config.node(int(a)) for a in topology.nodes()]
        node = self.nodes[0].signature.members   # (every node has the same members)
        members = {"seed": In(32), "threshold": In(RATE_BITS + 1),
                   "hot_threshold": In(RATE_BITS)}
        if "broadcast_threshold" in node:
            members["broadcast_threshold"] = In(RATE_BITS + 1)
        if self.config.defects:
            members.update({"defect": In(8), "defect_node": In(topology.address_bits),
                            "defect_port": In(range(topology.degree))})
        # (plain unsigned inputs: a simulator writes an entry as one number)
        members.update({name: In(Shape.cast(node[name].shape).width)
                        for name in config_inputs(self.config.router)})
        if "link_up" in node:   # every node's, by its dense index
            links = len(self.nodes) * topology.degree
            members["link_up"] = In(links, init=(1 << links) - 1)
        members.update(self.config.counter_members())
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        topo, fmt = self.topology, self.fmt
        now = Signal(fmt.timestamp_bits)
        m.d.comb += now.eq(self.cycles[:fmt.timestamp_bits])
        if "config_write" in self.signature.members:
            # a configuration cycle is no cycle of the run (the generators stand still)
            with m.If(~self.config_write):
                m.d.sync += self.cycles.eq(self.cycles + 1)
        else:
            m.d.sync += self.cycles.eq(self.cycles + 1)

        for address, node in zip((int(a) for a in topo.nodes()), self.nodes):
            m.submodules[f"node_{address}"] = node
            m.d.comb += [node.seed.eq(self.seed), node.threshold.eq(self.threshold),
                         node.hot_threshold.eq(self.hot_threshold), node.now.eq(now)]
            if "broadcast_threshold" in self.signature.members:
                m.d.comb += node.broadcast_threshold.eq(self.broadcast_threshold)
            if self.config.defects:
                m.d.comb += [node.defect.eq(self.defect),
                             node.defect_node.eq(self.defect_node),
                             node.defect_port.eq(self.defect_port)]
            for name in config_inputs(self.config.router):
                m.d.comb += getattr(node, name).eq(getattr(self, name))
            if "link_up" in self.signature.members:
                i, degree = topo.index(address), topo.degree
                m.d.comb += node.link_up.eq(self.link_up[i * degree:(i + 1) * degree])
        connect_links(m, topo, self.nodes)

        # Global totals: add this cycle's events of every node (adder trees).
        for name in self.config.events():
            counter = getattr(self, name)
            m.d.sync += counter.eq(counter + _tree_sum(getattr(n, name) for n in self.nodes))
        m.d.sync += self.latency_sum.eq(self.latency_sum
                                        + _tree_sum(n.latency for n in self.nodes))
        return m
