"""Fabric: router parameters reach every router; a packet's cycles through a small
fabric, derived by hand from the router's pipeline."""

import gc

import pytest

from cubefab.hdl.fabric import Fabric, FabricConfig
from cubefab.topology import Hypercube
from tests.hdl.fabric_helpers import run_packets
from tests.helpers import refused


@pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")
def test_every_router_gets_the_configuration():
    config = FabricConfig.for_topology(Hypercube(2), payload_width=4, buffer="memory",
                                       turns="all")
    fabric = Fabric(config)
    assert {r.config for r in fabric.routers} == {config.router}
    assert {r.node for r in fabric.routers} == {0, 1, 2, 3}
    del fabric
    gc.collect()        # the fabric is reported unused here, not in a later test


def test_a_fabric_is_built_from_a_fabric_config():
    with refused(TypeError, match="must be a FabricConfig, not RouterConfig"):
        Fabric(FabricConfig.for_topology(Hypercube(2)).router)


def moves(record):
    """``(links, ejections)`` of a :func:`run_packets` record, a flit each:
    ``(cycle, node, port, src, payload)`` on a link, ``(cycle, node, src, payload)``
    out of ``local_out``."""
    return ([(c, u, p, f["src"], f["payload"]) for c, u, p, f in record["links"]],
            [(c, v, f["src"], f["payload"]) for c, v, f in record["local"]])


@pytest.mark.parametrize("buffer", ["registers", "memory", "distributed"])
def test_a_packet_crosses_the_fabric_in_the_zero_load_latency(buffer):
    """Q(2), one flit from node 0 to node 3 offered in cycle 0 (e-cube: port 0 to node
    1, port 1 to node 3), derived from the router's pipeline: accepted at the edge
    ending cycle 0, it is the head of node 0's injection buffer in cycle 1 and granted
    port 0 then (allocation and crossbar are combinational), so ``link_out[0]`` of
    node 0 holds it in cycle 2 (the output register); node 1 buffers it at the edge
    ending cycle 2, grants it port 1 in cycle 3, its ``link_out[1]`` holds it in cycle
    4; node 3 buffers it, grants it ``local_out`` in cycle 5, which holds it in cycle
    6: 2 cycles in the source router + 2 per hop = 6 (every buffer storage reads an
    entry in the cycle after its write)."""
    config = FabricConfig.for_topology(Hypercube(2), payload_width=8, buffer=buffer)
    record = run_packets(Fabric(config), [
        {"src": 0, "dest": 3, "flits": 1, "at": 0, "tag": 5}], 12)
    assert moves(record) == ([(2, 0, 0, 0, 0x50), (4, 1, 1, 0, 0x50)],
                             [(6, 3, 0, 0x50)])


def test_two_packets_meeting_at_an_output_leave_in_arbitration_order():
    """Q(2), e-cube: packet A from node 1 to node 2 (via node 0: port 0, then port 1)
    offered in cycle 0, packet B from node 0 to node 2 (port 1) in cycle 2; one flit
    each. A is on node 1's ``link_out[0]`` in cycle 2 (as above) and enters node 0's
    port-0 buffer at the edge ending cycle 2, when B enters its injection buffer: in
    cycle 3 both request output 1. The arbiter grants the least recently granted
    queue, before any grant the lowest index: network ports come before the injection
    queue, so A wins, is on ``link_out[1]`` in cycle 4, ejected at node 2 in cycle 6
    (latency 6, the zero-load latency of 2 hops); B is granted in cycle 4 (one-flit A
    left the output VC free, its credit counter at 3 of 4), is on ``link_out[1]`` in
    cycle 5 and ejected in cycle 7: latency 5, one cycle more than its 1 hop's 4."""
    config = FabricConfig.for_topology(Hypercube(2), payload_width=8)
    record = run_packets(Fabric(config), [
        {"src": 1, "dest": 2, "flits": 1, "at": 0, "tag": 1},
        {"src": 0, "dest": 2, "flits": 1, "at": 2, "tag": 2}], 12)
    assert moves(record) == (
        [(2, 1, 0, 1, 0x10), (4, 0, 1, 1, 0x10), (5, 0, 1, 0, 0x20)],
        [(6, 2, 1, 0x10), (7, 2, 0, 0x20)])
