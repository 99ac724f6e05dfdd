"""The ports of a component's top module, named as Amaranth names them."""

from amaranth.hdl import Const, ValueCastable
from amaranth.hdl._ir import PortDirection
from amaranth.lib import wiring


__all__ = ["component_ports"]


def component_ports(component):
    """The ``ports=`` argument of :func:`amaranth.back.verilog.convert` for a
    :class:`wiring.Component` (or any interface object with a ``signature``): every
    member named by its path joined with ``__`` (as Amaranth names them), leaving
    out members that are constants (the ``ready`` of an ``always_ready`` stream),
    which Amaranth cannot make ports of."""
    ports = {}
    for path, member, value in component.signature.flatten(component):
        if isinstance(value, ValueCastable):
            value = value.as_value()
        if isinstance(value, Const):
            continue
        direction = PortDirection.Input if member.flow == wiring.In else PortDirection.Output
        ports["__".join(map(str, path))] = (value, direction)
    return ports
