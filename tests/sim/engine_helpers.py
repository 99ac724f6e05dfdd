"""Helpers shared by the engine tests (import as ``from tests.sim.engine_helpers import ...``)."""

import pytest

from cubefab.tools.verilator import verilator_missing_reason
from tests.helpers import run_fabric_of


#: Skips a test when Verilator (or a C++ compiler) is missing, saying which.
needs_verilator = pytest.mark.skipif(verilator_missing_reason() is not None,
                                     reason=str(verilator_missing_reason()))

#: The only keys of a run's result that may differ between engines: timings.
ENGINE_DEPENDENT = ("engine", "engine_choice", "seconds", "cpu_seconds", "build_seconds", "threads",
                    "cycles_per_second", "router_cycles_per_second",
                    "router_cycles_per_cpu_second")


def same_results(a, b):
    """The results ``a`` and ``b`` but their engine-dependent keys (for ``==``)."""
    return ({k: v for k, v in a.items() if k not in ENGINE_DEPENDENT},
            {k: v for k, v in b.items() if k not in ENGINE_DEPENDENT})


def both_engines(topology, **options):
    """:func:`run_selfcheck` in the Amaranth and the Verilator engine; asserts that
    they give identical results and returns the Amaranth one."""
    a = run_fabric_of(topology, engine="amaranth", **options)
    v = run_fabric_of(topology, engine="verilator", **options)
    left, right = same_results(a, v)
    assert left == right
    return a
