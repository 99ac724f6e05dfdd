"""Whole fabrics in the Amaranth simulator: exact zero-load latency; under full load
nothing lost, duplicated or corrupted, every route the reference route, no deadlock;
back-pressure from a stalled output; the progress watchdog."""

import os

import pytest

from cubefab.hdl.router import HOP_LATENCY, ROUTER_LATENCY
from cubefab.sim.amaranth_engine import AmaranthEngine
from cubefab.sim.traffic import Traffic
from cubefab.topology import DLH, Hypercube, Metacube


TOPOLOGIES = [Hypercube(3), Metacube(1, 1), Metacube(1, 2), Metacube(2, 1), DLH(2, 1),
              DLH(2, 2)]


def assert_clean(result):
    c = result.counts
    assert not result.stalled, result.board.events
    assert c["lost"] == c["pending"] == c["duplicated"] == c["corrupted"] == 0, \
        (c, result.board.events)
    assert c["hop_mismatches"] == 0 and c["vc_mismatches"] == 0, result.board.events
    assert c["delivered"] == c["created"] == c["injected"]
    assert result.ok


# MC(2,1) and DLH(2,2) take 20-40 s each to elaborate and simulate: slow set
ZERO_LOAD = [pytest.param(t, marks=pytest.mark.slow) if t.num_nodes * t.degree > 100 else t
             for t in TOPOLOGIES]


@pytest.mark.parametrize("topology", ZERO_LOAD, ids=str)
def test_zero_load_latency_is_exact(topology):
    n = topology.num_nodes
    pairs = [(0, n - 1), (n - 1, 0), (1, n // 2), (n // 3, n // 3), (n // 2, 3), (2, n - 2)]
    packets = []
    for i, (s, t) in enumerate(pairs):
        packets.append((60 * i, s, t, 1 + 2 * (i % 2)))      # 1- and 3-flit packets
    result = AmaranthEngine(topology).run(None, 60 * len(pairs), packets=packets)
    assert_clean(result)
    nodes = topology.nodes()
    for p in result.packets:
        hops = len(topology.route(int(nodes[p.src]), int(nodes[p.dest]))) - 1
        assert len(p.hops) == hops
        assert p.network_latency == ROUTER_LATENCY + HOP_LATENCY * hops + len(p.flits) - 1
        assert p.latency == p.network_latency        # nothing else in the network


def _full_load(topology, cycles, packet_flits=2, seed=7, **router):
    traffic = Traffic(topology, "uniform", 1.0, packet_flits, seed)
    result = AmaranthEngine(topology, **router).run(traffic, cycles)
    assert_clean(result)
    # delivery keeps progressing through the whole run
    done = sorted(p.delivered for p in result.packets)
    gaps = [b - a for a, b in zip([0] + done, done)]
    assert max(gaps) < 40, max(gaps)
    assert done[-1] >= cycles
    assert result.as_dict()["throughput"] > 0.2
    return result


@pytest.mark.parametrize("topology,cycles", [(Hypercube(3), 1000), (Metacube(1, 1), 1000),
                                             (DLH(2, 1), 200)], ids=str)
def test_full_load_exactly_once_no_deadlock(topology, cycles):
    _full_load(topology, cycles)


def test_two_vcs_per_class_keep_flows_in_order_at_full_load():
    # the scoreboard checks order per flow and every packet's VC against hop_vcs
    _full_load(DLH(2, 1), 200, vcs_per_class=2)


@pytest.mark.slow
@pytest.mark.parametrize("topology", TOPOLOGIES, ids=str)
def test_full_load_long(topology):
    cycles = 3000 if topology.num_nodes <= 16 else 1000
    _full_load(topology, cycles, packet_flits=3, seed=11)


@pytest.mark.slow
@pytest.mark.parametrize("pattern", ["bitcomp", "transpose", "shuffle", "hotspot",
                                     "neighbor"])
def test_other_patterns_at_full_load(pattern):
    topo = Metacube(1, 1) if pattern != "transpose" else Hypercube(4)
    result = AmaranthEngine(topo).run(Traffic(topo, pattern, 1.0, 2, 3), 800)
    assert_clean(result)


def test_metacube_paper_routing_under_load():
    topo = Metacube(1, 1)
    result = AmaranthEngine(topo, algorithm="paper").run(
        Traffic(topo, "uniform", 0.8, 2, 5), 400)
    assert_clean(result)


def test_stalled_local_output_backs_pressure_up():
    topo = Hypercube(3)
    start, stop = 20, 320
    traffic = Traffic(topo, "hotspot", 0.6, 2, 3, hotspot=0, hotspot_fraction=0.6)
    result = AmaranthEngine(topo).run(
        traffic, 400, watchdog=2 * (stop - start),
        stall=lambda cycle, node: node == 0 and start <= cycle < stop)
    assert_clean(result)
    to_hot = [p for p in result.packets if p.dest == 0]
    assert to_hot and not [p for p in to_hot if start <= p.delivered < stop]
    # the blocked packets filled the buffers back to the sources: their heads waited
    # at the injection port
    waited = max(p.injected - p.created for p in result.packets if p.created < stop)
    assert waited > 50


def test_watchdog_reports_no_progress():
    topo = Hypercube(2)
    traffic = Traffic(topo, "hotspot", 0.5, 1, 3, hotspot=0, hotspot_fraction=1.0)
    result = AmaranthEngine(topo, trace_hops=False).run(
        traffic, 100, watchdog=40, stall=lambda cycle, node: node == 0)
    assert result.stalled and not result.ok
    assert result.counts["lost"] > 0
    assert result.as_dict()["stalled"] is True


def test_vcd_is_written(tmp_path):
    topo = Hypercube(1)
    path = tmp_path / "fabric.vcd"
    result = AmaranthEngine(topo, vcd=str(path)).run(Traffic(topo, "uniform", 0.5, 1, 1), 20)
    assert_clean(result)
    assert os.path.getsize(path) > 1000
    assert "router_0" in path.read_text()


def test_traffic_must_match_the_fabric():
    with pytest.raises(ValueError, match="Traffic is for"):
        AmaranthEngine(Hypercube(2)).run(Traffic(Hypercube(3)), 10)
