"""BFS-based exact properties."""

import networkx as nx
import numpy as np
import pytest

from cubefab.topology import Metacube, DLH, Hypercube, properties, bfs_distances
from cubefab.topology.properties import distance_distribution


@pytest.mark.parametrize("topo", [Metacube(1, 2), Metacube(2, 1), DLH(3, 2), Hypercube(4)])
def test_bfs_matches_networkx(topo):
    g = nx.Graph()
    g.add_edges_from(topo.edges().tolist())
    for s in topo.nodes()[:5].tolist():
        ref = nx.single_source_shortest_path_length(g, s)
        dist = bfs_distances(topo, s)
        for t, d in ref.items():
            assert dist[topo.index(t)] == d


def test_vertex_transitive_check_reports_all_sources_for_small():
    p = properties(Metacube(1, 2))
    assert p["vertex_transitive_check"] == {"same_distribution": True, "sources_checked": 32,
                                            "all_sources": True}


class _CycleWithChord(Hypercube):
    """C4 (0-1-3-2-0 as Q(2)) plus a chord 0-3 on port 2; a self-loop elsewhere.
    Node 0 sees distances [1, 3], node 1 sees [1, 2, 1]: not vertex-transitive."""

    def __init__(self):
        super().__init__(2)
        self.degree = 3

    def neighbor_array(self, a, port):
        a = np.asarray(a, dtype=np.int64)
        if port < 2:
            return a ^ (1 << port)
        return np.where((a == 0) | (a == 3), a ^ 3, a)


def test_differing_distributions_are_measured_from_every_source():
    topo = _CycleWithChord()
    assert distance_distribution(topo, 0).tolist() == [1, 3]
    p = properties(topo)
    # ordered pairs: nodes 0 and 3 see [1, 3]; nodes 1 and 2 see [1, 2, 1]
    assert p["pair_distance_distribution"] == [4, 10, 2]
    assert p["distance_distribution"] is None
    assert p["diameter"] == 2
    assert p["average_distance_exact"] == "7/6"          # (10 + 4) / 12
    assert p["vertex_transitive_check"] == {"same_distribution": False,
                                            "sources_checked": 4, "all_sources": True}


def test_differing_distributions_beyond_the_limit_raise(monkeypatch):
    import importlib
    props = importlib.import_module("cubefab.topology.properties")
    monkeypatch.setattr(props, "ALL_PAIRS_LIMIT", 2)
    with pytest.raises(ValueError, match="not vertex-transitive"):
        props.properties(_CycleWithChord())


def test_average_conventions():
    p = properties(Hypercube(3))
    # sum of distances from a node = 12; N = 8
    assert p["average_distance_exact"] == "12/7"
    assert p["average_distance_with_self_exact"] == "3/2"


def test_mc23_exact_diameter_and_average():
    p = properties(Metacube(2, 3), check_limit=2)
    assert p["nodes"] == 16384 and p["diameter"] == 16
    assert p["average_distance_with_self_exact"] == "1197/128"
