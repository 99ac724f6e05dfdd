"""The parts a router configuration is made of: how it routes, how it replicates, and
which of their combinations the router builds.

A :class:`~cubefab.hdl.config.RouterConfig` holds one *routing* part
(:class:`Deterministic`, :class:`Adaptive` or :class:`Waypoints`) and one *replication*
part (:class:`Unicast`, :class:`Broadcast` or :class:`Multicast`) beside its hop
(``"buffered"`` or ``"lookahead"``). Each part checks its own parameters and what it
needs of the topology's routing algorithm; :func:`refusal` is the one place that says
which combinations of routing, hop and replication the router does not build, and why
(:func:`combinations` tabulates all of them).
"""

from dataclasses import dataclass

from ..topology.adaptive import escape_algorithm
from ..topology.fault_routing import DEFAULT_WAYPOINTS, leg_algorithm
from .options import (ALL_PORT, HOPS, MAX_FAULT_WAYPOINTS, ONE_PORT, SUBCUBE, VECTOR,
                      check_option)


__all__ = ["ConfigConflict", "Deterministic", "Adaptive", "Waypoints", "Unicast", "Broadcast", "Multicast",
           "ROUTINGS", "REPLICATIONS", "MAX_FAULT_WAYPOINTS", "MAX_VECTOR_NODES",
           "MODE_FIELDS", "parts", "refusal", "combinations"]

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


@dataclass(frozen=True)
class Deterministic:
    """Routing by the topology's algorithm, one port per destination."""

    #: str: the routing's name in tables and errors
    kind = "deterministic"

    def check(self, topology, algorithm):
        """Nothing to check: every algorithm routes deterministically."""

    @property
    def fields(self):
        """dict: the routing as the flat fields of reports (none)."""
        return {}


@dataclass(frozen=True)
class Adaptive:
    """Adaptive minimal routing over escape VCs (Duato's protocol): ``vcs`` adaptive VCs
    per link (a power of two) beside the escape VCs of the escape routing
    (:func:`~cubefab.topology.adaptive.escape_algorithm`)."""

    vcs: int = 1
    kind = "adaptive"

    def __post_init__(self):
        check_option("adaptive_vcs", self.vcs)

    def check(self, topology, algorithm):
        """The algorithm must have an escape routing that reads only the destination."""
        escape_algorithm(topology, algorithm)

    @property
    def fields(self):
        return {"adaptive_vcs": self.vcs}


@dataclass(frozen=True)
class Waypoints:
    """Fault-tolerant routing by up to ``count`` waypoints around faults
    (:mod:`cubefab.topology.fault_routing`): one VC set per phase, every turn
    connected."""

    count: int = DEFAULT_WAYPOINTS
    kind = "waypoint"

    def __post_init__(self):
        check_option("fault_waypoints", self.count)

    def check(self, topology, algorithm):
        """Each leg routes by an algorithm that reads only the destination."""
        leg_algorithm(topology, algorithm)

    @property
    def fields(self):
        return {"fault_waypoints": self.count}


@dataclass(frozen=True)
class Unicast:
    """No replication: every packet has one destination."""

    kind = "none"

    def check(self, topology):
        """Nothing to check."""

    @property
    def fields(self):
        return {}


@dataclass(frozen=True)
class Broadcast:
    """Replication of broadcast packets along the source's broadcast tree on ``vcs``
    broadcast VCs per link (:func:`~cubefab.topology.broadcast_deadlock.check_broadcast`),
    all copies at once (``model="all-port"``) or one after another in the one-port
    schedule's order (``"one-port"``)."""

    vcs: int = 1
    model: str = ALL_PORT

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


#: Largest network whose flits may carry an explicit member vector
#: (``Multicast(form="vector")``): a bit per node in every flit.
MAX_VECTOR_NODES = 256


@dataclass(frozen=True)
class Multicast:
    """All-port replication along the broadcast tree pruned to a packet's members, on
    ``vcs`` broadcast VCs per link: the subcube ``(dest, mmask)`` (``form="subcube"``)
    or a bit per node (``"vector"``, networks of at most :data:`MAX_VECTOR_NODES`
    nodes)."""

    vcs: int = 1
    form: str = SUBCUBE

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
