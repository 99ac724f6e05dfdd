"""Fabrics of routers with the header in the head flit only (``header="head"``): both
engines identical under stress, every packet delivered once and intact, every flit on
its reference route (deterministic) or the adaptive rule's ports and VCs, every
broadcast and multicast copy (all-port and one-port) on its tree, every packet around
faults on its waypoint route or reconciled when a link fails mid-run; a router that
routes body flits by their own bits is caught."""

import pytest

from cubefab.hdl.flit import DEFAULT_HEADER
from cubefab.hdl.router import input_unit, replication
from cubefab.sim.selfcheck_run import CHECKS
from cubefab.topology import Hypercube, Metacube
from tests.helpers import run_fabric_of
from tests.sim.engine_helpers import both_engines, needs_verilator


def assert_delivered_intact(r, adaptive):
    errors = [k for k in CHECKS if not (adaptive and k == "reordered")]
    assert r["ok"] and r["drained"] and r.get("header", DEFAULT_HEADER) == "head", \
        {k: r[k] for k in CHECKS + ("undelivered",)}
    assert all(r[k] == 0 for k in errors) and r["checker_errors"] == 0
    assert r["delivered"] == r["created"] == r["injected"] > 30


def slow(*values):
    return pytest.param(*values, marks=pytest.mark.slow)


#: A run at full load with the header in the head flit alone.
HEAD_RUN = dict(rate=1.0, cycles=60, drain=300, seed=7, packet_flits=3, header="head")


@needs_verilator
@pytest.mark.parametrize("topology, adaptive_vcs", [
    # CI's fast set: Q(2) with deterministic routers (Q(3)'s build costs as much, its
    # run more); adaptive routers in both engines: the slow set (CI's fast set: Q(2)'s
    # run below)
    (Hypercube(2), 0), slow(Hypercube(3), 0), slow(Hypercube(2), 2),
    slow(Hypercube(3), 2), slow(Metacube(1, 1), 0), slow(Metacube(1, 1), 2),
], ids=str)
def test_engines_agree_and_deliver_every_packet_intact(verilator_cache, topology,
                                                       adaptive_vcs):
    r = both_engines(topology, **HEAD_RUN, adaptive_vcs=adaptive_vcs)
    assert_delivered_intact(r, adaptive_vcs)


def test_adaptive_routers_deliver_every_packet_intact_in_the_amaranth_engine():
    # CI's fast set: Q(2)'s adaptive run of the test above in the Amaranth engine alone
    r = run_fabric_of(Hypercube(2), engine="amaranth", **HEAD_RUN, adaptive_vcs=2)
    assert_delivered_intact(r, 2)


@pytest.mark.slow
@needs_verilator
@pytest.mark.parametrize("topology, adaptive_vcs", [
    (Hypercube(3), 0), (Hypercube(3), 2), (Metacube(1, 1), 0), (Metacube(1, 1), 2),
], ids=str)
def test_long_packets_at_full_load(verilator_cache, topology, adaptive_vcs):
    r = both_engines(topology, rate=1.0, cycles=400, warmup=100, drain=1000, seed=11,
                     packet_flits=6, header="head", adaptive_vcs=adaptive_vcs)
    assert_delivered_intact(r, adaptive_vcs)


@pytest.mark.slow    # fast: the one-port and multicast copies here, broadcast copies in test_broadcast_sim
@needs_verilator
def test_broadcast_copies_are_delivered_intact_in_both_engines(verilator_cache):
    r = both_engines(Hypercube(3), rate=0.6, cycles=80, drain=400, seed=7, packet_flits=3,
                     header="head", broadcast_fraction=0.3)
    assert_delivered_intact(r, False)
    assert r["broadcasts"] > 20 and r["copies_delivered"] == 7 * r["broadcasts"]


def test_one_port_copies_are_delivered_intact():
    r = run_fabric_of(Hypercube(3), engine="amaranth", rate=0.6, cycles=80, drain=400,
                      seed=7, packet_flits=3, header="head", broadcast_fraction=0.3,
                      broadcast_model="one-port")
    assert_delivered_intact(r, False)
    assert r["broadcasts"] > 20 and r["copies_delivered"] == 7 * r["broadcasts"]


def test_multicast_copies_are_delivered_intact():
    # groups of mask 0b001: the four nodes that share address bit 0
    r = run_fabric_of(Hypercube(3), engine="amaranth", rate=0.6, cycles=80, drain=400,
                      seed=7, packet_flits=3, header="head", broadcast_fraction=0.3,
                      multicast_group=0b001)
    assert_delivered_intact(r, False)
    assert r["broadcasts"] > 20 and r["copies_delivered"] == 3 * r["broadcasts"]


#: A small fault-tolerant router (as in tests/sim/test_link_failure.py).
SMALL_FAULT_TOLERANT = {"fault_waypoints": 1, "vcs_per_class": 1, "depth": 4}


@pytest.mark.slow    # fast: test_link_failure's runs with the header in every flit
@needs_verilator
def test_a_link_failing_mid_run_is_reconciled_in_both_engines(verilator_cache):
    r = both_engines(Hypercube(3), rate=0.95, cycles=120, drain=600, seed=5,
                     packet_flits=4, fail_links=[(0, 1, 50)], header="head", opt="-O1",
                     **SMALL_FAULT_TOLERANT)
    assert r["ok"] and r["drained"] and r["late_losses"] == 0
    assert all(r[k] == 0 for k in CHECKS + ("checker_errors",) if k != "reordered")
    assert r["created"] == r["delivered"] + r["dropped"] + r["cut"] and r["cut"] > 0


@pytest.mark.slow
@needs_verilator
def test_packets_around_faults_in_both_engines(verilator_cache):
    r = both_engines(Hypercube(3), rate=0.7, cycles=100, drain=600, seed=5, faults=[0],
                     faulty_links=[(1, 3)], packet_flits=3, header="head",
                     **SMALL_FAULT_TOLERANT)
    assert_delivered_intact(r, False)
    assert r["unroutable"] > 0 and r["pairs_detoured"] > 0


def test_a_router_routing_body_flits_by_their_own_bits_is_caught(monkeypatch):
    for part in (input_unit, replication):
        monkeypatch.setattr(part, "entry_route",
                            lambda frame, p, v, fifo, arriving, new: new)
    r = run_fabric_of(Hypercube(3), engine="amaranth", rate=0.5, cycles=60, drain=200,
                      seed=7, packet_flits=3, header="head")
    assert not r["ok"] and r["misrouted"] and r["lost"] and r["corrupted"]
