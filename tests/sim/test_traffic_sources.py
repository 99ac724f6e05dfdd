"""Traffic sources, scoreboard bookkeeping and statistics (no hardware)."""

import numpy as np
import pytest

from cubefab.hdl.flit import flit_layout
from cubefab.sim.scoreboard import Scoreboard
from cubefab.sim.stats import latency_stats, throughput
from cubefab.sim.traffic import Traffic
from cubefab.topology import DLH, Hypercube, Metacube


def collect(traffic, cycles):
    out = []
    for _ in range(cycles):
        out += traffic.generate()
    return out


def test_rate_is_flits_per_node_per_cycle():
    topo = Hypercube(4)
    packets = collect(Traffic(topo, "uniform", 0.6, 3, seed=2), 3000)
    rate = len(packets) * 3 / (topo.num_nodes * 3000)
    assert abs(rate - 0.6) < 0.02
    assert all(s != t for s, t in packets)


def test_same_seed_same_traffic():
    topo = Metacube(1, 2)
    a = collect(Traffic(topo, "uniform", 0.3, 1, seed=9), 50)
    b = collect(Traffic(topo, "uniform", 0.3, 1, seed=9), 50)
    c = collect(Traffic(topo, "uniform", 0.3, 1, seed=10), 50)
    assert a == b and a != c


@pytest.mark.parametrize("pattern,dest", [
    ("bitcomp", lambda a: a ^ 0b1111), ("transpose", lambda a: ((a << 2) | (a >> 2)) & 15),
    ("shuffle", lambda a: ((a << 1) | (a >> 3)) & 15)])
def test_permutations(pattern, dest):
    topo = Hypercube(4)
    for s, t in collect(Traffic(topo, pattern, 1.0, 1, seed=1), 20):
        assert t == dest(s)


def test_neighbour_and_hotspot():
    topo = DLH(2, 1)
    nodes = topo.nodes()
    for s, t in collect(Traffic(topo, "neighbor", 1.0, 1, seed=1), 20):
        assert int(nodes[t]) in topo.neighbors(int(nodes[s]))
    hot = collect(Traffic(topo, "hotspot", 1.0, 1, seed=1, hotspot=int(nodes[5]),
                          hotspot_fraction=0.5), 200)
    share = np.mean([t == 5 for s, t in hot])
    assert 0.45 < share < 0.6


def test_bad_traffic_is_refused():
    with pytest.raises(ValueError, match="Injection rate"):
        Traffic(Hypercube(2), rate=1.5)
    with pytest.raises(ValueError, match="traffic pattern"):
        Traffic(Hypercube(2), "tornado")
    with pytest.raises(ValueError, match="Packet length"):
        Traffic(Hypercube(2), packet_flits=0)
    with pytest.raises(ValueError, match="not defined"):
        Traffic(DLH(3, 1), "shuffle")


def test_scoreboard_counts_duplicates_losses_and_corruption():
    topo = Hypercube(2)
    board = Scoreboard(topo, flit_layout(topo, 8), vcs=1)
    a = board.create(0, 3, 2, 0)
    b = board.create(0, 3, 1, 0)
    c = board.create(1, 2, 1, 0)
    for p in (a, b, c):
        board.accept(p, 1)
    for f in a.flits:
        board.eject(3, f, 5)
    for f in a.flits:                 # again: a duplicate
        board.eject(3, f, 6)
    board.eject(2, c.flits[0] ^ (1 << 20), 7)   # payload bit flipped
    s = board.summary()
    assert s["delivered"] == 2 and s["duplicated"] == 1 and s["corrupted"] == 1
    assert s["lost"] == 1            # b never arrived
    assert a.network_latency == 4


def test_scoreboard_detects_reordering_and_misrouting():
    topo = Hypercube(2)
    board = Scoreboard(topo, flit_layout(topo, 8))
    a, b = board.create(0, 1, 1, 0), board.create(0, 1, 1, 0)
    board.accept(a, 0)
    board.accept(b, 0)
    board.eject(1, b.flits[0], 3)
    board.eject(2, a.flits[0], 4)
    s = board.summary()
    assert s["reordered"] == 1 and s["misrouted"] == 1 and s["corrupted"] == 2


def test_statistics():
    s = latency_stats([5, 1, 3, 2, 4])
    assert s["avg_latency"] == 3 and s["p50_latency"] == 3 and s["max_latency"] == 5
    assert s["p99_latency"] == 5
    assert latency_stats([])["avg_latency"] is None
    assert throughput(50, 5, 20) == 0.5 and throughput(1, 5, 0) == 0.0
