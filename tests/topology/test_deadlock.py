"""VC assignment and the channel dependency graph check (Dally & Seitz)."""

import numpy as np
import pytest

from cubefab.hdl.config import FabricConfig
from cubefab.topology import DLH, Hypercube, Metacube
from cubefab.topology.deadlock import (DeadlockError, channel_dependency_graph,
                                       check_deadlock_free, flow_lane, hop_vcs, next_vc,
                                       required_vcs, translation_mask, wrap_ports)


# every configuration the tests and benchmarks build, plus the large ones of the issue
CONFIGS = [
    (Hypercube(3), None), (Metacube(1, 1), None), (Metacube(1, 1), "paper"),
    (Metacube(1, 2), None), (Metacube(2, 1), None), (Metacube(2, 1), "paper"),
    (DLH(2, 1), None), (DLH(2, 2), None), (Hypercube(2), None),
    (Metacube(3, 1), None), (Metacube(3, 1), "paper"), (DLH(8, 4), None),
    (Metacube(2, 3), None),
]


@pytest.mark.parametrize("topology,algorithm", CONFIGS,
                         ids=lambda c: getattr(c, "label", str(c)))
def test_configuration_is_deadlock_free(topology, algorithm):
    report = check_deadlock_free(topology, algorithm)
    assert report.deadlock_free, report.describe_cycle()
    assert report.vcs == report.required_vcs


@pytest.mark.slow
def test_mc23_paper_is_deadlock_free():
    assert check_deadlock_free(Metacube(2, 3), "paper").deadlock_free


@pytest.mark.parametrize("topology,vcs", [
    (Hypercube(3), 1), (Metacube(1, 1), 2), (Metacube(1, 3), 2), (Metacube(2, 1), 4),
    (Metacube(3, 1), 6), (DLH(2, 1), 2), (DLH(8, 4), 2)], ids=str)
def test_required_vcs(topology, vcs):
    assert required_vcs(topology) == vcs


def _brute_force_edges(topology, algorithm, vcs):
    """The CDG from every (source, destination) route, without symmetry tricks."""
    nodes = [int(a) for a in topology.nodes()]
    degree = topology.degree
    edges = set()
    for s in nodes:
        for t in nodes:
            if s == t:
                continue
            path = topology.route(s, t, algorithm)
            vc = hop_vcs(topology, s, t, algorithm, vcs)
            chans = [(topology.index(u) * degree + topology.port(u, v)) * vcs + c
                     for (u, v), c in zip(zip(path, path[1:]), vc)]
            edges.update(zip(chans, chans[1:]))
    return edges


@pytest.mark.parametrize("topology,algorithm,vcs", [
    (Hypercube(3), None, 1), (Metacube(1, 2), None, 2), (Metacube(1, 2), None, 1),
    (Metacube(2, 1), "paper", 4), (Metacube(2, 1), None, 2), (DLH(2, 2), None, 2),
    (DLH(3, 1), None, 1)], ids=str)
def test_graph_equals_brute_force(topology, algorithm, vcs):
    num, edges = channel_dependency_graph(topology, algorithm, vcs)
    assert num == topology.num_nodes * topology.degree * vcs
    assert set(map(tuple, edges.tolist())) == _brute_force_edges(topology, algorithm, vcs)


@pytest.mark.parametrize("topology", [Hypercube(3), Metacube(1, 2), Metacube(2, 1),
                                      DLH(3, 2)], ids=str)
def test_translations_map_routes_onto_routes(topology):
    mask = translation_mask(topology)
    rng = np.random.default_rng(4)
    nodes = topology.nodes()
    for _ in range(40):
        s, t = (int(x) for x in rng.choice(nodes, 2))
        x = int(rng.integers(0, mask + 1)) & mask
        a, b = topology.route(s, t), topology.route(s ^ x, t ^ x)
        assert b == [u ^ x for u in a]
        assert hop_vcs(topology, s, t) == hop_vcs(topology, s ^ x, t ^ x)


def test_one_vc_metacube_cycle_is_real():
    topo = Metacube(1, 2)
    report = check_deadlock_free(topo, vcs=1)
    assert not report.deadlock_free and report.required_vcs == 2
    cycle = report.cycle
    assert len(cycle) >= 2
    edges = _brute_force_edges(topo, None, 1)
    degree = topo.degree
    chans = [topo.index(u) * degree + p for u, p, v, vc in cycle]
    for (u, p, v, vc), nxt in zip(cycle, cycle[1:] + cycle[:1]):
        assert topo.neighbor(u, p) == v and nxt[0] == v and vc == 0
    for a, b in zip(chans, chans[1:] + chans[:1]):
        assert (a, b) in edges


def test_one_vc_dlh_ring_cycle():
    report = check_deadlock_free(DLH(3, 1), vcs=1)
    assert not report.deadlock_free
    ports = {p for _, p, _, _ in report.cycle}
    assert ports <= {1, 2}        # around one ring, one direction
    assert len(report.cycle) == 6  # the whole ring of 2m nodes
    assert "port" in report.describe_cycle()
    assert report.as_dict()["cycle"][0].keys() == {"from", "port", "to", "vc"}


def test_fabric_refuses_a_configuration_that_can_deadlock():
    with pytest.raises(DeadlockError, match="dependency cycle: .* -\\[port"):
        FabricConfig.for_topology(Metacube(1, 1), vcs=1)


def test_vc_assignment_function():
    topo = DLH(2, 1)
    last = topo.make_address(0, 3, 0)
    assert wrap_ports(topo, last) == (False, True, False, False)
    assert next_vc(topo, last, 1, 0, 2) == 1
    assert next_vc(topo, last, 1, 1, 2) == 1          # capped at vcs - 1
    assert next_vc(topo, last, topo.degree, 1, 2) == 1  # local port keeps the VC
    mc = Metacube(1, 1)
    assert wrap_ports(mc, 0b100) == (True, False)      # a cross-edge down the class cube
    assert wrap_ports(mc, 0b000) == (False, False)
    assert hop_vcs(mc, 0b110, 0b011) == [1, 1]
    with pytest.raises(ValueError, match="vc_in"):
        next_vc(topo, last, 1, 2, 2)


def test_flow_lanes_spread_flows_over_a_class():
    # XOR of the lane-wide pieces of src ^ dst: every lane used, by equal shares
    for per in (2, 4):
        lanes = [flow_lane(s, d, per) for s in range(64) for d in range(64)]
        assert sorted(set(lanes)) == list(range(per))
        assert all(lanes.count(x) == len(lanes) // per for x in range(per))
    assert flow_lane(0b1011, 0b0001, 4) == 0b10 ^ 0b10
    assert flow_lane(5, 9, 1) == 0
    with pytest.raises(ValueError, match="power of two, not 3"):
        flow_lane(1, 2, 3)


def test_hop_vcs_with_classes_keep_one_lane_per_flow():
    topo = DLH(2, 2)
    for s, d in [(0, int(topo.nodes()[-1])), (int(topo.nodes()[5]), int(topo.nodes()[9]))]:
        classes = hop_vcs(topo, s, d, vcs=2)
        lane = flow_lane(s, d, 2)
        assert hop_vcs(topo, s, d, vcs=4, vcs_per_class=2) == [2 * c + lane for c in classes]
