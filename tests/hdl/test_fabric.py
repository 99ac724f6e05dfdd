"""Fabric: router parameters reach every router."""

import gc

import pytest

from cubefab.hdl.fabric import Fabric, FabricConfig
from cubefab.hdl.router import HOP_LATENCY, ROUTER_LATENCY
from cubefab.topology import Hypercube
from tests.helpers import refused, run_clocked


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


def delivery(fabric, src, dest):
    """Cycles from a one-flit packet's injection at ``src`` to its ejection at
    ``dest``, and the payload ejected."""
    topo = fabric.topology
    i, j = topo.index(src), topo.index(dest)
    seen = {}

    async def bench(ctx):
        for k in range(topo.num_nodes):
            ctx.set(fabric.local_out[k].ready, 1)
        ctx.set(fabric.local_in[i].payload, {"head": 1, "tail": 1, "dest": dest,
                                               "src": src, "payload": 5})
        ctx.set(fabric.local_in[i].valid, 1)
        await ctx.tick()
        ctx.set(fabric.local_in[i].valid, 0)
        for cycle in range(1, 20):
            if ctx.get(fabric.local_out[j].valid):
                seen.update(cycle=cycle, payload=ctx.get(fabric.local_out[j].payload).payload)
                return
            await ctx.tick()

    run_clocked(fabric, bench)
    return seen


@pytest.mark.parametrize("buffer", ["registers", "memory"])
def test_a_packet_crosses_the_fabric_in_the_zero_load_latency(buffer):
    # Q(2): node 0 to node 3 is two hops
    seen = delivery(Fabric(FabricConfig.for_topology(Hypercube(2), payload_width=4,
                                                  buffer=buffer)), 0, 3)
    assert seen == {"cycle": ROUTER_LATENCY + 2 * HOP_LATENCY, "payload": 5}
