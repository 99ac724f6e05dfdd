"""Exact properties: by structure, proven equal to BFS; BFS limits and its all-sources check."""

import importlib
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest

from cubefab.topology import Metacube, DLH, Hypercube, Mcube, properties, bfs_distances
from cubefab.topology.properties import (distance_distribution, SizeLimitError,
                                         bfs_memory_estimate)
from cubefab.topology.structure import (structural_classes, metacube_class_distribution,
                                        dualcube_distribution, metacube_average_with_self)

props = importlib.import_module("cubefab.topology.properties")


def _metacubes_up_to(log_nodes):
    """Every MC(k, m) with 1 <= k <= 4 and at most 2**log_nodes nodes."""
    return [(k, m) for k in range(1, 5) for m in range(1, 64)
            if k + m * 2 ** k <= log_nodes]


def _class_source(topo, c, rng):
    """A node of class ``c`` with random fields."""
    fields = int(rng.integers(0, 1 << (topo.address_bits - topo.k)))
    return (c << (topo.address_bits - topo.k)) | fields


# -- structure against BFS ---------------------------------------------------------------

@pytest.mark.parametrize("k,m", _metacubes_up_to(24))
def test_metacube_structure_equals_bfs_from_every_source_class(k, m):
    topo = Metacube(k, m)
    classes, _ = structural_classes(topo)
    assert len(classes) == 2 ** k
    rng = np.random.default_rng(k * 100 + m)
    for c, cls in enumerate(classes):
        assert cls.name == f"class {c}" and cls.sources == topo.num_nodes >> k
        bfs = distance_distribution(topo, _class_source(topo, c, rng)).tolist()
        assert cls.distribution == bfs


@pytest.mark.slow
def test_mc33_structure_equals_bfs_from_every_source_class():
    test_metacube_structure_equals_bfs_from_every_source_class(3, 3)


@pytest.mark.parametrize("topo", [Metacube(1, 3), Metacube(2, 2), Metacube(3, 1),
                                  DLH(2, 1), DLH(3, 2), Hypercube(6)])
def test_structure_equals_bfs_from_every_node(topo):
    """All-sources BFS (every node, not one per class) gives the same pair distribution,
    diameter, radius and exact averages as the structure."""
    by_structure = properties(topo)
    by_bfs = properties(topo, "bfs", distributed=False)
    assert by_structure["method"] == "structure" and by_bfs["method"] == "bfs"
    assert by_bfs["vertex_transitive_check"]["all_sources"]
    for key in ["pair_distance_distribution", "distance_distribution", "diameter", "radius",
                "average_distance_exact", "average_distance_with_self_exact"]:
        assert by_structure[key] == by_bfs[key], key


@pytest.mark.parametrize("m,d", [(2, 1), (2, 4), (3, 2), (4, 3), (5, 6), (7, 9), (12, 5)])
def test_dlh_structure_equals_bfs(m, d):
    topo = DLH(m, d)
    (cls,), _ = structural_classes(topo)
    rng = np.random.default_rng(m * 100 + d)
    for index in rng.choice(topo.num_nodes, size=3, replace=False):
        source = topo.address(int(index))
        assert cls.distribution == distance_distribution(topo, source).tolist()


@pytest.mark.parametrize("n", range(1, 17))
def test_hypercube_structure_equals_bfs(n):
    (cls,), _ = structural_classes(Hypercube(n))
    assert cls.distribution == distance_distribution(Hypercube(n), 0).tolist()


@pytest.mark.parametrize("m", range(1, 9))
def test_dualcube_closed_form_equals_class_walks(m):
    for c in range(2):
        assert dualcube_distribution(m) == metacube_class_distribution(1, m, c)


@pytest.mark.parametrize("topo", [Metacube(1, 2), Metacube(2, 1), DLH(3, 2), Hypercube(4)])
def test_bfs_matches_networkx(topo):
    g = nx.Graph()
    g.add_edges_from(topo.edges().tolist())
    for s in topo.nodes()[:5].tolist():
        ref = nx.single_source_shortest_path_length(g, s)
        dist = bfs_distances(topo, s)
        for t, d in ref.items():
            assert dist[topo.index(t)] == d


# -- exact averages: closed form, large sizes ----------------------------------------------

@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_average_closed_form_equals_structure(k):
    for m in range(1, 9):
        p = properties(Metacube(k, m))
        assert Fraction(p["average_distance_with_self_exact"]) == metacube_average_with_self(k, m)


def test_dualcube_average_is_the_papers_formula():
    for m in range(1, 30):
        n = 2 * m + 1
        assert metacube_average_with_self(1, m) == Fraction(n, 2) + 1 - Fraction(1, 2 ** m)


def test_mc44_by_structure():
    p = properties(Metacube(4, 4))
    assert p["method"] == "structure"
    assert p["nodes"] == 2 ** 68 and sum(p["distance_distribution"]) == 2 ** 68
    assert p["diameter"] == 80 == p["radius"]
    assert sum(p["pair_distance_distribution"]) == 2 ** 136
    assert Fraction(p["average_distance_with_self_exact"]) == metacube_average_with_self(4, 4)
    assert p["average_distance_with_self"] < p["paper"]["average_distance_with_self_upper_bound"]["value"]


def test_average_conventions():
    p = properties(Hypercube(3))
    # sum of distances from a node = 12; N = 8
    assert p["average_distance_exact"] == "12/7"
    assert p["average_distance_with_self_exact"] == "3/2"


def test_mc23_exact_diameter_and_average():
    p = properties(Metacube(2, 3))
    assert p["nodes"] == 16384 and p["diameter"] == 16
    assert p["average_distance_with_self_exact"] == "1197/128"


# -- BFS: families without structure, limits, all sources -----------------------------------

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
    p = properties(topo, "bfs")
    # ordered pairs: nodes 0 and 3 see [1, 3]; nodes 1 and 2 see [1, 2, 1]
    assert p["pair_distance_distribution"] == [4, 10, 2]
    assert p["distance_distribution"] is None
    assert p["diameter"] == 2 and p["radius"] == 1
    assert p["average_distance_exact"] == "7/6"          # (10 + 4) / 12
    assert [(c["sources"], c["eccentricity"]) for c in p["source_classes"]] == [(2, 1), (2, 2)]
    check = p["vertex_transitive_check"]
    assert (check["same_distribution"], check["sources_checked"], check["all_sources"]) == \
        (False, 4, True)


def test_differing_sampled_sources_beyond_the_limit_raise(monkeypatch):
    monkeypatch.setattr(props, "ALL_SOURCES_WORK_LIMIT", 2)
    with pytest.raises(SizeLimitError, match="not vertex-transitive"):
        props.properties(_CycleWithChord(), "bfs", sources=[0, 1])


def test_mcube_has_no_structure():
    assert structural_classes(Mcube(6)) is None
    assert properties(Mcube(6))["method"] == "bfs"
    with pytest.raises(ValueError, match="no structural method"):
        properties(Mcube(6), "structure")


def test_bfs_beyond_the_memory_limit_is_refused_before_allocating(monkeypatch):
    monkeypatch.setenv("CUBEFAB_MEMORY_LIMIT_MB", "1")
    monkeypatch.setattr(props, "bfs_distances", pytest.fail)
    topo = Hypercube(20)
    assert bfs_memory_estimate(topo) == 10 << 20
    with pytest.raises(SizeLimitError, match=r"about 10 MiB of memory; the limit is 1 MiB "
                                             r"of memory"):
        props.properties(topo, "bfs")


def test_metacube_beyond_the_tables_needs_bfs_and_is_refused():
    with pytest.raises(SizeLimitError, match=r"MC\(5,1\) needs BFS .* MiB of memory"):
        properties(Metacube(5, 1))


def test_wide_metacube_refuses_address_arrays():
    with pytest.raises(ValueError, match="68-bit addresses; address arrays"):
        Metacube(4, 4).nodes()


def test_all_sources_on_a_two_worker_cluster_equal_in_process():
    topo = Mcube(7)
    local = properties(topo, distributed=False)
    dask = properties(topo, distributed=True, workers=2)
    assert dask["method_detail"].startswith("BFS from each source, Dask (local cluster of 2")
    assert local["method_detail"] == "BFS from each source, in-process"
    for key in ["pair_distance_distribution", "source_classes", "diameter", "radius",
                "average_distance_exact", "vertex_transitive_check"]:
        if key == "vertex_transitive_check":
            local[key].pop("by"), dask[key].pop("by")
        assert local[key] == dask[key], key


def test_bit_parallel_batch_equals_one_bfs_per_source(monkeypatch):
    topo = Mcube(9)
    sources = topo.nodes().tolist()[::3]                     # 171 sources: 3 words, one partial
    bit_parallel = props.bfs_source_batch(topo, sources)
    monkeypatch.setattr(props, "_BIT_PARALLEL_NODES", 1)
    one_by_one = props.bfs_source_batch(topo, sources)
    assert bit_parallel.shape == one_by_one.shape and (bit_parallel == one_by_one).all()
    assert len({tuple(r) for r in bit_parallel.tolist()}) > 1  # Mcube(9) is not transitive
