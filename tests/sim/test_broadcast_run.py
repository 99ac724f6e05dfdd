"""One broadcast alone in the RTL fabric: arrivals, tree and depth against the model."""

import pytest

from cubefab.hdl.router import HOP_LATENCY, ROUTER_LATENCY
from cubefab.sim.broadcast_run import hardware_broadcast
from cubefab.topology import Hypercube, Mcube, Metacube, bfs_distances
from cubefab.topology.broadcast_tree import broadcast_tree


@pytest.mark.parametrize("topology, source, settings", [
    (Hypercube(3), 5, {}), (Metacube(1, 1), 3, {}), (Mcube(3), 6, {"algorithm": "ecube"})],
    ids=lambda x: getattr(x, "label", None))
def test_every_copy_arrives_over_its_shortest_path_along_the_models_tree(
        topology, source, settings):
    doc = hardware_broadcast(topology, source, packet_flits=2, **settings)
    dist = bfs_distances(topology, source)
    assert doc["arrivals"] == {
        int(a): ROUTER_LATENCY + int(dist[topology.index(int(a))]) * HOP_LATENCY + 1
        for a in topology.nodes() if int(a) != source}
    assert sorted(map(tuple, doc["tree"])) == sorted(broadcast_tree(topology, source).edges())
    assert doc["depth"] == int(dist.max()) and doc["injection"] == 2
    assert set(doc["copies"].values()) == {1}


def test_a_broadcast_beats_n_minus_1_unicasts():
    doc = hardware_broadcast(Hypercube(3), 0, packet_flits=2, unicasts=True)
    # the source sends 7 packets of 2 flits one after the other
    assert doc["unicast_injection"] == 14 and doc["injection_ratio"] == 7
    assert doc["unicast_latency"] > doc["latency"] and doc["latency_ratio"] > 1


def test_a_packet_longer_than_a_buffer_is_refused():
    with pytest.raises(ValueError, match="fit a buffer"):
        hardware_broadcast(Hypercube(2), 0, packet_flits=5)
