"""Lookahead hops (``RouterConfig(hop="lookahead")``): the lookahead route units equal
the model's routing at every neighbour (the adaptive one its offered and escape ports,
the waypoint one the waypoint step), and the zero-load latency of either hop mode is
the count derived by hand from the pipeline (a deterministic replicating router's
unicasts one cycle more at the source; adaptive and waypoint routers as deterministic
ones)."""

import itertools
import random

import pytest

from amaranth.hdl import Elaboratable, Module
from amaranth.sim import Simulator

from cubefab.hdl.config import RouterConfig
from cubefab.hdl.modes import Adaptive, Broadcast, Waypoints
from cubefab.hdl.fabric import Fabric, FabricConfig
from cubefab.hdl.flit import FlitLayout
from cubefab.hdl.route import AdaptiveLookaheadRoute, LookaheadRoute, WaypointLookaheadRoute
from cubefab.hdl.router import zero_load_latency
from cubefab.topology import Hypercube, Metacube, make_topology
from cubefab.topology.adaptive import adaptive_ports, escape_port
from cubefab.topology.dlh import DLH
from cubefab.topology.fault_routing import waypoint_step
from tests.helpers import distance_matrix, fast_and_slow, run_clocked


SMALL = [Hypercube(3), Metacube(1, 1), DLH(2, 1), make_topology("mcube", k=3)]


class LookaheadBank(Elaboratable):
    """The lookahead units of every node of ``topology`` (one simulation); with
    ``straps``, address-strapped units held at each node's neighbours."""

    def __init__(self, topology, algorithm, straps=False, unit=LookaheadRoute):
        self.units = [unit(topology, None if straps else int(node), algorithm)
                      for node in topology.nodes()]
        for unit, node in zip(self.units, topology.nodes()):
            unit.at = int(node)
        self.straps = straps

    def elaborate(self, platform):
        m = Module()
        for i, unit in enumerate(self.units):
            m.submodules[f"unit{i}"] = unit
            if self.straps:
                m.d.comb += unit.neighbors.eq(LookaheadRoute.strap_value(unit.topology,
                                                                         unit.at))
        return m


@pytest.mark.parametrize("straps", [False, True], ids=["constant", "strapped"])
@pytest.mark.parametrize("topology", SMALL, ids=lambda t: t.label)
def test_lookahead_ports_equal_the_model_at_every_neighbour(topology, straps):
    # exhaustive: every node, port, algorithm, destination (and source if read)
    nodes = [int(a) for a in topology.nodes()]
    for algorithm in topology.algorithms:
        bank = LookaheadBank(topology, algorithm, straps)
        checked = []

        async def bench(ctx):
            for unit in bank.units:
                for src in (nodes if unit.needs_src else [None]):
                    for dest in nodes:
                        for o in range(topology.degree):
                            ctx.set(unit.dest[o], dest)
                            if src is not None:
                                ctx.set(unit.src[o], src)
                        header = {} if src is None else {"src": src}
                        for o in range(topology.degree):
                            there = topology.neighbor(unit.at, o)
                            assert ctx.get(unit.port[o]) == topology.next_port(
                                there, dest, algorithm, **header), (unit.at, o, dest)
                            checked.append(1)

        sim = Simulator(bank)
        sim.add_testbench(bench)
        sim.run()
        assert len(checked) >= len(nodes) ** 2 * topology.degree


#: Networks and algorithms of the adaptive lookahead unit's check (the Mcube with
#: both of its adaptive routings).
ADAPTIVE_SMALL = [(Hypercube(3), None), (Metacube(1, 1), None), (DLH(2, 1), None),
                  (make_topology("mcube", k=3), "mroute"), (make_topology("mcube", k=3), "ecube")]


@pytest.mark.parametrize("straps", [False, True], ids=["constant", "strapped"])
@pytest.mark.parametrize("topology, algorithm", ADAPTIVE_SMALL,
                         ids=lambda x: getattr(x, "label", str(x)))
def test_adaptive_lookahead_offers_what_the_neighbour_offers(topology, algorithm, straps):
    # exhaustive: every node, port and destination
    bank = LookaheadBank(topology, algorithm, straps, unit=AdaptiveLookaheadRoute)
    nodes, checked = [int(a) for a in topology.nodes()], []

    async def bench(ctx):
        for unit in bank.units:
            for dest in nodes:
                for o in range(topology.degree):
                    ctx.set(unit.dest[o], dest)
                for o in range(topology.degree):
                    there = topology.neighbor(unit.at, o)
                    want = (sum(1 << q for q in adaptive_ports(topology, there, dest,
                                                               algorithm)),
                            escape_port(topology, there, dest, algorithm))
                    got = (ctx.get(unit.offered[o]), ctx.get(unit.port[o]))
                    assert got == want, (unit.at, o, dest)
                    checked.append(1)

    sim = Simulator(bank)
    sim.add_testbench(bench)
    sim.run()
    assert len(checked) == len(nodes) ** 2 * topology.degree


def waypoint_headers(topology, waypoints, sample=None):
    """Every ``(dest, waypoint list, phase)`` of up to ``waypoints`` waypoints (with
    ``sample``: that many drawn at random, seed 3)."""
    nodes = [int(a) for a in topology.nodes()]
    lists = [ws for n in range(waypoints + 1) for ws in itertools.product(nodes, repeat=n)]
    headers = [(d, ws, p) for d in nodes for ws in lists for p in range(len(ws) + 1)]
    return headers if sample is None else random.Random(3).sample(headers, sample)


@pytest.mark.parametrize("straps", [False, True], ids=["constant", "strapped"])
@pytest.mark.parametrize("topology, waypoints, sample", [
    (Hypercube(3), 1, None), (Metacube(1, 1), 2, 300),
    pytest.param(DLH(2, 1), 2, 300, marks=pytest.mark.slow)],
    ids=lambda x: getattr(x, "label", str(x)))
def test_waypoint_lookahead_ports_are_the_neighbours_waypoint_step(topology, waypoints,
                                                                   sample, straps):
    # Q(3): every header of one waypoint at every node; the others a sample at every node
    units = [WaypointLookaheadRoute(topology, waypoints, None if straps else int(a))
             for a in topology.nodes()]
    headers, checked = waypoint_headers(topology, waypoints, sample), []

    async def bench(ctx):
        for node, unit in zip(topology.nodes(), units):
            node = int(node)
            if straps:
                ctx.set(unit.neighbors, LookaheadRoute.strap_value(topology, node))
            for dest, ws, phase in headers:
                for o in range(topology.degree):
                    ctx.set(unit.dest[o], dest)
                    ctx.set(unit.waypoint[o], list(ws) + [0] * (waypoints - len(ws)))
                    ctx.set(unit.count[o], len(ws))
                    ctx.set(unit.phase[o], phase)
                for o in range(topology.degree):
                    there = topology.neighbor(node, o)
                    assert ctx.get(unit.port[o]) == waypoint_step(
                        topology, there, dest, ws, phase)[0], (node, o, dest, ws, phase)
                    checked.append(1)

    bank = Module()
    for i, unit in enumerate(units):
        bank.submodules[f"unit{i}"] = unit
    sim = Simulator(bank)
    sim.add_testbench(bench)
    sim.run()
    assert len(checked) == topology.num_nodes * len(headers) * topology.degree


def packet_latencies(fabric, packets):
    """Per ``(src, dest, flits)`` of ``packets``, sent one at a time into an idle
    fabric: cycles from the head accepted on ``local_in`` to the tail on
    ``local_out``."""
    topo, latencies = fabric.topology, []

    async def bench(ctx):
        for k in range(topo.num_nodes):
            ctx.set(fabric.local_out[k].ready, 1)
        for src, dest, flits in packets:
            i, j = topo.index(src), topo.index(dest)
            sent, cycle, start = 0, 0, None
            while cycle < 60:
                out = fabric.local_out[j]
                if ctx.get(out.valid) and ctx.get(out.payload).tail:
                    latencies.append(cycle - start)
                    break
                accepted = False
                if sent < flits:
                    ctx.set(fabric.local_in[i].payload, {
                        "head": sent == 0, "tail": sent == flits - 1, "dest": dest,
                        "src": src, "payload": sent})
                    ctx.set(fabric.local_in[i].valid, 1)
                    accepted = ctx.get(fabric.local_in[i].ready)
                else:
                    ctx.set(fabric.local_in[i].valid, 0)
                if accepted and sent == 0:
                    start = cycle
                await ctx.tick()
                sent += accepted
                cycle += 1
            ctx.set(fabric.local_in[i].valid, 0)
            for _ in range(8):   # idle again
                await ctx.tick()

    run_clocked(fabric, bench)
    return latencies


#: Zero-load latency by hop mode and hop count, of packets of 1, 2 and 4 flits, in
#: cycles from the head accepted on ``local_in`` to the tail on ``local_out``,
#: derived by hand from the pipeline. Buffered: the head spends a cycle in the
#: source's injection buffer and one in its output register (2), then a cycle in the
#: input buffer and one in the output register of every router it enters (2 per
#: hop); the flits follow one per cycle (4-flit buffers: credits never stop them), so
#: the tail comes L - 1 cycles later: 2 + 2h + L - 1. Lookahead: an empty buffer's
#: bypass offers the arriving flit to allocation in the cycle it arrives, leaving one
#: cycle (the output register) at the source and per hop: 1 + h + L - 1.
HAND_LATENCIES = {
    "buffered": {0: [2, 3, 5], 1: [4, 5, 7], 2: [6, 7, 9], 3: [8, 9, 11],
                 4: [10, 11, 13]},
    "lookahead": {0: [1, 2, 4], 1: [2, 3, 5], 2: [3, 4, 6], 3: [4, 5, 7],
                  4: [5, 6, 8]},
}


@pytest.mark.parametrize("strapped", [False, True], ids=["constant", "strapped"])
@pytest.mark.parametrize("hop", ["buffered", "lookahead"])
@pytest.mark.parametrize("topology", [Hypercube(3), Metacube(1, 1)],
                         ids=lambda t: t.label)
def test_zero_load_latency_is_the_options_formula(topology, hop, strapped):
    config = FabricConfig.for_topology(topology, payload_width=4, hop=hop)
    distance = distance_matrix(topology)[0]
    # a destination per hop count (0 to 3 in Q(3), 0 to 4 in MC(1,1)), packets of 1, 2
    # and 4 flits
    dests = {int(distance[topology.index(int(a))]): int(a) for a in topology.nodes()}
    assert sorted(dests) == list(range(4 if topology.label == "Q(3)" else 5))
    packets = [(0, dest, flits) for dest in dests.values() for flits in (1, 2, 4)]
    expected = [latency for hops in dests for latency in HAND_LATENCIES[hop][hops]]
    assert packet_latencies(Fabric(config, strapped=strapped), packets) == expected


@pytest.mark.parametrize("routing, hop, strapped", fast_and_slow(
    [Adaptive(1), Waypoints(1)], ["buffered", "lookahead"], [False, True],
    fast=[(0, 0, 0), (1, 1, 1)]), ids=str)
def test_adaptive_and_waypoint_routers_zero_load_latency_is_the_formula(routing, hop,
                                                                        strapped):
    # the lookahead carries the next router's offered and escape ports, or its
    # waypoint step's port: one cycle a hop, as a deterministic router's
    topology = Metacube(1, 1)
    config = FabricConfig.for_topology(topology, payload_width=4, hop=hop, routing=routing)
    distance = distance_matrix(topology)[0]
    dests = {int(distance[topology.index(int(a))]): int(a) for a in topology.nodes()}
    packets = [(0, dest, flits) for dest in dests.values() for flits in (1, 2, 4)]
    expected = [latency for hops in dests for latency in HAND_LATENCIES[hop][hops]]
    assert [zero_load_latency(config.router, hops, flits) for hops in dests
            for flits in (1, 2, 4)] == expected
    assert packet_latencies(Fabric(config, strapped=strapped), packets) == expected


@pytest.mark.parametrize("hop", ["buffered", "lookahead"])
def test_zero_load_latency_function_gives_the_hand_derived_counts(hop):
    config = RouterConfig.for_topology(Hypercube(2), hop=hop)
    assert {hops: [zero_load_latency(config, hops, flits) for flits in (1, 2, 4)]
            for hops in HAND_LATENCIES[hop]} == HAND_LATENCIES[hop]


def test_zero_load_latency_parameters_are_checked():
    config = RouterConfig.for_topology(Hypercube(2))
    with pytest.raises(ValueError, match="Hops must be a non-negative integer"):
        zero_load_latency(config, -1, 1)
    with pytest.raises(ValueError, match="Packet length in flits must be"):
        zero_load_latency(config, 1, 0)
    with pytest.raises(TypeError, match="must be a RouterConfig"):
        zero_load_latency("Q(2)", 1, 1)


def test_lookahead_heads_carry_a_next_port_field():
    config = RouterConfig.for_topology(Hypercube(4), hop="lookahead")
    layout = config.layout
    assert layout["next_port"].shape.width == Hypercube(4).port_width == 3
    assert layout["next_port"].offset == layout["src"].offset + 4
    assert layout == FlitLayout(4, 16, next_port_bits=3)
    assert "next_port" not in dict(RouterConfig.for_topology(Hypercube(4)).layout)
    assert RouterConfig.for_topology(Hypercube(4), hop="lookahead").as_dict()["hop"] \
        == "lookahead"
    assert "hop" not in RouterConfig.for_topology(Hypercube(4)).as_dict()


def test_adaptive_lookahead_heads_carry_the_next_offered_ports():
    config = RouterConfig.for_topology(Hypercube(4), hop="lookahead", routing=Adaptive(1))
    layout = config.layout
    assert layout["next_offered"].shape.width == Hypercube(4).degree
    assert layout["next_offered"].offset == layout["next_port"].offset + 3
    assert layout.lookahead_bits == 3 + 4
    assert "next_offered" not in dict(RouterConfig.for_topology(
        Hypercube(4), hop="lookahead").layout)


@pytest.mark.parametrize("hop, strapped", fast_and_slow(
    ["buffered", "lookahead"], [False, True], fast=[(1, 1)]), ids=str)
def test_a_replicating_routers_unicast_latency_is_the_formula(hop, strapped):
    # its injection queue replicates (no bypass: one cycle more at the source with
    # lookahead hops); the network hops keep their latency
    topology = Hypercube(3)
    config = FabricConfig.for_topology(topology, payload_width=4, hop=hop,
                                       replication=Broadcast(1))
    distance = distance_matrix(topology)[0]
    dests = {int(distance[topology.index(int(a))]): int(a) for a in topology.nodes()}
    packets = [(0, dest, flits) for dest in dests.values() for flits in (1, 2, 4)]
    expected = [zero_load_latency(config.router, hops, flits) for hops in dests
                for flits in (1, 2, 4)]
    assert packet_latencies(Fabric(config, strapped=strapped), packets) == expected
    extra = 1 if hop == "lookahead" else 0
    assert expected[3:6] == [latency + extra for latency in HAND_LATENCIES[hop][1]]


def test_bad_hop_values_are_refused():
    with pytest.raises(ValueError, match="Hop must be one of 'buffered', 'lookahead', "
                                         "not 'fast'"):
        RouterConfig.for_topology(Hypercube(2), hop="fast")
