"""Broadcast children units against the model's broadcast trees, exhaustively."""

import pytest
from amaranth.hdl import Elaboratable, Fragment, Module, Signal
from amaranth.sim import Simulator

from cubefab.hdl.route.broadcast import (BroadcastChildren, TableBroadcastChildren,
                                         broadcast_children_unit)
from cubefab.topology import DLH, Hypercube, Mcube, Metacube
from cubefab.topology.broadcast_tree import broadcast_tree


ids = lambda t: t.label          # noqa: E731


def reference(topology):
    return {s: broadcast_tree(topology, s).children for s in topology.nodes().tolist()}


def straps_mismatches(topology, unit=None):
    """(here, source, unit's children, model's) of every pair where they differ."""
    unit = unit or broadcast_children_unit(topology, None)
    ref = reference(topology)
    nodes = topology.nodes().tolist()
    bad = []

    async def testbench(ctx):
        for here in nodes:
            ctx.set(unit.here, here)
            for s in nodes:
                ctx.set(unit.source, s)
                want = int(ref[s][topology.index(here)])
                got = ctx.get(unit.children)
                if got != want:
                    bad.append((here, s, got, want))

    sim = Simulator(unit)
    sim.add_testbench(testbench)
    sim.run()
    return bad


class Bank(Elaboratable):
    """Constant-node units of several nodes sharing one ``source`` input."""

    def __init__(self, topology, nodes):
        self.units = [broadcast_children_unit(topology, node) for node in nodes]
        self.source = Signal(topology.address_bits)

    def elaborate(self, platform):
        m = Module()
        for i, unit in enumerate(self.units):
            m.submodules[f"unit{i}"] = unit
            m.d.comb += unit.source.eq(self.source)
        return m


@pytest.mark.parametrize("topology", [Hypercube(4), Metacube(1, 2), Metacube(2, 1),
                                      DLH(2, 1), DLH(3, 1), Mcube(4), Mcube(5)], ids=ids)
def test_straps_unit_equals_the_model_for_every_pair(topology):
    assert straps_mismatches(topology) == []


@pytest.mark.slow
@pytest.mark.parametrize("topology", [DLH(4, 3), Hypercube(7), Metacube(1, 3), Mcube(7)],
                         ids=ids)
def test_straps_unit_equals_the_model_on_larger_networks(topology):
    assert straps_mismatches(topology) == []


@pytest.mark.parametrize("topology", [Hypercube(5), Metacube(2, 1), DLH(2, 2), Mcube(5)],
                         ids=ids)
def test_constant_node_units_equal_the_model(topology):
    nodes = topology.nodes().tolist()
    chosen = nodes[::max(1, len(nodes) // 6)]
    bank = Bank(topology, chosen)
    ref = reference(topology)
    bad = []

    async def testbench(ctx):
        for s in nodes:
            ctx.set(bank.source, s)
            for here, unit in zip(chosen, bank.units):
                if ctx.get(unit.children) != int(ref[s][topology.index(here)]):
                    bad.append((here, s))

    sim = Simulator(bank)
    sim.add_testbench(testbench)
    sim.run()
    assert bad == []


def test_the_check_catches_another_networks_trees():
    # Mcube(3) and Q(3) share addresses and degree, not trees
    assert straps_mismatches(Hypercube(3), TableBroadcastChildren(Mcube(3), None))


@pytest.mark.parametrize("topology, cls", [(Hypercube(3), BroadcastChildren),
                                           (Metacube(1, 1), BroadcastChildren),
                                           (DLH(2, 1), BroadcastChildren),
                                           (Mcube(3), TableBroadcastChildren)], ids=str)
def test_factory_picks_route_units_where_the_tree_routing_has_them(topology, cls):
    unit = broadcast_children_unit(topology)
    assert type(unit) is cls
    Fragment.get(unit, None)


def test_mcube_has_no_route_unit_for_its_tree_routing():
    with pytest.raises(ValueError, match="TableBroadcastChildren"):
        BroadcastChildren.check(Mcube(4))


def test_table_unit_with_straps_refuses_large_networks():
    with pytest.raises(ValueError, match="constant node"):
        TableBroadcastChildren.check(Mcube(8), None)
    Fragment.get(TableBroadcastChildren(Mcube(8), 3), None)


def test_units_refuse_bad_parameters():
    with pytest.raises(TypeError, match="Topology"):
        broadcast_children_unit("Q(3)")
    with pytest.raises(ValueError, match="node"):
        broadcast_children_unit(Hypercube(3), 8)
