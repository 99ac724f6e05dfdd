"""Broadcast under faults: the healthy network's spanning tree, flooded, against BFS."""

import random

import pytest

from cubefab.topology import DLH, Hypercube, Mcube, Metacube
from cubefab.topology.fault_broadcast import (HealthyTree, check_flood_beside_waypoints,
                                              check_flood_deadlock, flood_dependency_graph,
                                              healthy_tree)
from cubefab.topology.foldedcube import FoldedCube
from cubefab.topology.fault_routing import FaultSet, plan_waypoints
from cubefab.topology.properties import bfs_distances


NETWORKS = [Hypercube(3), Hypercube(4), Metacube(1, 1), Metacube(1, 2), DLH(2, 1),
            Mcube(3), FoldedCube(3)]


def _healthy_component(topology, faults):
    """The healthy nodes reachable from the lowest healthy one over healthy links, by
    a plain search over the topology's neighbours (independent of the model)."""
    bad, links = set(faults.nodes), {frozenset(link) for link in faults.links}
    nodes = [int(a) for a in topology.nodes() if int(a) not in bad]
    seen, todo = {nodes[0]}, [nodes[0]]
    while todo:
        u = todo.pop()
        for v in topology.neighbors(u):
            v = int(v)
            if v not in bad and v not in seen and frozenset((u, v)) not in links:
                seen.add(v)
                todo.append(v)
    return seen, set(nodes)


def _fault_sets(topology, count=4, seed=0):
    """Up to ``count`` random fault sets (a node and a link, or two links) whose healthy
    network stays connected."""
    rng = random.Random(seed)
    nodes = [int(a) for a in topology.nodes()]
    links = [(int(u), int(v)) for u, v in topology.edges()]
    out = []
    for _ in range(50):
        if len(out) == count:
            break
        bad_node = rng.sample(nodes, rng.randint(0, 1))
        bad_links = [l for l in rng.sample(links, 2) if not set(l) & set(bad_node)]
        faults = FaultSet(topology, bad_node, bad_links)
        reach, healthy = _healthy_component(topology, faults)
        if reach == healthy:
            out.append(faults)
    return out


@pytest.mark.parametrize("topology", NETWORKS, ids=str)
def test_every_healthy_node_gets_one_copy_of_every_broadcast(topology):
    for faults in [FaultSet(topology)] + _fault_sets(topology):
        tree = healthy_tree(topology, faults)
        _, healthy = _healthy_component(topology, faults)
        assert set(tree.nodes) == healthy
        for source in tree.nodes:
            got = tree.flood(source)     # raises on a second copy
            assert set(got) == healthy


@pytest.mark.parametrize("topology", NETWORKS, ids=str)
def test_the_tree_uses_healthy_links_only_and_spans(topology):
    for faults in _fault_sets(topology, seed=1):
        tree = healthy_tree(topology, faults)
        bad_links = {tuple(sorted(link)) for link in faults.links}
        links = set()
        for u in tree.nodes:
            for p in range(topology.degree):
                if tree.ports[u] >> p & 1:
                    v = topology.neighbor(u, p)
                    assert v in tree.ports and (min(u, v), max(u, v)) not in bad_links
                    links.add((min(u, v), max(u, v)))
        assert len(links) == len(tree.nodes) - 1       # a spanning tree


@pytest.mark.parametrize("topology", NETWORKS, ids=str)
def test_flooding_the_tree_is_deadlock_free(topology):
    for faults in [FaultSet(topology)] + _fault_sets(topology, count=2, seed=2):
        tree = healthy_tree(topology, faults)
        ok, cycle = check_flood_deadlock(tree)
        assert ok and cycle is None
        graph = flood_dependency_graph(tree)
        assert graph.number_of_nodes() == 2 * (len(tree.nodes) - 1)   # both directions


def test_a_tree_with_a_cycle_in_it_is_caught():
    """Ports that close a cycle are not a tree: a copy comes round to a node twice."""
    topology = Hypercube(2)
    tree = healthy_tree(topology)
    looped = HealthyTree(topology, tree.faults, tree.root, tree.parent,
                         {u: (1 << topology.degree) - 1 for u in tree.ports})
    with pytest.raises(ValueError, match="two copies"):
        looped.flood(0)


def test_the_dependency_check_finds_a_cycle_of_links(monkeypatch):
    """The check returns a cycle when the links' dependencies close one (a ring's
    flooding both ways round, made by hand)."""
    import networkx as nx
    from cubefab.topology import fault_broadcast
    ring = nx.DiGraph([((0, 1), (1, 2)), ((1, 2), (2, 0)), ((2, 0), (0, 1))])
    monkeypatch.setattr(fault_broadcast, "flood_dependency_graph", lambda tree: ring)
    ok, cycle = fault_broadcast.check_flood_deadlock(None)
    assert not ok and len(cycle) == 3


@pytest.mark.parametrize("topology", [Hypercube(4), Metacube(1, 2)], ids=str)
def test_a_multicast_reaches_its_members_once_over_pruned_branches(topology):
    rng = random.Random(3)
    for faults in _fault_sets(topology, count=2, seed=3):
        tree = healthy_tree(topology, faults)
        for _ in range(4):
            source = rng.choice(tree.nodes)
            members = set(rng.sample(tree.nodes, 5)) - {source}
            got, todo = {}, [(source, None)]
            while todo:
                u, in_port = todo.pop()
                mask = tree.multicast_ports(u, in_port, members)
                for p in range(topology.degree):
                    if mask >> p & 1:
                        v = topology.neighbor(u, p)
                        got[v] = got.get(v, 0) + 1
                        todo.append((v, topology.port(v, u)))
            assert source not in got         # the source sends, receives nothing
            assert members <= set(got) and all(n == 1 for n in got.values())
            # every copy that goes out leads to a member
            relays = set(got) - members - {source}
            for r in relays:
                assert any(tree.beyond(r, p) & members for p in range(topology.degree)
                           if tree.ports[r] >> p & 1)


def test_without_faults_the_flood_from_the_root_is_as_deep_as_the_network():
    topology = Hypercube(4)
    tree = healthy_tree(topology)
    assert tree.root == 0 and tree.stretch(0) == (4, 4)
    hops, shortest = tree.stretch(15)
    assert shortest == 4 and hops >= shortest
    assert bfs_distances(topology, 0).max() == 4


def test_a_disconnected_healthy_network_is_refused():
    topology = Hypercube(2)
    faults = FaultSet(topology, links=[(0, 1), (0, 2)])   # node 0 cut off
    with pytest.raises(ValueError, match="not connected"):
        healthy_tree(topology, faults)
    with pytest.raises(TypeError, match="FaultSet"):
        healthy_tree(topology, FaultSet(Hypercube(3)))


@pytest.mark.parametrize("topology", [Hypercube(3), Metacube(1, 2), DLH(2, 1), FoldedCube(3)],
                         ids=str)
def test_the_flood_beside_the_waypoint_routing_is_deadlock_free(topology):
    # the union of the unicast routing's graph and the flood's, per fault set
    for faults in [FaultSet(topology)] + _fault_sets(topology, count=2, seed=3):
        routing = plan_waypoints(topology, faults, 1)
        assert check_flood_beside_waypoints(routing, healthy_tree(topology, faults)) == (
            True, None)


def test_the_union_check_finds_a_flood_cycle_on_the_broadcast_vc(monkeypatch):
    import networkx as nx
    from cubefab.topology import fault_broadcast
    topology = Hypercube(2)
    ring = nx.DiGraph([((0, 1), (1, 3)), ((1, 3), (3, 2)), ((3, 2), (2, 0)),
                       ((2, 0), (0, 1))])
    monkeypatch.setattr(fault_broadcast, "flood_dependency_graph", lambda tree: ring)
    routing = plan_waypoints(topology, FaultSet(topology), 1)
    free, cycle = check_flood_beside_waypoints(routing, healthy_tree(topology))
    vcs = (1 + 1) * routing.table.classes      # the unicast VCs; the broadcast one next
    assert not free and len(cycle) == 4 and {vc for *_, vc in cycle} == {vcs}


def test_the_union_check_needs_the_tree_of_the_routing_s_faults():
    topology = Hypercube(3)
    routing = plan_waypoints(topology, FaultSet(topology, [0]), 1)
    with pytest.raises(ValueError, match="healthy tree of the routing's fault set"):
        check_flood_beside_waypoints(routing, healthy_tree(topology))
