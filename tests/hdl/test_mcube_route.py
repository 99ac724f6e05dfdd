"""McubeRoute against Mcube.next_port, in the Amaranth simulator."""

import random

import pytest
from amaranth.hdl import Fragment

from cubefab.hdl.route.mcube import McubeRoute
from cubefab.hdl.route import route_unit
from cubefab.topology import Mcube, Hypercube

from tests.hdl.route_helpers import assert_matches_reference
from tests.helpers import refused


def _nodes(topology):
    return [int(a) for a in topology.nodes()]


@pytest.mark.parametrize("k", [3, 4, 5])
@pytest.mark.parametrize("algorithm", ["mroute", "ecube"])
def test_straps_unit_equals_next_port_exhaustively(k, algorithm):
    topology = Mcube(k)
    nodes = _nodes(topology)
    checked = assert_matches_reference(topology, nodes, nodes, algorithm=algorithm,
                                       unit_class=McubeRoute)
    assert checked == len(nodes) ** 2


@pytest.mark.slow
@pytest.mark.parametrize("construction", ["hem", "algorithmic"])
def test_straps_unit_equals_next_port_exhaustively_k6(construction):
    topology = Mcube(6, construction)
    nodes = _nodes(topology)
    assert assert_matches_reference(topology, nodes, nodes, unit_class=McubeRoute) == 4096


def test_constant_node_units_equal_next_port():
    topology = Mcube(5, "algorithmic")
    nodes = _nodes(topology)
    assert_matches_reference(topology, nodes[::3], nodes, straps=False,
                             unit_class=McubeRoute)


@pytest.mark.parametrize("k, samples", [(8, 3), pytest.param(10, 4, marks=pytest.mark.slow)])
def test_sampled_nodes_every_destination(k, samples):
    topology = Mcube(k)
    nodes = _nodes(topology)
    heres = random.Random(k).sample(nodes, samples)
    assert_matches_reference(topology, heres, nodes, straps=False, unit_class=McubeRoute)


def test_factory_builds_the_mcube_unit():
    unit = route_unit(Mcube(4), 3)
    Fragment.get(unit, None)
    assert isinstance(unit, McubeRoute)


def test_refuses_other_topologies_and_large_straps():
    with refused(TypeError, match="Mcube"):
        McubeRoute(Hypercube(3))
    with refused(ValueError, match="k <= 7"):
        McubeRoute(Mcube(8))
    with refused(ValueError, match="k <= 12"):
        McubeRoute(Mcube(13), 0)


# -- the generated Verilog, under Icarus Verilog and Verilator ----------------------------

def _verilog_check(topology, heres, straps, simulator, node=None):
    from cubefab.build.vectors import run_vectors, simulator_missing_reason
    from cubefab.build.verilog import route_unit_verilog
    from tests.helpers import verilog_missing_reason
    from tests.hdl.route_helpers import reference_vectors
    reason = verilog_missing_reason() or simulator_missing_reason(simulator)
    if reason is not None:
        pytest.skip(reason)
    unit = route_unit(topology, None if straps else node)
    inputs, vectors, expected = reference_vectors(topology, heres, _nodes(topology),
                                                  None, None, straps)
    result = run_vectors(route_unit_verilog(unit), inputs, ("port", topology.port_width),
                         vectors, expected, simulator)
    assert result.vectors == len(expected) and result.mismatches == 0, result.first


def test_icarus_straps_unit_exhaustive():
    topology = Mcube(5)
    _verilog_check(topology, _nodes(topology), True, "iverilog")


@pytest.mark.slow
def test_verilator_straps_unit_exhaustive_k6():
    topology = Mcube(6, "algorithmic")
    _verilog_check(topology, _nodes(topology), True, "verilator")


@pytest.mark.slow
@pytest.mark.parametrize("k", [8, 10])
def test_verilator_constant_node_units(k):
    topology = Mcube(k)
    for node in random.Random(k + 1).sample(_nodes(topology), 3):
        _verilog_check(topology, [node], False, "verilator", node)
