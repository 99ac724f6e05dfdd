"""The ports of a component's top module, named as Amaranth names them."""

from amaranth.back import verilog
from amaranth.hdl import ClockDomain, Const, Module, ValueCastable
from amaranth.hdl._ir import PortDirection
from amaranth.lib import wiring


__all__ = ["component_ports", "reset_less_verilog"]


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


def reset_less_verilog(component, name):
    """Verilog of ``component`` as top module ``name`` whose sync domain has no reset:
    ports ``clk`` and the members (:func:`component_ports`); registers start at their
    ``init`` values. For simulators that never reset: no next-state logic then
    depends on a module input, which Verilator would re-evaluate on every clock edge
    (measured 1.5x slower)."""
    top = Module()
    top.domains.sync = sync = ClockDomain("sync", reset_less=True)
    top.submodules.design = component
    ports = {"clk": (sync.clk, PortDirection.Input), **component_ports(component)}
    return verilog.convert(top, name=name, ports=ports, emit_src=False)
