"""Fabrics of lookahead routers (``hop="lookahead"``) under full uniform load: both
engines identical (the verilator engine runs address-strapped lookahead routers, whose
neighbours' addresses are straps), every packet delivered once, intact, every flit on
its reference route (adaptive routers: on a port the model offers; fault-tolerant ones:
on its waypoint route around the faults, or reconciled when a link fails mid-run), with
the header in every flit or the head only; a router whose heads keep a stale
``next_port`` (adaptive: stale lookahead fields) is caught."""

import pytest

from cubefab.hdl.router.route_stage import (AdaptiveLookaheadStage, LookaheadStage,
                                            WaypointLookaheadStage)
from cubefab.sim.selfcheck_run import CHECKS
from cubefab.topology import DLH, Hypercube, Mcube, Metacube
from tests.helpers import run_fabric_of
from tests.sim.engine_helpers import both_engines, needs_verilator


def slow(*values):
    return pytest.param(*values, marks=pytest.mark.slow)


def assert_delivered_intact(r, ordered=True):
    """Nothing lost, duplicated, corrupted or misrouted, nor (unless not ``ordered``:
    adaptive routers may pass a packet by another) reordered."""
    assert r["ok"] and r["drained"] and r["hop"] == "lookahead", \
        {k: r[k] for k in CHECKS + ("undelivered",)}
    checks = CHECKS if ordered else tuple(k for k in CHECKS if k != "reordered")
    assert all(r[k] == 0 for k in checks) and r["checker_errors"] == 0
    assert r["delivered"] == r["created"] == r["injected"] > 100


@pytest.mark.parametrize("topology, header, adaptive_vcs", [
    # adaptive: Q(2) in CI's fast set, Q(3) in the slow set; Q(3) head: the slow set
    # (CI's fast set: Q(2)'s in test_engines_agree_at_full_load, Q(3)'s header in every
    # flit here)
    (Hypercube(3), "every", 0), slow(Hypercube(3), "head", 0), (Hypercube(2), "head", 2),
    slow(Hypercube(3), "head", 2), slow(Metacube(1, 1), "every", 0),
    slow(Metacube(1, 1), "head", 0)], ids=str)
def test_full_load_delivers_every_packet_intact(topology, header, adaptive_vcs):
    # (adaptive routers may pass a packet by another)
    assert_delivered_intact(run_fabric_of(
        topology, engine="amaranth", rate=1.0, cycles=200, drain=400, seed=5,
        packet_flits=3, header=header, hop="lookahead", adaptive_vcs=adaptive_vcs),
        ordered=not adaptive_vcs)


@needs_verilator
@pytest.mark.parametrize("topology, header", [
    # CI's fast set: Q(2) (Q(3)'s build costs as much, its run more)
    (Hypercube(2), "head"), slow(Hypercube(3), "head"), slow(Hypercube(3), "every"),
    slow(Metacube(1, 1), "every"), slow(Metacube(1, 1), "head")], ids=str)
def test_engines_agree_at_full_load(verilator_cache, topology, header):
    assert_delivered_intact(both_engines(topology, rate=1.0, cycles=200, drain=400,
                                         seed=5, packet_flits=3, header=header,
                                         hop="lookahead"))


def test_one_flit_buffers_deliver_every_packet_intact():
    # a bypassed flit stays a cycle in its buffer, which gets a second slot for it:
    # local_in (written while valid) may only fill what the input VC has room for
    assert_delivered_intact(run_fabric_of(
        Hypercube(3), engine="amaranth", rate=1.0, cycles=200, drain=400, seed=5,
        packet_flits=3, depth=1, hop="lookahead"))


def test_heads_with_a_stale_next_port_are_caught(monkeypatch):
    # the defect: departing heads keep the next_port they arrived with
    monkeypatch.setattr(LookaheadStage, "ahead", lambda self, frame, switched: switched)
    r = run_fabric_of(Hypercube(3), engine="amaranth", rate=0.5, cycles=60, drain=200,
                      seed=7, packet_flits=2, hop="lookahead")
    assert not r["ok"] and r["lost"] > 0   # (stuck at turns the router lacks)


@needs_verilator
@pytest.mark.slow     # (CI's fast set: the Amaranth run above)
@pytest.mark.parametrize("topology, header", [
    (Hypercube(3), "head"), (Hypercube(3), "every"), (Metacube(1, 1), "head"),
    (DLH(2, 1), "head"), (Mcube(3), "head")], ids=str)
def test_adaptive_engines_agree_at_full_load(verilator_cache, topology, header):
    assert_delivered_intact(both_engines(
        topology, rate=1.0, cycles=120, drain=400, seed=5, packet_flits=3, header=header,
        hop="lookahead", adaptive_vcs=2), ordered=False)


def test_adaptive_heads_with_stale_lookahead_fields_are_caught(monkeypatch):
    # the defect: departing heads keep the next_port and next_offered they arrived with
    monkeypatch.setattr(AdaptiveLookaheadStage, "ahead", lambda self, frame, switched:
                        switched)
    r = run_fabric_of(Hypercube(3), engine="amaranth", rate=0.5, cycles=60, drain=200,
                      seed=7, packet_flits=2, hop="lookahead", adaptive_vcs=1)
    assert not r["ok"] and r["misrouted"] + r["lost"] > 0


#: A small fault-tolerant router (as in tests/sim/test_link_failure.py).
SMALL_FAULT_TOLERANT = {"fault_waypoints": 1, "vcs_per_class": 1, "depth": 4,
                        "hop": "lookahead"}


def test_packets_around_faults_are_delivered_intact():
    r = run_fabric_of(Hypercube(3), engine="amaranth", rate=0.7, cycles=100, drain=600,
                      seed=5, faults=[0], faulty_links=[(1, 3)], packet_flits=3,
                      **SMALL_FAULT_TOLERANT)
    assert_delivered_intact(r)
    assert r["unroutable"] > 0 and r["pairs_detoured"] > 0


@needs_verilator
@pytest.mark.slow     # (CI's fast set: the Amaranth run above)
@pytest.mark.parametrize("topology, faults, links, cycles", [
    (Hypercube(3), [0], [(1, 3)], 100), (Metacube(1, 1), [5], [(0, 1)], 150),
    (DLH(2, 1), [3], [], 150)], ids=str)
def test_packets_around_faults_in_both_engines(verilator_cache, topology, faults, links,
                                               cycles):
    r = both_engines(topology, rate=0.7, cycles=cycles, drain=600, seed=5, faults=faults,
                     faulty_links=links, packet_flits=3, **SMALL_FAULT_TOLERANT)
    assert_delivered_intact(r)
    assert r["unroutable"] > 0 and r["pairs_detoured"] > 0


@pytest.mark.slow
@needs_verilator
def test_a_link_failing_mid_run_is_reconciled_in_both_engines(verilator_cache):
    # (at a cycle where the failure cuts a packet short)
    r = both_engines(Hypercube(3), rate=0.95, cycles=120, drain=600, seed=5,
                     packet_flits=4, fail_links=[(0, 1, 53)], **SMALL_FAULT_TOLERANT)
    assert r["ok"] and r["drained"] and r["late_losses"] == 0
    assert all(r[k] == 0 for k in CHECKS + ("checker_errors",) if k != "reordered")
    assert r["created"] == r["delivered"] + r["dropped"] + r["cut"] and r["cut"] > 0


def test_waypoint_heads_with_a_stale_next_port_are_caught(monkeypatch):
    monkeypatch.setattr(WaypointLookaheadStage, "ahead", lambda self, frame, switched:
                        switched)
    r = run_fabric_of(Hypercube(3), engine="amaranth", rate=0.5, cycles=60, drain=200,
                      seed=7, packet_flits=2, faults=[0], **SMALL_FAULT_TOLERANT)
    assert not r["ok"] and r["misrouted"] + r["lost"] > 0
