"""Deadlock freedom of unicast plus buffered broadcast replication, and the witness
cycle of wormhole replication."""

import numpy as np
import pytest

from cubefab.topology import DLH, Hypercube, Mcube, Metacube
from cubefab.topology.broadcast_deadlock import (
    broadcast_dependency_graph, broadcast_next_vc, broadcast_wrap_array, check_broadcast,
    required_broadcast_vcs, _tree_vcs)
from cubefab.topology.broadcast_tree import broadcast_tree, one_port_tree
from cubefab.topology.deadlock import required_vcs

from tests.helpers import child_ports


ids = lambda t: t.label          # noqa: E731

#: The configurations the routers ship: each family's default unicast routing, except
#: the Mcube's e-cube (Mroute deadlocks on its own, tests/topology/test_deadlock.py).
SHIPPED = [(Hypercube(4), None), (Hypercube(6), None), (Metacube(1, 2), None),
           (Metacube(2, 1), None), (Metacube(1, 3), None), (DLH(2, 1), None),
           (DLH(3, 2), None), (Mcube(4), "ecube"), (Mcube(6), "ecube")]
SHIPPED_SLOW = [(Metacube(2, 2), None), (DLH(4, 3), None), (Hypercube(8), None),
                (Mcube(8), "ecube")]


def assert_cycle_is_real(report):
    """The witness is a closed walk of channels, each the next hop of the one before
    or (wormhole) a sibling output of the same node."""
    cycle = report.cycle
    assert cycle and len(cycle) >= 2
    for (u, p, v, vc, kind), (u2, *_rest) in zip(cycle, cycle[1:] + cycle[:1]):
        assert report.topology.neighbor(u, p) == v
        assert u2 in (v, u)


@pytest.mark.parametrize("topology, algorithm", SHIPPED, ids=lambda v: getattr(v, "label", v))
def test_buffered_replication_is_deadlock_free(topology, algorithm):
    report = check_broadcast(topology, algorithm)
    assert report.deadlock_free, report.describe_cycle()
    assert report.broadcast_dependencies > 0 and report.unicast_dependencies > 0
    assert report.unicast_vcs == required_vcs(topology, report.algorithm)


@pytest.mark.slow
@pytest.mark.parametrize("topology, algorithm", SHIPPED_SLOW,
                         ids=lambda v: getattr(v, "label", v))
def test_buffered_replication_is_deadlock_free_on_larger_networks(topology, algorithm):
    assert check_broadcast(topology, algorithm).deadlock_free


@pytest.mark.parametrize("topology", [Hypercube(3), Metacube(1, 2), DLH(2, 1), Mcube(4)],
                         ids=ids)
def test_wormhole_replication_has_a_witness_cycle(topology):
    report = check_broadcast(topology, "ecube" if isinstance(topology, Mcube) else None,
                             scheme="wormhole")
    assert not report.deadlock_free
    assert_cycle_is_real(report)
    assert {kind for *_, kind in report.cycle} == {"broadcast"}
    # two outputs of one node waiting on each other
    assert any(a[0] == b[0] for a, b in zip(report.cycle, report.cycle[1:] + report.cycle[:1]))


@pytest.mark.parametrize("topology", [Metacube(2, 1), DLH(3, 1), Mcube(5)], ids=ids)
def test_one_broadcast_vc_too_few_shows_a_cycle(topology):
    assert required_broadcast_vcs(topology) > 1
    report = check_broadcast(topology, "ecube" if isinstance(topology, Mcube) else None,
                             broadcast_vcs=1)
    assert not report.deadlock_free
    assert_cycle_is_real(report)
    assert all(kind == "broadcast" for *_, kind in report.cycle)


def test_a_deadlocking_unicast_routing_is_reported():
    report = check_broadcast(Mcube(4), "mroute")
    assert not report.deadlock_free
    assert {kind for *_, kind in report.cycle} == {"unicast"}


@pytest.mark.parametrize("topology, vcs", [(Hypercube(5), 1), (Metacube(1, 2), 2),
                                           (Metacube(2, 1), 4), (DLH(3, 2), 2)], ids=str)
def test_broadcast_vcs_mirror_the_unicast_rule(topology, vcs):
    assert required_broadcast_vcs(topology) == vcs == required_vcs(topology)


def test_broadcast_graph_holds_every_tree_link_pair():
    # independent count: one dependency per (tree link into u, tree link out of u),
    # for every source, merged over sources
    topology = Hypercube(4)
    expected = set()
    degree = topology.degree
    for s in range(16):
        tree = broadcast_tree(topology, s)
        for u, v in tree.edges():
            if u == s:
                continue
            up = topology.neighbor(u, int(tree.parent[u]))
            for p in child_ports(tree, u):
                expected.add(((up * degree + topology.port(up, u)),
                              (u * degree + p)))
    _, edges = broadcast_dependency_graph(topology, 1)
    assert set(map(tuple, edges.tolist())) == expected


def test_metacube_bwrap_is_a_cross_edge_that_sets_a_class_bit():
    topology = Metacube(2, 1)
    nodes = topology.nodes()
    shift = topology.m * topology.h
    for port in range(topology.degree):
        got = broadcast_wrap_array(topology, nodes, topology.degree, port)
        if port >= topology.k:
            assert not got.any()
        else:
            assert np.array_equal(got, (nodes >> (shift + port) & 1) == 0)


def test_check_broadcast_refuses_bad_input():
    with pytest.raises(ValueError, match="scheme"):
        check_broadcast(Hypercube(3), scheme="magic")
    with pytest.raises(ValueError, match="Broadcast VCs"):
        check_broadcast(Hypercube(3), broadcast_vcs=0)
    with pytest.raises(TypeError, match="Topology"):
        check_broadcast(object())


@pytest.mark.parametrize("topology", [Metacube(2, 1), DLH(3, 1), Mcube(5)], ids=ids)
def test_per_hop_vc_rule_gives_the_vcs_of_the_proof(topology):
    vcs = required_broadcast_vcs(topology)
    for s in topology.nodes().tolist()[::3]:
        tree = broadcast_tree(topology, s)
        proof = _tree_vcs(topology, s, vcs)
        vc_in = {s: (topology.degree, 0)}          # node -> (arrival port, VC)
        for u, v in tree.edges():                  # by depth: parents first
            in_port, vc = vc_in[u]
            out = topology.port(u, v)
            vc_in[v] = (topology.port(v, u), broadcast_next_vc(topology, u, in_port, out, vc,
                                                               vcs))
            assert vc_in[v][1] == proof[topology.index(v)]


# -- one-port replication: the one-port schedules' trees ---------------------------------

#: The configurations one-port routers ship (the fabric tests' and the benchmarks').
SHIPPED_ONE_PORT = [(Hypercube(3), None), (Hypercube(6), None), (Metacube(1, 1), None),
                    (Metacube(1, 2), None), (Metacube(2, 1), None), (DLH(2, 1), None),
                    (DLH(2, 2), None), (Mcube(3), "ecube"), (Mcube(6), "ecube")]
SHIPPED_ONE_PORT_SLOW = [(Metacube(2, 2), None), (DLH(4, 3), None), (Hypercube(8), None),
                         (Mcube(8), "ecube")]


@pytest.mark.parametrize("topology, algorithm", SHIPPED_ONE_PORT,
                         ids=lambda v: getattr(v, "label", v))
def test_one_port_replication_is_deadlock_free(topology, algorithm):
    report = check_broadcast(topology, algorithm, model="one-port")
    assert report.deadlock_free, report.describe_cycle()
    assert report.model == "one-port" and report.broadcast_dependencies > 0
    assert report.broadcast_vcs == required_broadcast_vcs(topology, "one-port")


@pytest.mark.slow
@pytest.mark.parametrize("topology, algorithm", SHIPPED_ONE_PORT_SLOW,
                         ids=lambda v: getattr(v, "label", v))
def test_one_port_replication_is_deadlock_free_on_larger_networks(topology, algorithm):
    assert check_broadcast(topology, algorithm, model="one-port").deadlock_free


def test_one_port_graph_holds_every_one_port_tree_link_pair():
    # independent enumeration from the schedule's transfers: one dependency per
    # (transfer into u, transfer out of u), every source, on one VC (Mcube(4): the
    # links descend along every path, so one VC serves)
    topology = Mcube(4)
    assert required_broadcast_vcs(topology, "one-port") == 1
    degree = topology.degree
    expected = set()
    for s in topology.nodes().tolist():
        into = {v: u for step in one_port_tree(topology, s).schedule() for u, v in step}
        for v, u in into.items():
            for w in [w for w, x in into.items() if x == v]:     # v's receivers
                expected.add((u * degree + topology.port(u, v),
                              v * degree + topology.port(v, w)))
    _, edges = broadcast_dependency_graph(topology, 1, model="one-port")
    assert set(map(tuple, edges.tolist())) == expected


def test_the_all_port_mcube_rule_would_need_more_vcs_on_one_port_trees():
    # the one-port trees descend the link numbers: the all-port rule (ascending) would
    # wrap on every hop; the one-port rule wraps never
    topology = Mcube(5)
    assert required_broadcast_vcs(topology, "one-port") == 1
    assert required_broadcast_vcs(topology) > 1


def test_one_broadcast_vc_too_few_shows_a_one_port_cycle():
    topology = DLH(2, 2)
    assert required_broadcast_vcs(topology, "one-port") == 2
    report = check_broadcast(topology, broadcast_vcs=1, model="one-port")
    assert not report.deadlock_free
    assert_cycle_is_real(report)
    assert all(kind == "broadcast" for *_, kind in report.cycle)


@pytest.mark.parametrize("topology", [Metacube(2, 1), DLH(3, 1), Mcube(5)], ids=ids)
def test_per_hop_vc_rule_gives_the_vcs_of_the_one_port_proof(topology):
    vcs = required_broadcast_vcs(topology, "one-port")
    for s in topology.nodes().tolist()[::3]:
        proof = _tree_vcs(topology, s, vcs, "one-port")
        vc_in = {s: (topology.degree, 0)}
        for step in one_port_tree(topology, s).schedule():    # senders informed first
            for u, v in step:
                in_port, vc = vc_in[u]
                out = topology.port(u, v)
                vc_in[v] = (topology.port(v, u), broadcast_next_vc(
                    topology, u, in_port, out, vc, vcs, "one-port"))
                assert vc_in[v][1] == proof[topology.index(v)]


def test_check_broadcast_refuses_an_unknown_model():
    with pytest.raises(ValueError, match="model"):
        check_broadcast(Hypercube(3), model="two-port")
