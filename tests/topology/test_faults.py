"""Fault-tolerant routing and dlh.txt Lemma 5."""

from itertools import combinations
import random

import networkx as nx
import pytest

from cubefab.topology import DLH, Hypercube, Metacube
from cubefab.topology.faults import (NO_PATH_MESSAGE, check_single_fault_detours,
                                     fault_free_path)
from cubefab.topology.paths import check_disjoint_paths

from tests.topology.paths_helpers import as_graph, class_sources


def assert_avoids(topology, route, faulty_nodes=(), faulty_links=()):
    path = route.path
    assert path[0] == route.src and path[-1] == route.dst
    assert not check_disjoint_paths(topology, route.src, route.dst, [path])
    assert not set(path) & set(faulty_nodes)
    used = {frozenset(e) for e in zip(path, path[1:])}
    assert not used & {frozenset(e) for e in faulty_links}


def every_fault_set(topology, sources):
    size = topology.k + topology.m - 1
    nodes = [int(a) for a in topology.nodes()]
    for s in sources:
        for t in nodes:
            if t == s:
                continue
            others = [v for v in nodes if v not in (s, t)]
            for faults in combinations(others, size):
                yield s, t, faults


@pytest.mark.parametrize("k, m, all_classes", [(1, 2, True), (2, 1, False)])
def test_every_fault_set_of_size_k_plus_m_minus_1(k, m, all_classes):
    mc = Metacube(k, m)
    sources = class_sources(mc) if all_classes else [0]
    checked = 0
    for s, t, faults in every_fault_set(mc, sources):
        route = fault_free_path(mc, s, t, faults)
        assert route.found and route.guaranteed and route.method == "disjoint-paths"
        assert_avoids(mc, route, faults)
        checked += 1
    assert checked == len(sources) * (mc.num_nodes - 1) * \
        len(list(combinations(range(mc.num_nodes - 2), k + m - 1)))


@pytest.mark.slow
def test_every_fault_set_mc21_every_class():
    mc = Metacube(2, 1)
    for s, t, faults in every_fault_set(mc, class_sources(mc)):
        route = fault_free_path(mc, s, t, faults)
        assert route.found and route.guaranteed
        assert_avoids(mc, route, faults)


@pytest.mark.parametrize("k, m, count", [(2, 2, 3), (2, 2, 8), (1, 3, 3), (1, 3, 12),
                                         (2, 3, 4), (2, 3, 40)])
def test_random_fault_sets_agree_with_networkx(k, m, count):
    mc = Metacube(k, m)
    g = as_graph(mc)
    rng = random.Random(k * 100 + m * 10 + count)
    for _ in range(25):
        s, t = rng.sample(range(mc.num_nodes), 2)
        faults = rng.sample([v for v in range(mc.num_nodes) if v not in (s, t)], count)
        route = fault_free_path(mc, s, t, faults)
        h = g.subgraph(v for v in g if v not in faults)
        assert route.found == nx.has_path(h, s, t)
        assert route.guaranteed == (count <= k + m - 1)
        if route.found:
            assert_avoids(mc, route, faults)
            if route.method == "search":
                assert len(route.path) - 1 == nx.shortest_path_length(h, s, t)
        else:
            assert route.message.startswith(NO_PATH_MESSAGE)


def test_faulty_links_and_nodes_together():
    mc = Metacube(2, 2)
    links = [(0, 1), (2, 0)]
    route = fault_free_path(mc, 0, 5, faulty_nodes=[256], faulty_links=links)
    assert route.guaranteed and route.found
    assert_avoids(mc, route, [256], links)


def test_all_neighbours_faulty_gives_a_clear_failure():
    mc = Metacube(2, 2)
    route = fault_free_path(mc, 0, 5, [1, 2, 256, 512])
    assert not route.found and route.path is None
    assert route.message.startswith(NO_PATH_MESSAGE)
    assert route.as_dict()["path"] is None and route.as_dict()["found"] is False


def test_beyond_the_guarantee_search_finds_shortest_path():
    cube = Hypercube(4)
    route = fault_free_path(cube, 0, 15, [1, 2, 4, 3, 5])
    assert route.method == "search" and not route.guaranteed and route.found
    g = as_graph(cube)
    g.remove_nodes_from([1, 2, 4, 3, 5])
    assert len(route.path) - 1 == nx.shortest_path_length(g, 0, 15)


def test_dlh_faults_within_d_plus_2():
    dlh = DLH(4, 3)
    nodes = [int(a) for a in dlh.nodes()]
    rng = random.Random(5)
    for _ in range(20):
        s, t = rng.sample(nodes, 2)
        faults = rng.sample([v for v in nodes if v not in (s, t)], 5)
        route = fault_free_path(dlh, s, t, faults)
        assert route.guaranteed and route.found
        assert_avoids(dlh, route, faults)


def test_bad_fault_arguments():
    mc = Metacube(2, 2)
    with pytest.raises(ValueError, match="source 0 is faulty"):
        fault_free_path(mc, 0, 5, [0])
    with pytest.raises(ValueError, match="destination 5 is faulty"):
        fault_free_path(mc, 0, 5, [5])
    with pytest.raises(ValueError, match="not adjacent"):
        fault_free_path(mc, 0, 5, faulty_links=[(0, 3)])
    with pytest.raises(TypeError, match="pair"):
        fault_free_path(mc, 0, 5, faulty_links=[7])
    with pytest.raises(ValueError, match="faulty node"):
        fault_free_path(mc, 0, 5, [4096])


# -- dlh.txt Lemma 5 -----------------------------------------------------------------

def test_dlh_lemma5_holds_exhaustively_on_dlh_4_3():
    report = check_single_fault_detours(DLH(4, 3))
    assert report["holds"] and report["violations"] == 0
    assert report["max_extra_node"] == 2 and report["max_extra_link"] == 2
    # 128 faulty nodes x 127*126 pairs + 384 faulty links x 128*127 pairs
    assert report["checked"] == 128 * 127 * 126 + 384 * 128 * 127


def test_single_fault_check_can_fail():
    report = check_single_fault_detours(DLH(4, 3), extra=1)
    assert not report["holds"] and report["violations"] > 0
    kind, fault, s, t, dist, faulty = report["examples"][0]
    assert faulty - dist == 2


@pytest.mark.parametrize("m, d", [(2, 1), (2, 2), (3, 1), (3, 2)])
def test_dlh_lemma5_small(m, d):
    assert check_single_fault_detours(DLH(m, d))["holds"]
