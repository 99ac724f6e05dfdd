"""Link stages in every combination of routing, hop and replication: past saturation,
every packet and copy checked, both engines identical; a link failing behind them is
reconciled."""

import pytest

from cubefab.hdl.config import HOPS
from cubefab.sim.broadcast_run import hardware_broadcast
from cubefab.sim.selfcheck_run import CHECKS
from cubefab.topology import Hypercube
from tests.helpers import run_fabric_of
from tests.sim.engine_helpers import both_engines, needs_verilator
from tests.sim.test_link_failure import RUN as FAILING_RUN, assert_reconciled

#: The routings, as run keywords.
ROUTINGS = {"deterministic": {}, "adaptive": {"adaptive_vcs": 1},
            "waypoints": {"fault_waypoints": 1}}

#: The replications the self-checking fabric runs, as the traffic that needs them.
REPLICATIONS = {"unicast": {}, "broadcast": {"broadcast_fraction": 0.2},
                "one-port": {"broadcast_fraction": 0.2, "broadcast_model": "one-port"},
                "multicast": {"broadcast_fraction": 0.2, "multicast_group": 0b011}}


def assert_clean_past_saturation(r, stages):
    assert r["ok"] and r["drained"], r
    assert all(r[k] == 0 for k in CHECKS if k != "reordered"), r
    assert r["delivered"] == r["created"] == r["injected"] > 0
    assert r["throughput"] < r["offered"]          # past saturation
    assert r["link_stages"] == stages


@needs_verilator
def test_a_fabric_with_link_stages_is_clean_in_both_engines(verilator_cache):
    # CI's fast set (every combination on Q(3): the slow set below)
    r = both_engines(Hypercube(2), rate=1.0, cycles=100, warmup=30, drain=3000, seed=11,
                     packet_flits=2, link_stages=2, depth=8)
    assert_clean_past_saturation(r, 2)


@needs_verilator
@pytest.mark.slow
@pytest.mark.parametrize("replication", REPLICATIONS)
@pytest.mark.parametrize("hop", HOPS)
@pytest.mark.parametrize("routing", ROUTINGS)
def test_every_combination_with_a_link_stage_is_clean_in_both_engines(
        verilator_cache, routing, hop, replication):
    r = both_engines(Hypercube(3), rate=1.0, cycles=100, warmup=30, drain=3000, seed=11,
                     packet_flits=2, hop=hop, link_stages=1, **ROUTINGS[routing],
                     **REPLICATIONS[replication])
    assert_clean_past_saturation(r, 1)


@needs_verilator
@pytest.mark.slow
@pytest.mark.parametrize("routing", ROUTINGS)
@pytest.mark.parametrize("hop", HOPS)
def test_a_vector_multicast_behind_link_stages_is_the_same_in_both_engines(
        verilator_cache, routing, hop):
    options = dict(members=[0, 3, 5, 6], unicasts=True, packet_flits=2, hop=hop,
                   link_stages=1, **ROUTINGS[routing])
    amaranth = hardware_broadcast(Hypercube(3), 0, **options)
    assert set(amaranth["arrivals"]) == {3, 5, 6}
    assert hardware_broadcast(Hypercube(3), 0, engine="verilator", **options) == amaranth


@pytest.mark.parametrize("stages", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_a_link_failing_behind_link_stages_is_reconciled(stages):
    # the flits in a failed link's stages still arrive; the cut packets' tails follow
    result = run_fabric_of(Hypercube(3), engine="amaranth",
                           **{**FAILING_RUN, "packet_flits": 2, "link_stages": stages})
    assert_reconciled(result)
    assert result["lost_to_fault"] > 0 and result["dropped"] + result["cut"] > 0
