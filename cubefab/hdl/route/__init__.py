"""Route units: the combinational per-hop routing decision of a router.

Every route unit is a :class:`RouteUnit`: built from a topology model and a node
address, it maps a packet's destination (and, for algorithms that read it, its
source) to an output port number, following the topology's ``next_port`` exactly.
The logic units (:class:`HypercubeRoute`, :class:`MetacubeRoute`, :class:`DLHRoute`,
:class:`McubeRoute`) are made of XORs with the node address, OR-reductions, priority
encoders and small functions generated from the reference model's tables;
:class:`TableRoute` looks the port up per destination and serves any topology.
"""

from .base import RouteUnit, TableRoute
from .hypercube import HypercubeRoute
from .metacube import MetacubeRoute
from .dlh import DLHRoute
from .mcube import McubeRoute
from .factory import route_unit, register_route_unit, LOGIC_UNITS


__all__ = ["RouteUnit", "TableRoute", "HypercubeRoute", "MetacubeRoute", "DLHRoute",
           "McubeRoute", "route_unit", "register_route_unit", "LOGIC_UNITS"]
