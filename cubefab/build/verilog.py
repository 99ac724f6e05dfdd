"""Verilog of components, with the interfaces docs/conventions.md fixes.

A route unit's top module is purely combinational: input ``dest``, input ``src``
only when the algorithm reads it (metacube ``paper``), input ``here`` only for a
unit built without a node address (address straps), and output ``port``. The
one-hot ``request`` vector is the router's internal business and is left out.
"""

import os

from amaranth.back import verilog

from ..hdl.emit import check_module_name, emit_verilog
from ..hdl.route import RouteUnit
from ..hdl.ports import component_ports


__all__ = ["verilog_text", "route_unit_verilog", "write_verilog", "top_ports", "design_verilog"]


def top_ports(component, omit=()):
    """The top-module ports of ``component`` (a ``wiring.Component``) by Verilog name,
    without the members ``omit`` (Verilog port names; ValueError for one it lacks)."""
    ports = component_ports(component)
    for member in omit:
        if member not in ports:
            raise ValueError(f"Member to omit must be one of {sorted(ports)}, not {member!r}")
        del ports[member]
    return ports


def design_verilog(component, name="top", omit=()):
    """Amaranth's own Verilog of ``component`` (``amaranth.back.verilog``), module
    ``name`` with the ports :func:`verilog_text` gives it: what the formal proofs read,
    the logic itself, which the emitted Verilog is proven equal to in
    tests/hdl/test_emit_lint.py. (Its tables are ``case`` statements, which Yosys makes
    ROMs: z3 proves a multicast unit of Q(6) from it in about 15 s, from the emitted
    Verilog's comparison chains in 600 s and from the RTLIL in 150 s.)"""
    return verilog.convert(component, name=check_module_name(name),
                           ports=list(top_ports(component, omit).values()), emit_src=False)


def verilog_text(component, name="top", omit=()):
    """Verilog of ``component`` (a ``wiring.Component``) as top module ``name``.

    Parameters
    ----------
    component : wiring.Component
    name : str
        Name of the top module (a Verilog identifier).
    omit : iterable of str
        Members (by their Verilog port name) that are not ports of the top module;
        outputs left out become internal and synthesis removes their logic.
    """
    name = check_module_name(name)
    ports = top_ports(component, omit)
    return emit_verilog(component, name, list(ports.values()),
                        made_by=f"cubefab.build.verilog.verilog_text({type(component).__name__}(...), {name!r})")


def route_unit_verilog(unit, name="top"):
    """Verilog of a :class:`~cubefab.hdl.route.RouteUnit` with the docs/conventions.md
    interface (``dest``, ``src`` when read, ``here`` for straps, ``port``)."""
    if not isinstance(unit, RouteUnit):
        raise TypeError(f"Unit must be a RouteUnit, not {unit!r}")
    return verilog_text(unit, name, omit=("request",))


def write_verilog(text, path):
    """Write Verilog ``text`` to ``path`` (parent directories are created);
    returns ``path``."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path
