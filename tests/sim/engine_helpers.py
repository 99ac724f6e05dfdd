"""Helpers shared by the engine tests (import as ``from tests.sim.engine_helpers import ...``)."""

import pytest

from cubefab.sim.selfcheck_run import run_selfcheck
from cubefab.sim.verilator_engine import verilator_missing_reason


#: Skips a test when Verilator (or a C++ compiler) is missing, saying which.
needs_verilator = pytest.mark.skipif(verilator_missing_reason() is not None,
                                     reason=str(verilator_missing_reason()))

#: Statistics both engines must give identically for the same configuration and seed.
ENGINE_INDEPENDENT = ("offered", "injection_rate", "throughput", "avg_latency",
                      "latency_histogram", "window", "created", "refused", "injected",
                      "delivered", "errors", "undelivered", "ok")


def both_engines(topology, **options):
    """:func:`run_selfcheck` in the Amaranth and the Verilator engine."""
    a = run_selfcheck(topology, engine="amaranth", **options)
    v = run_selfcheck(topology, engine="verilator", **options)
    return a, v
