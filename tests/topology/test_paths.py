"""Disjoint paths: Algorithms 2-4 of metacube-disjoint-paths.txt, Tables 1-5, Theorem 2,
and the flow construction on the DLH."""

import random

import networkx as nx
import pytest

from cubefab.topology import DLH, Hypercube, Metacube
from cubefab.topology.paths import (
    DISJOINT_PATHS, check_disjoint_paths, cube_path, disjoint_paths, flow_disjoint_paths,
    hypercube_disjoint_paths, metacube_case, metacube_disjoint_paths, metacube_path_bound,
    register_disjoint_paths, remove_loops)

from tests.topology.paths_helpers import (as_graph, class_sources, verify_metacube,
                                          verify_metacube_parallel)


def bits(path, width):
    return [format(v, f"0{width}b") for v in path]


# -- Table 1: hypercube, x = 000 -------------------------------------------------------

# As printed (columns P0, P1, P2 per destination). Two misprints, see docs/errata.md:
# the block headed "(100, 000)" is the destination 100 from x = 000, and its P1 reads
# 000 010 101 100 where 010 and 101 are not adjacent (Algorithm 3 gives 110).
TABLE_1 = {
    0b000: [["000", "001", "000"], ["000", "010", "000"], ["000", "100", "000"]],
    0b001: [["000", "001"], ["000", "010", "011", "001"], ["000", "100", "101", "001"]],
    0b010: [["000", "001", "011", "010"], ["000", "010"], ["000", "100", "110", "010"]],
    0b100: [["000", "001", "101", "100"], ["000", "010", "101", "100"], ["000", "100"]],
    0b011: [["000", "001", "011"], ["000", "010", "011"], ["000", "100", "101", "111", "011"]],
    0b101: [["000", "001", "101"], ["000", "010", "110", "111", "101"], ["000", "100", "101"]],
    0b110: [["000", "001", "011", "111", "110"], ["000", "010", "110"], ["000", "100", "110"]],
    0b111: [["000", "001", "011", "111"], ["000", "010", "110", "111"],
            ["000", "100", "101", "111"]],
}
TABLE_1_MISPRINTS = {(0b100, 1, 2): ("101", "110")}


def test_table1_algorithm2_reproduced_except_the_misprint():
    differences = {}
    for y, printed in TABLE_1.items():
        ours = [bits(p, 3) for p in hypercube_disjoint_paths(3, 0, y)]
        assert [len(p) for p in ours] == [len(p) for p in printed], y
        for i, (a, b) in enumerate(zip(printed, ours)):
            for j, (x, z) in enumerate(zip(a, b)):
                if x != z:
                    differences[(y, i, j)] = (x, z)
    assert differences == TABLE_1_MISPRINTS


def test_table1_misprinted_path_is_not_a_path():
    printed = [int(x, 2) for x in TABLE_1[0b100][1]]
    assert check_disjoint_paths(Hypercube(3), 0, 0b100, [printed])


def test_cube_path_corrects_bits_cyclically_after_i():
    # p3(3, 1, 010, 101): bits 2, 0, 1 in that order
    assert cube_path(3, 1, 0b010, 0b101) == [0b110, 0b111, 0b101]


@pytest.mark.parametrize("n", range(1, 7))
def test_hypercube_paths_disjoint_with_lengths_d_and_d_plus_2(n):
    cube = Hypercube(n)
    for t in range(1, 1 << n):
        paths = disjoint_paths(cube, 0, t)
        assert not check_disjoint_paths(cube, 0, t, paths)
        d = t.bit_count()
        lengths = sorted(len(p) - 1 for p in paths)
        assert lengths == [d] * d + [d + 2] * (n - d)


# -- Tables 2-5: metacube MC(2,2) -------------------------------------------------------

TABLES_2_TO_5 = {
    # Table 2, Example 2 (case 0)
    ("0000000000", "0000000001"): [
        "0000000000 0100000000 0100000100 0000000100 0000000101 0100000101 0100000001 "
        "0000000001",
        "0000000000 1000000000 1000100000 0000100000 0000100001 1000100001 1000000001 "
        "0000000001",
        "0000000000 0000000001",
        "0000000000 0000000010 0000000011 0000000001"],
    # Table 3, Example 3 (case 1, with j = 2, j' = 3)
    ("0000000000", "0001011101"): [
        "0000000000 0100000000 0100000100 1100000100 1101000100 1001000100 1001010100 "
        "0001010100 0001010101 0101010101 0101011101 0001011101",
        "0000000000 1000000000 1000100000 1100100000 1101100000 0101100000 0101100100 "
        "0101101100 0001101100 0001101101 1001101101 1001111101 1001011101 0001011101",
        "0000000000 0000000001 0000000011 0100000011 0100000111 0100001111 1100001111 "
        "1101001111 1001001111 1001011111 0001011111 0001011101",
        "0000000000 0000000010 0100000010 0100000110 0100001110 1100001110 1101001110 "
        "1001001110 1001011110 0001011110 0001011100 0001011101"],
    # Table 4, Example 4 (case 2, c_s^(0) = c_t)
    ("0000000000", "0100001111"): [
        "0000000000 0100000000 0100000100 0100001100 1100001100 1000001100 0000001100 "
        "0000001101 0000001111 0100001111",
        "0000000000 1000000000 1000010000 1100010000 0100010000 0100010100 0100011100 "
        "0000011100 0000011101 0000011111 1000011111 1000001111 1100001111 0100001111",
        "0000000000 0000000001 0100000001 0100001001 1100001001 1000001001 0000001001 "
        "0000001011 0100001011 0100001111",
        "0000000000 0000000010 0100000010 0100000110 1100000110 1000000110 0000000110 "
        "0000000111 0100000111 0100001111"],
    # Table 5, Example 5 (case 2, w_2 = s^(2))
    ("0000000001", "1101000000"): [
        "0000000001 0100000001 0100000101 1100000101 1101000101 1001000101 0001000101 "
        "0001000100 0101000100 0101000000 1101000000",
        "0000000001 1000000001 1000010001 1100010001 1101010001 0101010001 0001010001 "
        "0001010000 1001010000 1001000000 1101000000",
        "0000000001 0000000000 0100000000 1100000000 1101000000",
        "0000000001 0000000011 0100000011 1100000011 1101000011 1111000011 1011000011 "
        "0011000011 0011000010 0011000000 0111000000 1111000000 1101000000"],
}


@pytest.mark.parametrize("pair", list(TABLES_2_TO_5), ids=["table2", "table3", "table4",
                                                            "table5"])
def test_tables_2_to_5_reproduced_exactly(pair):
    mc = Metacube(2, 2)
    s, t = (int(x, 2) for x in pair)
    expected = [[int(x, 2) for x in row.split()] for row in TABLES_2_TO_5[pair]]
    assert metacube_disjoint_paths(mc, s, t) == expected
    assert disjoint_paths(mc, s, t) == expected
    assert not check_disjoint_paths(mc, s, t, expected)


def test_tables_cover_the_three_cases():
    mc = Metacube(2, 2)
    cases = [metacube_case(mc, int(s, 2), int(t, 2)) for s, t in TABLES_2_TO_5]
    assert cases == [0, 1, 2, 2]


@pytest.mark.parametrize("pair, longest", [(("0000000000", "0000000001"), 7),
                                           (("0000000000", "0001011101"), 13),
                                           (("0000000000", "0100001111"), 13),
                                           (("0000000001", "1101000000"), 12)])
def test_examples_longest_path_lengths(pair, longest):
    mc = Metacube(2, 2)
    s, t = (int(x, 2) for x in pair)
    assert max(len(p) - 1 for p in disjoint_paths(mc, s, t)) == longest


# -- Theorem 2: every pair --------------------------------------------------------------

@pytest.mark.parametrize("k, m", [(1, 1), (1, 2), (1, 3), (1, 4), (2, 1), (2, 2)])
def test_every_pair_has_k_plus_m_disjoint_paths_within_theorem2(k, m):
    result = verify_metacube(Metacube(k, m), count_paper=False)
    assert result["pairs"] == (1 << k) * (Metacube(k, m).num_nodes - 1)
    assert result["failures"] == []
    assert result["worst_slack"] <= 0


def test_mc31_sample_of_pairs():
    mc = Metacube(3, 1)
    rng = random.Random(31)
    targets = rng.sample(range(mc.num_nodes), 60)
    result = verify_metacube(mc, targets=targets, count_paper=False)
    assert result["failures"] == []


@pytest.mark.slow
@pytest.mark.parametrize("k, m", [(3, 1), (2, 3)])
def test_every_pair_slow(k, m):
    result = verify_metacube_parallel(k, m)
    assert result["pairs"] == (1 << k) * (Metacube(k, m).num_nodes - 1)
    assert result["failures"] == [] and result["worst_slack"] <= 0


@pytest.mark.slow
@pytest.mark.parametrize("source_class", range(8))
def test_mc32_every_target_slow(source_class):
    # 524287 targets per source: about 25 CPU-minutes each, spread over all cores
    mc = Metacube(3, 2)
    result = verify_metacube_parallel(3, 2, sources=[class_sources(mc)[source_class]])
    assert result["pairs"] == mc.num_nodes - 1
    assert result["failures"] == [] and result["worst_slack"] <= 0


def test_random_sources_beyond_the_class_representatives():
    rng = random.Random(7)
    for k, m in [(2, 2), (1, 3), (2, 3), (3, 2)]:
        mc = Metacube(k, m)
        pairs = [(rng.randrange(mc.num_nodes), rng.randrange(mc.num_nodes))
                 for _ in range(60)]
        for s, t in pairs:
            if s != t:
                result = verify_metacube(mc, sources=[s], targets=[t], count_paper=False)
                assert result["failures"] == [], (k, m, s, t)


def test_large_metacube_paths_need_no_global_structure():
    mc = Metacube(3, 3)            # 2^27 nodes
    s, t = 0x123456, 0x6543210
    paths = disjoint_paths(mc, s, t)
    assert len(paths) == 6
    assert not check_disjoint_paths(mc, s, t, paths)
    assert max(len(p) - 1 for p in paths) <= metacube_path_bound(mc, s, t)


def test_paper_algorithm_alone_fails_on_some_pairs():
    # docs/errata.md: Algorithm 4 as written is not always disjoint; MC(2,1) example
    mc = Metacube(2, 1)
    raw = [remove_loops(p) for p in metacube_disjoint_paths(mc, 0, 3)]
    assert check_disjoint_paths(mc, 0, 3, raw)
    assert not check_disjoint_paths(mc, 0, 3, disjoint_paths(mc, 0, 3))


def test_path_count_matches_networkx_connectivity():
    mc = Metacube(2, 1)
    g = as_graph(mc)
    for t in (3, 17, 45, 63):
        assert nx.node_connectivity(g, 0, t) == len(disjoint_paths(mc, 0, t)) == 3


def test_remove_loops_keeps_ends_and_drops_detours():
    assert remove_loops([1, 2, 3, 2, 4, 1, 5, 6]) == [1, 5, 6]
    assert remove_loops([1, 2, 3]) == [1, 2, 3]


# -- DLH and any topology: min-cost flow ------------------------------------------------

@pytest.mark.parametrize("m, d", [(2, 1), (2, 2), (2, 3), (4, 3)])
def test_dlh_has_d_plus_3_disjoint_paths_for_every_target(m, d):
    dlh = DLH(m, d)
    nodes = [int(a) for a in dlh.nodes()]
    for s in (nodes[0], nodes[len(nodes) // 2 + 1]):
        for t in nodes:
            if t == s:
                continue
            paths = disjoint_paths(dlh, s, t)
            assert len(paths) == d + 3
            assert not check_disjoint_paths(dlh, s, t, paths)
            assert min(len(p) - 1 for p in paths) == dlh.distance(s, t)


def test_dlh_connectivity_matches_networkx():
    dlh = DLH(4, 3)
    g = as_graph(dlh)
    nodes = [int(a) for a in dlh.nodes()]
    assert nx.node_connectivity(g) == 6
    for t in nodes[1::37]:
        assert nx.node_connectivity(g, nodes[0], t) == len(disjoint_paths(dlh, nodes[0], t))


def test_flow_paths_total_length_is_minimal():
    # in Q(3) from 000 to 011 the minimum total length is 2 + 2 + 4
    paths = flow_disjoint_paths(Hypercube(3), 0, 3)
    assert sorted(len(p) - 1 for p in paths) == [2, 2, 4]


def test_flow_finds_as_many_paths_as_there_are():
    # Q(3) has 3 disjoint paths between any two nodes: asked for 5, it gives 3
    paths = flow_disjoint_paths(Hypercube(3), 0, 7, max_paths=5)
    assert sorted(len(p) - 1 for p in paths) == [3, 3, 3]
    assert not check_disjoint_paths(Hypercube(3), 0, 7, paths)
    assert len(flow_disjoint_paths(Hypercube(3), 0, 7, max_paths=2)) == 2


def test_flow_is_the_fallback_and_registry_is_extensible():
    class Ring(Hypercube):
        pass

    cube = Ring(3)
    assert disjoint_paths(cube, 0, 7) == hypercube_disjoint_paths(3, 0, 7)
    register_disjoint_paths(Ring, flow_disjoint_paths)
    try:
        paths = disjoint_paths(cube, 0, 7)
        assert sorted(len(p) for p in paths) == [4, 4, 4]
        assert not check_disjoint_paths(cube, 0, 7, paths)
    finally:
        del DISJOINT_PATHS[Ring]


def test_checker_detects_shared_nodes_and_non_links():
    mc = Metacube(1, 2)
    assert check_disjoint_paths(mc, 0, 3, [[0, 1, 3], [0, 1, 3]])
    assert check_disjoint_paths(mc, 0, 3, [[0, 3]])
    assert check_disjoint_paths(mc, 0, 3, [[0, 2, 0, 2, 3]])
    assert check_disjoint_paths(mc, 0, 3, [[1, 3]])


def test_bad_arguments():
    mc = Metacube(2, 2)
    with pytest.raises(ValueError, match="distinct"):
        disjoint_paths(mc, 5, 5)
    with pytest.raises(ValueError, match=r"\[0, 1023\]"):
        disjoint_paths(mc, 0, 1024)
    with pytest.raises(TypeError):
        disjoint_paths(mc, "0", 1)
    with pytest.raises(ValueError, match="not a node"):
        disjoint_paths(DLH(4, 3), 0, 0b0100 << 3)
