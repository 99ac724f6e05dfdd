"""Deadlock freedom of adaptive routers that also replicate: Duato's extended graph of
the unicast routing beside the broadcast trees' graph
(cubefab.topology.broadcast_deadlock.check_adaptive_broadcast)."""

import networkx as nx
import pytest

from cubefab.topology import DLH, Hypercube, Mcube, Metacube
from cubefab.topology.broadcast_deadlock import (broadcast_dependency_graph,
                                                 check_adaptive_broadcast,
                                                 required_broadcast_vcs)
from cubefab.topology.duato import check_adaptive


ids = lambda t: getattr(t, "label", None)         # noqa: E731

#: Every family at sizes whose graphs take well under a second.
NETWORKS = [Hypercube(3), Hypercube(5), Metacube(1, 1), Metacube(1, 2), DLH(2, 1),
            DLH(2, 2), Mcube(3), Mcube(4)]


def broadcast_part_acyclic(topology, vcs, model):
    """The broadcast trees' graph alone, decided by networkx (independent of the
    cycle search under test)."""
    _, edges = broadcast_dependency_graph(topology, vcs, "buffered", model=model)
    return nx.is_directed_acyclic_graph(nx.DiGraph(edges.tolist()))


@pytest.mark.parametrize("model", ["all-port", "one-port"])
@pytest.mark.parametrize("topology", NETWORKS, ids=ids)
def test_the_shipped_adaptive_replicating_routers_are_proven(topology, model):
    report = check_adaptive_broadcast(topology, model=model)
    assert report.deadlock_free, report.describe_cycle()
    assert report.broadcast_vcs == required_broadcast_vcs(topology, model)


@pytest.mark.parametrize("classes, broadcast_vcs", [(1, 1), (1, 2), (2, 1), (2, 2)])
@pytest.mark.parametrize("topology", [DLH(2, 2), Metacube(1, 2), Hypercube(3)], ids=ids)
def test_the_verdict_is_both_parts_proven_alone(topology, classes, broadcast_vcs):
    # the parts share no channel: the union is acyclic exactly when each part is
    report = check_adaptive_broadcast(topology, escape_classes=classes,
                                      broadcast_vcs=broadcast_vcs)
    alone = check_adaptive(topology, escape_classes=classes).deadlock_free
    assert report.deadlock_free == (alone and broadcast_part_acyclic(
        topology, broadcast_vcs, "all-port"))


def test_a_cycle_of_broadcast_channels_is_named_broadcast():
    report = check_adaptive_broadcast(DLH(2, 2), broadcast_vcs=1)
    assert not report.deadlock_free
    assert {kind for *_, kind in report.cycle} == {"broadcast"}
    assert "broadcast vc 0" in report.describe_cycle()


def test_a_cycle_of_escape_channels_is_named_escape():
    report = check_adaptive_broadcast(DLH(2, 2), escape_classes=1)
    assert not report.deadlock_free
    assert {kind for *_, kind in report.cycle} <= {"direct", "indirect"}
    assert "escape class 0" in report.describe_cycle()


def test_the_graph_holds_both_parts_on_disjoint_vertices():
    topology = Hypercube(3)
    report = check_adaptive_broadcast(topology)
    n, degree = topology.num_nodes, topology.degree
    # escape channels, one state per (dest, node, class), broadcast channels
    assert report.vertices == n * degree * 1 + n * n * 1 + n * degree * 1
    assert report.channels == n * degree   # the escape channels, as Duato's report
    assert report.adaptive_dependencies == check_adaptive(topology).dependencies
    assert report.dependencies == report.adaptive_dependencies + report.broadcast_dependencies
