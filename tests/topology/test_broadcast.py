"""Broadcast schedules: the validator, the papers' schedules and step counts."""

import math

import pytest

from cubefab.topology import DLH, Hypercube, Metacube
from cubefab.topology.broadcast import (
    BROADCAST_ALGORITHMS, BroadcastAlgorithm, algorithms_for, broadcast_schedule,
    dualcube_schedule, flood_schedule, greedy_schedule, lower_bounds, metacube_schedule,
    register_broadcast, validate_schedule)
from cubefab.topology.properties import bfs_distances


def all_sources(topology, limit=128):
    nodes = [int(a) for a in topology.nodes()]
    return nodes if len(nodes) <= limit else nodes[::len(nodes) // limit]


CASES = [
    (Hypercube(1), "binomial", 1), (Hypercube(4), "binomial", 4),
    (Hypercube(6), "binomial", 6),
    (Metacube(1, 1), "dual-cube", 4), (Metacube(1, 2), "dual-cube", 6),
    (Metacube(1, 3), "dual-cube", 8),
    (Metacube(1, 2), "metacube", 6), (Metacube(2, 1), "metacube", 9),
    (Metacube(2, 2), "metacube", 13), (Metacube(3, 1), "metacube", 18),
    (DLH(2, 1), "dlh", 4), (DLH(2, 3), "dlh", 6), (DLH(3, 2), "dlh", 6),
    (DLH(4, 3), "dlh", 8),
]


@pytest.mark.parametrize("topology, algorithm, paper", CASES,
                         ids=[f"{t.label}-{a}" for t, a, _ in CASES])
def test_paper_schedule_valid_one_port_from_every_source(topology, algorithm, paper):
    for source in all_sources(topology):
        schedule = broadcast_schedule(topology, source, algorithm=algorithm)
        assert schedule.paper_steps == paper
        assert schedule.num_steps == paper
        report = validate_schedule(topology, source, schedule.steps, "one-port")
        assert report.ok, report.problems[:3]
        assert report.informed == topology.num_nodes
        assert validate_schedule(topology, source, schedule.steps, "all-port").ok


@pytest.mark.parametrize("topology", [Hypercube(5), Metacube(1, 3), Metacube(2, 2),
                                      DLH(4, 3), DLH(2, 2)], ids=lambda t: t.label)
def test_flood_meets_the_eccentricity_all_port(topology):
    for source in all_sources(topology, 16):
        steps = flood_schedule(topology, source)
        assert validate_schedule(topology, source, steps, "all-port").ok
        assert len(steps) == lower_bounds(topology, source, "all-port")["eccentricity"]


@pytest.mark.parametrize("topology", [Metacube(2, 1), DLH(4, 3), Hypercube(3)],
                         ids=lambda t: t.label)
def test_greedy_is_valid_one_port(topology):
    steps = greedy_schedule(topology, 0)
    assert validate_schedule(topology, 0, steps, "one-port").ok


def test_counts_against_lower_bounds():
    # dual-cube and DLH meet the eccentricity (= diameter), so they are optimal;
    # Theorem 3 exceeds the one-port lower bound by k - 1
    for topology in (Metacube(1, 2), Metacube(1, 3), DLH(4, 3), DLH(2, 3), Hypercube(5)):
        bounds = lower_bounds(topology, 0)
        assert broadcast_schedule(topology, 0).num_steps == bounds["lower_bound"]
    for k, m in [(2, 1), (2, 2), (3, 1), (2, 3)]:
        mc = Metacube(k, m)
        bounds = lower_bounds(mc, 0)
        assert bounds["eccentricity"] == (m + 1) * 2 ** k
        assert bounds["log2_nodes"] == k + m * 2 ** k
        assert broadcast_schedule(mc, 0).num_steps == bounds["lower_bound"] + k - 1


def test_lower_bounds_values():
    dlh = DLH(4, 3)
    assert lower_bounds(dlh, 0) == {"eccentricity": 8, "log2_nodes": 7, "lower_bound": 8}
    assert lower_bounds(dlh, 0, "all-port")["log2_nodes"] is None
    assert lower_bounds(Hypercube(5), 3)["lower_bound"] == math.ceil(math.log2(32))


# -- metacube.txt Table 3 --------------------------------------------------------------

def b(text):
    return int(text, 2)


def test_metacube_table3_first_steps():
    mc = Metacube(2, 2)
    steps = metacube_schedule(mc, 0)
    # 1. broadcast in the k-cube (exactly as printed)
    assert steps[0] == [(0, b("0100000000"))]
    assert steps[1] == [(0, b("1000000000")), (b("0100000000"), b("1100000000"))]
    # 2. broadcast in the m-cube: 4 then 8 transfers (the table lists 12)
    assert [len(s) for s in steps[2:4]] == [4, 8]
    assert (b("1100000000"), b("1101000000")) in steps[2]
    assert (b("1100000000"), b("1110000000")) in steps[3]
    # 3. through next: the table lists 16 transfers; 4 of them reach informed nodes
    literal = metacube_schedule(mc, 0, keep_redundant=True)
    assert len(literal[4]) == 16 and len(steps[4]) == 12
    informed = {0} | {v for s in steps[:4] for _, v in s}
    redundant = sorted(v for _, v in literal[4] if v in informed)
    assert redundant == [0, b("0100000000"), b("1000000000"), b("1100000000")]
    assert (b("1000000000"), 0) in literal[4]      # the table sends back to the source


def test_theorem3_as_written_sends_redundant_messages():
    mc = Metacube(2, 2)
    literal = metacube_schedule(mc, 0, keep_redundant=True)
    report = validate_schedule(mc, 0, literal)
    assert not report.ok and report.informed == mc.num_nodes
    assert all("already holds" in p or "more problem" in p for p in report.problems)
    assert sum(len(s) for s in literal) - (mc.num_nodes - 1) == 756
    assert len(literal) == 13


def test_dualcube_needs_k_1():
    with pytest.raises(ValueError, match="k = 1"):
        dualcube_schedule(Metacube(2, 1), 0)


def test_dualcube_is_the_default_for_k_1():
    assert broadcast_schedule(Metacube(1, 2), 5).algorithm == "dual-cube"
    assert broadcast_schedule(Metacube(2, 1), 5).algorithm == "metacube"


def test_dlh_schedule_crosses_rings_first_then_uses_one_port():
    dlh = DLH(4, 3)
    steps = broadcast_schedule(dlh, 0).steps
    assert steps[0] == [(0, dlh.make_address(1, 0, 0))]
    dist = bfs_distances(dlh, 0)
    assert len(steps) == int(dist.max()) == 4 + 3 + 1


# -- the validator ---------------------------------------------------------------------

def test_validator_reports_each_kind_of_problem():
    cube = Hypercube(3)
    good = [[(0, 1)], [(0, 2), (1, 3)], [(0, 4), (1, 5), (2, 6), (3, 7)]]
    assert validate_schedule(cube, 0, good).ok

    def problems(steps, model="one-port"):
        report = validate_schedule(cube, 0, steps, model)
        assert not report.ok
        return " ".join(report.problems)

    assert "sends before" in problems([[(1, 3)]] + good)
    assert "not adjacent" in problems([[(0, 3)]] + good)
    assert "already holds" in problems(good + [[(7, 6)]])
    assert "the source" in problems(good + [[(1, 0)]])
    assert "never receive" in problems(good[:2])
    assert "sends 2 messages" in problems([[(0, 1), (0, 2)], [(0, 4), (1, 3)],
                                           [(1, 5), (2, 6), (3, 7)]])
    assert "receives more than one" in problems([[(0, 1)], [(0, 2), (1, 3)],
                                                 [(1, 5), (2, 6), (3, 7), (6, 7)],
                                                 [(0, 4)]], "all-port")
    assert "non-node" in problems([[(0, 9)]])
    assert "not a (sender, receiver) pair" in problems([[(0,)]])


def test_all_port_allows_several_sends():
    cube = Hypercube(3)
    steps = [[(0, 1), (0, 2), (0, 4)], [(1, 3), (2, 6), (4, 5)], [(3, 7)]]
    assert validate_schedule(cube, 0, steps, "all-port").ok
    assert not validate_schedule(cube, 0, steps, "one-port").ok


def test_bad_model_and_source():
    with pytest.raises(ValueError, match="one-port, all-port"):
        validate_schedule(Hypercube(3), 0, [], "two-port")
    with pytest.raises(ValueError, match="one-port, all-port"):
        broadcast_schedule(Hypercube(3), 0, "any")
    with pytest.raises(ValueError, match="not a node"):
        broadcast_schedule(DLH(4, 3), 0b0100 << 3)
    with pytest.raises(ValueError, match="all-port model, not one-port"):
        broadcast_schedule(Hypercube(3), 0, "one-port", "flood")
    with pytest.raises(ValueError, match="binomial, greedy, flood|binomial, flood, greedy"):
        broadcast_schedule(Hypercube(3), 0, algorithm="nope")


def test_registry_extension():
    class Cube(Hypercube):
        pass

    def descending(topology, source):
        informed = [source]
        steps = []
        for j in reversed(range(topology.n)):
            step = [(u, u ^ (1 << j)) for u in informed]
            informed += [v for _, v in step]
            steps.append(step)
        return steps

    register_broadcast(Cube, BroadcastAlgorithm("descending", "one-port", descending,
                                                lambda t: t.n, "test"))
    try:
        names = [a.name for a in algorithms_for(Cube(3))]
        assert names == ["descending", "binomial", "flood", "greedy"]
        schedule = broadcast_schedule(Cube(3), 0)
        assert schedule.algorithm == "descending" and schedule.steps[0] == [(0, 4)]
        assert validate_schedule(Cube(3), 0, schedule.steps).ok
    finally:
        del BROADCAST_ALGORITHMS[Cube]
    assert [a.name for a in algorithms_for(Cube(3))][0] == "binomial"


@pytest.mark.slow
@pytest.mark.parametrize("topology, algorithm, paper", CASES,
                         ids=[f"{t.label}-{a}" for t, a, _ in CASES])
def test_paper_schedule_every_source_slow(topology, algorithm, paper):
    for source in all_sources(topology, limit=1 << 20):
        schedule = broadcast_schedule(topology, source, algorithm=algorithm)
        assert validate_schedule(topology, source, schedule.steps).ok
        assert schedule.num_steps == paper
