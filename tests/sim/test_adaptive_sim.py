"""Adaptive routers in the self-checking fabric: both engines identical, every flit
checked against the adaptive rule, reordering a figure, every defect caught."""

import pytest

from cubefab.hdl.selfcheck_node import DEFECTS
from cubefab.topology.references import AdaptiveReference
from cubefab.sim.selfcheck_run import CHECKS, statistics
from cubefab.topology import DLH, Hypercube, Mcube
from cubefab.topology.adaptive import adaptive_ports, escape_port
from cubefab.topology.catalog import make_topology
from cubefab.topology.deadlock import flow_lane
from tests.helpers import run_fabric_of
from tests.sim.engine_helpers import both_engines, needs_verilator
from tests.sim.test_selfcheck_run import DETECTS


ERRORS = [k for k in CHECKS if k != "reordered"]


@pytest.mark.slow    # fast: the adaptive runs of test_head_flit_sim and the wrong_vc defect below
@needs_verilator
def test_adaptive_engines_agree_past_saturation(verilator_cache):
    topo = make_topology("hypercube", n=2)
    r = both_engines(topo, rate=1.0, cycles=200, warmup=50, drain=150, seed=4,
                     packet_flits=2, adaptive_vcs=2)
    assert r["ok"] and r["adaptive_vcs"] == 2 and r["drained"] and r["delivered"] > 250
    assert all(r[k] == 0 for k in ERRORS), r


#: The adaptive fabric with a defect at node 0's port 0: Mcube(3) with Mroute, one
#: adaptive port, so a flit sent through the next port breaks the rule whichever VC it
#: is on; two VCs per class and two adaptive VCs, so a flipped VC bit 0 names another
#: flow's VC.
DEFECT_RUN = dict(rate=0.3, cycles=80, drain=80, seed=3, adaptive_vcs=2)


def test_the_adaptive_rule_catches_a_wrong_vc_in_the_amaranth_engine():
    # CI's fast set: the wrong_vc run of the test below in the Amaranth engine alone
    r = run_fabric_of(make_topology("mcube", k=3), engine="amaranth", **DEFECT_RUN,
                      defect={"kind": "wrong_vc", "node": 0, "port": 0})
    assert r[DETECTS["wrong_vc"]] >= 1 and not r["ok"]


@pytest.mark.slow    # (CI's fast set: the wrong_vc run above, in the Amaranth engine)
@needs_verilator
@pytest.mark.parametrize("kind", DEFECTS)
def test_every_check_catches_its_defect_with_adaptive_routers(verilator_cache, kind):
    topo = make_topology("mcube", k=3)
    r = both_engines(topo, **DEFECT_RUN, defect={"kind": kind, "node": 0, "port": 0})
    assert r[DETECTS[kind]] >= 1 and not r["ok"]


def test_reordering_is_a_figure_when_adaptive():
    topo = Hypercube(2)
    zero = {k: 0 for k in ("cycles", "created", "refused", "injected", "injected_flits",
                           "delivered", "delivered_flits", "errors", "corrupted",
                           "latency_sum")}
    end = dict(zero, created=40, injected=40, injected_flits=40, delivered=39,
               delivered_flits=39)
    checks = {"misrouted": 0, "reordered": 3, "duplicated": 0, "waiting_overtaken": 1,
              "waiting": 0, "latency_histogram": []}
    s = statistics(topo, 1, 100, zero, end, end, drain=0, checks=checks, adaptive=True)
    # the overtaken packet may still be on its way: in flight, not lost
    assert s["ok"] and s["reordered"] == 3 and s["lost"] == 0 and s["in_flight"] == 1
    assert not statistics(topo, 1, 100, zero, end, end, drain=0, checks=checks)["ok"]
    # a drain that ran out: it is lost
    s = statistics(topo, 1, 100, zero, end, end, drain=10, checks=checks, adaptive=True)
    assert s["lost"] == 1 and not s["ok"]


@pytest.mark.parametrize("topology, algorithm", [(Hypercube(3), None), (DLH(2, 1), None),
                                                (Mcube(4), "mroute")], ids=str)
def test_the_adaptive_rule_allows_exactly_the_offered_ports_and_vcs(topology, algorithm):
    algorithm = topology.check_algorithm(algorithm)
    escape_vcs = 2 * 2 if isinstance(topology, DLH) else 2   # classes x 2 per class
    ref = AdaptiveReference(topology, algorithm, escape_vcs, 2, adaptive_vcs=2)
    nodes = [int(a) for a in topology.nodes()]
    src = nodes[1]
    for here in nodes:
        for dest in nodes:
            if dest == here:
                continue
            offered = adaptive_ports(topology, here, dest, algorithm)
            escape = escape_port(topology, here, dest, algorithm)
            adaptive_vc = escape_vcs + flow_lane(src, dest, 2)
            for port in range(topology.degree):
                for vc in range(escape_vcs + 2):
                    for cls in range(ref.classes):
                        wrap = ref.wraps[topology.index(here), port]
                        good_cls = not (cls == 0 and wrap and ref.classes > 1)
                        want = good_cls and (
                            (vc == adaptive_vc and port in offered)
                            or (vc == 2 * cls + flow_lane(src, dest, 2) and port == escape))
                        assert ref.allowed(here, port, src, dest, vc, cls) == want


@pytest.mark.slow
@needs_verilator
@pytest.mark.parametrize("family, params, options", [
    ("metacube", {"k": 1, "m": 1}, {"rate": 1.0, "packet_flits": 3}),
    ("dlh", {"m": 2, "d": 1}, {"rate": 1.0, "packet_flits": 2}),
    ("dlh", {"m": 2, "d": 1}, {"rate": 0.6, "pattern": "hotspot"}),
    ("hypercube", {"n": 3}, {"rate": 1.0, "pattern": "bitcomp", "depth": 4,
                             "vcs_per_class": 1}),
    ("mcube", {"k": 4}, {"rate": 1.0, "algorithm": "mroute", "packet_flits": 2}),
])
def test_adaptive_engines_agree(verilator_cache, family, params, options):
    topo = make_topology(family, **params)
    r = both_engines(topo, cycles=300, warmup=100, drain=400, seed=9, adaptive_vcs=2,
                     **options)
    assert r["ok"] and r["delivered"] > 100 and all(r[k] == 0 for k in ERRORS)
