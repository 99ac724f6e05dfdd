"""The folded hypercube's route unit against the model, exhaustively on small networks,
and its fabric under load in the Amaranth engine."""

import pytest
from amaranth.hdl import Fragment

from cubefab.hdl.route import route_unit
from cubefab.hdl.route.foldedcube import FoldedCubeRoute
from cubefab.sim.selfcheck_run import CHECKS, run_selfcheck
from cubefab.topology.foldedcube import FoldedCube
from cubefab.topology.hypercube import Hypercube

from tests.hdl.route_helpers import assert_matches_reference


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_straps_unit_equals_the_model_for_every_pair(n):
    fq = FoldedCube(n)
    nodes = [int(a) for a in fq.nodes()]
    assert assert_matches_reference(fq, nodes, nodes) == len(nodes) ** 2


@pytest.mark.parametrize("n", [3, 4])
def test_constant_node_units_equal_the_model(n):
    fq = FoldedCube(n)
    nodes = [int(a) for a in fq.nodes()]
    assert_matches_reference(fq, nodes, nodes, straps=False)


def test_route_unit_finds_the_family_unit():
    unit = route_unit(FoldedCube(3), 0)
    Fragment.get(unit, None)
    assert type(unit) is FoldedCubeRoute
    with pytest.raises(TypeError, match="must be a FoldedCube"):
        FoldedCubeRoute.check(Hypercube(3), 0)


def test_fabric_under_load_delivers_every_packet():
    r = run_selfcheck(FoldedCube(3), engine="amaranth", rate=0.6, cycles=120, drain=300,
                      seed=3, packet_flits=2)
    assert r["ok"] and r["drained"], {k: r[k] for k in CHECKS}
    assert all(r[k] == 0 for k in CHECKS) and r["in_flight"] == 0
    assert r["delivered"] == r["created"] == r["injected"] > 0
