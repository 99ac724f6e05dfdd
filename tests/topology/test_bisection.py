"""Bisection width: the integer program against brute force, the bounds around it, the
explicit cuts recounted, and the papers' claims (metacube.txt Table 2, dual-cube.txt
Table 1)."""

import itertools
import time
from fractions import Fraction

import numpy as np
import pytest

from cubefab.topology import (FAMILIES, DLH, Hypercube, Mcube, Metacube, Topology,
                              make_topology, properties)
from cubefab.topology.bisection import (bisection, bisection_exact, bisection_lower_bound,
                                        bisection_upper_bound, cut_size, flow_lower_bound,
                                        milp_bisection, spectral_lower_bound)

from tests.helpers import brute_force_bisection


def _catalog(limit):
    """Every network of the catalog with at most ``limit`` nodes (parameters up to 6;
    the dual-cube once, as MC(1, m))."""
    found = {}
    for name, (_, parameters) in FAMILIES.items():
        names = [p.name for p in parameters]
        for values in itertools.product(range(7), repeat=len(names)):
            try:
                net = make_topology(name, **dict(zip(names, values)))
            except (TypeError, ValueError):
                continue
            if net.num_nodes <= limit:
                found[net.label] = net
    return list(found.values())


SMALL = _catalog(16)


def recount(net, sides):
    """Links with ends on different sides, node by node through ``neighbors``."""
    side = {int(a): int(s) for a, s in zip(net.nodes(), sides)}
    crossing = sum(side[u] != side[v] for u in side for v in net.neighbors(u))
    assert crossing % 2 == 0
    return crossing // 2


def test_small_catalog_is_what_the_families_allow():
    assert sorted(n.label for n in SMALL) == sorted(
        ["Q(1)", "Q(2)", "Q(3)", "Q(4)", "MC(0,1)", "MC(0,2)", "MC(0,3)", "MC(0,4)",
         "MC(1,1)", "DLH(2,1)", "Mcube(1)", "Mcube(2)", "Mcube(3)", "Mcube(4)",
         "FQ(2)", "FQ(3)", "FQ(4)"])


@pytest.mark.parametrize("net", SMALL, ids=lambda n: n.label)
def test_milp_equals_brute_force_bisection(net):
    result = bisection_exact(net, time_limit=30)
    assert result.status == "optimal"
    assert result.value == brute_force_bisection(net)
    assert result.lower == result.upper == result.value
    assert 2 * int(result.sides.sum()) == net.num_nodes and result.sides[0] == 0
    assert recount(net, result.sides) == result.value


MEDIUM = [Metacube(1, 2), DLH(3, 1)]
MEDIUM_SLOW = [Hypercube(5), DLH(2, 2), Mcube(5), Metacube(2, 1), DLH(4, 2), Hypercube(6),
               Mcube(6)]


def _check_bracket(net):
    exact = bisection_exact(net, time_limit=120)
    assert exact.status == "optimal"
    lower = bisection_lower_bound(net, numeric=True)
    upper = bisection_upper_bound(net)
    assert lower.value <= exact.value <= upper.value
    for candidate in (flow_lower_bound(net), spectral_lower_bound(net)):
        if candidate is not None:
            assert candidate.value <= exact.value
    return exact.value, lower.value, upper.value


@pytest.mark.parametrize("net", SMALL + MEDIUM, ids=lambda n: n.label)
def test_bounds_bracket_the_exact_value(net):
    exact, lower, upper = _check_bracket(net)
    assert lower == exact == upper      # every family here meets its bounds


@pytest.mark.slow
@pytest.mark.parametrize("net", MEDIUM_SLOW, ids=lambda n: n.label)
def test_bounds_bracket_the_exact_value_32_to_64_nodes(net):
    exact, lower, upper = _check_bracket(net)
    assert lower == exact == upper


UPPER_CASES = [Hypercube(1), Hypercube(7), Metacube(0, 3), Metacube(1, 1), Metacube(1, 3),
               Metacube(2, 1), Metacube(2, 2), Metacube(3, 1), DLH(2, 1), DLH(3, 2),
               DLH(5, 3), Mcube(3), Mcube(7)]


@pytest.mark.parametrize("net", UPPER_CASES, ids=lambda n: n.label)
def test_upper_bound_partition_is_balanced_and_recounted(net):
    upper = bisection_upper_bound(net)
    assert upper.counted == "structure and enumeration"
    assert upper.sides.shape == (net.num_nodes,)
    assert 2 * int(upper.sides.sum()) == net.num_nodes
    assert recount(net, upper.sides) == upper.value == cut_size(net, upper.sides)


@pytest.mark.parametrize("net", UPPER_CASES, ids=lambda n: n.label)
def test_structural_count_equals_enumeration(net):
    by_structure = bisection_upper_bound(net, partition_limit=0)
    assert by_structure.counted == "structure" and by_structure.sides is None
    assert by_structure.value == bisection_upper_bound(net).value


def test_structural_upper_bound_formulas():
    assert bisection_upper_bound(Metacube(4, 4)).value == 2 ** 68 // 32
    assert bisection_upper_bound(Metacube(1, 20)).value == 2 ** 41 // 4
    assert bisection_upper_bound(DLH(7, 40)).value == 2 ** 42
    assert bisection_upper_bound(Hypercube(62)).value == 2 ** 61


@pytest.mark.parametrize("n", range(1, 6))
def test_hypercube_exact_bisection_is_half_the_nodes(n):
    assert bisection_exact(Hypercube(n), time_limit=30).value == 2 ** (n - 1)


def test_hypercube_bisection_at_any_size():
    for n in (1, 10, 20, 40, 62):
        b = bisection(Hypercube(n))
        assert (b.value, b.method, b.exact_by) == (2 ** (n - 1), "exact", "bounds")


def _grid():
    nets = [Hypercube(n) for n in (1, 2, 8, 33)]
    nets += [Metacube(k, m) for k in range(5) for m in range(1, 9)]
    nets += [DLH(m, d) for m in range(2, 9) for d in (1, 2, 7, 20)]
    nets += [Mcube(k) for k in range(1, 9)]
    return nets


def test_bounds_meet_for_every_family_at_every_size():
    for net in _grid():
        b = bisection(net)
        assert b.method == "exact" and b.exact_by == "bounds" and b.milp is None, net.label
        assert b.lower == b.upper == b.value


def test_bounds_at_a_million_nodes_are_fast():
    for net in (Hypercube(20), Metacube(4, 1), DLH(4, 16)):
        assert net.num_nodes == 2 ** 20
        start = time.perf_counter()
        b = bisection(net)
        assert time.perf_counter() - start < 1.0
        assert b.method == "exact"
    assert bisection(Metacube(4, 1)).value == 2 ** 20 // 32
    assert bisection(DLH(4, 16)).value == 2 ** 20 // 4


def test_paper_bisection_claims_hold():
    # metacube.txt Table 2: 2^(m 2^k)/2 (2^n/2, 2^n/4, 2^n/8 for k = 0, 1, 2), claimed
    # minimum; dual-cube.txt Table 1: 2^n/4
    for k in range(5):
        for m in range(1, 9):
            net = Metacube(k, m)
            assert bisection(net).value == net.paper_values()["bisection"]["value"] \
                == 2 ** (m * 2 ** k) // 2
    for n in range(1, 40):
        assert bisection(Hypercube(n)).value == Hypercube(n).paper_values()["bisection"]["value"]


def test_paper_cost_is_degree_times_diameter():
    for k in range(1, 5):
        for m in range(1, 5):
            p = properties(Metacube(k, m))
            assert p["cost"] == p["degree"] * p["diameter"] == p["paper"]["cost"]["value"]
    # MC(0, m) = Q(m): the (m+1)2^k diameter term (docs/errata.md, 3) carries into the cost
    p = properties(Metacube(0, 3))
    assert (p["cost"], p["paper"]["cost"]["value"]) == (9, 12)


def _hops(net, pairs, algorithm, kind):
    """Total hops of each kind (``kind(port)``) over the routes of ``pairs``."""
    totals = {}
    for s, t in pairs:
        path = net.route(s, t, algorithm)
        for u, v in zip(path, path[1:]):
            key = kind(net.port(u, v))
            totals[key] = totals.get(key, 0) + 1
    return totals


def _all_pairs(net):
    return [(int(s), int(t)) for s in net.nodes() for t in net.nodes()]


def test_flow_bound_hop_counts_metacube_k2():
    # the routes the flow bound averages: field hops m 2^k/2 per pair on average, class
    # walks of at most 2^k hops
    net = Metacube(2, 1)
    n = net.num_nodes
    hops = _hops(net, _all_pairs(net), "paper", lambda p: "cross" if p < net.k else "cube")
    assert hops["cube"] == n * n * net.m * net.h // 2
    assert hops["cross"] <= n * n * net.h
    assert flow_lower_bound(net).value == (n * n // 4) // (n * net.h // 2)


def test_flow_bound_hop_counts_dual_cube():
    net = Metacube(1, 2)
    n = net.num_nodes
    shift = net.m * net.h
    pairs = [(s, t) for s, t in _all_pairs(net) if (s >> shift) != (t >> shift)]
    assert len(pairs) == n * n // 2
    hops = _hops(net, pairs, "minimal", lambda p: "cross" if p < net.k else "cube")
    assert hops == {"cross": n * n // 2, "cube": n * n // 2 * net.m}
    # per channel: N/2 on the N cross and the N m cube channels
    assert flow_lower_bound(net).value == (n * n // 8) // (n // 2)


@pytest.mark.parametrize("net", [DLH(2, 1), DLH(3, 1), DLH(4, 1)], ids=lambda n: n.label)
def test_flow_bound_hop_counts_dlh(net):
    n, m, d = net.num_nodes, net.m, net.d

    def kind(port):
        return "cube" if port < d else ("ring" if port < d + 2 else "ring bit")
    hops = _hops(net, _all_pairs(net), None, kind)
    assert hops == {"cube": n * n * d // 2, "ring": n * n * m // 2, "ring bit": n * n // 2}
    assert flow_lower_bound(net).value == min(n // 2, n // m)


def _cluster_graph(net):
    """MC(k, m) with each cluster contracted: the cross-edges between clusters."""
    nodes = net.nodes()
    own = (nodes >> (net.m * net.h)) * net.m
    cluster = nodes & ~(((1 << net.m) - 1) << own)
    _, label = np.unique(cluster, return_inverse=True)
    edges = net.edges()
    a, b = label[net.index_array(edges[:, 0])], label[net.index_array(edges[:, 1])]
    keep = a != b
    return int(label.max()) + 1, np.stack([a[keep], b[keep]], axis=1)


def test_whole_cluster_bisection_of_mc21_cuts_twice_the_paper_value():
    # docs/errata.md: metacube.txt's "half of the clusters of class i" (whole clusters)
    # cannot reach its own 2^(n-k)/2 for k >= 2
    clusters, edges = _cluster_graph(Metacube(2, 1))
    assert clusters == 32 and len(edges) == 64
    result = milp_bisection(clusters, edges, time_limit=60)
    assert result.value == 16 > Metacube(2, 1).paper_values()["bisection"]["value"] == 8


def test_whole_cluster_bisection_of_the_dual_cube_reaches_the_paper_value():
    clusters, edges = _cluster_graph(Metacube(1, 2))
    assert milp_bisection(clusters, edges, time_limit=60).value == 8


def test_cross_edge_flow_bound_exceeds_the_paper_value_for_k_at_least_2():
    # A cut of cross-edges only carries every crossing unit on a cross channel; shortest
    # routes use W (mean covering-walk length) cross hops per pair, over N k channels:
    # cut >= (N/2)^2 / (N W / k) = N k / (4 W) > N / 2^(k+1).
    for k in range(2, 5):
        for m in range(1, 4):
            p = properties(Metacube(k, m))
            walk = Fraction(p["average_distance_with_self_exact"]) - Fraction(m * 2 ** k, 2)
            assert Fraction(k, 4) / walk > Fraction(1, 2 ** (k + 1))


class _ScrambledRing(Topology):
    """A ring of 8 nodes visited in an order no address bit halves with 2 cut links."""

    name = "scrambled-ring"
    algorithms = ("minimal",)
    ORDER = [0, 3, 5, 6, 1, 2, 4, 7]

    def __init__(self):
        self.address_bits, self.num_nodes, self.degree = 3, 8, 2
        self._next = {a: self.ORDER[(i + 1) % 8] for i, a in enumerate(self.ORDER)}
        self._prev = {a: self.ORDER[i - 1] for i, a in enumerate(self.ORDER)}

    @property
    def params(self):
        return {}

    def neighbor_array(self, addresses, port):
        table = self._next if port == 0 else self._prev
        return np.array([table[int(a)] for a in np.atleast_1d(addresses)], dtype=np.int64)

    def _next_port(self, here, dest, algorithm):
        return 0


def test_unknown_family_runs_the_integer_program_when_bounds_differ():
    net = _ScrambledRing()
    assert flow_lower_bound(net) is None
    lower = bisection_lower_bound(net)
    assert lower.method == "spectral" and lower.numerical and lower.value == 2
    upper = bisection_upper_bound(net)
    assert upper.value > 2 and upper.counted == "enumeration"
    b = bisection(net)
    assert (b.value, b.method, b.exact_by) == (2, "exact", "milp")
    assert bisection(net, method="bounds").method == "bounds"


def test_method_milp_runs_even_where_bounds_meet():
    b = bisection(Metacube(1, 1), method="milp")
    assert (b.value, b.exact_by, b.milp.status) == (2, "milp", "optimal")


def test_time_limit_gives_proven_bounds():
    result = bisection_exact(Hypercube(7), time_limit=1)
    assert result.value is None and result.status == "time limit"
    assert result.lower <= 64 and (result.upper is None or result.upper >= 64)


def test_json_summary():
    doc = bisection(Metacube(2, 2)).as_dict()
    assert doc["value"] == 128 and doc["method"] == "exact" and doc["exact_by"] == "bounds"
    assert doc["lower_method"] == "flow" and "milp" not in doc


@pytest.mark.parametrize("call,match", [
    (lambda: bisection(Hypercube(3), method="exact"), "method must be one of auto, milp, "
                                                       "bounds, not 'exact'"),
    (lambda: bisection_exact(Hypercube(3), time_limit=0), "time limit must be a positive"),
    (lambda: bisection_exact(Hypercube(15)), "Q\\(15\\) has 32768 nodes; the exact "
                                             "bisection"),
    (lambda: milp_bisection(3, [[0, 1]]), "number of nodes must be even"),
    (lambda: milp_bisection(4, [[0, 4]]), "edges must join nodes 0..3"),
    (lambda: cut_size(Hypercube(2), [0, 1]), "sides must have one entry per node"),
])
def test_refusals(call, match):
    with pytest.raises(ValueError, match=match):
        call()
