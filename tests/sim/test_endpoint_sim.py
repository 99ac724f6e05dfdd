"""Self-checking runs whose traffic goes through the AXI4-Stream endpoints
(SelfCheckConfig(interface=...), cubefab sim --interface axi-stream)."""

import pytest

from cubefab.hdl.endpoint import EndpointInterface
from cubefab.hdl.selfcheck import SelfCheckConfig
from cubefab.topology import Hypercube
from tests.helpers import run_fabric_of
from tests.sim.engine_helpers import both_engines, needs_verilator


#: A run through the endpoints: 16-bit tdata (a one-flit packet's 40 bits take 3 beats).
THROUGH = {"interface": "axi-stream", "data_width": 16}

#: The checks that must find nothing in a healthy run.
CLEAN = ("lost", "duplicated", "corrupted", "reordered", "misrouted", "checker_errors",
         "undelivered")


def _clean(result):
    assert result["ok"] is True
    assert {k: result[k] for k in CLEAN} == {k: 0 for k in CLEAN}
    assert result["delivered"] == result["created"] > 0


def test_a_deterministic_fabric_runs_through_the_endpoints():
    r = run_fabric_of(Hypercube(2), engine="amaranth", rate=0.5, cycles=200, drain=300,
                      seed=3, **THROUGH)
    _clean(r)
    assert (r["interface"], r["data_width"], r["max_beats"]) == ("axi-stream", 16, 3)


@needs_verilator
def test_both_engines_count_the_same_through_the_endpoints():
    r = both_engines(Hypercube(2), rate=1.0, cycles=100, warmup=30, drain=300, seed=3,
                     packet_flits=2, header="every", **THROUGH)
    _clean(r)


def test_an_adaptive_fabric_keeps_each_pairs_order_through_the_endpoints():
    """Adaptive routers may reorder a pair's packets; the endpoints' acknowledgements
    keep the order, so the checkers check it and a reordered packet is an error."""
    r = run_fabric_of(Hypercube(2), engine="amaranth", rate=0.5, cycles=120, drain=400,
                      seed=5, adaptive_vcs=1, data_width=24, interface="axi-stream")
    _clean(r)
    assert r["adaptive_vcs"] == 1


def test_a_window_of_messages_keeps_each_pairs_order_through_the_endpoints():
    """Adaptive routers, 4 unacknowledged messages per destination: the reorder
    buffers hand every pair's packets over in order."""
    r = run_fabric_of(Hypercube(2), engine="amaranth", rate=1.0, cycles=100, drain=400,
                      seed=4, adaptive_vcs=1, message_window=4, **THROUGH)
    _clean(r)
    assert r["message_window"] == 4


@pytest.mark.slow
@needs_verilator
def test_a_window_of_messages_runs_in_both_engines_through_the_endpoints():
    r = both_engines(Hypercube(2), rate=1.0, cycles=100, warmup=30, drain=400, seed=4,
                     adaptive_vcs=1, message_window=4, **THROUGH)
    _clean(r)


@pytest.mark.slow
@needs_verilator
def test_a_window_at_saturation_in_q3_in_both_engines():
    r = both_engines(Hypercube(3), rate=1.0, cycles=200, warmup=50, drain=1500, seed=6,
                     adaptive_vcs=1, packet_flits=2, data_width=24, message_window=8,
                     interface="axi-stream")
    _clean(r)


@pytest.mark.slow
@needs_verilator
def test_an_adaptive_q3_at_saturation_through_the_endpoints_in_both_engines():
    r = both_engines(Hypercube(3), rate=1.0, cycles=200, warmup=50, drain=1500, seed=5,
                     adaptive_vcs=1, packet_flits=2, data_width=24,
                     interface="axi-stream")
    _clean(r)


@pytest.mark.parametrize("kind", ["corrupt", "drop", "duplicate"])
def test_a_defect_is_caught_through_the_endpoints(kind):
    r = run_fabric_of(Hypercube(2), engine="amaranth", rate=0.3, cycles=120, drain=300,
                      seed=3, defect={"kind": kind, "node": 0, "port": 0}, **THROUGH)
    assert r["ok"] is False and r["checker_errors"] >= 1
    found = {"corrupt": "corrupted", "drop": "lost", "duplicate": "duplicated"}[kind]
    assert r[found] == 1


def test_the_key_makes_the_same_design_with_endpoints():
    config = SelfCheckConfig.of(Hypercube(2), packet_flits=2, interface="axi-stream",
                                data_width=24, max_beats=8)
    key = config.key()
    assert (key["interface"], key["data_width"], key["max_beats"]) == ("axi-stream", 24, 8)
    flat = {k: v for k, v in key.items() if k not in ("design", "family", "params")}
    assert SelfCheckConfig.of(Hypercube(2), **flat).key() == key
    assert "interface" not in SelfCheckConfig.of(Hypercube(2)).key()


@pytest.mark.parametrize("keywords, error, message", [
    ({"interface": EndpointInterface(16, 2)}, ValueError,
     "Maximum message length must be at least 3 beats"),
    ({"interface": "axi-stream", "data_width": 16, "broadcast_vcs": 1}, ValueError,
     "unicast"),
    ({"interface": "axi-stream", "data_width": 16, "fault_waypoints": 1}, ValueError,
     "deterministic or adaptive"),
    ({"data_width": 16}, ValueError, "need interface='axi-stream'"),
    ({"interface": "axi-stream", "data_width": 16, "message_window": 4}, ValueError,
     "Window must be 1 with deterministic routing"),
    ({"interface": "axi-stream"}, ValueError, "needs data_width"),
    ({"interface": 16}, TypeError, "EndpointInterface")])
def test_endpoint_designs_refuse_what_cannot_work(keywords, error, message):
    with pytest.raises(error, match=message):
        SelfCheckConfig.of(Hypercube(2), **keywords)
