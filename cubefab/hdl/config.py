"""The configuration of a router and of a fabric: frozen, validated, passed whole.

A :class:`RouterConfig` holds every parameter of a
:class:`~cubefab.hdl.router.Router` but its node address, a :class:`FabricConfig`
those of a :class:`~cubefab.hdl.fabric.Fabric`. Both check their parameters when
they are made, so that a component is only ever built from a configuration known to
be good; :meth:`RouterConfig.for_topology` and :meth:`FabricConfig.for_topology`
fill in the defaults that depend on the topology (algorithm, virtual channels).
"""

import dataclasses
import math
from dataclasses import dataclass

from ..topology.adaptive import needs_adaptive
from ..topology.broadcast_deadlock import BroadcastDeadlockError, required_broadcast_vcs
from ..topology.base import Topology, check_int
from ..topology.deadlock import DeadlockError, required_vcs
from .fifo import (distributed_fifo_logic, memory_fifo_logic, memory_lut_ram_head_fifo_logic,
                   register_fifo_logic)
from .flit import FlitLayout
from .modes import (MAX_VECTOR_NODES, MODE_FIELDS, Adaptive, Broadcast, ConfigConflict,
                    Deterministic, Multicast, Replication, Routing, Unicast, Waypoints,
                    mode_fields, parts, refusal)
from .options import (ALL_PORT, AUTO, AUTO_MEMORY_DEPTH, BLOCK_RAMS, BUFFER_CHOICES,
                      BUFFERED, DEFAULT_HEADER, DISTRIBUTED, HOPS, LOOKAHEAD, MAX_FAULT_WAYPOINTS,
                      MEMORY, OPTIONS, REGISTERS, TURNS, OptionError, check_option,
                      VECTOR, router_dict)


__all__ = ["RouterConfig", "FabricConfig", "ConfigConflict", "RouterDefaults",
           "Deterministic", "Adaptive", "Waypoints", "Unicast", "Broadcast", "Multicast",
           "HARDWARE_DEFAULTS", "SIMULATION_DEFAULTS", "BOARD_DEFAULTS", "BUFFERS",
           "LUT_RAM_BUFFERS", "BUFFER_CHOICES", "TURNS", "HOPS",
           "MAX_FAULT_WAYPOINTS", "MAX_VECTOR_NODES", "BLOCK_RAMS", "AUTO_MEMORY_DEPTH",
           "auto_storage", "block_rams_per_buffer", "deadlock_proof", "OptionError",
           "default_broadcast_vcs"]




#: Flit storage of the input buffers: the FIFO logic that builds each (the words,
#: :data:`~cubefab.hdl.options.BUFFER_CHOICES`, and the rule's constants
#: :data:`BLOCK_RAMS` and :data:`AUTO_MEMORY_DEPTH` are :mod:`cubefab.hdl.options`').
BUFFERS = {REGISTERS: register_fifo_logic, MEMORY: memory_fifo_logic,
           DISTRIBUTED: distributed_fifo_logic}

#: :data:`BUFFERS` on a part with LUT RAM (ECP5, Gowin): block RAM buffers keep their
#: routes in LUT RAM rather than in registers, whose read multiplexer grows with the
#: depth (the iCE40's stay in registers, which its synthesis would build from a LUT
#: RAM anyway; docs/router-design.md, "Which buffer per family").
LUT_RAM_BUFFERS = {**BUFFERS, MEMORY: memory_lut_ram_head_fifo_logic}

#: The shapes (entries, bits) an ``SB_RAM40_4K`` can take.
_BLOCK_RAM_SHAPES = ((256, 16), (512, 8), (1024, 4), (2048, 2))

@dataclass(frozen=True)
class RouterDefaults:
    """The defaults of the router parameters a front end leaves unsaid: one set per
    kind of design, kept here so that every command, and its ``--help``, states the
    same ones.

    Parameters
    ----------
    depth : int
        Flits of buffering per input VC.
    vcs_per_class : int
        VCs of each VC class.
    payload_width : int
        Payload bits per flit.
    """

    depth: int = 4
    vcs_per_class: int = 1
    payload_width: int = 16

    def __post_init__(self):
        for name in ("depth", "vcs_per_class", "payload_width"):
            check_option(name, getattr(self, name))


#: The router a design gets by default (:class:`RouterConfig`'s own defaults): 4-flit
#: buffers (one flit per cycle on one VC across the credit loop), one VC per class,
#: 16-bit payloads (``cubefab verilog``, ``synth``).
HARDWARE_DEFAULTS = RouterDefaults()

#: The router the simulations run by default (``cubefab sim``, ``sweep``, ``demo``,
#: ``compare --simulate``): :data:`HARDWARE_DEFAULTS`, the router ``verilog`` and
#: ``synth`` build, so that what is measured is what is built. The self-checking
#: traffic carries its timestamp and sequence number over as many flits of a packet
#: as they take (:class:`~cubefab.hdl.traffic_gen.PacketFormat`). More VCs per class and
#: deeper buffers saturate later (DLH(4,3): 75.5% of the channel-load bound with 2 VCs
#: per class and 8-flit buffers against 49.8%; docs/simulation.md), at a cost in logic.
SIMULATION_DEFAULTS = HARDWARE_DEFAULTS

#: The router of the self-checking fabric on a board (``cubefab board``):
#: :data:`HARDWARE_DEFAULTS` too. Its fabrics fit the boards' parts: Q(1) on the
#: iCEstick's HX1K and Q(2) on the iCEBreaker's UP5K (docs/cli-hardware.md gives their
#: logic cells); the narrower router the boards had (``--depth 2 --payload-width 8``)
#: is an option away.
BOARD_DEFAULTS = HARDWARE_DEFAULTS


def auto_storage(depth, block_rams, budget=BLOCK_RAMS, memory_depth=AUTO_MEMORY_DEPTH,
                 distributed_depth=0):
    """The storage the ``"auto"`` buffer rule picks for buffers of ``depth`` flits whose
    memories take ``block_rams`` block RAMs in all, on a device of ``budget`` whose
    family keeps buffers of at least ``memory_depth`` flits in block RAM and, when
    ``distributed_depth`` is not 0, buffers of at least ``distributed_depth`` flits
    in LUT RAM: ``"memory"`` when ``depth >= memory_depth`` and they fit, else
    ``"distributed"`` when ``0 < distributed_depth <= depth``, else
    ``"registers"``."""
    if depth >= memory_depth and block_rams <= budget:
        return MEMORY
    if 0 < distributed_depth <= depth:
        return DISTRIBUTED
    return REGISTERS


def block_rams_per_buffer(width, depth):
    """``SB_RAM40_4K`` block RAMs that a ``depth``-entry memory of ``width``-bit entries
    takes (the fewest over the shapes a block RAM can take; 0 for 0 bits)."""
    check_int("Buffer width", width, 0)
    check_int("Buffer depth", depth, 1)
    if not width:
        return 0
    return min(math.ceil(width / bits) * math.ceil(depth / entries)
               for entries, bits in _BLOCK_RAM_SHAPES)


def _check_routing(routing):
    if not isinstance(routing, Routing):
        raise TypeError(f"Routing must be Deterministic(), Adaptive(...) or "
                        f"Waypoints(...) (a modes.Routing), not {routing!r}")


@dataclass(frozen=True)
class RouterConfig:
    """Everything a :class:`~cubefab.hdl.router.Router` is built from but its node.

    Parameters
    ----------
    topology : Topology
        The network; ports are numbered as in conventions.md.
    algorithm : str
        Routing algorithm (one of ``topology.algorithms``).
    vcs : int
        Virtual channels per link of the deterministic routing (a multiple of
        ``vcs_per_class``; with ``adaptive_vcs``, the escape VCs of the escape routing,
        :func:`~cubefab.topology.adaptive.escape_algorithm`);
        :meth:`for_topology` defaults it to what the VC-assignment function of
        :mod:`cubefab.topology.deadlock` needs to be deadlock-free, times
        ``vcs_per_class``.
    depth : int
        Flits of buffering per input virtual channel (>= 1; 4 sustains one flit per
        cycle on one VC across the credit loop).
    payload_width : int
        Width of a flit's ``payload`` field.
    vcs_per_class : int
        VCs of each class (a power of two; consecutive VC numbers). The
        VC-assignment function picks a packet's class on each hop, its flow the VC
        within the class (:func:`cubefab.topology.deadlock.flow_lane`): flows spread
        over more buffers (less head-of-line blocking) and each stays in order.
        Deadlock freedom is the class-level property.
    buffer : str
        Flit storage of the input buffers, one of :data:`BUFFER_CHOICES`:
        ``"registers"`` (flip-flops; fastest in the Python simulator),
        ``"memory"`` (``lib.memory`` read synchronously, block RAM on FPGAs: fewer
        LUTs and flip-flops), ``"distributed"`` (``lib.memory`` read
        asynchronously: LUT RAM on the ECP5 and Gowin FPGAs, flip-flops on the
        iCE40) or ``"auto"`` (the default): the one :meth:`auto_buffer` picks,
        ``"memory"`` when buffers are at least ``memory_depth`` flits deep
        and the block RAMs of ``routers`` routers fit in ``block_ram_budget``,
        else ``"distributed"`` when ``distributed_depth`` is not 0 and buffers are at
        least that deep, ``"registers"`` otherwise. All have the same timing. The choice is made once,
        when the configuration is made: :attr:`storage` is what the router builds,
        :attr:`buffer_auto` whether the rule chose it.
    routers : int
        Routers of this configuration that share one device (1, the default; a
        :class:`FabricConfig` sets its node count): the ``"auto"`` rule counts the
        block RAMs of all of them.
    block_ram_budget : int
        Block RAMs of the device the ``"auto"`` rule sizes for (>= 0; default
        :data:`BLOCK_RAMS`, the iCE40 HX8K's 32).
    memory_depth : int
        The shortest buffer the ``"auto"`` rule keeps in block RAM on that device (>= 1;
        default :data:`AUTO_MEMORY_DEPTH`, measured on the iCE40; each device family's
        is ``cubefab.tools.devices.Family.auto_memory_depth``).
    distributed_depth : int
        The shortest buffer the ``"auto"`` rule keeps in LUT RAM (``"distributed"``)
        on that device when not in block RAM (>= 0; default 0: never, as on the
        iCE40, which has no LUT RAM; each family's is
        ``cubefab.tools.devices.Family.auto_distributed_depth``).
    turns : str
        One of :data:`TURNS`. ``"reference"``: the crossbar and arbiters connect
        only the turns (input port to output port) that reference routes make at the
        router's node (:func:`cubefab.topology.turns.router_turns`): all that a
        fabric of these routers ever needs, in less logic and a shorter critical
        path. ``"all"``: a flit on any input port may leave through any output port.
        With ``adaptive_vcs``, ``"reference"`` connects the turns adaptive routes make
        (:func:`~cubefab.topology.turns.adaptive_turns`).
    routing : Deterministic, Adaptive or Waypoints
        How the router routes (:mod:`cubefab.hdl.modes`). :class:`Deterministic` (the
        default): the algorithm's one port per destination. :class:`Adaptive` ``(vcs)``:
        adaptive routing (docs/router.md, "Adaptive routing") with ``vcs`` adaptive VCs
        per link, a power of two, numbered after the ``vcs`` escape VCs of the escape
        routing (Duato's protocol: :func:`~cubefab.topology.duato.check_adaptive`); its
        flits carry their escape class in a ``cls`` field. :class:`Waypoints`
        ``(count)``: routing by up to ``count`` (at most :data:`MAX_FAULT_WAYPOINTS`)
        waypoints around faults (:mod:`cubefab.topology.fault_routing`, docs/faults.md):
        its flits carry the waypoints, their count and the phase; a hop's VC is
        ``phase * C + class`` (``C = vcs // vcs_per_class`` classes per phase, the class
        restarting at 0 on each leg), so links have ``(count + 1) * vcs`` VCs; every
        turn is connected (a waypoint turns a packet anywhere).
    replication : Unicast, Broadcast or Multicast
        What the router copies. :class:`Unicast` (the default): nothing.
        :class:`Broadcast` ``(vcs, model)``: broadcast packets (flits with the ``bcast``
        bit) along the source's broadcast tree (docs/broadcast.md, "Replication in the
        router"), on ``vcs`` VCs per link numbered after the unicast VCs
        (:func:`~cubefab.topology.broadcast_deadlock.check_broadcast`; at least
        :func:`~cubefab.topology.broadcast_deadlock.required_broadcast_vcs` for a
        deadlock-free fabric); ``model="all-port"`` sends a packet's copies to all the
        tree's children at once, ``"one-port"`` one after another in the order of the
        one-port schedule (:func:`~cubefab.topology.broadcast_tree.one_port_tree`,
        :class:`~cubefab.hdl.route.one_port.OnePortSends`), along the one-port tree's
        links. :class:`Multicast` ``(vcs, form)``: all-port copies along the tree
        pruned to the members (:func:`~cubefab.topology.broadcast_tree.multicast_tree`),
        named by ``(dest, mmask)`` (``form="subcube"``) or by a bit per node
        (``"vector"``, networks of at most :data:`MAX_VECTOR_NODES` nodes). Broadcast
        packets must be at most ``depth`` flits long. One-port and multicast routers
        with address straps are built for at most 128 nodes
        (:func:`~cubefab.hdl.router.check_strapped`).
        Which routings, hops and replications combine: :func:`~cubefab.hdl.modes.refusal`.
    header : str
        One of :data:`~cubefab.hdl.flit.HEADERS`: where a packet's routing information
        travels (:class:`~cubefab.hdl.flit.FlitLayout`). ``"every"``:
        every flit repeats ``dest``, ``src`` (and ``cls``), and the router routes each
        flit by its own. ``"head"`` (the default,
        :data:`~cubefab.hdl.flit.DEFAULT_HEADER`): only the head carries them; the router keeps the
        route of each input VC's head in a register and routes the packet's body and
        tail flits by it, so that they carry payload in every bit but the flit-type
        bits and ``vc`` (docs/router.md, "Flit formats"); a replicating router keeps
        each broadcast VC's copies so, a fault-tolerant one its waypoint routes (its
        ``cut`` bit is a flit-type bit then).
    hop : str
        One of :data:`HOPS`: how a flit crosses the router (docs/router.md, "One cycle
        per hop"). ``"buffered"`` (the default): every flit enters its input buffer,
        where its route is computed from ``dest``, and leaves it a cycle later at the
        earliest (two cycles a hop). ``"lookahead"``: a head flit carries ``next_port``,
        its output port at the router it travels to, computed by the router before it
        (the route unit of that neighbour; at injection the router's own), and a flit
        arriving at an empty input VC that wins its output goes straight to the output
        register (a cycle a hop at zero load; its buffer slot's credit goes back at
        once). An adaptive router's head carries the neighbour's escape port in
        ``next_port`` and its adaptive ports in ``next_offered`` (that neighbour's
        adaptive route unit), from which the neighbour chooses as it would from its
        own unit's; a fault-tolerant router's ``next_port`` is the neighbour's waypoint
        step's port; a replicating router's copies are replicated at every router (two
        cycles a hop).
    link_stages : int
        Registers on every link into the router (0, the default, to
        :data:`~cubefab.hdl.options.MAX_LINK_STAGES`), for the flits that arrive and
        for the credits that come back alike (:mod:`~cubefab.hdl.router.link_stage`):
        no logic between a neighbour's output register and the first of them, so a
        placer can put it halfway along a long link. Each adds a cycle to every hop
        and two to a credit's round trip: ``depth`` ``4 + 2 * link_stages`` keeps one
        VC at a flit a cycle. Routing, VCs and every guarantee are unchanged.

    Raises
    ------
    TypeError, ValueError
        If a parameter is not one of the values allowed above.
    """

    topology: Topology
    _: dataclasses.KW_ONLY
    algorithm: str
    vcs: int
    depth: int = HARDWARE_DEFAULTS.depth
    payload_width: int = HARDWARE_DEFAULTS.payload_width
    vcs_per_class: int = HARDWARE_DEFAULTS.vcs_per_class
    buffer: str = AUTO
    routers: int = 1
    block_ram_budget: int = BLOCK_RAMS
    memory_depth: int = AUTO_MEMORY_DEPTH
    distributed_depth: int = 0
    turns: str = "reference"
    routing: Deterministic | Adaptive | Waypoints = Deterministic()
    replication: Unicast | Broadcast | Multicast = Unicast()
    header: str = DEFAULT_HEADER
    hop: str = BUFFERED
    link_stages: int = 0
    #: str: the flit storage the router builds, a key of :data:`BUFFERS`: ``buffer``,
    #: or what :meth:`auto_buffer` picks for ``buffer="auto"``
    storage: str = dataclasses.field(init=False)

    def __post_init__(self):
        if not isinstance(self.topology, Topology):
            raise TypeError(f"Topology must be a cubefab Topology, not {self.topology!r}")
        if self.algorithm is None:
            raise TypeError("Algorithm must be a routing algorithm of the topology, not "
                            "None (RouterConfig.for_topology picks the default)")
        self.topology.check_algorithm(self.algorithm)
        for name in _CHECKED:   # ranges and choices: cubefab.hdl.options
            check_option(name, getattr(self, name))
        if self.vcs % self.vcs_per_class:
            raise OptionError("vcs", self.vcs,
                              f"a multiple of {{vcs_per_class}} = {self.vcs_per_class}")
        _check_routing(self.routing)
        if not isinstance(self.replication, Replication):
            raise TypeError(f"Replication must be Unicast(), Broadcast(...) or "
                            f"Multicast(...) (a modes.Replication), not {self.replication!r}")
        self.routing.check(self.topology, self.algorithm)
        self.replication.check(self.topology)
        refused = refusal(self.routing, self.hop, self.replication)
        if refused is not None:
            raise ConfigConflict(*refused)
        # resolved once, here: what the router reads
        object.__setattr__(self, "storage", self.auto_buffer() if self.buffer_auto
                           else self.buffer)

    @property
    def buffer_auto(self):
        """bool: whether :attr:`storage` was chosen by the ``"auto"`` rule."""
        return self.buffer == AUTO

    def auto_buffer(self):
        """The buffer ``"auto"`` picks for these parameters: ``"memory"`` when the
        buffers are at least :attr:`memory_depth` flits deep (on the iCE40 a block RAM
        then costs fewer LUTs than a flip-flop buffer's read multiplexer) and the block RAMs
        of :attr:`routers` routers (:attr:`block_rams` each) fit in
        :attr:`block_ram_budget`; else ``"distributed"`` when the buffers are at
        least :attr:`distributed_depth` (not 0) flits deep (LUT RAM: fewer LUTs and
        flip-flops than registers on ECP5 and Gowin); ``"registers"`` otherwise
        (shallow buffers, or a fabric whose buffers would not fit in the device's
        block RAM on a family without LUT RAM)."""
        return auto_storage(self.depth, self.routers * self.block_rams,
                            self.block_ram_budget, self.memory_depth,
                            self.distributed_depth)

    @property
    def buffer_logic(self):
        """The function that builds an input buffer of :attr:`storage` (a
        ``*_fifo_logic`` of :mod:`cubefab.hdl.fifo`): from :data:`LUT_RAM_BUFFERS` on a
        part with LUT RAM (:attr:`distributed_depth` not 0), else from
        :data:`BUFFERS`."""
        return (LUT_RAM_BUFFERS if self.distributed_depth else BUFFERS)[self.storage]

    def fifo_vcs(self, local=False):
        """int: the input VCs of a network port (of the local port with ``local``)
        that are buffered in FIFOs: all but the broadcast VCs (a replicating router
        keeps those in replicating queues, and its injection queue; an adaptive one
        has a unicast injection FIFO beside it, whose packets take the adaptive
        choice)."""
        if local:
            return 0 if self.broadcast and not self.adaptive else 1
        return self.link_vcs - self.broadcast_vcs

    @property
    def block_rams(self):
        """int: ``SB_RAM40_4K`` block RAMs the input buffers of one router take with
        ``buffer="memory"``: one memory of :attr:`depth` flits per FIFO-buffered input
        VC (:func:`block_rams_per_buffer`; the route bits beside each flit are kept in
        flip-flops)."""
        fifos = self.topology.degree * self.fifo_vcs() + self.fifo_vcs(local=True)
        return fifos * block_rams_per_buffer(self.layout.size, self.depth)

    @classmethod
    def for_topology(cls, topology, *, algorithm=None, vcs=None, vcs_per_class=1,
                     routing=None, **settings):
        """The configuration for ``topology`` with its default ``algorithm`` (when
        ``None``), :meth:`default_routing` (when ``routing`` is ``None``) and, when
        ``vcs`` is ``None``, :meth:`default_vcs`; ``settings`` are the other
        parameters."""
        if not isinstance(topology, Topology):
            raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
        algorithm = topology.check_algorithm(algorithm)
        if routing is None:
            routing = cls.default_routing(topology, algorithm, vcs_per_class)
        if vcs is None:
            vcs = cls.default_vcs(topology, algorithm, vcs_per_class, routing)
        return cls(topology, algorithm=algorithm, vcs=vcs, vcs_per_class=vcs_per_class,
                   routing=routing, **settings)

    @staticmethod
    def default_routing(topology, algorithm, vcs_per_class=1):
        """The routing by default: :class:`Deterministic`, but :class:`Adaptive` with
        ``vcs_per_class`` adaptive VCs for an algorithm that is deadlock-free only
        adaptively (:func:`~cubefab.topology.adaptive.needs_adaptive`, the Mcube's
        ``mroute``)."""
        if needs_adaptive(topology, algorithm):
            return Adaptive(vcs_per_class)
        return Deterministic()

    @staticmethod
    def default_vcs(topology, algorithm, vcs_per_class=1, routing=Deterministic()):
        """``vcs`` by default: the classes the VC assignment of ``algorithm`` (with
        :class:`Adaptive` ``routing``: of its escape routing) needs, times
        ``vcs_per_class``."""
        check_option("vcs_per_class", vcs_per_class)
        _check_routing(routing)
        return required_vcs(topology, routing.vc_algorithm(topology, algorithm)) * vcs_per_class

    @property
    def adaptive_vcs(self):
        """int: adaptive VCs per link (0 unless the routing is :class:`Adaptive`)."""
        return self.routing.adaptive_vcs

    @property
    def fault_waypoints(self):
        """int: waypoints a header holds (0 unless the routing is :class:`Waypoints`)."""
        return self.routing.waypoints

    @property
    def broadcast_vcs(self):
        """int: broadcast VCs per link (0 for a :class:`Unicast` router)."""
        return self.replication.vcs

    @property
    def broadcast_model(self):
        """str: how copies go out, ``"all-port"`` or ``"one-port"``."""
        return self.replication.model

    @property
    def multicast(self):
        """str or False: the multicast form (``"subcube"``, ``"vector"``), or False."""
        return self.replication.form

    @property
    def adaptive(self):
        """bool: whether the router routes adaptively (``adaptive_vcs > 0``)."""
        return self.adaptive_vcs > 0

    @property
    def lookahead(self):
        """bool: whether flits carry their next router's port and bypass empty buffers
        (``hop == "lookahead"``)."""
        return self.hop == LOOKAHEAD

    @property
    def broadcast(self):
        """bool: whether the router replicates broadcasts (``broadcast_vcs > 0``)."""
        return self.broadcast_vcs > 0

    @property
    def floods(self):
        """bool: whether broadcasts flood a spanning tree of the healthy network that is
        written at run time (a fault-tolerant replicating router:
        :mod:`~cubefab.hdl.route.flood`) instead of following the fault-free trees."""
        return bool(self.fault_waypoints) and self.broadcast

    @property
    def link_vcs(self):
        """int: VCs per link, ``vcs + adaptive_vcs + broadcast_vcs`` (escape VCs, then
        adaptive ones, then broadcast ones); with ``fault_waypoints``,
        ``(fault_waypoints + 1) * vcs`` (one set per phase)."""
        return self.phases * self.vcs + self.adaptive_vcs + self.broadcast_vcs

    @property
    def phases(self):
        """int: waypoint phases, ``fault_waypoints + 1`` (1 without fault tolerance)."""
        return self.fault_waypoints + 1

    @property
    def class_width(self):
        """int: width of a flit's ``cls`` field: the escape class an adaptive router's
        packets carry (0 for a deterministic router, or one class)."""
        return (self.vc_classes - 1).bit_length() if self.adaptive else 0

    @property
    def vc_classes(self):
        """int: number of VC classes (``vcs // vcs_per_class``)."""
        return self.vcs // self.vcs_per_class

    @property
    def layout(self):
        """FlitLayout: the flits of links of this configuration."""
        return FlitLayout(self.topology.address_bits, self.payload_width, self.link_vcs,
                          self.class_width, self.fault_waypoints, broadcast=self.broadcast,
                          multicast=bool(self.multicast),
                          member_bits=self.topology.num_nodes if self.multicast == VECTOR
                          else 0, header=self.header,
                          next_port_bits=self.topology.port_width if self.lookahead else 0,
                          next_offered_bits=(self.topology.degree
                                             if self.lookahead and self.adaptive else 0))

    def as_dict(self):
        """The parameters but the topology, as a JSON-able dict
        (:func:`~cubefab.hdl.options.router_dict`, the one serialisation: the
        ``router`` of every ``--json``): the routing and replication parts as flat
        fields; ``buffer`` is the storage used (:attr:`storage`) and ``buffer_auto``
        whether the ``"auto"`` rule chose it; ``routers``, ``block_ram_budget``,
        ``memory_depth``, ``distributed_depth``, ``broadcast_vcs``, ``multicast``,
        ``broadcast_model``, ``header`` and ``hop`` only when not their defaults, so
        that reports of other routers are unchanged; a routing or replication part's own fields beyond these
        (:func:`~cubefab.hdl.modes.mode_fields`) after them."""
        return {**router_dict(self), **mode_fields(self.routing, self.replication)}

    @classmethod
    def from_dict(cls, topology, fields):
        """The configuration of ``topology`` that :meth:`as_dict` ``fields`` describe
        (its inverse; ``buffer_auto`` makes ``buffer`` ``"auto"``, and the flat mode
        fields make the parts, :func:`~cubefab.hdl.modes.parts`); fields left out take
        their defaults (:meth:`for_topology`)."""
        fields = dict(fields)
        if fields.pop("buffer_auto", False):
            fields["buffer"] = AUTO
        modes = {name: fields.pop(name) for name in MODE_FIELDS if name in fields}
        return cls.for_topology(topology, **fields, **parts(**modes))


#: The fields of :class:`RouterConfig` that :mod:`cubefab.hdl.options` has a range or
#: choices for (the routing and replication parts check their own).
_CHECKED = tuple(name for name, declared in OPTIONS.items() if declared.checked
                 and name in RouterConfig.__dataclass_fields__)


def default_broadcast_vcs(topology, broadcast_model=ALL_PORT, fault_waypoints=0):
    """The broadcast VCs a replicating router gets unless told: 1 for a fault-tolerant
    router (``fault_waypoints``: it floods one spanning tree,
    :func:`~cubefab.hdl.modes.refusal`), else what the broadcast trees of
    ``broadcast_model`` need to be deadlock-free
    (:func:`~cubefab.topology.broadcast_deadlock.required_broadcast_vcs`). The one
    rule of the command line, :meth:`SelfCheckRun.of
    <cubefab.sim.run_spec.SelfCheckRun.of>` and the broadcast runs."""
    if fault_waypoints:
        return 1
    return required_broadcast_vcs(topology, broadcast_model)


def deadlock_proof(router):
    """The deadlock proof of a fabric of ``router`` routers (a :class:`RouterConfig`),
    which its routing part gives (:meth:`~cubefab.hdl.modes.Routing.deadlock_proof`):
    for adaptive routers Duato's condition on their escape VCs
    (:func:`~cubefab.topology.duato.check_adaptive`; replicating ones beside the
    broadcast trees': :func:`~cubefab.topology.broadcast_deadlock.check_adaptive_broadcast`),
    for replicating routers the
    unicast graph with the broadcast trees'
    (:func:`~cubefab.topology.broadcast_deadlock.check_broadcast`), else the channel
    dependency graph (:func:`~cubefab.topology.deadlock.check_deadlock_free`). The VCs
    of a class are interchangeable: the class-level graph decides. Returns the report
    (``deadlock_free``, the cycle when there is one); what :class:`FabricConfig`
    checks and ``cubefab deadlock`` prints (waypoint routers: the graph of their
    fault-free routing; each fault set is proven when its tables are planned)."""
    if not isinstance(router, RouterConfig):
        raise TypeError(f"Router configuration must be a RouterConfig, not {router!r}")
    return router.routing.deadlock_proof(router)


@dataclass(frozen=True)
class FabricConfig:
    """Everything a :class:`~cubefab.hdl.fabric.Fabric` is built from.

    Parameters
    ----------
    router : RouterConfig
        The configuration of every router (with ``turns="reference"``, each router
        connects the turns reference routes make at its node: all the fabric needs).
        The fabric keeps it with ``routers`` set to the node count, so that a
        ``buffer="auto"`` router keeps its flits in block RAM only when the block
        RAMs of the whole fabric fit in its ``block_ram_budget``.
    check_deadlock : bool
        Prove the configuration deadlock-free when it is made (default True).

    Raises
    ------
    DeadlockError
        If ``check_deadlock`` and the channel dependency graph of the configuration
        (adaptive routers: Duato's extended graph; replicating routers: the unicast
        graph with the broadcast trees', :func:`check_broadcast`) has a cycle; the
        message shows it.
    """

    router: RouterConfig
    check_deadlock: bool = True

    def __post_init__(self):
        if not isinstance(self.router, RouterConfig):
            raise TypeError(f"Router configuration must be a RouterConfig, "
                            f"not {self.router!r}")
        if not isinstance(self.check_deadlock, bool):
            raise TypeError(f"Deadlock check must be a bool, not {self.check_deadlock!r}")
        if self.router.routers != self.topology.num_nodes:   # the auto buffer's count
            object.__setattr__(self, "router", dataclasses.replace(
                self.router, routers=self.topology.num_nodes))
        if self.check_deadlock:
            report = deadlock_proof(self.router)
            if not report.deadlock_free:
                raise (BroadcastDeadlockError
                       if self.router.broadcast and not self.router.adaptive
                       else DeadlockError)(report)

    @classmethod
    def for_topology(cls, topology, *, check_deadlock=True, **router):
        """The configuration of a fabric of ``topology`` whose routers have
        :meth:`RouterConfig.for_topology` ``(topology, **router)``."""
        return cls(RouterConfig.for_topology(topology, **router),
                   check_deadlock=check_deadlock)

    @property
    def topology(self):
        """Topology: the network."""
        return self.router.topology
