"""One-port send order units against the model's one-port schedules."""

import pytest
from amaranth.sim import Simulator

from cubefab.hdl.route.one_port import OnePortSends
from cubefab.topology import DLH, Hypercube, Mcube, Metacube
from cubefab.topology.broadcast import validate_schedule
from cubefab.topology.broadcast_tree import one_port_tree


ids = lambda t: t.label          # noqa: E731


def unit_schedule(topology, source, units):
    """The schedule the units of every node send from ``source``."""
    steps = {}
    for node, unit in units.items():
        for index in range(unit.max_sends + 1):
            port, step = read(unit, source, index)
            if port == topology.degree:
                assert step == 0
                break
            steps.setdefault(step, []).append((node, topology.neighbor(node, port)))
    return [sorted(steps.get(t, [])) for t in range(1, max(steps, default=0) + 1)]


def read(unit, source, index):
    out = {}

    async def testbench(ctx):
        ctx.set(unit.source, source)
        ctx.set(unit.index, index)
        out["v"] = ctx.get(unit.port), ctx.get(unit.step)

    sim = Simulator(unit)
    sim.add_testbench(testbench)
    sim.run()
    return out["v"]


@pytest.mark.parametrize("topology", [Hypercube(3), Metacube(1, 1), DLH(2, 1), Mcube(3)],
                         ids=ids)
def test_units_of_every_node_send_the_models_schedule(topology):
    nodes = topology.nodes().tolist()
    units = {node: OnePortSends(topology, node) for node in nodes}
    for source in nodes[::3]:
        model = one_port_tree(topology, source)
        got = unit_schedule(topology, source, units)
        assert got == [sorted(step) for step in model.schedule()]
        assert validate_schedule(topology, source, got, "one-port").ok


@pytest.mark.parametrize("topology", [Metacube(1, 2), DLH(2, 2)], ids=ids)
def test_one_unit_answers_every_source_and_index(topology):
    node = topology.nodes().tolist()[5]
    unit = OnePortSends(topology, node)
    expected = {s: one_port_tree(topology, s).sends[node] for s in topology.nodes().tolist()}
    bad = []

    async def testbench(ctx):
        for s, sends in expected.items():
            ctx.set(unit.source, s)
            for i in range(unit.max_sends + 1):
                ctx.set(unit.index, i)
                want = sends[i][::-1] if i < len(sends) else (topology.degree, 0)
                if (ctx.get(unit.port), ctx.get(unit.step)) != tuple(want):
                    bad.append((s, i))

    sim = Simulator(unit)
    sim.add_testbench(testbench)
    sim.run()
    assert bad == []


def test_unit_refuses_bad_parameters():
    with pytest.raises(ValueError, match="at most 1024"):
        OnePortSends.check(Hypercube(11), 0)
    with pytest.raises(ValueError, match="node"):
        OnePortSends.check(Hypercube(3), 8)
    with pytest.raises(TypeError, match="Topology"):
        OnePortSends.check(None, 0)
    with pytest.raises(ValueError, match="'here' input"):
        OnePortSends.check(Hypercube(8), None)


@pytest.mark.parametrize("topology", [Hypercube(3), Metacube(1, 1), DLH(2, 1), Mcube(3)],
                         ids=ids)
def test_strapped_unit_sends_every_nodes_schedule(topology):
    # exhaustive: every (here, source, index), against the model's sends of ``here``
    unit = OnePortSends(topology, None)
    nodes = topology.nodes().tolist()
    bad = []

    async def testbench(ctx):
        for here in nodes:
            ctx.set(unit.here, here)
            for s in nodes:
                ctx.set(unit.source, s)
                sends = one_port_tree(topology, s).sends[here]
                for i in range(unit.max_sends + 1):
                    ctx.set(unit.index, i)
                    want = sends[i][::-1] if i < len(sends) else (topology.degree, 0)
                    if (ctx.get(unit.port), ctx.get(unit.step)) != tuple(want):
                        bad.append((here, s, i))
                if ctx.get(unit.children) != sum(1 << p for _, p in sends):
                    bad.append((here, s, "children"))

    sim = Simulator(unit)
    sim.add_testbench(testbench)
    sim.run()
    assert bad == []
