"""Choosing the route unit for a topology, and an adaptive router's escape policy."""

from ...topology.adaptive import needs_adaptive
from .base import TableRoute
from .dlh import DLHRoute
from .hypercube import HypercubeRoute
from .escape import EscapePolicy, SeparateEscapePolicy
from .mcube import McubeEscape, McubeRoute
from .metacube import MetacubeRoute


__all__ = ["route_unit", "register_route_unit", "LOGIC_UNITS", "ESCAPE_POLICIES",
           "escape_policy"]


#: Logic route unit class by topology family name (``Topology.name``).
LOGIC_UNITS = {
    "hypercube": HypercubeRoute,
    "metacube": MetacubeRoute,
    "dlh": DLHRoute,
    "mcube": McubeRoute,
}


def register_route_unit(family, unit_class):
    """Make :func:`route_unit` build ``unit_class`` for topologies of ``family``.

    ``unit_class`` is a :class:`~cubefab.hdl.route.RouteUnit` subclass taking
    ``(topology, node=None, algorithm=None)``.
    """
    LOGIC_UNITS[family] = unit_class


def route_unit(topology, node=None, algorithm=None):
    """The best route unit this package has for ``topology`` and ``algorithm``: the
    logic unit of its family, or a :class:`TableRoute` for families without one."""
    unit_class = LOGIC_UNITS.get(getattr(topology, "name", None), TableRoute)
    unit_class.check(topology, node, algorithm)   # before a unit is made and refused
    return unit_class(topology, node, algorithm)


#: Escape policy class by topology family name, for the algorithms whose escape port
#: is no adaptive one (:func:`~cubefab.topology.adaptive.needs_adaptive`).
ESCAPE_POLICIES = {
    "mcube": McubeEscape,
}


def escape_policy(topology, algorithm=None):
    """The escape policy of an adaptive router of ``topology`` routing ``algorithm``
    (:mod:`cubefab.hdl.route.escape`): :class:`EscapePolicy` where the escape port is
    one of the adaptive ports, else the family's (:data:`ESCAPE_POLICIES`), or
    :class:`SeparateEscapePolicy`."""
    if not needs_adaptive(topology, algorithm):
        return EscapePolicy()
    return ESCAPE_POLICIES.get(getattr(topology, "name", None), SeparateEscapePolicy)()
