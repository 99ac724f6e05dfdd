"""Choosing the route unit for a topology.

A family's hardware lives in the module named after it, ``cubefab.hdl.route.<name>``
(``name`` the topology's :attr:`~cubefab.topology.base.Topology.name`), which declares
its units as module attributes: ``ROUTE_UNIT`` (the deterministic route unit) and,
where the family has one, ``ADAPTIVE_ROUTE_UNIT``. :func:`family_unit` finds them, so
a new family's hardware needs no edit here; :data:`LOGIC_UNITS` overrides them by name.
Data flows from the topology to the hardware only: the topology never names its units.
"""

import importlib

from .base import TableRoute


__all__ = ["route_unit", "register_route_unit", "family_unit", "LOGIC_UNITS"]


#: Logic route unit class by topology family name (``Topology.name``), registered by
#: :func:`register_route_unit`; it takes precedence over the family module's.
LOGIC_UNITS = {}


def register_route_unit(family, unit_class):
    """Make :func:`route_unit` build ``unit_class`` for topologies of ``family``.

    ``unit_class`` is a :class:`~cubefab.hdl.route.RouteUnit` subclass taking
    ``(topology, node=None, algorithm=None)``.
    """
    LOGIC_UNITS[family] = unit_class


def family_unit(topology, kind):
    """The unit class the family module of ``topology`` declares as ``kind``
    (``"ROUTE_UNIT"`` or ``"ADAPTIVE_ROUTE_UNIT"``), or None: no such module or no
    such unit, or a unit built for another class of topology."""
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
    unit_class = getattr(module, kind, None)
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
