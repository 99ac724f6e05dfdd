"""The self-checking fabric in both engines: identical statistics, errors caught."""

import pytest

from cubefab.sim.selfcheck_run import run_selfcheck, statistics
from cubefab.topology.catalog import make_topology
from tests.sim.engine_helpers import ENGINE_INDEPENDENT, both_engines, needs_verilator


@needs_verilator
def test_engines_agree_on_a_small_fabric(verilator_cache):
    topo = make_topology("hypercube", n=2)
    a, v = both_engines(topo, rate=0.5, cycles=200, warmup=50, drain=100, seed=4,
                        packet_flits=2)
    assert {k: a[k] for k in ENGINE_INDEPENDENT} == {k: v[k] for k in ENGINE_INDEPENDENT}
    assert a["ok"] and a["delivered"] > 150 and a["drained"]


@needs_verilator
def test_engines_agree_with_two_vcs_per_class(verilator_cache):
    # the Verilator build is the address-strapped node; Amaranth runs one per node
    topo = make_topology("metacube", k=1, m=1)
    a, v = both_engines(topo, rate=0.6, cycles=150, warmup=30, drain=100, seed=2,
                        vcs_per_class=2, depth=8)
    assert {k: a[k] for k in ENGINE_INDEPENDENT} == {k: v[k] for k in ENGINE_INDEPENDENT}
    assert a["ok"] and a["delivered"] > 100


@needs_verilator
def test_both_engines_end_the_drain_once_every_packet_arrived(verilator_cache):
    topo = make_topology("hypercube", n=2)
    a, v = both_engines(topo, rate=0.5, cycles=100, warmup=0, drain=5000, seed=4)
    assert a["drained"] and v["drained"]
    assert 0 < a["drain_cycles"] == v["drain_cycles"] < 100
    assert a["simulated_cycles"] == v["simulated_cycles"] == 100 + a["drain_cycles"]


@pytest.mark.slow
@needs_verilator
@pytest.mark.parametrize("family, params, pattern", [
    ("metacube", {"k": 1, "m": 1}, "uniform"),
    ("dlh", {"m": 2, "d": 1}, "hotspot"),
])
def test_engines_agree(verilator_cache, family, params, pattern):
    topo = make_topology(family, **params)
    a, v = both_engines(topo, rate=0.4, cycles=400, warmup=100, drain=300, seed=9,
                        pattern=pattern)
    assert {k: a[k] for k in ENGINE_INDEPENDENT} == {k: v[k] for k in ENGINE_INDEPENDENT}
    assert a["ok"]


def test_amaranth_run_delivers_everything_and_measures_latency():
    topo = make_topology("metacube", k=1, m=1)
    r = run_selfcheck(topo, engine="amaranth", rate=0.2, cycles=150, warmup=30, drain=120,
                      seed=2)
    assert r["ok"] and r["drained"] and r["errors"] == 0
    assert r["created"] == r["delivered"] > 0
    # zero-ish load latency: at least the router pipeline, below a loaded bound
    assert 2 <= r["avg_latency"] < 20
    assert r["offered"] == pytest.approx(0.2, abs=0.06)
    assert r["throughput"] == pytest.approx(r["offered"], abs=0.06)


def test_statistics_from_snapshots():
    topo = make_topology("hypercube", n=2)
    zero = {k: 0 for k in ("cycles", "created", "refused", "injected", "injected_flits",
                           "delivered", "delivered_flits", "errors", "latency_sum",
                           "hist_0", "hist_1", "hist_2")}
    end = dict(zero, created=40, injected=40, injected_flits=80, delivered=38,
               delivered_flits=78, latency_sum=190, hist_2=38)
    s = statistics(topo, 2, 100, zero, end, end, drain=0)
    assert s["offered"] == 0.2 and s["throughput"] == 0.195
    assert s["avg_latency"] == 5 and s["latency_p50_range"] == [4, 7]
    assert s["undelivered"] == 2 and s["ok"]
    assert not statistics(topo, 2, 100, zero, end, end, drain=10)["ok"]


def test_bad_run_parameters():
    topo = make_topology("hypercube", n=2)
    with pytest.raises(ValueError, match="engine must be one of"):
        run_selfcheck(topo, engine="icarus")
    with pytest.raises(ValueError, match="Injection rate"):
        run_selfcheck(topo, engine="amaranth", rate=1.5)
    with pytest.raises(ValueError, match="Seed"):
        run_selfcheck(topo, engine="amaranth", seed=1 << 40)
