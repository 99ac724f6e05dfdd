"""Metacube MC(k, m): addresses, ports, routing and the paper's numbers."""

import itertools

import numpy as np
import pytest

from cubefab.topology import Metacube, DualCube, Hypercube, properties
from cubefab.topology.classwalk import weak_hamiltonian_path
from tests.helpers import assert_is_walk, distance_matrix


def bits(text):
    return int(text.replace(" ", "").replace(",", ""), 2)


def test_conventions_example_neighbours():
    # conventions.md / metacube.txt: (01,111,101,110,000) in MC(2,3)
    mc = Metacube(2, 3)
    u = bits("01 111 101 110 000")
    nb = mc.neighbors(u)
    assert nb[0] == bits("00 111 101 110 000")   # cross, class bit 0
    assert nb[1] == bits("11 111 101 110 000")   # cross, class bit 1
    assert nb[2:] == [bits("01 111 101 111 000"), bits("01 111 101 100 000"),
                      bits("01 111 101 010 000")]


def test_port_is_inverse_of_neighbor():
    mc = Metacube(2, 2)
    for u in range(0, mc.num_nodes, 37):
        for p, v in enumerate(mc.neighbors(u)):
            assert mc.port(u, v) == p
            assert u in mc.neighbors(v)


def test_not_adjacent_raises():
    with pytest.raises(ValueError, match="not adjacent"):
        Metacube(1, 2).port(0, 3)


def test_edges_count_and_symmetry():
    for k, m in [(1, 1), (1, 2), (2, 1), (2, 2)]:
        mc = Metacube(k, m)
        e = mc.edges()
        assert len(e) == mc.num_links == mc.num_nodes * (k + m) // 2
        assert (e[:, 0] < e[:, 1]).all()
        assert len({tuple(x) for x in e.tolist()}) == len(e)


def test_mc0_is_the_hypercube():
    mc, q = Metacube(0, 4), Hypercube(4)
    assert sorted(map(tuple, mc.edges().tolist())) == sorted(map(tuple, q.edges().tolist()))


def test_dualcube_is_mc1():
    assert DualCube(3) == Metacube(1, 3)


@pytest.mark.parametrize("links,row", [
    (3, {1: 32, 2: 64}),
    (4, {1: 128, 2: 1024, 3: 2048}),
    (5, {1: 512, 2: 16384, 3: 2 ** 19, 4: 2 ** 20}),
    (6, {1: 2048, 2: 2 ** 18, 3: 2 ** 27, 4: 2 ** 36}),
    (7, {1: 8192, 2: 2 ** 22, 3: 2 ** 35, 4: 2 ** 52}),
])
def test_table1_node_counts(links, row):
    # metacube.txt Table 1 (columns: links per node; rows: MC(k, m) with k + m = links)
    for k, nodes in row.items():
        assert Metacube(k, links - k).num_nodes == nodes
    assert Hypercube(links).num_nodes == 2 ** links


def test_table1_last_column():
    # links/node 8: MC(1..4): 32768, 2^26, 2^43, 2^68. MC(4,4)'s 68-bit addresses
    # (k + m 2^k = 4 + 4 * 16) are beyond the 62 bits of address arrays, not beyond
    # the model: its scalar size is exact (test_properties: its arrays are refused).
    assert Metacube(1, 7).num_nodes == 32768
    assert Metacube(2, 6).num_nodes == 2 ** 26
    assert Metacube(3, 5).num_nodes == 2 ** 43
    mc44 = Metacube(4, 4)
    assert (mc44.address_bits, mc44.num_nodes) == (68, 2 ** 68)
    assert Hypercube(8).num_nodes == 256   # the table prints 265 (erratum 1)


@pytest.mark.parametrize("k,m", [(1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (3, 1)])
def test_table2_rows_by_bfs(k, m):
    mc = Metacube(k, m)
    p = properties(mc)
    n = mc.address_bits
    assert p["degree"] == m + k
    assert p["diameter"] == (m + 1) * 2 ** k
    assert p["links"] == 2 ** n * (m + k) // 2 == len(mc.edges())
    assert p["average_distance_with_self"] <= m * 2 ** k / 2 + 2 ** k
    if k == 1:   # exact for the dual-cube
        assert p["average_distance_with_self"] == pytest.approx(n / 2 + 1 - 1 / 2 ** ((n - 1) / 2))


def test_paper_routing_example():
    # metacube-disjoint-paths.txt Example 1 (and metacube.txt's routing example)
    mc = Metacube(2, 3)
    expected = [bits(x) for x in """
        00000000000000 00000000000001 00000000000011 01000000000011 01000000001011
        01000000101011 11000000101011 11001000101011 10001000101011 10001010101011
        10001110101011 00001110101011""".split()]
    path = mc.route(0, bits("00 001 110 101 011"), algorithm="paper")
    assert path == expected
    assert len(path) - 1 == 11


def test_paper_walk_of_example_is_the_figure6_cycle():
    assert weak_hamiltonian_path(2, 0b00, 0b00) == (0b00, 0b01, 0b11, 0b10, 0b00)


@pytest.mark.parametrize("n", range(0, 6))
def test_weak_hamiltonian_paths(n):
    for s, t in itertools.product(range(1 << n), repeat=2):
        p = weak_hamiltonian_path(n, s, t)
        assert p[0] == s and p[-1] == t
        assert all((a ^ b).bit_count() == 1 for a, b in zip(p, p[1:]))
        assert set(p) == set(range(1 << n))
        if n == 0:
            continue
        if s == t or len(p) - 1 == 1 << n:   # cycle or extended path: 2^n edges
            assert len(p) - 1 == 1 << n and len(set(p[:-1])) == 1 << n
        else:                                # Hamiltonian path
            assert len(p) - 1 == (1 << n) - 1


NETS = [(1, 2), (2, 1), pytest.param(2, 2, marks=pytest.mark.slow)]   # MC(2,2): ~50 s


@pytest.mark.parametrize("k,m", NETS)
def test_minimal_routes_are_shortest(k, m):
    mc = Metacube(k, m)
    D = distance_matrix(mc)
    for s in range(mc.num_nodes):
        for t in range(mc.num_nodes):
            path = mc.route(s, t)
            assert len(path) - 1 == D[s, t]
            assert mc.distance(s, t) == D[s, t]
    # every hop is on a real link (checked on a sample: the loop above is the bulk)
    for s, t in [(0, mc.num_nodes - 1), (5, 17), (mc.num_nodes // 3, 1)]:
        assert_is_walk(mc, mc.route(s, t), s, t)


@pytest.mark.parametrize("k,m", NETS)
def test_minimal_route_is_memoryless_walk(k, m):
    # the per-hop decision uses only (here, dest) and always leads one hop closer
    mc = Metacube(k, m)
    D = distance_matrix(mc)
    for here in range(mc.num_nodes):
        for dest in range(mc.num_nodes):
            p = mc.next_port(here, dest)
            if here == dest:
                assert p == mc.degree
            else:
                assert D[mc.neighbor(here, p), dest] == D[here, dest] - 1


@pytest.mark.parametrize("k,m", NETS)
def test_paper_routes_satisfy_theorem1(k, m):
    mc = Metacube(k, m)
    class_mask = ((1 << k) - 1) << (m * 2 ** k)
    for s in range(mc.num_nodes):
        for t in range(mc.num_nodes):
            path = mc.route(s, t, algorithm="paper")
            assert_is_walk(mc, path, s, t)
            h = (s ^ t).bit_count()
            hk = ((s ^ t) & class_mask).bit_count()
            assert len(path) - 1 <= h - hk + 2 ** k


@pytest.mark.parametrize("m", [2, 3])
def test_dualcube_theorem1_all_pairs(m):
    # dual-cube.txt Theorem 1: d = H + 2 for different clusters of the same class, else H
    mc = DualCube(m)
    D = distance_matrix(mc)
    for s in range(mc.num_nodes):
        for t in range(mc.num_nodes):
            h = (s ^ t).bit_count()
            same_class = mc.class_of(s) == mc.class_of(t)
            c = mc.class_of(s)
            same_cluster = same_class and all(
                mc.field(s, i) == mc.field(t, i) for i in range(2) if i != c)
            expected = h + 2 if same_class and not same_cluster else h
            assert D[s, t] == expected
    assert D.max() == 2 * (m + 1)   # the diameter 2r


def test_k4_minimal_table_routes_shortest_sample():
    mc = Metacube(4, 1)
    rng = np.random.default_rng(1)
    from cubefab.topology import bfs_distances
    for s in rng.integers(0, mc.num_nodes, 2):
        dist = bfs_distances(mc, int(s))
        for t in rng.integers(0, mc.num_nodes, 40):
            assert len(mc.route(int(s), int(t))) - 1 == dist[int(t)] == mc.distance(int(s), int(t))
