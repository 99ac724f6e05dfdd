"""Route units: the combinational per-hop routing decision of a router.

Every route unit is a :class:`RouteUnit`: built from a topology model and a node
address, it maps a packet's destination (and, for algorithms that read it, its
source) to an output port number, following the topology's ``next_port`` exactly.
The logic units (:class:`HypercubeRoute`, :class:`MetacubeRoute`, :class:`DLHRoute`,
:class:`McubeRoute`) are made of XORs with the node address, OR-reductions, priority
encoders and small functions generated from the reference model's tables;
:class:`TableRoute` looks the port up per destination and serves any topology.
:class:`WaypointRoute` puts fault-tolerant waypoint routing's target selection and phase
advance in front of a route unit; :class:`LookaheadRoute` gives a lookahead router
the ports its packets take at its neighbours (their route units).
:func:`escape_policy` names how an adaptive router treats its escape routing
(:mod:`.escape`). The adaptive units (:class:`AdaptiveRoute` and its family subclasses) offer every port
adaptive routing may take, as a bit vector, beside the escape port.
"""

from .base import RouteUnit, TableRoute
from .hypercube import HypercubeRoute
from .metacube import MetacubeRoute
from .dlh import DLHRoute
from .mcube import McubeRoute, McubeEscape
from .escape import EscapePolicy, SeparateEscapePolicy
from .factory import route_unit, register_route_unit, LOGIC_UNITS, escape_policy
from .waypoint import WaypointRoute
from .adaptive import (AdaptiveRoute, HypercubeAdaptiveRoute, MetacubeAdaptiveRoute,
                       DLHAdaptiveRoute, McubeAdaptiveRoute, adaptive_route_unit)
from .broadcast import BroadcastChildren, TableBroadcastChildren, broadcast_children_unit
from .multicast import MulticastChildren
from .one_port import OnePortSends
from .lookahead import AdaptiveLookaheadRoute, LookaheadRoute, WaypointLookaheadRoute


__all__ = ["RouteUnit", "TableRoute", "HypercubeRoute", "MetacubeRoute", "DLHRoute",
           "McubeRoute", "route_unit", "register_route_unit", "LOGIC_UNITS",
           "EscapePolicy", "SeparateEscapePolicy", "McubeEscape", "escape_policy",
           "AdaptiveRoute", "HypercubeAdaptiveRoute", "MetacubeAdaptiveRoute",
           "DLHAdaptiveRoute", "McubeAdaptiveRoute", "adaptive_route_unit",
           "BroadcastChildren", "TableBroadcastChildren", "broadcast_children_unit",
           "MulticastChildren", "OnePortSends", "WaypointRoute", "LookaheadRoute",
           "AdaptiveLookaheadRoute", "WaypointLookaheadRoute"]
