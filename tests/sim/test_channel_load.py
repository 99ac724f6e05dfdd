"""The channel-load bound against hand-computed loads and a brute-force route count."""

import numpy as np
import pytest

from cubefab.sim.channel_load import channel_load_bound, channel_loads
from cubefab.topology.patterns import traffic_matrix, permutation_destination
from cubefab.topology.catalog import make_topology


def brute_force_loads(topology, P, algorithm=None):
    """Sum P[s, t] over the channels of topology.route(s, t), pair by pair."""
    nodes = topology.nodes()
    loads = np.zeros((topology.num_nodes, topology.degree))
    for i, s in enumerate(nodes):
        for j, t in enumerate(nodes):
            if P[i, j] and i != j:
                path = topology.route(int(s), int(t), algorithm)
                for u, v in zip(path, path[1:]):
                    loads[topology.index(u), topology.port(u, v)] += P[i, j]
    return loads


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
