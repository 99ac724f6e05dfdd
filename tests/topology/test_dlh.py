"""Double-loop hypercube DLH(m, d)."""

from fractions import Fraction

import numpy as np
import pytest

from cubefab.topology import DLH, Hypercube, properties, bfs_distances
from cubefab.topology.dlh import johnson_code, johnson_position
from tests.helpers import assert_is_walk, distance_matrix


def test_johnson_codes_m4():
    # conventions.md: m = 4: 0000, 0001, 0011, 0111, 1111, 1110, 1100, 1000
    assert [johnson_code(p, 4) for p in range(8)] == [
        0b0000, 0b0001, 0b0011, 0b0111, 0b1111, 0b1110, 0b1100, 0b1000]
    assert johnson_position([johnson_code(p, 4) for p in range(8)], 4).tolist() == list(range(8))


@pytest.mark.parametrize("m", range(2, 9))
def test_johnson_code_is_unit_distance_cyclic(m):
    codes = [johnson_code(p, m) for p in range(2 * m)]
    assert len(set(codes)) == 2 * m
    for p in range(2 * m):
        assert (codes[p] ^ codes[(p + 1) % (2 * m)]).bit_count() == 1


def test_dlh43_has_128_nodes_and_valid_words():
    dlh = DLH(4, 3)
    assert dlh.num_nodes == 128 == 4 * 4 * 2 ** 3
    nodes = dlh.nodes()
    assert len(set(nodes.tolist())) == 128
    assert sum(dlh.is_node(a) for a in range(1 << dlh.address_bits)) == 128
    assert not dlh.is_node(0b0_0101_000)


def test_dense_index_roundtrip_and_formula():
    dlh = DLH(3, 2)
    for i in range(dlh.num_nodes):
        a = dlh.address(i)
        ring, p, cube = dlh.split(a)
        assert i == ((ring * 6) + p) * 4 + cube == dlh.index(a)


def test_ports_follow_conventions():
    dlh = DLH(4, 3)
    for a in dlh.nodes().tolist():
        ring, p, cube = dlh.split(a)
        nb = dlh.neighbors(a)
        for j in range(3):
            assert nb[j] == dlh.make_address(ring, p, cube ^ (1 << j))
        assert nb[3] == dlh.make_address(ring, (p + 1) % 8, cube)
        assert nb[4] == dlh.make_address(ring, (p - 1) % 8, cube)
        assert nb[5] == dlh.make_address(1 - ring, p, cube)
        for port, v in enumerate(nb):
            assert dlh.port(a, v) == port


def test_dl2m_figure1_16_nodes_24_links():
    # DL(2m) for m = 4: the nodes with one hypercube address form DL(8)
    dlh = DLH(4, 1)
    ring_nodes = {a for a in dlh.nodes().tolist() if a & 1 == 0}
    links = {(u, v) for u, v in dlh.edges().tolist() if u in ring_nodes and v in ring_nodes}
    assert len(ring_nodes) == 16 and len(links) == 24


def test_dl2m_average_distance():
    # erratum 6: the mean over the other 4m-1 nodes of DL(2m) is 2m(m+1)/(4m-1)
    for m in range(2, 7):
        dlh = DLH(m, 1)
        dist = bfs_distances(dlh, 0)
        ring = [dlh.index(a) for a in dlh.nodes().tolist() if a & 1 == 0]
        assert Fraction(int(dist[ring].sum()), 4 * m - 1) == Fraction(2 * m * (m + 1), 4 * m - 1)


@pytest.mark.parametrize("m,d", [(2, 1), (2, 2), (3, 1), (4, 3), (5, 2)])
def test_distance_is_hamming_and_lemmas(m, d):
    dlh = DLH(m, d)
    D = distance_matrix(dlh)
    nodes = dlh.nodes()
    H = np.bitwise_count(nodes[:, None] ^ nodes[None, :])
    assert (D == H).all()                                   # section III
    p = properties(dlh)
    assert p["diameter"] == m + d + 1                       # Lemma 1
    assert p["degree"] == d + 3                             # Lemma 2
    assert p["nodes"] == 4 * m * 2 ** d


@pytest.mark.parametrize("m,d", [(2, 1), (3, 2), (4, 3)])
def test_average_distance_closed_form(m, d):
    # erratum 5: DLH = Q(d) x C(2m) x K2, mean with self (m + d + 1)/2
    p = properties(DLH(m, d))
    n = 4 * m * 2 ** d
    assert Fraction(p["average_distance_with_self_exact"]) == Fraction(m + d + 1, 2)
    assert Fraction(p["average_distance_exact"]) == Fraction(n, n - 1) * Fraction(m + d + 1, 2)
    lemma3 = Fraction(2 * m * m + d * 2 ** (d - 1) + 2, 2 ** d + 4 * m - 2)
    assert p["paper"]["average_distance"]["value"] == pytest.approx(float(lemma3))


def test_dlh2d_is_hypercube():
    # DL(4) with 2-bit Johnson codes is a 3-cube: DLH(2, d) has the distances of Q(d+3)
    assert properties(DLH(2, 2))["distance_distribution"] == \
        properties(Hypercube(5))["distance_distribution"]


@pytest.mark.parametrize("m,d", [(2, 2), (4, 3)])
def test_routes_are_shortest_walks(m, d):
    dlh = DLH(m, d)
    D = distance_matrix(dlh)
    nodes = dlh.nodes().tolist()
    for s in nodes:
        for t in nodes:
            path = dlh.route(s, t)
            assert len(path) - 1 == D[dlh.index(s), dlh.index(t)]
    for s, t in [(nodes[0], nodes[-1]), (nodes[5], nodes[77 % len(nodes)])]:
        assert_is_walk(dlh, dlh.route(s, t), s, t)


def test_route_dimension_order():
    # cube bits first (ascending), then ring position the short way, then the ring bit
    dlh = DLH(4, 3)
    s = dlh.make_address(0, 0, 0b000)
    t = dlh.make_address(1, 6, 0b101)
    path = dlh.route(s, t)
    ports = [dlh.port(u, v) for u, v in zip(path, path[1:])]
    assert ports == [0, 2, 4, 4, 5]


def test_ring_tie_goes_to_successor():
    dlh = DLH(4, 1)
    s, t = dlh.make_address(0, 1, 0), dlh.make_address(0, 5, 0)
    assert dlh.next_port(s, t) == dlh.d
