"""The ports of a component's top module, named as Amaranth names them."""

from amaranth.back import verilog
from amaranth.hdl import ClockDomain, Const, Module, ValueCastable


__all__ = ["component_ports", "reset_less_verilog"]


def component_ports(component):
    """The ``ports=`` argument of :func:`amaranth.back.verilog.convert` for a
    :class:`wiring.Component` (or any interface object with a ``signature``), as a
    dict ``{name: signal}``: every member's signal, named by its path joined with
    ``__`` (the name Amaranth gives the signal of a member and the port of a
    component), leaving out members that are constants (the ``ready`` of an
    ``always_ready`` stream), which Amaranth cannot make ports of. Pass its values
    as ``ports=list(...)``: each port has its signal's name, and a member's flow is
    its direction (an input member is read, never driven, by the component; an
    output member is driven)."""
    ports = {}
    for path, _member, value in component.signature.flatten(component):
        if isinstance(value, ValueCastable):
            value = value.as_value()
        if isinstance(value, Const):
            continue
        ports["__".join(map(str, path))] = value
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
    ports = [sync.clk, *component_ports(component).values()]
    return verilog.convert(top, name=name, ports=ports, emit_src=False)
