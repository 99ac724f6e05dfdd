"""Replication beside the other modes: adaptive routers, lookahead routers and
adaptive lookahead routers that broadcast (all-port and one-port) and multicast (subcube and vector) while they route
unicast traffic, every packet and copy checked, both engines identical."""

import pytest

from cubefab.hdl.config import FabricConfig
from cubefab.hdl.modes import Broadcast
from cubefab.sim.broadcast_run import hardware_broadcast
from cubefab.sim.verilator_broadcast import check_strappable
from cubefab.sim.selfcheck_run import CHECKS
from cubefab.topology import DLH, Hypercube, Mcube, Metacube
from tests.helpers import run_fabric_of
from tests.sim.engine_helpers import both_engines, needs_verilator


#: The modes replication is combined with, as run keywords.
MODES = {"adaptive": {"adaptive_vcs": 2}, "lookahead": {"hop": "lookahead"},
         "adaptive-lookahead": {"adaptive_vcs": 2, "hop": "lookahead"}}

#: The modes whose broadcast runs in CI's fast set, in the Amaranth engine (every mode's
#: broadcast in both engines: the slow set).
FAST_MODES = ("adaptive", "lookahead")


def assert_clean(r):
    """Nothing lost, duplicated, corrupted or misrouted (adaptive routers may reorder:
    a figure); every packet delivered; past saturation (less accepted than offered)."""
    assert r["ok"] and r["drained"], r
    assert all(r[k] == 0 for k in CHECKS if k != "reordered"), r
    assert r["delivered"] == r["created"] == r["injected"]
    assert r["broadcasts"] > 10 and r["throughput"] < r["offered"]


def run(topology, mode, engine=None, **options):
    """The run of ``mode`` past saturation in both engines (identical results; the
    Amaranth one returned), or in ``engine`` alone."""
    if mode == "lookahead" and isinstance(topology, Mcube):
        options["algorithm"] = "ecube"   # (deterministic Mroute deadlocks on its own)
    options = {**dict(rate=1.0, cycles=100, warmup=30, drain=3000, seed=11, packet_flits=2,
                      broadcast_fraction=0.2, **MODES[mode]), **options}
    if engine is not None:
        return run_fabric_of(topology, engine=engine, **options)
    return both_engines(topology, **options)


@pytest.mark.parametrize("mode", FAST_MODES)
def test_broadcast_past_saturation_in_the_amaranth_engine(mode):
    # CI's fast set: MC(1,1)'s run of the test below in the Amaranth engine alone, 40
    # measured cycles instead of 100 (still past saturation, 50 broadcasts)
    r = run(Metacube(1, 1), mode, engine="amaranth", cycles=40)
    assert_clean(r)
    assert r["copies_delivered"] == r["broadcasts"] * (r["nodes"] - 1)


@needs_verilator
@pytest.mark.slow     # (CI's fast set: the Amaranth runs above)
@pytest.mark.parametrize("topology, mode", [
    (topology, mode) for topology in (Metacube(1, 1), Hypercube(3), DLH(2, 1), Mcube(3))
    for mode in sorted(MODES)], ids=lambda x: getattr(x, "label", x))
def test_broadcast_engines_agree_past_saturation(verilator_cache, topology, mode):
    r = run(topology, mode)
    assert_clean(r)
    assert r["copies_delivered"] == r["broadcasts"] * (r["nodes"] - 1)


@needs_verilator
@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.slow     # (CI's fast set: the Amaranth broadcasts above, of both modes)
@pytest.mark.parametrize("topology", [Hypercube(3), Metacube(1, 1), DLH(2, 1)],
                         ids=lambda t: t.label)
def test_one_port_engines_agree_past_saturation(verilator_cache, topology, mode):
    r = run(topology, mode, broadcast_model="one-port")
    assert_clean(r)
    assert r["broadcast_model"] == "one-port"
    assert r["copies_delivered"] == r["broadcasts"] * (r["nodes"] - 1)


@needs_verilator
@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.slow
@pytest.mark.parametrize("topology, group", [
    (Hypercube(3), 0b011), (Metacube(1, 1), 0b001), (Mcube(3), 0b001)],
    ids=lambda x: getattr(x, "label", None))
def test_multicast_engines_agree_past_saturation(verilator_cache, topology, group, mode):
    assert_clean(run(topology, mode, multicast_group=group))


@needs_verilator
@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.slow
@pytest.mark.parametrize("topology, members", [
    (Metacube(1, 1), [1, 2, 5, 7]), (Hypercube(3), [0, 3, 5, 6])],
    ids=lambda x: getattr(x, "label", None) or "-".join(map(str, x)))
def test_vector_multicast_engines_agree(verilator_cache, topology, members, mode):
    # one multicast named bit by bit, and unicasts to the same nodes, alone in the fabric
    options = dict(members=members, unicasts=True, packet_flits=2, **MODES[mode])
    amaranth = hardware_broadcast(topology, 0, **options)
    assert set(amaranth["arrivals"]) == set(members) - {0}
    assert amaranth["unicast_latency"] > amaranth["latency"]
    assert hardware_broadcast(topology, 0, engine="verilator", **options) == amaranth


def test_the_verilator_engine_refuses_lookahead_straps_over_64_bits():
    # Q(9): 9 neighbours of 9 address bits, one strap of 81 bits
    config = FabricConfig.for_topology(Hypercube(9), hop="lookahead",
                                       replication=Broadcast(1))
    with pytest.raises(ValueError, match="81 bits of neighbour addresses"):
        check_strappable(config)
