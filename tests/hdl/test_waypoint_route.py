"""The waypoint stage of fault-tolerant routing, exhaustively against the model."""

import itertools

import pytest
from amaranth.sim import Simulator

from cubefab.hdl.route import WaypointRoute
from cubefab.topology import DLH, Hypercube, Metacube
from cubefab.topology.fault_routing import FaultSet, plan_waypoints, waypoint_step
from cubefab.topology.mcube import Mcube


def simulate(unit, vectors):
    """Drive ``unit`` with ``(here, dest, waypoints, phase)`` vectors (``here`` only
    into a unit that reads it); returns ``[(port, phase_out, advanced, target)]``."""
    out = []

    async def bench(ctx):
        for here, dest, waypoints, phase in vectors:
            if unit.node is None:
                ctx.set(unit.here, here)
            ctx.set(unit.dest, dest)
            padded = list(waypoints) + [0] * (unit.waypoints - len(waypoints))
            ctx.set(unit.waypoint, padded)
            ctx.set(unit.count, len(waypoints))
            ctx.set(unit.phase, phase)
            port = ctx.get(unit.port)
            assert ctx.get(unit.request) == 1 << port
            out.append((port, ctx.get(unit.phase_out), ctx.get(unit.advanced),
                        ctx.get(unit.target)))

    sim = Simulator(unit)
    sim.add_testbench(bench)
    sim.run()
    return out


def expected(topology, vectors):
    rows = []
    for here, dest, waypoints, phase in vectors:
        port, phase_out = waypoint_step(topology, here, dest, waypoints, phase)
        target = waypoints[phase_out] if phase_out < len(waypoints) else dest
        rows.append((port, phase_out, int(phase_out != phase), target))
    return rows


@pytest.mark.parametrize("topology", [Hypercube(3), Metacube(1, 1)], ids=lambda t: t.label)
def test_every_input_with_one_waypoint(topology):
    nodes = [int(a) for a in topology.nodes()]
    vectors = [(h, d, ws, p) for h, d in itertools.product(nodes, nodes)
               for ws in [()] + [(w,) for w in nodes] for p in range(len(ws) + 1)]
    assert simulate(WaypointRoute(topology, 1), vectors) == expected(topology, vectors)


def test_hop_by_hop_routes_of_a_two_waypoint_fault_set():
    topology = DLH(2, 1)
    routing = plan_waypoints(topology, FaultSet(topology, [0, 1, 12]))
    unit = WaypointRoute(topology, 2)
    vectors = []
    for (s, t), waypoints in routing.waypoints.items():
        path, phase = routing.route(s, t), 0
        for here in path:
            vectors.append((here, t, waypoints, phase))
            phase = waypoint_step(topology, here, t, waypoints, phase)[1]
    got = simulate(unit, vectors)
    assert got == expected(topology, vectors)
    assert {row[1] for row in got} == {0, 1, 2}


def test_constant_node_unit():
    topology = Metacube(1, 2)
    unit = WaypointRoute(topology, 2, node=5)
    assert not hasattr(unit, "here")
    vectors = [(5, d, ws, p) for d in range(32) for ws in [(5, 9), (9, 5), (7, 5)]
               for p in range(3)]
    assert simulate(unit, vectors) == expected(topology, vectors)


@pytest.mark.parametrize("args, error, match", [
    ((Hypercube(3), 0), ValueError, "Number of waypoints"),
    ((Metacube(1, 1), 1, None, "paper"), ValueError, "reads the header field"),
    ((Mcube(3), 1), ValueError, "modelled for"),
    ((DLH(3, 1), 1, 4), ValueError, "node 4 is not a node"),
])
def test_bad_parameters_are_refused(args, error, match):
    with pytest.raises(error, match=match):
        WaypointRoute.check(*args)


@pytest.mark.parametrize("topology", [Hypercube(3), Metacube(1, 1)], ids=lambda t: t.label)
def test_every_input_with_two_waypoints(topology):
    # 64 (here, dest) x (1 + 8 x 2 + 64 x 3) (header, phase) = 13 376 vectors each, ~2 s
    nodes = [int(a) for a in topology.nodes()]
    headers = [()] + [(w,) for w in nodes] + list(itertools.product(nodes, nodes))
    vectors = [(h, d, ws, p) for h, d in itertools.product(nodes, nodes)
               for ws in headers for p in range(len(ws) + 1)]
    assert simulate(WaypointRoute(topology, 2), vectors) == expected(topology, vectors)
