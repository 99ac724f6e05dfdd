"""The Mcube model: construction, R1-R3, Mroute and its tables, the paper's formulas."""

from fractions import Fraction

import numpy as np
import pytest

from cubefab.topology import Mcube, Hypercube, make_topology
from cubefab.topology.mcube import (check_requirements, mroute_table, mroute_path,
                                    routing_tables,
                                    paper_distribution, paper_average_distance,
                                    paper_average_distance_closed_form, hem_neighbors)
from cubefab.topology.mcube_analysis import (distance_report, hypercube_emulation,
                                             reconfiguration_switches, route_lengths)
from tests.helpers import assert_is_walk

CONSTRUCTIONS = ["hem", "algorithmic"]
FAST_K = range(3, 8)
SLOW_K = range(8, 11)


def _mroute_port_table(topology):
    table = mroute_table(topology.neighbor_table).astype(np.int64)
    np.fill_diagonal(table, topology.degree)
    return table


@pytest.mark.parametrize("construction", CONSTRUCTIONS)
@pytest.mark.parametrize("k", range(1, 9))
def test_link_numbers_are_most_significant_differing_bit(k, construction):
    nb = Mcube(k, construction).neighbor_table
    a = np.arange(1 << k)
    for j in range(k):
        assert (nb[nb[:, j], j] == a).all()
        assert ((a ^ nb[:, j]) >> j == 1).all()


@pytest.mark.parametrize("k", [1, 2])
def test_small_mcubes_are_hypercubes(k):
    assert (Mcube(k).edges() == Hypercube(k).edges()).all()


def test_three_mcube_is_the_twisted_cube_of_figure_2():
    # R2 option (a): A00-B00, A10-B10, A01-B11, A11-B01 (corners are single nodes)
    assert [Mcube(3).neighbor(x, 2) for x in range(4)] == [4, 7, 6, 5]


@pytest.mark.parametrize("construction", CONSTRUCTIONS)
@pytest.mark.parametrize("k", FAST_K)
def test_requirements_r1_r3_hold(k, construction):
    assert Mcube(k, construction).check_requirements() == []


@pytest.mark.slow
@pytest.mark.parametrize("construction", CONSTRUCTIONS)
@pytest.mark.parametrize("k", SLOW_K)
def test_requirements_r1_r3_hold_large(k, construction):
    assert Mcube(k, construction).check_requirements() == []


@pytest.mark.parametrize("k", [3, 4, 5])
def test_requirement_check_rejects_the_hypercube(k):
    # the hypercube joins A00-B00 and A11-B11: diagonal corners stay diagonal (R2)
    q = Hypercube(k)
    nb = np.stack([q.neighbor_array(q.nodes(), j) for j in range(k)], axis=1)
    problems = check_requirements(nb)
    assert problems and "R2" in problems[0]


def test_requirement_check_rejects_a_corner_split():
    nb = hem_neighbors(4).copy()
    # swap two PCL partners across different corners of B: 1-13 and 3-15 -> 1-15, 3-13
    a, b = int(nb[1, 3]), int(nb[3, 3])
    nb[1, 3], nb[3, 3], nb[a, 3], nb[b, 3] = b, a, 3, 1
    problems = check_requirements(nb)
    assert problems


def test_requirement_check_rejects_wrong_link_numbers():
    nb = hem_neighbors(3).copy()
    nb[[0, 1], 0] = nb[[0, 1], 1]
    assert check_requirements(nb)


@pytest.mark.parametrize("construction", CONSTRUCTIONS)
@pytest.mark.parametrize("k", FAST_K)
def test_table_driven_mroute_equals_recursive_mroute(k, construction):
    topology = Mcube(k, construction)
    assert (topology.port_table() == _mroute_port_table(topology)).all()


@pytest.mark.slow
@pytest.mark.parametrize("construction", CONSTRUCTIONS)
@pytest.mark.parametrize("k", SLOW_K)
def test_table_driven_mroute_equals_recursive_mroute_large(k, construction):
    topology = Mcube(k, construction)
    assert (topology.port_table() == _mroute_port_table(topology)).all()


def _assert_source_routing_is_hop_by_hop(k, construction):
    topology = Mcube(k, construction)
    nb = topology.neighbor_table
    for s in range(1 << k):
        for d in range(1 << k):
            assert mroute_path(nb, s, d) == topology.route(s, d), (s, d)


@pytest.mark.parametrize("construction", CONSTRUCTIONS)
@pytest.mark.parametrize("k", [3, 4, 5])
def test_mroute_source_paths_equal_hop_by_hop_routes(k, construction):
    # the recursive Mroute chosen at the source = the per-hop tables at every node
    _assert_source_routing_is_hop_by_hop(k, construction)


@pytest.mark.slow
@pytest.mark.parametrize("construction", CONSTRUCTIONS)
@pytest.mark.parametrize("k", [6, 7])
def test_mroute_source_paths_equal_hop_by_hop_routes_large(k, construction):
    _assert_source_routing_is_hop_by_hop(k, construction)


@pytest.mark.parametrize("k", FAST_K)
def test_rt2_entries_are_the_other_lateral(k):
    nb = hem_neighbors(k)
    for node in range(1 << k):
        rt1, rt2 = routing_tables(nb, node)
        assert all((d ^ node) & 1 for d in rt2)
        assert all(not (d ^ node) & 1 for d in rt1)
        # measured sizes: RT2 = 2^(k-2) - 1, RT1 = 2^(k-2) - k + 1 (not O(k), O(k^2))
        assert len(rt2) == 2 ** (k - 2) - 1
        assert len(rt1) == 2 ** (k - 2) - k + 1


def test_next_port_matches_port_table_and_routes_are_walks():
    topology = Mcube(5)
    table = topology.port_table()
    for s in range(32):
        for t in range(32):
            assert topology.next_port(s, t) == table[s, t]
    for s, t in [(0, 31), (5, 26), (17, 2)]:
        assert_is_walk(topology, topology.route(s, t), s, t)
    assert topology.route(0, 31, "ecube")[-1] == 31


@pytest.mark.parametrize("k", FAST_K)
def test_mroute_distribution_is_f_k_from_every_node(k):
    report = distance_report(Mcube(k))
    assert report["mroute_distribution"] == paper_distribution(k)
    assert report["mroute_average_with_self_exact"] == report["paper_ad_exact"]
    assert report["mroute_diameter"] == report["paper_diameter"] == (k + 2) // 2
    assert report["bfs_diameter"] <= report["mroute_diameter"]


@pytest.mark.slow
@pytest.mark.parametrize("k", SLOW_K)
def test_mroute_distribution_is_f_k_large(k):
    report = distance_report(Mcube(k))
    assert report["mroute_distribution"] == paper_distribution(k)
    assert report["mroute_diameter"] == (k + 2) // 2


def test_paper_recurrences():
    assert paper_distribution(3) == [1, 3, 4]
    assert paper_distribution(4) == [1, 4, 9, 2]
    for k in range(3, 12):
        assert sum(paper_distribution(k)) == 2 ** k
        assert abs(paper_average_distance_closed_form(k) - float(paper_average_distance(k))) < 1e-12


def test_bfs_is_shorter_than_mroute_from_k6():
    report = distance_report(Mcube(6))
    assert report["mroute_distribution"] == [1, 6, 25, 28, 4]
    # BFS: shorter than Mroute, and not the same from every node
    assert not report["bfs_uniform"]
    assert report["bfs_distribution"][:3] == ["1", "6", "25"]
    assert report["mroute_shortest_pairs"] < report["pairs"]
    assert Fraction(report["bfs_average_with_self_exact"]) < Fraction("39/16")


def test_route_lengths_walks_every_pair():
    lengths = route_lengths(Mcube(4))
    assert lengths.shape == (16, 16) and (np.diag(lengths) == 0).all()


@pytest.mark.parametrize("k", range(3, 11))
def test_hem_carries_hypercube_links_directly_or_over_two_link_0_hops(k):
    emu = hypercube_emulation(Mcube(k))
    assert emu["other"] == 0 and emu["two_hop"] == 0
    assert emu["direct"] + emu["three_hop"] == emu["links"]


@pytest.mark.parametrize("k", range(3, 11))
def test_hem_switch_count_is_half_the_bound(k):
    result = reconfiguration_switches(Mcube(k))
    assert result["switches"] == (k - 2) * 2 ** (k - 3)
    assert result["switches"] <= result["paper_bound"]


def test_catalog_and_cli(cli):
    assert make_topology("mcube", k=4) == Mcube(4)
    result = cli("route", "mcube", "-k", 5, "--src", 0, "--dst", 31, "--json")
    assert result.status == 0 and result.json()["path"] == [0, 1, 25, 31]
    result = cli("edges", "mcube", "-k", 3)
    assert result.out.split("\n")[:3] == ["0 1", "0 2", "0 4"]


@pytest.mark.parametrize("bad, error", [(0, ValueError), (17, ValueError), (3.0, TypeError),
                                        (True, TypeError)])
def test_bad_dimension(bad, error):
    with pytest.raises(error, match="Mcube dimension k"):
        Mcube(bad)


def test_bad_construction():
    with pytest.raises(ValueError, match="hem, algorithmic"):
        Mcube(4, "twisted")


def test_paper_values():
    values = Mcube(5).paper_values()
    assert values["mroute_diameter"]["value"] == 3
    assert values["reconfiguration_switches_bound"]["value"] == 24


def test_mcube_report_command(cli):
    result = cli("mcube-report", "mcube", "-k", 5, "--json")
    assert result.status == 0
    doc = result.json()
    assert doc["requirements_violations"] == []
    assert doc["distances"]["mroute_distribution"] == [1, 5, 16, 10]
    assert doc["reconfiguration"]["switches"] == 12
    text = cli("mcube-report", "mcube", "-k", 4, "--construction", "algorithmic")
    assert "requirements R1-R3 hold" in text.out and "Theorem 2 bound" in text.out


def test_mcube_report_refuses_large_k(cli):
    result = cli("mcube-report", "mcube", "-k", 13)
    assert result.status == 2 and result.err.startswith("error: mcube-report is built for k <= 12")


# -- broadcast (section 4) -------------------------------------------------------------

def _check_broadcasts(k, construction, sources):
    from cubefab.topology.broadcast import validate_schedule
    from cubefab.topology.mcube_broadcast import mcube_schedule
    topology = Mcube(k, construction)
    for source in sources:
        steps = mcube_schedule(topology, source)
        report = validate_schedule(topology, source, steps, "all-port")
        assert report.ok, (source, report.problems)
        assert len(steps) == ((k + 2) // 2 if k >= 3 else k)


@pytest.mark.parametrize("construction", CONSTRUCTIONS)
@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 6])
def test_broadcast_takes_ceil_k_plus_1_over_2_all_port_steps_from_every_node(k, construction):
    _check_broadcasts(k, construction, range(1 << k))


@pytest.mark.slow
@pytest.mark.parametrize("construction", CONSTRUCTIONS)
@pytest.mark.parametrize("k", [7, 8, 9, 10])
def test_broadcast_steps_large(k, construction):
    _check_broadcasts(k, construction, range(0, 1 << k, 7))


def test_broadcast_needs_the_all_port_model():
    from cubefab.topology.broadcast import validate_schedule
    from cubefab.topology.mcube_broadcast import mcube_schedule
    topology = Mcube(5)
    report = validate_schedule(topology, 0, mcube_schedule(topology, 0), "one-port")
    assert not report.ok and any("one-port allows 1" in p for p in report.problems)


def test_broadcast_dispatcher_and_cli(cli):
    from cubefab.topology.broadcast import broadcast_schedule
    schedule = broadcast_schedule(Mcube(6), 5, "all-port")
    assert schedule.algorithm == "mcube" and schedule.num_steps == schedule.paper_steps == 4
    doc = cli("broadcast", "mcube", "-k", 5, "--src", 1, "--model", "all-port", "--json").json()
    assert doc["valid"] and doc["num_steps"] == doc["paper_steps"] == 3
