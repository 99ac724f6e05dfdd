"""Route units against the reference routing, in the Amaranth simulator."""

import random

import pytest
from amaranth.hdl import Fragment, Shape

from cubefab.hdl.route import (TableRoute, HypercubeRoute, MetacubeRoute,
                               DLHRoute, route_unit, register_route_unit, LOGIC_UNITS)
from cubefab.topology.catalog import make_topology
from cubefab.topology.dlh import DLH
from cubefab.topology.hypercube import Hypercube
from cubefab.topology.metacube import Metacube

from tests.hdl.route_helpers import assert_matches_reference
from tests.helpers import refused


SMALL = [Hypercube(4), Metacube(1, 1), Metacube(1, 2), Metacube(2, 1), DLH(2, 1), DLH(2, 2)]
LARGER = [Metacube(2, 2), Metacube(1, 3), Metacube(3, 1), DLH(4, 3)]



def _used(unit):
    """Elaborate ``unit`` (so Amaranth does not warn that it was never used)."""
    Fragment.get(unit, None)
    return unit


def _nodes(topology):
    return [int(a) for a in topology.nodes()]


def _algorithm_cases(topologies):
    return [pytest.param(t, a, id=f"{t.label}-{a}") for t in topologies for a in t.algorithms]


# -- exhaustive on the small networks --------------------------------------------------

@pytest.mark.parametrize("topology, algorithm", [
    # MC(2,1)'s paper routes from every source: the slow set (CI's fast set: its other
    # algorithms, and the paper routes of MC(1,1) and MC(1,2) from every source)
    pytest.param(*case.values, id=case.id, marks=pytest.mark.slow)
    if case.id == "MC(2,1)-paper" else case for case in _algorithm_cases(SMALL)])
def test_straps_unit_equals_reference_for_every_node(topology, algorithm):
    nodes = _nodes(topology)
    srcs = nodes if algorithm == "paper" else None
    checked = assert_matches_reference(topology, nodes, nodes, srcs, algorithm)
    assert checked == len(nodes) ** (3 if srcs else 2)


@pytest.mark.parametrize("topology, algorithm", _algorithm_cases(SMALL))
def test_constant_node_units_equal_reference(topology, algorithm):
    nodes = _nodes(topology)
    srcs = nodes if algorithm == "paper" else None
    assert_matches_reference(topology, nodes, nodes, srcs, algorithm, straps=False)


# -- larger networks: every destination from a sample of nodes --------------------------

@pytest.mark.parametrize("topology, algorithm", _algorithm_cases(LARGER))
def test_sampled_nodes_every_destination(topology, algorithm):
    rng = random.Random(f"{topology.label}{algorithm}")
    nodes = _nodes(topology)
    heres = rng.sample(nodes, 6)
    srcs = rng.sample(nodes, 6) if algorithm == "paper" else None
    assert_matches_reference(topology, heres, nodes, srcs, algorithm)
    assert_matches_reference(topology, heres[:2], nodes, srcs, algorithm, straps=False)


# -- interface and choice of unit ----------------------------------------------------

@pytest.mark.parametrize("topology, unit_class", [
    (Hypercube(3), HypercubeRoute), (Metacube(2, 1), MetacubeRoute),
    (Metacube(0, 2), MetacubeRoute), (DLH(3, 1), DLHRoute)])
def test_route_unit_picks_the_logic_unit(topology, unit_class):
    assert type(_used(route_unit(topology, 0))) is unit_class


def test_route_unit_falls_back_to_the_table_for_other_families():
    class Other(Hypercube):
        name = "other"
    assert type(_used(route_unit(Other(3), 1))) is TableRoute


def test_register_route_unit_adds_a_family():
    class Other(Hypercube):
        name = "test-other"
    register_route_unit("test-other", HypercubeRoute)
    try:
        assert type(_used(route_unit(Other(3), 1))) is HypercubeRoute
    finally:
        del LOGIC_UNITS["test-other"]


def test_members_follow_the_interface():
    unit = _used(MetacubeRoute(Metacube(2, 2), node=5, algorithm="paper"))
    members = unit.signature.members
    assert set(members.keys()) == {"dest", "src", "port", "request"}
    width = {name: Shape.cast(member.shape).width for name, member in members.items()}
    assert width == {"dest": 10, "src": 10, "port": 3, "request": 5}
    straps = _used(DLHRoute(DLH(4, 3)))
    assert set(straps.signature.members.keys()) == {"dest", "here", "port", "request"}


def test_unit_rejects_the_wrong_topology():
    with refused(TypeError, match="Topology must be a Hypercube"):
        HypercubeRoute(DLH(2, 1))
    with refused(TypeError, match="Topology must be a Metacube"):
        MetacubeRoute(Hypercube(3))
    with refused(TypeError, match="Topology must be a DLH"):
        DLHRoute(Metacube(1, 1))


def test_unit_rejects_bad_node_and_algorithm():
    with refused(ValueError, match="not a node of DLH"):
        DLHRoute(DLH(3, 1), node=0b0101_0)
    with refused(ValueError, match=r"node must be in \[0, 15\]"):
        HypercubeRoute(Hypercube(4), node=16)
    with refused(ValueError, match="algorithm must be one of minimal, paper"):
        MetacubeRoute(Metacube(1, 2), 0, "ecube")


def test_minimal_metacube_unit_is_limited_to_k3():
    with refused(ValueError, match="k <= 3, not k = 4"):
        MetacubeRoute(make_topology("metacube", k=4, m=1), 0)
