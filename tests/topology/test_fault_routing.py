"""Waypoint routing around faults: the model, its guarantee and its deadlock proof."""

import copy
import itertools

import numpy as np
import pytest

from cubefab.topology import DLH, Hypercube, Metacube
from cubefab.topology.fault_routing import (FaultSet, check_transition_deadlock,
                                            check_waypoint_deadlock, fault_elements, guarantee_bound,
                                            plan_waypoints, random_fault_sets, route_table,
                                            sweep_fault_sets)
from cubefab.topology.deadlock import hop_vcs
from cubefab.topology.mcube import Mcube
from cubefab.topology.paths import check_disjoint_paths, disjoint_paths


SMALL = [Hypercube(3), Hypercube(4), Metacube(1, 1), Metacube(1, 2), DLH(2, 1)]
label = lambda t: t.label  # noqa: E731

#: A DLH(2,1) fault set within the guarantee that needs two waypoints (found by the
#: exhaustive sweep): e.g. 4 -> 8 goes 4 -> 13 -> 9 -> 8.
TWO_WAYPOINTS = (DLH(2, 1), [0, 1, 12])


def isolating(topology, victim):
    """Faults on every neighbour of ``victim``: it is cut off from the rest."""
    return FaultSet(topology, topology.neighbors(victim))


@pytest.mark.parametrize("topology", SMALL + [Metacube(2, 1), DLH(3, 1)], ids=label)
def test_route_table_is_the_reference_routing(topology):
    table = route_table(topology)
    nodes = [int(a) for a in topology.nodes()]
    for a, s in enumerate(nodes):
        for b, t in enumerate(nodes):
            assert [nodes[i] for i in table.route(a, b)] == topology.route(s, t)
            hops = table.length[a, b]
            assert table.hop_class[a, b, :hops].tolist() == hop_vcs(topology, s, t)


@pytest.mark.parametrize("topology", SMALL + [
    DLH(3, 1), pytest.param(DLH(2, 2), marks=pytest.mark.slow)], ids=label)
def test_guarantee_bound_is_disjoint_paths_minus_one(topology):
    counts = set()
    for s, t in itertools.combinations([int(a) for a in topology.nodes()], 2):
        paths = disjoint_paths(topology, s, t)
        assert not check_disjoint_paths(topology, s, t, paths)
        counts.add(len(paths))
    assert counts == {guarantee_bound(topology) + 1}


@pytest.mark.parametrize("topology", SMALL, ids=label)
def test_guarantee_bound_is_tight(topology):
    faults = isolating(topology, 0)
    assert len(faults) == guarantee_bound(topology) + 1
    routing = plan_waypoints(topology, faults)
    assert not routing.guaranteed
    healthy = topology.num_nodes - len(faults)
    assert len(routing.cut_off) == 2 * (healthy - 1)
    assert all(0 in pair for pair in routing.cut_off)
    assert routing.route(int(topology.nodes()[-1]), 0) is None


def test_sweep_beyond_the_guarantee_counts_the_refusals():
    topology, nodes = TWO_WAYPOINTS
    sets = [isolating(topology, 5), FaultSet(topology, nodes)]
    sweep = sweep_fault_sets(topology, sets, max_waypoints=1)
    assert sweep.cut_off == 2 * (topology.num_nodes - topology.degree - 1)
    assert sweep.unroutable == 2 and sweep.refused_within == 2 and not sweep.ok


def test_no_faults_routes_every_pair_directly():
    topology = Metacube(1, 2)
    routing = plan_waypoints(topology)
    assert routing.waypoints == {} and routing.waypoints_needed == 0
    assert routing.route(0, 31) == topology.route(0, 31)
    assert routing.stretch()["max_extra"] == 0


def test_route_avoids_the_faults_and_names_its_waypoints():
    topology, nodes = TWO_WAYPOINTS
    routing = plan_waypoints(topology, FaultSet(topology, nodes))
    assert routing.header(4, 8) == (13, 9)
    assert routing.route(4, 8) == [4, 5, 13, 9, 8]
    assert routing.waypoints_needed == 2
    assert routing.verify() == []


def test_each_leg_uses_its_own_vc_class_set():
    topology, nodes = TWO_WAYPOINTS
    routing = plan_waypoints(topology, FaultSet(topology, nodes))
    legs = [hop_vcs(topology, 4, 13), hop_vcs(topology, 13, 9), hop_vcs(topology, 9, 8)]
    assert routing.hop_vcs(4, 8) == legs[0] + [v + 2 for v in legs[1]] + \
        [v + 4 for v in legs[2]]
    short = plan_waypoints(topology, FaultSet(topology, nodes), max_waypoints=1)
    assert short.hop_vcs(4, 8) is None and len(short.hop_vcs(4, 13)) == 2


def test_one_waypoint_leaves_the_two_waypoint_pairs_unroutable():
    topology, nodes = TWO_WAYPOINTS
    routing = plan_waypoints(topology, FaultSet(topology, nodes), max_waypoints=1)
    assert (4, 8) in routing.unroutable and not routing.cut_off
    assert routing.route(4, 8) is None and routing.header(4, 8) is None
    assert routing.source_table(4)[8] is None
    problems = routing.verify()
    assert "4->8 refused within the guarantee" in problems
    assert all("refused within the guarantee" in p for p in problems)


def test_source_table_lists_waypoints_and_refusals():
    topology = Hypercube(3)
    routing = plan_waypoints(topology, FaultSet(topology, [1], [(0, 2)]))
    table = routing.source_table(0)
    assert 1 not in table                      # faulty destinations are not listed
    for dest, ws in table.items():
        assert ws == routing.waypoints[(0, dest)]
        assert routing.route(0, dest)[0] == 0 and routing.route(0, dest)[-1] == dest


def test_faulty_link_is_avoided():
    topology = Hypercube(3)
    routing = plan_waypoints(topology, FaultSet(topology, links=[(0, 1)]))
    path = routing.route(0, 1)
    assert len(path) == 4 and path[0] == 0 and path[-1] == 1
    figures = routing.stretch()      # the detour is a shortest fault-free path
    assert figures["detoured"] == 8 and figures["max_extra"] == 0


@pytest.mark.parametrize("topology", [Hypercube(3), Metacube(1, 1)], ids=label)
def test_every_fault_set_within_the_guarantee(topology):
    sweep = sweep_fault_sets(topology)
    assert sweep.ok, sweep.as_dict()
    assert sweep.waypoints_needed == 1
    assert sweep.fault_sets == sum(1 for _ in itertools.chain.from_iterable(
        itertools.combinations(fault_elements(topology), n)
        for n in range(guarantee_bound(topology) + 1)))


def test_dlh_two_waypoint_fault_set_is_sound():
    topology, nodes = TWO_WAYPOINTS
    sweep = sweep_fault_sets(topology, [FaultSet(topology, nodes)])
    assert sweep.ok and sweep.waypoints_needed == 2


@pytest.mark.parametrize("topology", [Hypercube(4), Metacube(1, 2), DLH(2, 1)], ids=label)
def test_random_fault_sets_within_the_guarantee(topology):
    sets = random_fault_sets(topology, 20, guarantee_bound(topology), seed=3)
    sweep = sweep_fault_sets(topology, sets)
    assert sweep.ok, sweep.as_dict()


def test_deadlock_check_is_acyclic_with_phase_vcs():
    topology, nodes = TWO_WAYPOINTS
    report = check_waypoint_deadlock(plan_waypoints(topology, FaultSet(topology, nodes)))
    assert report.deadlock_free and report.vcs == 3 * 2
    assert report.as_dict()["cycle"] is None


def test_phases_sharing_one_vc_set_can_deadlock():
    topology = Hypercube(3)
    routing = plan_waypoints(topology, FaultSet(topology, [0, 5]))
    shared = check_waypoint_deadlock(routing, phase_sets=False)
    assert not shared.deadlock_free and shared.vcs == 1
    assert check_waypoint_deadlock(routing).deadlock_free


def test_shared_phase_vcs_deadlock_in_72_of_the_q3_fault_sets():
    sweep = sweep_fault_sets(Hypercube(3), verify=False, stretch=False, shared=True)
    assert sweep.shared_deadlocks == 72 and not sweep.deadlocks


def test_deadlock_check_finds_a_witness_cycle():
    # MC(1,1) is a ring of 8: without its dateline class the routes close a cycle
    topology = Metacube(1, 1)
    routing = plan_waypoints(topology)
    fake = copy.copy(routing.table)
    fake.hop_class = np.where(fake.hop_class >= 0, 0, -1).astype(np.int8)
    routing.table = fake
    report = check_waypoint_deadlock(routing)
    assert not report.deadlock_free
    cycle = report.cycle
    for (u, port, v, vc), (u2, *_rest) in zip(cycle, cycle[1:] + cycle[:1]):
        assert topology.neighbor(u, port) == v and v == u2
    assert "back to the first channel" in report.describe_cycle()


def test_fault_set_refuses_a_non_node():
    with pytest.raises(ValueError, match="not a node"):
        FaultSet(DLH(3, 1), [4])


def test_fault_set_refuses_a_non_link():
    with pytest.raises(ValueError, match="not adjacent"):
        FaultSet(Hypercube(3), links=[(0, 3)])


def test_route_refuses_a_faulty_source():
    routing = plan_waypoints(Hypercube(3), FaultSet(Hypercube(3), [5]))
    with pytest.raises(ValueError, match="source 5 is faulty"):
        routing.route(5, 0)


def test_topology_without_a_model_is_refused():
    with pytest.raises(ValueError, match="modelled for"):
        plan_waypoints(Mcube(3))


def test_routing_that_reads_the_source_is_refused():
    with pytest.raises(ValueError, match="reads the header field"):
        route_table(Metacube(1, 1), "paper")


def test_fault_set_of_another_network_is_refused():
    with pytest.raises(TypeError, match="FaultSet of Q"):
        plan_waypoints(Hypercube(3), FaultSet(Hypercube(4), [1]))


# -- the exhaustive proofs and the large random sweeps (slow) ---------------------------

@pytest.mark.slow
@pytest.mark.parametrize("topology", SMALL, ids=label)
def test_every_fault_set_within_the_guarantee_exhaustive(topology):
    # measured (2-core machine): Q(3) 1 s, MC(1,1) 0.1 s, Q(4) ~3 min, MC(1,2) ~2 min,
    # DLH(2,1) ~3 min
    sweep = sweep_fault_sets(topology)
    assert sweep.ok, sweep.as_dict()
    assert sweep.waypoints_needed == (2 if isinstance(topology, DLH) else 1)


@pytest.mark.slow
@pytest.mark.parametrize("topology, count", [(Metacube(2, 2), 1000), (DLH(4, 3), 3000)],
                         ids=["MC(2,2)", "DLH(4,3)"])
def test_random_fault_sets_large(topology, count):
    sets = random_fault_sets(topology, count, guarantee_bound(topology), seed=7)
    sweep = sweep_fault_sets(topology, sets, verify=4, stretch=False)
    assert sweep.ok, sweep.as_dict()


@pytest.mark.parametrize("topology, nodes", [(Hypercube(3), ()), (Hypercube(3), (0,)),
                                             (Metacube(1, 1), ())],
                         ids=["Q(3)", "Q(3) node 0 faulty", "MC(1,1)"])
def test_a_link_failing_mid_run_keeps_the_two_routings_deadlock_free(topology, nodes):
    # packets of the routing before the failure and after it share the network:
    # the union of the two dependency graphs is acyclic, for every link that fails
    before = plan_waypoints(topology, FaultSet(topology, nodes), 1)
    alone = check_waypoint_deadlock(before).dependencies
    for u, v in topology.edges():
        if u in nodes or v in nodes:
            continue
        after = plan_waypoints(topology, FaultSet(topology, nodes, [(u, v)]), 1)
        report = check_transition_deadlock([before, after])
        assert report.deadlock_free, report.describe_cycle()
        assert report.dependencies >= max(alone, check_waypoint_deadlock(after).dependencies)


def test_the_transition_check_needs_routings_of_one_network():
    with pytest.raises(ValueError, match="share their network"):
        check_transition_deadlock([plan_waypoints(Hypercube(3), None, 1),
                                   plan_waypoints(Hypercube(3), None, 2)])
