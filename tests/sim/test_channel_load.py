"""The channel-load bound against hand-computed loads and a brute-force route count."""

import numpy as np
import pytest

from cubefab.sim.channel_load import (MINIMAL_BOUND_MAX_NODES, channel_load_bound,
                                      channel_loads, minimal_forced_loads,
                                      minimal_routing_bound)
from cubefab.topology.patterns import traffic_matrix, permutation_destination
from cubefab.topology.catalog import make_topology

from tests.helpers import brute_force_loads


def test_hypercube_uniform_load_is_half_when_self_traffic_counts():
    q = make_topology("hypercube", n=4)
    P = np.full((16, 16), 1 / 16)
    loads = channel_loads(q, P)
    assert np.allclose(loads, 0.5)


def test_hypercube_uniform_excluding_self():
    # Dimension j is crossed by the N/2 destinations differing in bit j, each with
    # probability 1/(N-1): load (N/2)/(N-1) = 4/7 on Q(3); bound 7/4, capped by injection.
    result = channel_load_bound(make_topology("hypercube", n=3), "uniform")
    assert result["max_channel_load"] == pytest.approx(4 / 7)
    assert result["network_bound"] == pytest.approx(7 / 4)
    assert result["saturation_bound"] == 1.0
    assert result["limited_by"] == "injection"
    assert result["average_hops"] == pytest.approx(12 / 7)  # 3 * 4 / 7


def test_hypercube_bitcomp_loads_every_channel_once():
    loads = channel_loads(make_topology("hypercube", n=4), "bitcomp")
    assert np.allclose(loads, 1.0)


def test_neighbor_traffic_loads_each_channel_one_over_degree():
    for topo in (make_topology("hypercube", n=3), make_topology("dlh", m=2, d=1),
                 make_topology("metacube", k=1, m=2)):
        loads = channel_loads(topo, "neighbor")
        assert np.allclose(loads, 1 / topo.degree)


def test_hotspot_is_limited_by_ejection():
    q = make_topology("hypercube", n=3)
    result = channel_load_bound(q, "hotspot", hotspot=5, hotspot_fraction=0.5)
    # node 5 receives 8 * 0.5 from the hot part plus 7 * 0.5/7 from the uniform part
    assert result["max_ejection_load"] == pytest.approx(4.5)
    assert result["saturation_bound"] == pytest.approx(1 / 4.5)
    assert result["limited_by"] == "ejection"


@pytest.mark.parametrize("family, params, algorithm", [
    ("metacube", {"k": 1, "m": 2}, "minimal"),
    ("metacube", {"k": 1, "m": 2}, "paper"),
    ("metacube", {"k": 2, "m": 1}, "paper"),
    ("dlh", {"m": 2, "d": 2}, None),
    ("dlh", {"m": 3, "d": 1}, None),
])
def test_matches_brute_force_route_count(family, params, algorithm):
    topo = make_topology(family, **params)
    for pattern in ("uniform", "bitcomp"):
        P = traffic_matrix(topo, pattern)
        assert np.allclose(channel_loads(topo, pattern, algorithm),
                           brute_force_loads(topo, P, algorithm))


def test_total_load_equals_average_hops_times_nodes():
    topo = make_topology("metacube", k=2, m=1)
    result = channel_load_bound(topo, "uniform")
    loads = channel_loads(topo, "uniform")
    assert loads.sum() == pytest.approx(result["average_hops"] * topo.num_nodes)
    assert result["mean_channel_load"] == pytest.approx(loads.mean())


def test_minimal_routes_average_the_exact_distance():
    from cubefab.topology.properties import properties
    topo = make_topology("dlh", m=2, d=2)
    assert channel_load_bound(topo)["average_hops"] == pytest.approx(
        properties(topo)["average_distance"])


def test_traffic_matrix_rows_sum_to_one():
    topo = make_topology("dlh", m=2, d=1)
    for pattern in ("uniform", "bitcomp", "hotspot", "neighbor"):
        assert np.allclose(traffic_matrix(topo, pattern).sum(axis=1), 1)


def test_undefined_permutations_are_refused():
    with pytest.raises(ValueError, match="even number of address bits"):
        permutation_destination(make_topology("metacube", k=1, m=3), "transpose")
    with pytest.raises(ValueError, match="not a node"):
        permutation_destination(make_topology("dlh", m=3, d=1), "shuffle")


def test_bad_arguments():
    q = make_topology("hypercube", n=2)
    with pytest.raises(ValueError, match="traffic pattern must be one of"):
        channel_loads(q, "tornado")
    with pytest.raises(ValueError, match="rows summing to 1"):
        channel_loads(q, np.zeros((4, 4)))
    with pytest.raises(ValueError, match="hotspot fraction"):
        channel_loads(q, "hotspot", hotspot_fraction=1.5)
    with pytest.raises(TypeError):
        channel_loads("Q(2)", "uniform")


# -- every minimal routing: the forced channels -----------------------------------------

def brute_force_forced_loads(topology, P):
    """Sum P[s, t] over the channels common to every shortest s-t path, by listing the
    paths (networkx), pair by pair."""
    import networkx as nx
    nodes = [int(a) for a in topology.nodes()]
    graph = nx.Graph((u, int(topology.neighbor(u, p)))
                     for u in nodes for p in range(topology.degree))
    loads = np.zeros((topology.num_nodes, topology.degree))
    for i, s in enumerate(nodes):
        for j, t in enumerate(nodes):
            if P[i, j] and i != j:
                common = None
                for path in nx.all_shortest_paths(graph, s, t):
                    hops = set(zip(path, path[1:]))
                    common = hops if common is None else common & hops
                for u, v in common:
                    loads[topology.index(u), topology.port(u, v)] += P[i, j]
    return loads


@pytest.mark.parametrize("family, params", [
    ("mcube", {"k": 4}), ("mcube", {"k": 5}), ("metacube", {"k": 1, "m": 2}),
    ("dlh", {"m": 2, "d": 2}), ("hypercube", {"n": 3}),
])
def test_forced_loads_are_those_common_to_every_shortest_path(family, params):
    topo = make_topology(family, **params)
    for pattern in ("uniform", "bitcomp", "transpose", "shuffle"):
        try:
            P = traffic_matrix(topo, pattern)
        except ValueError:      # the pattern needs an address form this network lacks
            continue
        assert np.allclose(minimal_forced_loads(topo, pattern), brute_force_forced_loads(topo, P))


def test_mcube6_bitcomp_caps_every_minimal_routing_at_a_third():
    # eight channels lie on every shortest path of three complement flows each, while
    # e-cube's (non-minimal) routes load no channel twice
    mcube = make_topology("mcube", k=6)
    result = minimal_routing_bound(mcube, "bitcomp")
    assert result["max_channel_load"] == 3
    assert result["forced_channels"] == 8
    assert result["network_bound"] == pytest.approx(1 / 3)
    assert channel_load_bound(mcube, "bitcomp", "ecube")["network_bound"] == 1


@pytest.mark.parametrize("family, params, algorithm", [
    ("metacube", {"k": 1, "m": 2}, "minimal"), ("dlh", {"m": 3, "d": 1}, None),
    ("hypercube", {"n": 4}, None), ("mcube", {"k": 5}, "mroute"),
])
def test_no_minimal_routing_beats_the_minimal_bound(family, params, algorithm):
    topo = make_topology(family, **params)
    for pattern in ("uniform", "bitcomp"):
        assert (channel_load_bound(topo, pattern, algorithm)["network_bound"]
                <= minimal_routing_bound(topo, pattern)["network_bound"] + 1e-12)


def test_a_network_with_many_shortest_paths_forces_no_channel():
    result = minimal_routing_bound(make_topology("hypercube", n=3), "bitcomp")
    assert result["forced_channels"] == 0
    assert result["network_bound"] == float("inf")
    assert result["limited_by"] == "injection" and result["saturation_bound"] == 1


def test_minimal_bound_refuses_large_networks():
    big = make_topology("hypercube", n=MINIMAL_BOUND_MAX_NODES.bit_length())
    with pytest.raises(ValueError, match="runs up to"):
        minimal_forced_loads(big, "uniform")


# -- under faults: the waypoint routes' loads ------------------------------------------

def brute_force_waypoint_loads(routing, P):
    """Sum P[s, t] over the channels of routing.route(s, t) for every healthy pair the
    routing does not refuse; also the created share per source."""
    topology = routing.topology
    nodes = [int(a) for a in topology.nodes()]
    faulty = set(routing.faults.nodes)
    loads = np.zeros((topology.num_nodes, topology.degree))
    created = np.zeros(topology.num_nodes)
    for i, s in enumerate(nodes):
        for j, t in enumerate(nodes):
            if not P[i, j] or s in faulty or t in faulty:
                continue
            path = [s] if s == t else routing.route(s, t)
            if path is None:
                continue
            created[i] += P[i, j]
            for u, v in zip(path, path[1:]):
                loads[topology.index(u), topology.port(u, v)] += P[i, j]
    return loads, created


def _fault_bound(topology, nodes=(), links=(), waypoints=1, traffic="uniform"):
    from cubefab.sim.channel_load import waypoint_channel_load_bound
    from cubefab.topology.fault_routing import FaultSet, plan_waypoints
    routing = plan_waypoints(topology, FaultSet(topology, nodes, links), waypoints)
    return routing, waypoint_channel_load_bound(routing, traffic)


@pytest.mark.parametrize("topo, nodes, links, waypoints", [
    (("hypercube", {"n": 3}), [0], [(1, 3)], 1),
    (("hypercube", {"n": 4}), [5, 6], [(0, 8)], 1),
    (("metacube", {"k": 1, "m": 2}), [5], [(0, 1)], 2),
    (("dlh", {"m": 2, "d": 1}), [0, 1, 12], [], 2),
])
def test_waypoint_loads_equal_a_route_by_route_count(topo, nodes, links, waypoints):
    topology = make_topology(topo[0], **topo[1])
    routing, result = _fault_bound(topology, nodes, links, waypoints)
    P = traffic_matrix(topology, "uniform")
    loads, created = brute_force_waypoint_loads(routing, P)
    assert result["max_channel_load"] == pytest.approx(loads.max())
    assert result["mean_channel_load"] == pytest.approx(loads.mean())
    assert result["routable_share"] == pytest.approx(created.sum() / topology.num_nodes)
    rate = min(1 / loads.max(), 1 / created.max())
    assert result["rate_bound"] == pytest.approx(rate)
    assert result["saturation_bound"] == pytest.approx(rate * created.mean())


def test_waypoint_bound_without_faults_is_the_reference_bound():
    topology = make_topology("metacube", k=1, m=2)
    _, result = _fault_bound(topology)
    plain = channel_load_bound(topology, "uniform")
    for key in ("max_channel_load", "mean_channel_load", "saturation_bound",
                "average_hops", "limited_by"):
        assert result[key] == pytest.approx(plain[key])
    assert result["routable_share"] == pytest.approx(1.0)


def test_a_faulty_node_lowers_the_bound_on_accepted_throughput():
    # Q(3) without node 0: 7 sources, each with 6 of its 7 destinations routable
    topology = make_topology("hypercube", n=3)
    _, result = _fault_bound(topology, [0])
    assert result["routable_share"] == pytest.approx(7 / 8 * 6 / 7)
    assert result["saturation_bound"] < channel_load_bound(topology)["saturation_bound"]
    assert result["faulty_nodes"] == [0]
