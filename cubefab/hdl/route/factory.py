"""Choosing the route unit for a topology, and an adaptive router's escape policy.

A family's hardware lives in the module named after it, ``cubefab.hdl.route.<name>``
(``name`` the topology's :attr:`~cubefab.topology.base.Topology.name`), which declares
its units as module attributes: ``ROUTE_UNIT`` (the deterministic route unit), where
the family has one ``ADAPTIVE_ROUTE_UNIT``, and where its adaptive routers escape by a
rule of their own ``ESCAPE_POLICY``. :func:`family_unit` finds them, so a new
family's hardware needs no edit here; :data:`LOGIC_UNITS` and
:data:`ESCAPE_POLICIES` override them by name. Data flows from the topology to the
hardware only: the topology never names its units.
"""

import importlib

from ...topology.adaptive import needs_adaptive
from .base import TableRoute
from .escape import EscapePolicy, SeparateEscapePolicy


__all__ = ["route_unit", "register_route_unit", "family_unit", "LOGIC_UNITS",
           "ESCAPE_POLICIES", "escape_policy"]


#: Logic route unit class by topology family name (``Topology.name``), registered by
#: :func:`register_route_unit`; it takes precedence over the family module's.
LOGIC_UNITS = {}


def register_route_unit(family, unit_class):
    """Make :func:`route_unit` build ``unit_class`` for topologies of ``family``.

    ``unit_class`` is a :class:`~cubefab.hdl.route.RouteUnit` subclass taking
    ``(topology, node=None, algorithm=None)``.
    """
    LOGIC_UNITS[family] = unit_class


def _family_declares(topology, kind):
    """What the family module of ``topology`` declares as ``kind``, or None (no such
    module or no such attribute)."""
    name = getattr(topology, "name", None)
    if not isinstance(name, str) or not name.isidentifier():
        return None
    module_name = f"{__package__}.{name}"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != module_name:
            raise
        return None
    return getattr(module, kind, None)


def family_unit(topology, kind):
    """The unit class the family module of ``topology`` declares as ``kind``
    (``"ROUTE_UNIT"`` or ``"ADAPTIVE_ROUTE_UNIT"``), or None: no such module or no
    such unit, or a unit built for another class of topology."""
    unit_class = _family_declares(topology, kind)
    if unit_class is None or not isinstance(topology, unit_class.topology_class):
        return None
    return unit_class


def route_unit(topology, node=None, algorithm=None):
    """The best route unit this package has for ``topology`` and ``algorithm``: the
    logic unit of its family, or a :class:`TableRoute` for families without one."""
    unit_class = LOGIC_UNITS.get(getattr(topology, "name", None))
    if unit_class is None:
        unit_class = family_unit(topology, "ROUTE_UNIT") or TableRoute
    unit_class.check(topology, node, algorithm)   # before a unit is made and refused
    return unit_class(topology, node, algorithm)


#: Escape policy class by topology family name, for the algorithms whose escape port
#: is no adaptive one (:func:`~cubefab.topology.adaptive.needs_adaptive`); it takes
#: precedence over the family module's ``ESCAPE_POLICY``.
ESCAPE_POLICIES = {}


def escape_policy(topology, algorithm=None):
    """The escape policy of an adaptive router of ``topology`` routing ``algorithm``
    (:mod:`cubefab.hdl.route.escape`): :class:`EscapePolicy` where the escape port is
    one of the adaptive ports, else the family's (:data:`ESCAPE_POLICIES`, or its
    module's ``ESCAPE_POLICY``), or :class:`SeparateEscapePolicy`."""
    if not needs_adaptive(topology, algorithm):
        return EscapePolicy()
    policy = ESCAPE_POLICIES.get(getattr(topology, "name", None))
    return (policy or _family_declares(topology, "ESCAPE_POLICY") or SeparateEscapePolicy)()
