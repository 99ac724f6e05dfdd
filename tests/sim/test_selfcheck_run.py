"""The self-checking fabric in both engines: identical results, every check fires,
exact latency."""

import pytest

from cubefab.hdl.selfcheck_node import DEFECTS
from cubefab.sim.selfcheck_run import CHECKS, statistics
from cubefab.topology.catalog import make_topology
from tests.helpers import run_fabric_of
from tests.sim.engine_helpers import both_engines, needs_verilator


@needs_verilator
def test_engines_agree_past_saturation(verilator_cache):
    # offered 1 flit/node/cycle in 2-flit packets: the source queues overflow; Q(2)'s
    # default routers fit the HX8K's block RAMs: "auto" picks memory
    topo = make_topology("hypercube", n=2)
    r = both_engines(topo, rate=1.0, cycles=200, warmup=50, drain=150, seed=4,
                     packet_flits=2)
    assert r["ok"] and r["refused"] > 0 and r["drained"] and r["delivered"] > 250
    assert (r["buffer"], r["buffer_auto"]) == ("memory", True)
    assert all(r[k] == 0 for k in CHECKS)
    assert sum(c for _, c in r["latency_histogram"]) == r["window"]["delivered"]


@pytest.mark.slow    # fast: the run past saturation above, on block RAM buffers too
@needs_verilator
def test_engines_agree_on_block_ram_buffers(verilator_cache):
    # Q(1)'s self-checking fabric fits the HX8K's block RAMs: "auto" picks memory
    r = both_engines(make_topology("hypercube", n=1), rate=1.0, cycles=150, warmup=20,
                     drain=150, seed=6, packet_flits=2)
    assert (r["buffer"], r["buffer_auto"]) == ("memory", True)
    assert r["ok"] and r["delivered"] > 100


@needs_verilator
def test_engines_agree_on_lut_ram_buffers(verilator_cache):
    # the storage the auto rule picks on ECP5 (a memory read asynchronously)
    r = both_engines(make_topology("hypercube", n=1), rate=1.0, cycles=150, warmup=20,
                     drain=150, seed=6, packet_flits=2, buffer="distributed")
    assert (r["buffer"], r["buffer_auto"]) == ("distributed", False)
    assert r["ok"] and r["delivered"] > 100


@needs_verilator
def test_engines_agree_on_block_ram_buffers_with_lut_ram_routes(verilator_cache):
    # block RAM on a part with LUT RAM (ECP5, Gowin): the routes in LUT RAM
    r = both_engines(make_topology("hypercube", n=1), rate=1.0, cycles=150, warmup=20,
                     drain=150, seed=6, packet_flits=2, buffer="memory",
                     distributed_depth=3)
    assert r["buffer"] == "memory" and r["ok"] and r["delivered"] > 100


@needs_verilator
def test_both_engines_end_the_drain_once_every_packet_arrived(verilator_cache):
    topo = make_topology("hypercube", n=2)
    r = both_engines(topo, rate=0.5, cycles=100, warmup=0, drain=5000, seed=4,
                     packet_flits=2)
    assert r["drained"] and 0 < r["drain_cycles"] < 100
    assert r["simulated_cycles"] == 100 + r["drain_cycles"] and r["in_flight"] == 0


# the count each deliberate defect must make non-zero
DETECTS = {"drop": "lost", "duplicate": "duplicated", "corrupt": "corrupted",
           "wrong_hop": "misrouted", "wrong_vc": "misrouted"}


def defect_run(kind):
    """The run of the fabric with the defect ``kind`` at node 0's port 0 (keywords of
    :func:`run_fabric_of` but the engine): the default router, 16-bit payloads, so a
    packet's timestamp and sequence number span its two flits; wrong_vc needs a VC field
    (two VCs per class), and one-flit packets (32-bit payloads), so that only the head
    goes astray."""
    return dict(rate=0.3, cycles=80, drain=60, seed=3,
                defect={"kind": kind, "node": 0, "port": 0},
                **({"vcs_per_class": 2, "payload_width": 32} if kind == "wrong_vc"
                   else {}))


def assert_caught(r, kind):
    """The defect ``kind`` of :func:`defect_run` is caught (and nothing else is wrong
    with a flit it leaves intact)."""
    assert r[DETECTS[kind]] >= 1 and not r["ok"]
    if kind in ("corrupt", "wrong_vc"):
        # the flit still reaches its destination: nothing else is wrong (but the bit
        # corrupt flips, a head's last, is one of its timestamp's, by which the harness
        # knows the packet: it counts the packet it cannot name lost)
        others = [k for k in CHECKS if k not in (DETECTS[kind], "lost")]
        assert [r[k] for k in others] == [0] * len(others), r
        assert r["lost"] == (kind == "corrupt"), r


@needs_verilator
@pytest.mark.parametrize("kind", [
    # wrong_vc builds a router of its own: the slow set (CI's fast set: the run below in
    # the Amaranth engine alone; the others share one build)
    pytest.param(kind, marks=pytest.mark.slow) if kind == "wrong_vc" else kind
    for kind in DEFECTS])
def test_every_check_catches_its_defect_in_both_engines(verilator_cache, kind):
    assert_caught(both_engines(make_topology("hypercube", n=2), **defect_run(kind)), kind)


def test_a_wrong_vc_is_caught_in_the_amaranth_engine():
    r = run_fabric_of(make_topology("hypercube", n=2), engine="amaranth",
                      **defect_run("wrong_vc"))
    assert_caught(r, "wrong_vc")


@needs_verilator
def test_a_fabric_built_with_defects_but_told_none_is_clean(verilator_cache):
    topo = make_topology("hypercube", n=2)
    r = both_engines(topo, rate=0.3, cycles=80, drain=60, seed=3, defects=True)
    assert r["ok"] and all(r[k] == 0 for k in CHECKS)


@pytest.mark.parametrize("packet_flits, expected", [(2, 10), (3, 11)])
def test_zero_load_latency_is_the_routers_per_hop_formula(packet_flits, expected):
    """Bit-complement traffic on Q(3): every packet crosses 3 hops; so few packets
    that none meets another. A packet created in cycle c (its timestamp) is queued at
    the edge ending c and offered on ``local_in`` in c + 1 (1 cycle, SOURCE_LATENCY);
    accepted then, its head is on ``local_out`` 2 + 3 * 2 cycles later (2 in the source
    router, 2 per hop: test_router_lookahead's HAND_LATENCIES), its tail L - 1 after
    that, when the checker takes now - timestamp: 1 + 2 + 6 + L - 1 = 8 + L. (The
    default 16-bit payloads: the timestamp ends in the second flit, the tail of L = 2.)"""
    topo = make_topology("hypercube", n=3)
    r = run_fabric_of(topo, engine="amaranth", rate=0.004 * packet_flits, cycles=400,
                      drain=100, seed=2, pattern="bitcomp", packet_flits=packet_flits)
    assert r["ok"] and r["window"]["delivered"] >= 8
    assert r["latency_histogram"] == [[expected, r["window"]["delivered"]]]
    assert r["avg_latency"] == r["p50_latency"] == r["p99_latency"] == expected


def test_a_run_reports_the_buffer_the_auto_rule_chose():
    # Q(2)'s default routers: 24 block RAMs, within the HX8K's 32, not within 16
    topo = make_topology("hypercube", n=2)
    small = run_fabric_of(topo, engine="amaranth", rate=0.1, cycles=20, drain=40, seed=1)
    large = run_fabric_of(topo, engine="amaranth", rate=0.1, cycles=20, drain=40, seed=1,
                          block_ram_budget=16)
    assert small["ok"] and (small["buffer"], small["buffer_auto"]) == ("memory", True)
    assert large["ok"] and (large["buffer"], large["buffer_auto"]) == ("registers", True)


def test_runs_longer_than_the_timestamps_are_refused():
    topo = make_topology("hypercube", n=2)
    with pytest.raises(ValueError, match="shorter than 2\\*\\*timestamp_bits = 256"):
        run_fabric_of(topo, engine="amaranth", cycles=200, drain=56, timestamp_bits=8)


def test_statistics_from_snapshots():
    topo = make_topology("hypercube", n=2)
    zero = {k: 0 for k in ("cycles", "created", "refused", "injected", "injected_flits",
                           "delivered", "delivered_flits", "errors", "corrupted",
                           "latency_sum")}
    end = dict(zero, created=40, injected=40, injected_flits=80, delivered=38,
               delivered_flits=78, latency_sum=190)
    checks = {"misrouted": 0, "reordered": 0, "duplicated": 0, "waiting_overtaken": 0,
              "waiting": 2, "latency_histogram": [[4, 20], [6, 18]]}
    s = statistics(topo, 2, 100, zero, end, end, drain=0, checks=checks)
    assert s["offered"] == 0.2 and s["throughput"] == 0.195
    assert s["avg_latency"] == 5 and s["p50_latency"] == 4 and s["max_latency"] == 6
    assert s["undelivered"] == 2 and s["in_flight"] == 2 and s["lost"] == 0 and s["ok"]
    # a drain that ran out: the packets still waiting are lost
    s = statistics(topo, 2, 100, zero, end, end, drain=10, checks=checks)
    assert s["lost"] == 2 and s["in_flight"] == 0 and not s["ok"]


def test_bad_run_parameters():
    topo = make_topology("hypercube", n=2)
    with pytest.raises(ValueError, match="engine must be one of"):
        run_fabric_of(topo, engine="icarus")
    with pytest.raises(ValueError, match="Injection rate"):
        run_fabric_of(topo, engine="amaranth", rate=1.5)
    with pytest.raises(ValueError, match="Seed"):
        run_fabric_of(topo, engine="amaranth", seed=1 << 40)
    with pytest.raises(ValueError, match="Defect must be"):
        run_fabric_of(topo, engine="amaranth", defect={"kind": "melt"})
    with pytest.raises(ValueError, match="writes no VCD"):
        run_fabric_of(topo, engine="verilator", vcd="x.vcd")


@pytest.mark.slow
@needs_verilator
@pytest.mark.parametrize("family, params, options", [
    ("metacube", {"k": 1, "m": 1}, {"rate": 0.4}),
    ("metacube", {"k": 1, "m": 1}, {"rate": 1.0, "packet_flits": 3}),
    ("metacube", {"k": 1, "m": 1}, {"rate": 0.6, "algorithm": "paper"}),
    ("dlh", {"m": 2, "d": 1}, {"rate": 0.4, "pattern": "hotspot"}),
    ("dlh", {"m": 2, "d": 1}, {"rate": 1.0, "pattern": "neighbor", "packet_flits": 2}),
    ("hypercube", {"n": 4}, {"rate": 0.8, "pattern": "transpose"}),
    ("hypercube", {"n": 3}, {"rate": 1.0, "pattern": "bitcomp", "depth": 4,
                             "vcs_per_class": 1}),
    ("mcube", {"k": 4}, {"rate": 1.0, "algorithm": "ecube", "packet_flits": 2}),
])
def test_engines_agree(verilator_cache, family, params, options):
    topo = make_topology(family, **params)
    r = both_engines(topo, cycles=300, warmup=100, drain=400, seed=9, **options)
    assert r["ok"] and r["delivered"] > 100


@pytest.mark.slow
@needs_verilator
@pytest.mark.parametrize("kind", DEFECTS)
def test_every_check_catches_its_defect_on_a_metacube(verilator_cache, kind):
    topo = make_topology("metacube", k=1, m=1)
    r = both_engines(topo, rate=0.3, cycles=100, drain=100, seed=5,
                     defect={"kind": kind, "node": int(topo.nodes()[3]), "port": 1})
    assert r[DETECTS[kind]] >= 1 and not r["ok"]
