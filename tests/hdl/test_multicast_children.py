"""Multicast children units against the model's pruned trees."""

import numpy as np
import pytest
from amaranth.hdl import Fragment
from amaranth.sim import Simulator

from cubefab.hdl.route.multicast import MulticastChildren
from cubefab.topology import DLH, Hypercube, Mcube, Metacube
from cubefab.topology.broadcast_tree import multicast_tree, subcube_members


ids = lambda t: t.label          # noqa: E731


def mismatches(topology, node, members, cases):
    """Run ``cases`` (source, value, mask) or (source, bool vector) through the unit."""
    unit = MulticastChildren(topology, node, members)
    here = topology.index(node)
    bad = []

    async def testbench(ctx):
        for case in cases:
            source = case[0]
            ctx.set(unit.source, source)
            if members == "subcube":
                _, value, mask = case
                ctx.set(unit.value, value)
                ctx.set(unit.mask, mask)
                wanted = subcube_members(topology, value, mask)
            else:
                wanted = case[1]
                ctx.set(unit.member_vector, sum(1 << i for i, b in enumerate(wanted) if b))
            expected = int(multicast_tree(topology, source, wanted).children[here])
            got = ctx.get(unit.children)
            if got != expected:
                bad.append((case, got, expected))

    sim = Simulator(unit)
    sim.add_testbench(testbench)
    sim.run()
    return bad


@pytest.mark.parametrize("topology", [Hypercube(4), Metacube(1, 2), DLH(2, 1), Mcube(4)],
                         ids=ids)
def test_subcube_unit_equals_the_pruned_tree(topology):
    rng = np.random.default_rng(11)
    nodes = topology.nodes().tolist()
    top = 1 << topology.address_bits
    for node in nodes[::max(1, len(nodes) // 3)]:
        cases = [(s, int(rng.choice(nodes)), int(rng.integers(top)))
                 for s in nodes for _ in range(3)]
        assert mismatches(topology, node, "subcube", cases) == []


@pytest.mark.parametrize("topology", [Metacube(1, 2), DLH(2, 1)], ids=ids)
def test_vector_unit_equals_the_pruned_tree(topology):
    rng = np.random.default_rng(5)
    nodes = topology.nodes().tolist()
    for node in nodes[::max(1, len(nodes) // 3)]:
        cases = [(s, rng.random(len(nodes)) < rng.choice([0.05, 0.3]))
                 for s in nodes for _ in range(3)]
        assert mismatches(topology, node, "vector", cases) == []


def test_full_subcube_is_the_broadcast_and_the_empty_set_sends_nothing():
    topology = Hypercube(3)
    every = [(s, 0, 0) for s in range(8)]                     # mask 0: every node
    assert mismatches(topology, 0, "subcube", every) == []
    unit = MulticastChildren(topology, 0, "vector")

    async def testbench(ctx):
        for s in range(8):
            ctx.set(unit.source, s)
            ctx.set(unit.member_vector, 1 << s)               # only the source itself
            assert ctx.get(unit.children) == 0

    sim = Simulator(unit)
    sim.add_testbench(testbench)
    sim.run()


def test_unit_refuses_bad_parameters():
    with pytest.raises(ValueError, match="at most 1024"):
        MulticastChildren.check(Hypercube(11), 0)
    with pytest.raises(ValueError, match="members"):
        MulticastChildren.check(Hypercube(3), 0, "list")
    with pytest.raises(ValueError, match="node"):
        MulticastChildren.check(Hypercube(3), 9)
    with pytest.raises(ValueError, match="'here' input"):
        MulticastChildren.check(Hypercube(8), None)
    Fragment.get(MulticastChildren(Hypercube(3), 1, "vector"), None)


@pytest.mark.parametrize("topology", [Hypercube(3), Metacube(1, 1), Mcube(3),
                                      pytest.param(DLH(2, 1), marks=pytest.mark.slow)],
                         ids=ids)
def test_strapped_vector_unit_equals_the_pruned_tree_at_every_node(topology):
    # exhaustive over (here, source) and the single-member sets (the children are an
    # OR over members: one member at a time reads every subtree bit), with all members
    # and none; is_member against the member bit of ``here``
    unit = MulticastChildren(topology, None, "vector")
    nodes = topology.nodes().tolist()
    sets = [np.eye(len(nodes), dtype=bool)[j] for j in range(len(nodes))]
    sets += [np.ones(len(nodes), dtype=bool), np.zeros(len(nodes), dtype=bool)]
    bad = []

    async def testbench(ctx):
        for here in nodes:
            ctx.set(unit.here, here)
            for s in nodes:
                ctx.set(unit.source, s)
                for wanted in sets:
                    ctx.set(unit.member_vector,
                            sum(1 << i for i, b in enumerate(wanted) if b))
                    tree = multicast_tree(topology, s, wanted)
                    if ctx.get(unit.children) != int(tree.children[topology.index(here)]):
                        bad.append((here, s, wanted.nonzero()))
                    if ctx.get(unit.is_member) != wanted[topology.index(here)]:
                        bad.append((here, s, "is_member"))

    sim = Simulator(unit)
    sim.add_testbench(testbench)
    sim.run()
    assert bad == []


@pytest.mark.parametrize("topology", [Hypercube(3), Metacube(1, 1), Mcube(3),
                                      pytest.param(DLH(2, 1), marks=pytest.mark.slow)],
                         ids=ids)
def test_strapped_subcube_unit_equals_the_pruned_tree_at_every_node(topology):
    # exhaustive over (here, source, value, mask) on these 3-bit networks
    unit = MulticastChildren(topology, None, "subcube")
    nodes = topology.nodes().tolist()
    top = 1 << topology.address_bits
    bad = []

    async def testbench(ctx):
        for s in nodes:
            ctx.set(unit.source, s)
            for value in range(top):
                ctx.set(unit.value, value)
                for mask in range(top):
                    ctx.set(unit.mask, mask)
                    tree = multicast_tree(topology, s, subcube_members(topology, value, mask))
                    for here in nodes:
                        ctx.set(unit.here, here)
                        if ctx.get(unit.children) != int(tree.children[topology.index(here)]):
                            bad.append((here, s, value, mask))

    sim = Simulator(unit)
    sim.add_testbench(testbench)
    sim.run()
    assert bad == []
