"""Fault-tolerant routers that broadcast and multicast: self-checking fabrics under
fault sets, the healthy tree and the copies' count loaded through the configuration
port, every copy checked against the model's flood, both engines identical; and one
member-vector multicast alone in the fabric (:func:`hardware_broadcast`)."""

import pytest

import cubefab.hdl.selfcheck_node
from cubefab.sim.broadcast_run import hardware_broadcast
from cubefab.sim.selfcheck_run import CHECKS
from cubefab.topology import DLH, Hypercube, Metacube
from cubefab.topology.fault_broadcast import healthy_tree
from cubefab.topology.fault_routing import FaultSet
from tests.helpers import run_fabric_of
from tests.sim.engine_helpers import both_engines, needs_verilator


#: Fault sets whose healthy network stays connected: (topology, faulty nodes, faulty
#: links, multicast group).
NETWORKS = {"Q(3)": (Hypercube(3), [0], [(1, 3)], 0b011),
            "MC(1,1)": (Metacube(1, 1), [5], [], 0b001),
            "DLH(2,1)": (DLH(2, 1), [3], [(0, 1)], 0b0001)}

#: The replications of the eight cells, as run keywords (``group`` stands for the
#: network's multicast group).
REPLICATIONS = {"all-port": {}, "one-port": {"broadcast_model": "one-port"},
                "subcube": {"multicast_group": "group"}}

SMALL = {"fault_waypoints": 1, "broadcast_vcs": 1, "depth": 4, "packet_flits": 2,
         "opt": "-O1"}


def run(name, replication, hop, engines=both_engines, cycles=None, **options):
    topology, faults, links, group = NETWORKS[name]
    extra = {k: group if v == "group" else v for k, v in REPLICATIONS[replication].items()}
    # (DLH(2,1)'s 16 nodes saturate at a lower rate; the Python simulator is slow)
    rate, length = (0.4, 60) if topology.num_nodes > 8 else (1.0, 100)
    options = {"drain": 3000, "warmup": 30, **options}
    return engines(topology, rate=rate, cycles=cycles or length, seed=11,
                   broadcast_fraction=0.2, faults=faults, faulty_links=links, hop=hop,
                   **SMALL, **extra, **options)


def assert_clean(r):
    """Nothing lost, duplicated, corrupted or misrouted; every copy of every broadcast
    delivered to the healthy nodes (members) only."""
    assert r["ok"] and r["drained"], r
    assert all(r[k] == 0 for k in CHECKS if k != "reordered"), r
    assert r["delivered"] == r["created"] == r["injected"]
    assert r["broadcasts"] > 10


def healthy(name):
    topology, faults, links, _ = NETWORKS[name]
    return len(healthy_tree(topology, FaultSet(topology, faults, links)).nodes)


def test_a_q3_broadcast_floods_the_healthy_tree():
    # (CI's fast set: the Amaranth engine; both engines below and in the slow set)
    r = run("Q(3)", "all-port", "buffered", engines=_amaranth, cycles=30)
    assert_clean(r)
    assert r["copies_delivered"] == r["broadcasts"] * (healthy("Q(3)") - 1)


@needs_verilator
@pytest.mark.slow
def test_a_q3_broadcast_floods_the_healthy_tree_in_both_engines(verilator_cache):
    r = run("Q(3)", "all-port", "buffered", cycles=60)
    assert_clean(r)
    assert r["copies_delivered"] == r["broadcasts"] * (healthy("Q(3)") - 1)
    assert r["faulty_nodes"] == [0] and r["unroutable"] > 0


@needs_verilator
@pytest.mark.slow
@pytest.mark.parametrize("hop", ["buffered", "lookahead"])
@pytest.mark.parametrize("replication", sorted(REPLICATIONS))
@pytest.mark.parametrize("name", sorted(NETWORKS))
def test_every_fault_tolerant_replication_in_both_engines(verilator_cache, name,
                                                          replication, hop):
    r = run(name, replication, hop)
    assert_clean(r)
    if replication != "subcube":
        assert r["copies_delivered"] == r["broadcasts"] * (healthy(name) - 1)


def test_the_checks_see_copies_that_leave_the_healthy_tree(monkeypatch):
    # the routers loaded with the fault-free network's tree: copies cross the faulty
    # node and link, and the checks count them
    real = cubefab.hdl.selfcheck_node.flood_writes

    def fault_free(tree, copies, multicast):
        everyone = healthy_tree(tree.topology)
        return real(everyone, {a: copies.get(a, 0) for a in everyone.nodes}, multicast)

    monkeypatch.setattr(cubefab.hdl.selfcheck_node, "flood_writes", fault_free)
    r = run("Q(3)", "all-port", "buffered", engines=_amaranth, cycles=15, drain=20)
    assert r["misrouted"] > 0 and not r["ok"]


def _amaranth(topology, **options):
    return run_fabric_of(topology, engine="amaranth", **options)


def test_links_failing_mid_run_are_refused_with_broadcasts():
    with pytest.raises(ValueError, match="Links failing mid-run need routers without "
                                         "broadcast VCs"):
        run("Q(3)", "all-port", "buffered", engines=_amaranth, fail_links=[(2, 6, 50)])


def test_a_fault_set_that_cuts_the_healthy_network_is_refused():
    with pytest.raises(ValueError, match="the healthy network is not connected"):
        run_fabric_of(Metacube(1, 1), engine="amaranth", rate=0.5, cycles=20, seed=1,
                      broadcast_fraction=0.2, faults=[5], faulty_links=[(0, 1)], **SMALL)


@pytest.mark.parametrize("hop", ["buffered", pytest.param("lookahead",
                                                           marks=pytest.mark.slow)])
def test_a_member_vector_multicast_reaches_its_healthy_members(hop):
    r = hardware_broadcast(Hypercube(3), 0, members=[1, 2, 3, 5, 6], packet_flits=2,
                           fault_waypoints=1, faults=[2], faulty_links=[(0, 1)], hop=hop)
    assert sorted(r["arrivals"]) == [1, 3, 5, 6]          # node 2 is faulty
    tree = healthy_tree(Hypercube(3), FaultSet(Hypercube(3), [2], [(0, 1)]))
    links = {frozenset((u, Hypercube(3).neighbor(u, p)))
             for u, mask in tree.ports.items() for p in range(3) if mask >> p & 1}
    assert all(frozenset(link) in links for link in r["tree"])
    assert set(r["copies"].values()) == {1}


@needs_verilator
@pytest.mark.slow
@pytest.mark.parametrize("hop", ["buffered", "lookahead"])
@pytest.mark.parametrize("topology, faults, links, members", [
    (Hypercube(3), [2], [(0, 1)], [1, 2, 3, 5, 6]),
    (Metacube(1, 1), [5], [], [1, 2, 5, 7])], ids=["Q(3)", "MC(1,1)"])
def test_member_vector_multicasts_agree_in_both_engines(verilator_cache, topology, faults,
                                                        links, members, hop):
    options = dict(members=members, packet_flits=2, fault_waypoints=1, faults=faults,
                   faulty_links=links, hop=hop)
    amaranth = hardware_broadcast(topology, 0, **options)
    assert set(amaranth["arrivals"]) == set(members) - {0} - set(faults)
    assert hardware_broadcast(topology, 0, engine="verilator", **options) == amaranth


def test_unicasts_are_compared_in_a_fault_free_fabric():
    with pytest.raises(ValueError, match="give no faults with unicasts=True"):
        hardware_broadcast(Hypercube(3), 0, unicasts=True, fault_waypoints=1, faults=[2])


def test_faults_need_fault_tolerant_routers():
    with pytest.raises(ValueError, match="Faults need fault-tolerant routers"):
        hardware_broadcast(Hypercube(3), 0, faults=[2])
