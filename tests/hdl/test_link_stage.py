"""Link stages: registers on every link into a router, for flits and credits alike: a
cycle more per hop and stage, two more of credit round trip, nothing else changed."""

import pytest

from cubefab.hdl.config import RouterConfig
from cubefab.hdl.fabric import Fabric, FabricConfig
from cubefab.hdl.options import MAX_LINK_STAGES, OptionError, describe, hardware_words
from cubefab.hdl.router import zero_load_latency
from cubefab.topology import Hypercube
from cubefab.topology.properties import distance_matrix
from tests.hdl.fabric_helpers import run_packets
from tests.hdl.test_fabric import moves
from tests.hdl.test_router_lookahead import packet_latencies


@pytest.mark.parametrize("stages", [1, 2])
def test_each_link_stage_adds_a_cycle_to_a_hop(stages):
    """Q(2), one flit from node 0 to node 3 (e-cube: node 1, then node 3), as in
    test_fabric's zero-load latency (node 0's ``link_out[0]`` holds it in cycle 2,
    node 1's ``link_out[1]`` in cycle 4, node 3 ejects it in cycle 6), but every hop
    ``stages`` cycles later: the stages sit between a link and its router's buffer."""
    config = FabricConfig.for_topology(Hypercube(2), payload_width=8,
                                       link_stages=stages)
    record = run_packets(Fabric(config), [
        {"src": 0, "dest": 3, "flits": 1, "at": 0, "tag": 5}], 14)
    assert moves(record) == ([(2, 0, 0, 0, 0x50), (4 + stages, 1, 1, 0, 0x50)],
                             [(6 + 2 * stages, 3, 0, 0x50)])


@pytest.mark.parametrize("hop", ["buffered", "lookahead"])
def test_zero_load_latency_counts_the_link_stages(hop):
    # Q(3) from node 0 to a node at each distance, packets of 1, 2 and 4 flits
    config = FabricConfig.for_topology(Hypercube(3), payload_width=4, hop=hop,
                                       link_stages=2)
    distance = distance_matrix(config.router.topology)[0]
    dests = {int(distance[d]): d for d in range(8)}
    packets = [(0, dest, flits) for dest in dests.values() for flits in (1, 2, 4)]
    assert packet_latencies(Fabric(config), packets) == [
        zero_load_latency(config.router, hops, flits) for hops in dests
        for flits in (1, 2, 4)]


def _delivered(stages, depth, cycles=120, warmup=40):
    """Flits node 1 of Q(1) ejects in ``cycles - warmup`` cycles while node 0 offers
    8-flit packets to it back to back (one flow, one VC, one link)."""
    config = FabricConfig.for_topology(Hypercube(1), payload_width=8, depth=depth,
                                       link_stages=stages)
    packets = [{"src": 0, "dest": 1, "flits": 8, "at": 0, "tag": k % 16}
               for k in range(cycles // 8 + 1)]
    record = run_packets(Fabric(config), packets, cycles)
    assert not record["overflow"]
    return sum(1 for cycle, node, _ in record["local"] if cycle >= warmup)


@pytest.mark.parametrize("stages", [0, 1, 2])
def test_a_buffer_of_4_plus_2_flits_a_stage_keeps_one_vc_at_full_rate(stages):
    # the credit loop grows by two cycles a stage (a flit's, a credit's): a VC with
    # fewer buffer slots than cycles in its loop stalls
    assert _delivered(stages, 4 + 2 * stages) == 80
    assert _delivered(stages, 3 + 2 * stages) < 80


def test_link_stages_are_a_checked_router_option():
    config = RouterConfig.for_topology(Hypercube(2), link_stages=1)
    assert describe(config) == "1 VC, 4-flit buffers in memory (auto), 1 link stage"
    assert hardware_words(RouterConfig.for_topology(Hypercube(2), link_stages=2)) == \
        "4-flit buffers in memory (auto), 2 link stages"
    assert config.as_dict()["link_stages"] == 1
    assert "link_stages" not in RouterConfig.for_topology(Hypercube(2)).as_dict()
    assert RouterConfig.from_dict(Hypercube(2), config.as_dict()) == config
    with pytest.raises(OptionError, match=r"Link stages must be an integer in \[0, 4\]"):
        RouterConfig.for_topology(Hypercube(2), link_stages=MAX_LINK_STAGES + 1)
