"""Adaptive routers that also replicate: broadcasts, one-port broadcasts and multicasts
beside adaptive unicast traffic, every packet and copy checked, both engines identical."""

import pytest

from cubefab.sim.broadcast_run import hardware_broadcast
from cubefab.sim.selfcheck_run import CHECKS
from cubefab.topology import DLH, Hypercube, Mcube, Metacube
from tests.sim.engine_helpers import both_engines, needs_verilator


def assert_clean(r):
    """Nothing lost, duplicated, corrupted or misrouted; every copy of every broadcast
    or multicast delivered; past saturation (refused injections)."""
    assert r["ok"] and r["drained"], r
    assert all(r[k] == 0 for k in CHECKS if k != "reordered"), r
    assert r["delivered"] == r["created"] == r["injected"]
    assert r["adaptive_vcs"] == 2 and r["broadcasts"] > 10 and r["refused"] > 0


def run(topology, **options):
    return both_engines(topology, rate=1.0, cycles=100, warmup=30, drain=3000, seed=11,
                        packet_flits=2, broadcast_fraction=0.2, adaptive_vcs=2,
                        **options)


@needs_verilator
@pytest.mark.parametrize("topology", [
    Metacube(1, 1),
    *[pytest.param(t, marks=pytest.mark.slow) for t in (Hypercube(3), DLH(2, 1), Mcube(3))]],
    ids=lambda t: t.label)
def test_adaptive_broadcast_engines_agree_past_saturation(verilator_cache, topology):
    r = run(topology)
    assert_clean(r)
    assert r["copies_delivered"] == r["broadcasts"] * (r["nodes"] - 1)


@needs_verilator
@pytest.mark.parametrize("topology", [
    Hypercube(3), *[pytest.param(t, marks=pytest.mark.slow) for t in (Metacube(1, 1),
                                                                      DLH(2, 1))]],
    ids=lambda t: t.label)
def test_adaptive_one_port_engines_agree_past_saturation(verilator_cache, topology):
    r = run(topology, broadcast_model="one-port")
    assert_clean(r)
    assert r["broadcast_model"] == "one-port"
    assert r["copies_delivered"] == r["broadcasts"] * (r["nodes"] - 1)


@needs_verilator
@pytest.mark.parametrize("topology, group", [
    (Hypercube(3), 0b011),
    *[pytest.param(t, g, marks=pytest.mark.slow) for t, g in ((Metacube(1, 1), 0b001),
                                                             (Mcube(3), 0b001))]],
    ids=lambda x: getattr(x, "label", None))
def test_adaptive_multicast_engines_agree_past_saturation(verilator_cache, topology, group):
    assert_clean(run(topology, multicast_group=group))


@needs_verilator
@pytest.mark.parametrize("topology, members", [
    (Metacube(1, 1), [1, 2, 5, 7]),
    pytest.param(Hypercube(3), [0, 3, 5, 6], marks=pytest.mark.slow)],
    ids=lambda x: getattr(x, "label", None) or "-".join(map(str, x)))
def test_adaptive_vector_multicast_engines_agree(verilator_cache, topology, members):
    # one multicast named bit by bit, and unicasts to the same nodes, alone in the fabric
    options = dict(members=members, unicasts=True, adaptive_vcs=2, packet_flits=2)
    amaranth = hardware_broadcast(topology, 0, **options)
    assert set(amaranth["arrivals"]) == set(members) - {0}
    assert amaranth["unicast_latency"] > amaranth["latency"]
    assert hardware_broadcast(topology, 0, engine="verilator", **options) == amaranth
