"""Self-checking fabrics of fault-tolerant routers under fault sets: the tables loaded
through the configuration port, traffic between healthy nodes, zero lost, duplicated,
corrupted or misrouted packets, identical counters in both engines."""

import pytest

import cubefab.hdl.source_table
from cubefab.topology import DLH, Hypercube, Metacube
from cubefab.topology.fault_routing import guarantee_bound, random_fault_sets
from tests.helpers import run_fabric_of
from tests.sim.engine_helpers import both_engines, needs_verilator

#: A small fault-tolerant router for fast runs (the Python simulator is slow).
SMALL = {"fault_waypoints": 1, "vcs_per_class": 1, "depth": 4, "opt": "-O1"}

ERRORS = ("lost", "duplicated", "corrupted", "misrouted", "checker_errors")


def assert_clean(result):
    assert {k: result[k] for k in ERRORS} == dict.fromkeys(ERRORS, 0)
    assert result["ok"] and result["drained"]


@needs_verilator
def test_q3_at_the_guarantee_past_saturation_in_both_engines(verilator_cache):
    # a node and a link faulty (the bound of Q(3) is 2): every packet between healthy
    # nodes delivered, those drawn to node 0 refused at their source
    result = both_engines(Hypercube(3), rate=0.7, cycles=200, drain=600, seed=5,
                          faults=[0], faulty_links=[(1, 3)], **SMALL)
    assert_clean(result)
    assert result["guaranteed"] and result["pairs_detoured"] > 0
    assert result["unroutable"] > 0 and result["delivered"] > 300   # 2-flit packets
    assert result["throughput"] < result["offered"]     # past saturation


@needs_verilator
def test_beyond_the_guarantee_a_cut_off_node_is_unroutable(verilator_cache):
    # nodes 1, 2 and 4 faulty: node 0 is cut off, its packets and those to it refused
    result = both_engines(Hypercube(3), rate=0.3, cycles=60, drain=600, seed=2,
                          faults=[1, 2, 4], **SMALL)
    assert_clean(result)
    assert not result["guaranteed"] and result["pairs_cut_off"] == 8
    assert result["unroutable"] > 0


@needs_verilator
def test_the_misrouted_check_sees_flits_on_faulty_links(verilator_cache, monkeypatch):
    # the source tables left fault-free: packets take the faulty node and link, and
    # both engines' checks count them
    monkeypatch.setattr(cubefab.hdl.source_table, "table_writes", lambda routing, w: [])
    result = both_engines(Hypercube(3), rate=0.2, cycles=40, drain=100, seed=5,
                          faults=[0], faulty_links=[(1, 3)], **SMALL)
    assert result["misrouted"] > 0 and not result["ok"]


def test_the_misrouted_check_sees_a_wrong_hop():
    # (the misrouted packets never arrive: a short drain, which runs to its end)
    result = run_fabric_of(Hypercube(3), engine="amaranth", rate=0.3, cycles=60,
                           drain=30, seed=1, faults=[0], defect={"kind": "wrong_hop",
                                                                  "node": 3, "port": 0},
                           **SMALL)
    assert result["misrouted"] > 0 and not result["ok"]


def test_a_fault_free_run_counts_no_unroutable_packet():
    # (fault-tolerant routers of Q(2): a quarter of Q(3)'s fabric to simulate)
    result = run_fabric_of(Hypercube(2), engine="amaranth", rate=0.3, cycles=60,
                           drain=300, seed=1, **SMALL)
    assert_clean(result)
    assert result["unroutable"] == 0 and result["configuration_writes"] == 0
    plain = run_fabric_of(Hypercube(2), engine="amaranth", rate=0.3, cycles=20, drain=100)
    assert plain["unroutable"] == 0 and plain["fault_waypoints"] == 0


@needs_verilator
@pytest.mark.slow
@pytest.mark.parametrize("faults, links", [([5, 20], []), ([9], [(0, 1)]), ([], [(0, 1), (2, 3)])])
def test_mc12_at_the_guarantee_in_both_engines(verilator_cache, faults, links):
    result = both_engines(Metacube(1, 2), rate=0.5, cycles=300, drain=1500, seed=7,
                          faults=faults, faulty_links=links, **SMALL)
    assert_clean(result)
    assert result["guaranteed"]


@needs_verilator
@pytest.mark.slow
def test_dlh21_through_two_waypoints_in_both_engines(verilator_cache):
    # nodes 0, 1 and 12 faulty: 4 -> 8 and 5 -> 8 go through two waypoints (three
    # phases, six VCs a link)
    result = both_engines(DLH(2, 1), rate=0.4, cycles=150, drain=800, seed=3,
                          faults=[0, 1, 12], **dict(SMALL, fault_waypoints=2))
    assert_clean(result)
    assert result["waypoints_needed"] == 2 and result["guaranteed"]


@needs_verilator
@pytest.mark.slow
def test_q4_under_random_fault_sets_at_the_bound(verilator_cache):
    # the RTL fabric under a sample of the fault sets the model proves: every one clean
    topo = Hypercube(4)
    for faults in random_fault_sets(topo, 8, guarantee_bound(topo), seed=3):
        result = run_fabric_of(topo, engine="verilator", rate=0.6, cycles=500, drain=2000,
                               seed=4, faults=faults.nodes, faulty_links=faults.links,
                               **SMALL)
        assert_clean(result)
        assert result["guaranteed"]


@needs_verilator
@pytest.mark.slow
def test_dlh43_under_random_fault_sets_at_the_bound(verilator_cache):
    # a sample of the random sets the model proves by the thousand (test_fault_routing):
    # DLH(4,3) with 5 faults, each run clean in the RTL fabric
    topo = DLH(4, 3)
    for faults in random_fault_sets(topo, 2, guarantee_bound(topo), seed=11):
        result = run_fabric_of(topo, engine="verilator", rate=0.3, cycles=300, drain=3000,
                               seed=4, faults=faults.nodes, faulty_links=faults.links,
                               **SMALL)
        assert_clean(result)
        assert result["guaranteed"] and result["delivered"] > 0


@pytest.mark.parametrize("options, match", [
    ({"faults": [1]}, "Faults need fault-tolerant routers"),
    ({"faults": [8], "fault_waypoints": 1}, "not a node|8"),
    ({"faulty_links": [(0, 3)], "fault_waypoints": 1}, "adjacent|link"),
])
def test_bad_faults_are_refused(options, match):
    with pytest.raises(ValueError, match=match):
        run_fabric_of(Hypercube(3), engine="amaranth", cycles=1, **options)
