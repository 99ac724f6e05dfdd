"""Mcube fabrics: deadlock freedom from the channel dependency graph, then simulation."""

import pytest

from cubefab.hdl.config import Adaptive, Deterministic, FabricConfig
from cubefab.sim.selfcheck_run import CHECKS
from cubefab.topology import Mcube
from cubefab.topology.deadlock import DeadlockError, check_deadlock_free
from cubefab.topology.mcube_analysis import ascent_vc_deadlock_check
from tests.helpers import run_fabric_of


@pytest.mark.parametrize("k", [4, 5, 8])
def test_ecube_channel_dependency_graph_is_acyclic(k):
    # the link number strictly falls along every e-cube route (MSB first)
    report = check_deadlock_free(Mcube(k), "ecube", 1)
    assert report.deadlock_free, report.describe_cycle()


@pytest.mark.parametrize("k", [4, 5, 8])
def test_mroute_can_deadlock_with_the_routers_vc_function(k):
    # Mroute takes lower links before higher ones (LCL then PCL); the routers' VC
    # function wrap(here, port) has no rule for the Mcube, so every VC is VC 0
    report = check_deadlock_free(Mcube(k), "mroute", 2)
    assert not report.deadlock_free
    u, port, v, vc = report.cycle[0]
    assert Mcube(k).neighbor(u, port) == v


def test_fabric_refuses_deterministic_mroute():
    with pytest.raises(DeadlockError, match="Mcube\\(4\\) with mroute routing"):
        FabricConfig.for_topology(Mcube(4), routing=Deterministic())


@pytest.mark.slow
def test_mroute_routes_adaptively_by_default_as_on_the_command_line(cli):
    """The library's default router is the command line's: mroute over its e-cube
    escape VCs (the one rule under which it is deadlock-free)."""
    fabric = FabricConfig.for_topology(Mcube(4))
    assert fabric.router.routing == Adaptive(1) and fabric.router.algorithm == "mroute"
    r = cli("sim", "mcube", "-k", "4", "--cycles", "10", "--engine", "amaranth", "--json")
    assert r.status == 0, r.err
    assert r.json()["router"] == fabric.router.as_dict()


@pytest.mark.parametrize("k, ascents", [(4, 1), (5, 2), (8, 2)])
def test_mroute_is_deadlock_free_with_one_vc_per_link_ascent(k, ascents):
    topology = Mcube(k)
    enough = ascent_vc_deadlock_check(topology, ascents + 1)
    assert enough["deadlock_free"] and enough["max_ascents"] == ascents
    short = ascent_vc_deadlock_check(topology, ascents)
    assert not short["deadlock_free"] and short["cycle"]


def _saturate(k, cycles, seed, pattern="uniform"):
    r = run_fabric_of(Mcube(k), engine="amaranth", algorithm="ecube", rate=1.0,
                      cycles=cycles, drain=400, seed=seed, pattern=pattern,
                      packet_flits=2)
    assert r["ok"] and r["drained"], r
    assert all(r[k] == 0 for k in CHECKS) and r["delivered"] == r["created"]
    return r


def test_mcube4_fabric_saturated_delivers_every_packet_once():
    assert _saturate(4, 30, seed=3)["created"] > 100


@pytest.mark.slow
@pytest.mark.parametrize("pattern", ["uniform", "hotspot"])
def test_mcube5_fabric_saturated_delivers_every_packet_once(pattern):
    assert _saturate(5, 40, seed=5, pattern=pattern)["created"] > 300
