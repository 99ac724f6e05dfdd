"""Simulation: traffic, harnesses, engines and performance analysis of fabrics.

Engines run a :class:`~cubefab.sim.traffic.Traffic` through a fabric and return a
:class:`~cubefab.sim.result.SimResult`. :data:`ENGINES` maps an engine name to the
``"module:Class"`` implementing it (imported on use); a class takes
``(topology, *, payload_width, vcs, depth, algorithm, trace_hops, vcd)`` and has
``run(traffic, cycles, *, drain=None, watchdog=None, stall=None, packets=None,
progress=None)``. :func:`register_engine` adds one (``cubefab sim --engine NAME``).
"""

import importlib


__all__ = ["ENGINES", "register_engine", "engine_class"]


ENGINES = {
    "amaranth": "cubefab.sim.amaranth_engine:AmaranthEngine",
}


def register_engine(name, target):
    """Make ``name`` an engine; ``target`` is a class or ``"module:Class"``."""
    ENGINES[name] = target


def engine_class(name):
    """The engine class registered under ``name`` (ValueError naming the choices)."""
    if name not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(sorted(ENGINES))}, not {name!r}")
    target = ENGINES[name]
    if isinstance(target, str):
        module, _, attr = target.partition(":")
        target = getattr(importlib.import_module(module), attr)
    return target
