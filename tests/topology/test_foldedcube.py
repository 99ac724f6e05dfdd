"""The folded hypercube FQ(n): the model against BFS, its routing, its deadlock freedom
and its fault bound (the fifth family, docs/extending.md)."""

import networkx as nx
import numpy as np
import pytest

from cubefab.topology import properties
from cubefab.topology.catalog import make_topology
from cubefab.topology.deadlock import check_deadlock_free, required_vcs
from cubefab.topology.fault_routing import guarantee_bound
from cubefab.topology.foldedcube import FoldedCube
from tests.helpers import assert_is_walk, distance_matrix


def test_complement_port_and_cube_ports():
    fq = FoldedCube(4)
    assert fq.neighbors(0b1010) == [0b1011, 0b1000, 0b1110, 0b0010, 0b0101]
    assert fq.degree == 5 and fq.num_nodes == 16 and fq.label == "FQ(4)"


@pytest.mark.parametrize("bad, error", [(1, ValueError), (63, ValueError),
                                        (3.0, TypeError)])
def test_dimension_is_checked(bad, error):
    with pytest.raises(error, match="Folded hypercube dimension n"):
        FoldedCube(bad)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7])
def test_properties_equal_bfs(n):
    fq = FoldedCube(n)
    p = properties(fq)
    dist = distance_matrix(fq)
    bfs = np.bincount(dist[0].astype(np.int64)).tolist()
    assert p["method"] == "structure"
    assert p["distance_distribution"] == bfs
    assert (dist == dist[0][np.arange(fq.num_nodes)[:, None] ^ np.arange(fq.num_nodes)]).all()
    assert p["diameter"] == int(dist.max()) == (n + 1) // 2
    assert p["degree"] == n + 1 and p["links"] == (n + 1) * 2 ** (n - 1)
    for key in ("nodes", "degree", "links", "diameter"):
        assert p["paper"][key]["value"] == p[key]


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7])
def test_routes_are_shortest_for_every_pair(n):
    fq = FoldedCube(n)
    dist = distance_matrix(fq)
    for s in range(fq.num_nodes):
        for t in range(fq.num_nodes):
            path = fq.route(s, t)
            assert len(path) - 1 == dist[s, t] == fq.distance(s, t)
    assert_is_walk(fq, fq.route(1, 2 ** n - 2), 1, 2 ** n - 2)


def test_complement_link_is_only_a_first_hop():
    fq = FoldedCube(6)
    for t in range(fq.num_nodes):
        ports = [fq.port(u, v) for u, v in zip(fq.route(0, t), fq.route(0, t)[1:])]
        assert fq.n not in ports[1:]
        assert ports[fq.n in ports:] == sorted(ports[fq.n in ports:])


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7, 8])
def test_deadlock_free_on_one_vc(n):
    fq = FoldedCube(n)
    report = check_deadlock_free(fq, vcs=1)
    assert report.deadlock_free and required_vcs(fq) == 1
    assert report.dependencies > 0 or n == 2    # FQ(2) is K4: every route one hop


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_fault_bound_is_the_connectivity_minus_one(n):
    fq = FoldedCube(n)
    graph = nx.Graph([tuple(map(int, e)) for e in fq.edges()])
    assert guarantee_bound(fq) == nx.node_connectivity(graph) - 1 == n


def test_catalog_builds_it():
    assert make_topology("foldedcube", n=3) == FoldedCube(3)
