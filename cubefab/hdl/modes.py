"""The parts a router configuration is made of: how it routes, how it replicates, and
which of their combinations the router builds.

A :class:`~cubefab.hdl.config.RouterConfig` holds one *routing* part
(:class:`Deterministic`, :class:`Adaptive` or :class:`Waypoints`) and one *replication*
part (:class:`Unicast`, :class:`Broadcast` or :class:`Multicast`) beside its hop
(``"buffered"`` or ``"lookahead"``). Each part checks its own parameters and what it
needs of the topology's routing algorithm; :func:`refusal` is the one place that says
which combinations of routing, hop and replication the router does not build, and why
(:func:`combinations` tabulates all of them).

A part is the one object that carries its mode to every layer: every routing is a
:class:`Routing`, every replication a :class:`Replication`, and the router, the
self-checking node, the deadlock proof and the simulation engines ask the part (its
route stage, its turns, its proof, its self-checking events and configuration inputs,
the VCs it adds, the reference rule both engines check its flits by) instead of
testing which part it is. A new mode is a new part
(docs/extending.md, "Adding a router mode").
"""

import functools
from dataclasses import dataclass

from amaranth.lib.wiring import In, Out

from ..topology.adaptive import escape_algorithm
from ..topology.broadcast_deadlock import check_adaptive_broadcast, check_broadcast
from ..topology.broadcast_tree import (broadcast_tree, multicast_tree, one_port_tree,
                                       subcube_members)
from ..topology.deadlock import check_deadlock_free
from ..topology.duato import check_adaptive
from ..topology.fault_broadcast import check_flood_deadlock, healthy_tree
from ..topology.fault_routing import (DEFAULT_WAYPOINTS, FaultSet, leg_algorithm,
                                      plan_waypoints)
from ..topology.references import (AdaptiveReference, AnyReference, BroadcastReference,
                                   FloodReference, NoCopies, RouteReference,
                                   WaypointReference)
from ..topology.turns import adaptive_turns, router_turns
from .route.flood import flood_layout
from .options import (ALL_PORT, HOPS, MAX_FAULT_WAYPOINTS, ONE_PORT, SUBCUBE, VECTOR,
                      check_option)


__all__ = ["ConfigConflict", "Routing", "Replication", "Deterministic", "Adaptive",
           "Waypoints", "Unicast", "Broadcast", "Multicast",
           "ROUTINGS", "REPLICATIONS", "MAX_FAULT_WAYPOINTS", "MAX_VECTOR_NODES",
           "MODE_FIELDS", "FAULT_EVENTS", "BROADCAST_EVENTS", "CONFIG_INPUTS", "FLOOD_INPUT",
           "parts", "mode_fields", "refusal", "combinations"]

#: The flat report fields the routing and replication parts stand for (:func:`parts`).
MODE_FIELDS = ("adaptive_vcs", "fault_waypoints", "broadcast_vcs", "broadcast_model",
               "multicast")


class ConfigConflict(ValueError):
    """Two or more parameters of a :class:`RouterConfig` that each are valid but
    cannot be built together.

    Parameters
    ----------
    reason : str
        Why, in words (the message without the parameters).
    values : dict
        The parameters in conflict (``{field name: value}``), the one whose mode
        refuses the others first: a front end names them as its user gave them
        (a command line's options, :mod:`cubefab.commands.router_options`).
    """

    def __init__(self, reason, values):
        self.reason = reason
        self.values = dict(values)
        super().__init__(f"{reason}, not " + " with ".join(
            f"{name} = {value!r}" for name, value in self.values.items()))


#: The self-checking events a node with replicating routers adds: broadcasts injected
#: (heads) and broadcast copies delivered. Its ``created``, ``refused``, ``injected`` and
#: ``injected_flits`` then count copies: ``N - 1`` for a broadcast.
BROADCAST_EVENTS = ("broadcasts", "copies_delivered")

#: The self-checking events a fault-tolerant node adds: packets drawn to a destination
#: its source table refuses; flits its router dropped at a failed link
#: (``lost_to_fault``), of which heads (``dropped``: packets dropped whole); packets its
#: checker received cut short by a failed link (``cut``).
FAULT_EVENTS = ("unroutable", "lost_to_fault", "dropped", "cut")

#: The fault configuration port of a fault-tolerant node (and fabric): while
#: ``config_write`` is 1, ``config_entry`` is written at ``config_dest`` of the source
#: table of node ``config_node`` (:class:`~cubefab.hdl.source_table.SourceTable`), and
#: every generator stands still.
CONFIG_INPUTS = ("config_write", "config_node", "config_dest", "config_entry")

#: The input a node whose router floods broadcasts (``RouterConfig.floods``) adds to
#: the configuration port: while it is 1, a write sets word ``config_dest`` of the
#: node's flood configuration instead of a table entry
#: (:func:`~cubefab.hdl.selfcheck_node.flood_writes`).
FLOOD_INPUT = "config_flood"


@functools.lru_cache(maxsize=16)
def _adaptive_proof(topology, algorithm, classes, adaptive_vcs=1):
    # (the verdict does not depend on the number of adaptive VCs; the report names it)
    return check_adaptive(topology, algorithm, classes, adaptive_vcs)


@functools.lru_cache(maxsize=16)
def _adaptive_broadcast_proof(topology, algorithm, classes, adaptive_vcs, broadcast_vcs,
                              model):
    return check_adaptive_broadcast(topology, algorithm, classes, adaptive_vcs,
                                    broadcast_vcs, model)


@functools.lru_cache(maxsize=16)
def _flood_proof(topology, algorithm, classes):
    """The proof of fault-tolerant replicating routers without faults: their unicast
    routing's graph (the waypoint routers' fault-free routing), and flooding the
    healthy tree on the one broadcast VC (:func:`check_flood_deadlock`). The two share
    no channel and no dependency (no packet changes between unicast and broadcast VCs,
    and delivery is a sink), so the union is acyclic exactly when each part is; each
    fault set is proven when its tables and tree are planned."""
    report = check_deadlock_free(topology, algorithm, classes)
    free, cycle = check_flood_deadlock(healthy_tree(topology))
    if not free:   # pragma: no cover - a walk on a tree closes no cycle
        raise ValueError(f"flooding the spanning tree of {topology.label} can deadlock: "
                         f"{cycle}")
    return report


@functools.lru_cache(maxsize=16)
def _broadcast_proof(topology, algorithm, classes, broadcast_vcs, model):
    return check_broadcast(topology, algorithm, classes, broadcast_vcs, model=model)


class Routing:
    """How a router routes: the part of a :class:`~cubefab.hdl.config.RouterConfig`
    that every layer asks about its routing. A subclass is a frozen dataclass that
    sets :attr:`kind` and writes :meth:`check`, :attr:`fields` and :meth:`route_stage`;
    the rest has the defaults of deterministic routing.
    """

    #: str: the routing's name in tables and errors
    kind = None
    #: int: adaptive VCs per link, numbered after the unicast ones (0: none)
    adaptive_vcs = 0
    #: int: waypoints a header holds (0: none); links get ``(waypoints + 1) * vcs``
    #: unicast VCs, one set per phase
    waypoints = 0
    #: tuple of str: the self-checking events a node of this routing adds to
    #: :data:`~cubefab.hdl.selfcheck_node.NODE_EVENTS`
    events = ()
    #: bool: whether a flow's packets arrive in order (the checks count ``reordered``
    #: as an error); adaptive routing may reorder them
    in_order = True
    #: bool: whether a packet may be dropped whole (at a failed link), leaving a gap in
    #: its flow that the hardware checkers do not count as an error
    loses_packets = False
    #: bool: whether a hop's VC is the VC-assignment function's of the input VC
    #: (:func:`~cubefab.topology.deadlock.next_vc`), so that a router at a constant
    #: node knows it as a constant
    constant_vcs = True

    def check(self, topology, algorithm):
        """Raise ValueError unless the routing can route by ``algorithm``."""

    @property
    def fields(self):
        """dict: the routing as the flat fields of reports (:data:`MODE_FIELDS`)."""
        return {}

    def vc_algorithm(self, topology, algorithm):
        """The algorithm whose VC assignment gives the router's ``vcs`` by default
        (:meth:`~cubefab.hdl.config.RouterConfig.default_vcs`): ``algorithm``."""
        return algorithm

    def route_stage(self, hop):
        """The route stage (:class:`~cubefab.hdl.router.route_stage.RouteStage`) of a
        router of this routing with ``hop`` hops."""
        raise NotImplementedError(f"{type(self).__name__} has no route stage")

    def turns(self, topology, node, algorithm):
        """The turns ``(input port, output port)`` the routes of this routing make at
        ``node`` (``None``: any node), or None for every turn: what a router with
        ``turns="reference"`` connects."""
        return router_turns(topology, node, algorithm)

    def deadlock_proof(self, router):
        """The deadlock report of a fabric of ``router`` routers (a RouterConfig): the
        channel dependency graph of the algorithm's VC classes, beside the broadcast
        trees' when the router replicates."""
        if router.broadcast_vcs:
            return _broadcast_proof(router.topology, router.algorithm, router.vc_classes,
                                    router.broadcast_vcs, router.broadcast_model)
        return check_deadlock_free(router.topology, router.algorithm, router.vc_classes)

    def config_inputs(self, router):
        """The configuration port a self-checking node of ``router`` routers has
        (names of inputs; none)."""
        return ()

    def router_members(self, router):
        """The members a router of ``router`` (a RouterConfig) has besides its links,
        its local port and its straps (``{name: In(...) or Out(...)}``; none)."""
        return {}

    def reference(self, router, routings=None):
        """The reference rule both engines check the unicast flits of a fabric of
        ``router`` routers by (:mod:`cubefab.topology.references`): the
        deterministic routing's
        (:class:`~cubefab.topology.references.RouteReference`). ``routings``: the
        routings of the run's fault sets, where the routing plans them at run time
        (unread here)."""
        return RouteReference.of(router)

    def copy_reference(self, router, group=None, tree=None):
        """The reference rule of the broadcast copies of a fabric of ``router``
        routers: the replication's (:meth:`Replication.reference`; ``group``, a
        multicast group mask or None). ``tree``: the spanning tree a run's routers
        flood, where the routing floods (unread here)."""
        return router.replication.reference(router, group)

    def copy_stage(self, router):
        """How a router of ``router`` copies broadcasts (a
        :class:`~cubefab.hdl.router.copies.CopyStage`): the replication's
        (:meth:`Replication.copy_stage`)."""
        return router.replication.copy_stage()


@dataclass(frozen=True)
class Deterministic(Routing):
    """Routing by the topology's algorithm, one port per destination."""

    kind = "deterministic"

    def check(self, topology, algorithm):
        """Nothing to check: every algorithm routes deterministically."""

    def route_stage(self, hop):
        from .router.route_stage import DeterministicStage, LookaheadStage
        return LookaheadStage() if hop == "lookahead" else DeterministicStage()


@dataclass(frozen=True)
class Adaptive(Routing):
    """Adaptive minimal routing over escape VCs (Duato's protocol): ``vcs`` adaptive VCs
    per link (a power of two) beside the escape VCs of the escape routing
    (:func:`~cubefab.topology.adaptive.escape_algorithm`)."""

    vcs: int = 1
    kind = "adaptive"
    in_order = False
    constant_vcs = False

    def __post_init__(self):
        check_option("adaptive_vcs", self.vcs)

    @property
    def adaptive_vcs(self):
        return self.vcs

    def check(self, topology, algorithm):
        """The algorithm must have an escape routing that reads only the destination."""
        escape_algorithm(topology, algorithm)

    @property
    def fields(self):
        return {"adaptive_vcs": self.vcs}

    def vc_algorithm(self, topology, algorithm):
        """The escape routing's algorithm."""
        return escape_algorithm(topology, algorithm)

    def route_stage(self, hop):
        from .router.route_stage import AdaptiveLookaheadStage, AdaptiveStage
        return AdaptiveLookaheadStage() if hop == "lookahead" else AdaptiveStage()

    def turns(self, topology, node, algorithm):
        """The turns adaptive routes make (:func:`~cubefab.topology.turns.adaptive_turns`)."""
        return adaptive_turns(topology, node, algorithm)

    def deadlock_proof(self, router):
        """Duato's condition on the escape VCs (exactly the router's rule), beside the
        broadcast trees' graph when the router replicates."""
        if router.broadcast_vcs:
            return _adaptive_broadcast_proof(router.topology, router.algorithm,
                                             router.vc_classes, self.vcs,
                                             router.broadcast_vcs, router.broadcast_model)
        return _adaptive_proof(router.topology, router.algorithm, router.vc_classes,
                               self.vcs)

    def reference(self, router, routings=None):
        """The adaptive rule (:class:`~cubefab.topology.references.AdaptiveReference`)."""
        return AdaptiveReference.of(router)


@dataclass(frozen=True)
class Waypoints(Routing):
    """Fault-tolerant routing by up to ``count`` waypoints around faults
    (:mod:`cubefab.topology.fault_routing`): one VC set per phase, every turn
    connected."""

    count: int = DEFAULT_WAYPOINTS
    kind = "waypoint"
    events = FAULT_EVENTS
    constant_vcs = False
    loses_packets = True

    def __post_init__(self):
        check_option("fault_waypoints", self.count)

    @property
    def waypoints(self):
        return self.count

    def check(self, topology, algorithm):
        """Each leg routes by an algorithm that reads only the destination."""
        leg_algorithm(topology, algorithm)

    @property
    def fields(self):
        return {"fault_waypoints": self.count}

    def route_stage(self, hop):
        from .router.route_stage import WaypointLookaheadStage, WaypointStage
        return WaypointLookaheadStage() if hop == "lookahead" else WaypointStage()

    def turns(self, topology, node, algorithm):
        """Every turn (a waypoint turns a packet anywhere)."""
        return None

    def deadlock_proof(self, router):
        """The graph of the fault-free routing (each fault set is proven when its
        tables are planned), beside flooding the healthy tree when the router
        replicates."""
        if router.broadcast_vcs:
            return _flood_proof(router.topology, router.algorithm, router.vc_classes)
        return check_deadlock_free(router.topology, router.algorithm, router.vc_classes)

    def config_inputs(self, router):
        """:data:`CONFIG_INPUTS` (the source tables), and :data:`FLOOD_INPUT` where the
        router floods broadcasts."""
        return CONFIG_INPUTS + ((FLOOD_INPUT,) if router.broadcast_vcs else ())

    def router_members(self, router):
        """The link status ``link_up`` and the drops ``lost_to_fault`` and
        ``lost_heads`` (:class:`~cubefab.hdl.router.Router`), and the ``flood``
        configuration of a replicating router."""
        degree, topology = router.topology.degree, router.topology
        members = {"link_up": In(degree, init=(1 << degree) - 1),
                   "lost_to_fault": Out(degree), "lost_heads": Out(degree)}
        if router.broadcast_vcs:
            members["flood"] = In(flood_layout(topology, bool(router.multicast)))
        return members

    def reference(self, router, routings=None):
        """The waypoint routes of the run's fault sets, ``routings`` (one
        :class:`~cubefab.topology.fault_routing.WaypointRouting` each; by default the
        fault-free network's): :class:`~cubefab.topology.references.WaypointReference`,
        or with several (links failing mid-run)
        :class:`~cubefab.topology.references.AnyReference` of theirs."""
        if routings is None:
            topology = router.topology
            routings = [plan_waypoints(topology, FaultSet(topology), self.count,
                                       router.algorithm)]
        rules = [WaypointReference(r, router.vcs_per_class) for r in routings]
        return rules[0] if len(rules) == 1 else AnyReference(rules)

    def copy_reference(self, router, group=None, tree=None):
        """Replicating routers flood ``tree`` (by default the fault-free network's
        spanning tree, :func:`~cubefab.topology.fault_broadcast.healthy_tree`):
        :class:`~cubefab.topology.references.FloodReference` on the first broadcast
        VC."""
        if not router.broadcast_vcs:
            return super().copy_reference(router, group, tree)
        tree = healthy_tree(router.topology) if tree is None else tree
        return FloodReference(tree, router.link_vcs - router.broadcast_vcs, group)

    def copy_stage(self, router):
        """Replicating routers flood the healthy network's spanning tree written at
        run time (:class:`~cubefab.hdl.router.copies.FloodCopies`)."""
        if not router.broadcast_vcs:
            return super().copy_stage(router)
        from .router.copies import FloodCopies
        return FloodCopies(router.multicast or None, router.broadcast_model)


class Replication:
    """What a router copies: the part of a :class:`~cubefab.hdl.config.RouterConfig`
    that every layer asks about its replication. A subclass is a frozen dataclass
    that sets :attr:`kind` and writes :meth:`check` and :attr:`fields`; the defaults
    are those of a router that copies nothing."""

    #: str: the replication's name in tables and errors
    kind = None
    #: int: broadcast VCs per link, numbered after the unicast and adaptive ones
    #: (0: the router copies nothing)
    vcs = 0
    #: str: how copies go out, ``"all-port"`` or ``"one-port"``
    model = ALL_PORT
    #: str or False: the multicast form (``"subcube"``, ``"vector"``), or False
    form = False
    #: tuple of str: the self-checking events a node of this replication adds
    events = ()

    def check(self, topology):
        """Raise ValueError unless the replication can be built for ``topology``."""

    @property
    def fields(self):
        """dict: the replication as the flat fields of reports (:data:`MODE_FIELDS`)."""
        return {}

    def tree_children(self, topology, source, group=None):
        """The reference of the copies of a broadcast from ``source`` (what both
        engines' checks allow): per node (dense index), the ports (a bit each) it
        sends a copy on; ``group``, a multicast group mask or None. The broadcast
        tree's (:func:`~cubefab.topology.broadcast_tree.broadcast_tree`)."""
        return broadcast_tree(topology, source).children

    def reference(self, router, group=None):
        """The reference rule both engines check the broadcast copies of a fabric of
        ``router`` routers by: the trees of :meth:`tree_children` on the broadcast VCs
        (:class:`~cubefab.topology.references.BroadcastReference`), pruned to the
        multicast groups of mask ``group`` when given."""
        return BroadcastReference(router.topology, router.link_vcs - self.vcs, self, group)

    def copy_stage(self):
        """How the router copies (:class:`~cubefab.hdl.router.copies.CopyStage`):
        along the broadcast trees, all-port
        (:class:`~cubefab.hdl.router.copies.TreeCopies`)."""
        from .router.copies import TreeCopies
        return TreeCopies()


@dataclass(frozen=True)
class Unicast(Replication):
    """No replication: every packet has one destination."""

    kind = "none"

    def check(self, topology):
        """Nothing to check."""

    def reference(self, router, group=None):
        """No copy may cross a link (:class:`~cubefab.topology.references.NoCopies`)."""
        return NoCopies()

    def copy_stage(self):
        """No copies (:class:`~cubefab.hdl.router.copies.CopyStage` itself)."""
        from .router.copies import CopyStage
        return CopyStage()


@dataclass(frozen=True)
class Broadcast(Replication):
    """Replication of broadcast packets along the source's broadcast tree on ``vcs``
    broadcast VCs per link (:func:`~cubefab.topology.broadcast_deadlock.check_broadcast`),
    all copies at once (``model="all-port"``) or one after another in the one-port
    schedule's order (``"one-port"``)."""

    vcs: int = 1
    model: str = ALL_PORT
    events = BROADCAST_EVENTS

    def __post_init__(self):
        check_option("broadcast_vcs", self.vcs)
        check_option("broadcast_model", self.model)

    @property
    def kind(self):
        return f"{self.model} broadcast"

    def check(self, topology):
        """Nothing beyond the fabric's deadlock proof."""

    @property
    def fields(self):
        return {"broadcast_vcs": self.vcs,
                **({"broadcast_model": self.model} if self.model != ALL_PORT else {})}

    def copy_stage(self):
        """Along the trees all-port, or one copy after another in the one-port
        schedule's order (:class:`~cubefab.hdl.router.copies.OnePortCopies`)."""
        if self.model != ONE_PORT:
            return super().copy_stage()
        from .router.copies import OnePortCopies
        return OnePortCopies()

    def tree_children(self, topology, source, group=None):
        """The tree's children, or with the one-port model the ports each node sends
        to (:func:`~cubefab.topology.broadcast_tree.one_port_tree`)."""
        if self.model != ONE_PORT:
            return super().tree_children(topology, source, group)
        sends = one_port_tree(topology, source).sends
        return [sum(1 << p for _, p in sends[a]) for a in topology.nodes().tolist()]


#: Largest network whose flits may carry an explicit member vector
#: (``Multicast(form="vector")``): a bit per node in every flit.
MAX_VECTOR_NODES = 256


@dataclass(frozen=True)
class Multicast(Replication):
    """All-port replication along the broadcast tree pruned to a packet's members, on
    ``vcs`` broadcast VCs per link: the subcube ``(dest, mmask)`` (``form="subcube"``)
    or a bit per node (``"vector"``, networks of at most :data:`MAX_VECTOR_NODES`
    nodes)."""

    vcs: int = 1
    form: str = SUBCUBE
    events = BROADCAST_EVENTS

    def __post_init__(self):
        check_option("broadcast_vcs", self.vcs)
        check_option("multicast", self.form)

    @property
    def kind(self):
        return f"{self.form} multicast"

    @property
    def model(self):
        """str: multicast copies go out all-port."""
        return ALL_PORT

    def check(self, topology):
        if self.form == VECTOR and topology.num_nodes > MAX_VECTOR_NODES:
            raise ValueError(f"Member-vector multicast carries a bit per node in every "
                             f"flit; it is built for at most {MAX_VECTOR_NODES} nodes, "
                             f"not {topology.num_nodes} (use the subcube form)")

    @property
    def fields(self):
        return {"broadcast_vcs": self.vcs, "multicast": self.form}

    def copy_stage(self):
        """Along the tree pruned to the packet's members
        (:class:`~cubefab.hdl.router.copies.MulticastCopies`)."""
        from .router.copies import MulticastCopies
        return MulticastCopies(self.form)

    def tree_children(self, topology, source, group=None):
        """The tree pruned to the source's multicast group, the subcube
        ``(source, group)`` (:func:`~cubefab.topology.broadcast_tree.multicast_tree`;
        the whole tree without ``group``)."""
        if group is None:
            return super().tree_children(topology, source, group)
        return multicast_tree(topology, source,
                              subcube_members(topology, source, group)).children


#: Every routing, and every replication, a router can be asked for (one of each kind).
ROUTINGS = (Deterministic(), Adaptive(), Waypoints())
REPLICATIONS = (Unicast(), Broadcast(), Broadcast(model=ONE_PORT), Multicast(),
                Multicast(form=VECTOR))


def parts(adaptive_vcs=0, fault_waypoints=0, broadcast_vcs=0, broadcast_model=ALL_PORT,
          multicast=False):
    """The routing and replication parts of a router described by the flat fields of
    its reports (the inverse of the parts' ``fields``), as ``{"routing": ...,
    "replication": ...}``: for the interfaces that still take those fields one by one
    (the self-checking design, the broadcast runs).

    Raises
    ------
    ConfigConflict
        For fields that name two routings (adaptive and waypoints), or a broadcast
        model or multicast form without broadcast VCs.
    """
    if adaptive_vcs and fault_waypoints:
        raise ConfigConflict("Fault waypoints need deterministic routing",
                             {"fault_waypoints": fault_waypoints,
                              "adaptive_vcs": adaptive_vcs})
    routing = (Adaptive(adaptive_vcs) if adaptive_vcs else
               Waypoints(fault_waypoints) if fault_waypoints else Deterministic())
    if multicast is True:
        multicast = SUBCUBE
    if not broadcast_vcs:
        for name, value, default in (("multicast", multicast, False),
                                     ("broadcast_model", broadcast_model, ALL_PORT)):
            if value != default:
                what = "Multicast" if name == "multicast" else "A broadcast model"
                raise ConfigConflict(f"{what} needs broadcast VCs",
                                     {name: value, "broadcast_vcs": broadcast_vcs})
        return {"routing": routing, "replication": Unicast()}
    if multicast:
        if broadcast_model != ALL_PORT:
            raise ConfigConflict("Multicast needs the all-port broadcast model",
                                 {"multicast": multicast,
                                  "broadcast_model": broadcast_model})
        return {"routing": routing, "replication": Multicast(broadcast_vcs, multicast)}
    return {"routing": routing, "replication": Broadcast(broadcast_vcs, broadcast_model)}


def mode_fields(routing, replication):
    """The flat fields of ``routing`` and ``replication`` that are not
    :data:`MODE_FIELDS` (a part's own, ``{}`` for the parts of this module): what
    keys and reports add so that a new part's routers are told apart."""
    return {name: value for name, value in {**routing.fields, **replication.fields}.items()
            if name not in MODE_FIELDS}


def refusal(routing, hop, replication):
    """Why the router does not build ``routing`` with ``hop`` hops and ``replication``,
    as ``(reason, fields)`` (``fields``: the parts in conflict as flat report fields,
    the refusing one first), or None when it does. Both hops serve every routing and
    replication the buffered router builds (``hop`` refuses nothing)."""
    if isinstance(replication, Unicast):
        return None
    if isinstance(routing, Waypoints) and replication.vcs != 1:
        # (a walk on a tree that never turns back closes no cycle:
        # cubefab.topology.fault_broadcast.check_flood_deadlock)
        return ("A fault-tolerant router floods the healthy network's spanning tree on "
                "one broadcast VC, which is deadlock-free; more would stay unused",
                {**_first(replication.fields), **routing.fields})
    return None


def _first(fields):
    """The first of a part's fields (what names it in an error)."""
    return dict(list(fields.items())[:1])


def combinations(hops=HOPS):
    """Every combination of a routing of :data:`ROUTINGS`, a hop of ``hops`` and a
    replication of :data:`REPLICATIONS`: a list of dicts ``routing``, ``hop``,
    ``replication`` (kinds), ``built`` and ``reason`` (None when built)."""
    rows = []
    for routing in ROUTINGS:
        for hop in hops:
            for replication in REPLICATIONS:
                refused = refusal(routing, hop, replication)
                rows.append({"routing": routing.kind, "hop": hop,
                             "replication": replication.kind, "built": refused is None,
                             "reason": None if refused is None else refused[0]})
    return rows
