"""Adaptive minimal routing: the offered ports and Duato's deadlock proof."""

import networkx as nx
import pytest

from cubefab.topology import DLH, Hypercube, Mcube, Metacube
from cubefab.topology.adaptive import (adaptive_ports, ecube_as_short_masks,
                                       escape_algorithm, escape_port, minimal_port_masks,
                                       minimal_ports, mroute_offered_masks,
                                       offered_port_masks)
from cubefab.topology.deadlock import check_deadlock_free
from cubefab.topology.duato import check_adaptive
from cubefab.topology.mcube_analysis import route_lengths


SMALL = [Hypercube(3), Hypercube(4), Metacube(1, 1), Metacube(1, 2), Metacube(2, 1),
         DLH(2, 1), DLH(3, 2), Mcube(3), Mcube(4), Mcube(5)]


def _label(t):
    return getattr(t, "label", str(t))


def _nx_distances(topology):
    """All-pairs distances by networkx BFS (independent of the package's BFS)."""
    graph = nx.Graph()
    graph.add_edges_from(topology.edges().tolist())
    return dict(nx.all_pairs_shortest_path_length(graph))


@pytest.mark.parametrize("topology", SMALL, ids=_label)
def test_minimal_ports_are_exactly_the_closer_neighbours(topology):
    dist = _nx_distances(topology)
    for here in topology.nodes().tolist():
        for dest in topology.nodes().tolist():
            want = tuple(p for p, v in enumerate(topology.neighbors(here))
                         if dist[v][dest] == dist[here][dest] - 1)
            assert minimal_ports(topology, here, dest) == want, (here, dest)


@pytest.mark.parametrize("topology", SMALL, ids=_label)
def test_port_masks_match_the_scalar_model(topology):
    for dest in topology.nodes().tolist():
        masks = minimal_port_masks(topology, dest)
        offered, escape = offered_port_masks(topology, dest)
        for i, here in enumerate(topology.nodes().tolist()):
            assert masks[i] == sum(1 << p for p in minimal_ports(topology, here, dest))
            assert offered[i] == sum(1 << p for p in adaptive_ports(topology, here, dest))
            assert escape[i] == escape_port(topology, here, dest)


@pytest.mark.parametrize("topology", [Hypercube(4), Metacube(1, 2), Metacube(2, 1), DLH(3, 2)],
                         ids=_label)
def test_escape_of_a_minimal_routing_is_its_own_port_and_minimal(topology):
    for here in topology.nodes().tolist():
        for dest in topology.nodes().tolist():
            e = escape_port(topology, here, dest)
            assert e == topology.next_port(here, dest)
            assert here == dest or e in minimal_ports(topology, here, dest)


def test_mcube_mroute_runs_mroute_adaptively_over_an_ecube_escape():
    t = Mcube(5)
    assert escape_algorithm(t, "mroute") == "ecube"
    assert escape_algorithm(t, "ecube") == "ecube"
    assert adaptive_ports(t, 3, 28, "mroute") == (t.next_port(3, 28, "mroute"),)
    assert escape_port(t, 3, 28, "mroute") == t.next_port(3, 28, "ecube")
    assert adaptive_ports(t, 3, 3, "mroute") == ()


def test_mcube_mroute_offers_every_port_that_shortens_its_route_within_the_subcube():
    # by definition, pair by pair: link p (at most the highest differing bit) whose
    # neighbour's Mroute route is shorter; Mroute's own port always among them, and
    # more than one port for some pairs (Mroute alone offered one)
    t = Mcube(5)
    lengths = route_lengths(t, "mroute")
    more = 0
    for here in range(32):
        for dest in range(32):
            want = tuple(p for p in range(5) if here != dest
                         and p <= (here ^ dest).bit_length() - 1
                         and lengths[t.neighbor(here, p), dest] < lengths[here, dest])
            got = adaptive_ports(t, here, dest, "mroute")
            assert got == want, (here, dest)
            assert here == dest or t.next_port(here, dest, "mroute") in got
            more += len(got) > 1
    assert more > 0
    assert mroute_offered_masks(t)[3, 3] == 0
    with pytest.raises(TypeError, match="must be an Mcube"):
        mroute_offered_masks(Hypercube(3))


def _walk_length(t, here, dest, algorithm):
    hops = 0
    while here != dest:
        here, hops = t.neighbor(here, t.next_port(here, dest, algorithm)), hops + 1
    return hops


def test_mcube_ecube_as_short_compares_the_two_routes_walked_hop_by_hop():
    t = Mcube(4)
    short = ecube_as_short_masks(t)
    for here in range(16):
        for dest in range(16):
            want = here != dest and (_walk_length(t, here, dest, "ecube")
                                     <= _walk_length(t, here, dest, "mroute"))
            assert bool(short[here, dest]) == want, (here, dest)
    assert 0 < short.sum() < 16 * 15
    with pytest.raises(TypeError, match="must be an Mcube"):
        ecube_as_short_masks(Hypercube(3))


def test_mcube6_ecube_is_as_short_for_30_of_bitcomps_flows():
    short = ecube_as_short_masks(Mcube(6))
    assert short.sum() == 2384
    assert sum(short[s, 63 - s] for s in range(64)) == 30


def test_mcube_ecube_offers_the_links_of_the_differing_bits():
    t = Mcube(5)
    assert adaptive_ports(t, 3, 20, "ecube") == (0, 1, 2, 4)
    assert escape_port(t, 3, 20, "ecube") == 4


def test_minimal_ports_with_an_ecube_escape_cycle_on_the_mcube():
    # why the Mcube offers progress in e-cube's order rather than its minimal ports
    t = Mcube(5)
    back = [(s, d) for s in range(32) for d in range(32) if s != d
            and any(t.neighbor(t.neighbor(s, escape_port(t, s, d, "ecube")), p) == s
                    for p in minimal_ports(t, t.neighbor(s, escape_port(t, s, d, "ecube")), d))]
    assert back


def test_mroute_is_not_always_minimal():
    t = Mcube(6)
    off = sum(t.next_port(s, d, "mroute") not in minimal_ports(t, s, d)
              for s in range(64) for d in range(64) if s != d)
    assert off > 0


def test_an_escape_that_reads_the_source_is_refused():
    with pytest.raises(ValueError, match="reads src"):
        escape_algorithm(Metacube(1, 2), "paper")


# -- Duato's condition --------------------------------------------------------------------

SHIPPED = [(Hypercube(3), None), (Hypercube(5), None), (Metacube(1, 1), None),
           (Metacube(1, 2), None), (Metacube(2, 1), None), (DLH(2, 1), None),
           (DLH(3, 2), None), (DLH(4, 3), None)] + [(Mcube(k), a) for k in range(3, 9)
                                                     for a in ("mroute", "ecube")]


@pytest.mark.parametrize("topology,algorithm", SHIPPED,
                         ids=lambda c: getattr(c, "label", str(c)))
def test_shipped_adaptive_configuration_is_proven(topology, algorithm):
    report = check_adaptive(topology, algorithm)
    assert report.deadlock_free, report.describe_cycle()
    assert report.cycle is None and report.unreachable is None
    assert report.escape_classes == check_deadlock_free(topology, report.escape).vcs


@pytest.mark.slow
@pytest.mark.parametrize("topology", [Metacube(2, 2), Metacube(1, 3), DLH(8, 4)], ids=_label)
def test_larger_adaptive_configurations_are_proven(topology):
    assert check_adaptive(topology).deadlock_free


def _assert_witness(topology, report):
    cycle = report.cycle
    assert cycle and len(cycle) >= 2
    for u, p, v, c, kind in cycle:
        assert topology.neighbor(u, p) == v and 0 <= c < report.escape_classes
        assert kind in ("direct", "indirect")
    for (_, _, v, _, _), (u, _, _, _, kind) in zip(cycle, cycle[1:] + cycle[:1]):
        assert kind == "indirect" or u == v      # a direct dependency continues the path


@pytest.mark.parametrize("topology", [DLH(2, 1), Metacube(1, 2), Metacube(2, 1)], ids=_label)
def test_escape_without_its_vc_classes_has_a_witness_cycle(topology):
    report = check_adaptive(topology, escape_classes=1)
    assert not report.deadlock_free
    _assert_witness(topology, report)
    assert report.as_dict()["cycle"][0]["from"] == report.cycle[0][0]


def test_dlh_ring_cycle_is_direct_on_one_class():
    report = check_adaptive(DLH(2, 1), escape_classes=1)
    assert {kind for *_, kind in report.cycle} == {"direct"}


def test_report_counts_vcs():
    report = check_adaptive(DLH(2, 1), adaptive_vcs=2)
    assert (report.escape_classes, report.adaptive_vcs, report.vcs) == (2, 2, 4)
    doc = report.as_dict()
    assert doc["deadlock_free"] and doc["escape"] == "dimension-order" and doc["cycle"] is None


@pytest.mark.parametrize("bad,error", [(0, ValueError), (1.5, TypeError)])
def test_bad_vc_counts_are_refused(bad, error):
    with pytest.raises(error):
        check_adaptive(DLH(2, 1), adaptive_vcs=bad)
    with pytest.raises(error):
        check_adaptive(DLH(2, 1), escape_classes=bad)
