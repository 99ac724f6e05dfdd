"""The folded hypercube's route units (deterministic and adaptive) against the model,
exhaustively on small networks; adaptive routing's deadlock freedom; its fabric under
load in the Amaranth engine."""

import pytest
from amaranth.hdl import Fragment
from amaranth.sim import Simulator

from cubefab.hdl.route import adaptive_route_unit, route_unit
from cubefab.hdl.route.foldedcube import FoldedCubeAdaptiveRoute, FoldedCubeRoute
from cubefab.sim.selfcheck_run import CHECKS
from cubefab.topology.adaptive import adaptive_ports, escape_port
from cubefab.topology.duato import check_adaptive
from cubefab.topology.foldedcube import FoldedCube
from cubefab.topology.hypercube import Hypercube

from tests.helpers import run_fabric_of
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
    r = run_fabric_of(FoldedCube(3), engine="amaranth", rate=0.6, cycles=120, drain=300,
                      seed=3, packet_flits=2)
    assert r["ok"] and r["drained"], {k: r[k] for k in CHECKS}
    assert all(r[k] == 0 for k in CHECKS) and r["in_flight"] == 0
    assert r["delivered"] == r["created"] == r["injected"] > 0


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_adaptive_unit_offers_the_minimal_ports(n):
    fq = FoldedCube(n)
    nodes = [int(a) for a in fq.nodes()]
    unit = adaptive_route_unit(fq)
    assert type(unit) is FoldedCubeAdaptiveRoute
    seen = {}

    async def bench(ctx):
        for here in nodes:
            ctx.set(unit.here, here)
            for dest in nodes:
                ctx.set(unit.dest, dest)
                seen[here, dest] = (ctx.get(unit.offered), ctx.get(unit.escape))

    sim = Simulator(unit)
    sim.add_testbench(bench)
    sim.run()
    for (here, dest), (offered, escape) in seen.items():
        assert offered == sum(1 << p for p in adaptive_ports(fq, here, dest)), (here, dest)
        assert escape == escape_port(fq, here, dest)


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_adaptive_routing_is_deadlock_free(n):
    assert check_adaptive(FoldedCube(n)).deadlock_free


def test_adaptive_fabric_under_load_loses_nothing():
    r = run_fabric_of(FoldedCube(3), engine="amaranth", rate=0.5, cycles=50, drain=300,
                      seed=5, adaptive_vcs=1)
    assert r["ok"] and r["drained"] and r["adaptive_vcs"] == 1
    assert all(r[k] == 0 for k in CHECKS if k != "reordered") and r["in_flight"] == 0
    assert r["delivered"] == r["created"] == r["injected"] > 0
