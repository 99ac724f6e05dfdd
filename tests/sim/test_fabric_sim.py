"""Whole fabrics in the Amaranth engine (the reference): under full load every packet
delivered once, intact, in order, on its reference route and VCs, no deadlock; the
waveform of a run."""

import os

import pytest

from cubefab.sim.selfcheck_run import CHECKS
from cubefab.topology import DLH, Hypercube, Metacube
from tests.helpers import run_fabric_of


def assert_clean(r):
    assert r["ok"] and r["drained"], {k: r[k] for k in CHECKS + ("undelivered",)}
    assert all(r[k] == 0 for k in CHECKS) and r["in_flight"] == 0
    assert r["delivered"] == r["created"] == r["injected"]


@pytest.mark.parametrize("topology, cycles, options", [
    (Metacube(1, 1), 150, {}),
    # the default router too now: the DLH's rings at full load stay in CI's fast set
    # through tests/sim/test_verilator_fabric.py's ring-link run
    pytest.param(DLH(2, 1), 60, {"depth": 4, "vcs_per_class": 1}, marks=pytest.mark.slow),
], ids=str)
def test_full_load_exactly_once_no_deadlock(topology, cycles, options):
    r = run_fabric_of(topology, engine="amaranth", rate=1.0, cycles=cycles, drain=300,
                      seed=7, packet_flits=2, **options)
    assert_clean(r)
    assert r["throughput"] > 0.2


def test_metacube_paper_routing_under_load():
    r = run_fabric_of(Metacube(1, 1), engine="amaranth", algorithm="paper", rate=0.8,
                      cycles=150, drain=300, seed=5, packet_flits=2)
    assert_clean(r)


@pytest.mark.slow
@pytest.mark.parametrize("topology", [Hypercube(3), Metacube(1, 2), Metacube(2, 1),
                                      DLH(2, 2)], ids=str)
def test_full_load_long(topology):
    r = run_fabric_of(topology, engine="amaranth", rate=1.0, cycles=600, drain=2000,
                      seed=11, packet_flits=3)
    assert_clean(r)


def test_vcd_is_written(tmp_path):
    path = tmp_path / "fabric.vcd"
    r = run_fabric_of(Hypercube(1), engine="amaranth", rate=0.5, cycles=20, drain=50,
                      vcd=str(path))
    assert_clean(r)
    assert os.path.getsize(path) > 1000
    assert "node_1" in path.read_text()
