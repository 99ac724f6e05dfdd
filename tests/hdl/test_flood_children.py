"""Flood children units against the model's flood of the healthy tree
(:mod:`cubefab.topology.fault_broadcast`): every healthy node of random fault sets,
every input port, broadcasts and multicasts (subcube and member vector)."""

import random

import pytest
from amaranth.sim import Simulator

from cubefab.hdl.route.flood import FloodChildren, beyond_vector, flood_value
from cubefab.topology import DLH, Hypercube, Mcube, Metacube
from cubefab.topology.foldedcube import FoldedCube
from cubefab.topology.broadcast_tree import subcube_members
from cubefab.topology.fault_broadcast import healthy_tree
from cubefab.topology.fault_routing import FaultSet, random_fault_sets
from tests.helpers import refused


NETWORKS = [Hypercube(3), Hypercube(4), Metacube(1, 1), DLH(2, 1), Mcube(3),
            FoldedCube(3)]


def trees(topology, count=4, seed=1):
    """The fault-free tree and ``count`` trees of random fault sets (one or two faulty
    nodes or links) whose healthy network is connected."""
    found = [healthy_tree(topology)]
    for size in (1, 2):
        for faults in random_fault_sets(topology, count, size, seed=seed):
            try:
                found.append(healthy_tree(topology, faults))
            except ValueError:   # (the healthy network is cut in two)
                pass
    return found


def member_cases(topology, rng, count=6):
    """Random member sets: ``(value, mask, members)`` subcubes."""
    bits = topology.address_bits
    cases = []
    for _ in range(count):
        mask = rng.getrandbits(bits)
        value = int(topology.nodes()[rng.randrange(topology.num_nodes)])
        members = {int(a) for a in topology.nodes()[subcube_members(topology, value, mask)]}
        cases.append((value, mask, members))
    return cases


def mismatches(topology, in_port, members, cases):
    """Run ``cases`` (tree, node, member case or None) through the unit of
    ``in_port``; the cases whose children differ from the model's."""
    unit = FloodChildren(topology, in_port, members)
    bad = []

    async def testbench(ctx):
        for tree, node, case in cases:
            ctx.set(unit.flood, flood_value(tree, node, members is not None))
            arrival = None if in_port == topology.degree else in_port
            if members is None:
                expected = tree.flood_ports(node, arrival)
            else:
                value, mask, wanted = case
                if members == "subcube":
                    ctx.set(unit.value, value)
                    ctx.set(unit.mask, mask)
                else:
                    ctx.set(unit.member_vector, sum(1 << topology.index(a) for a in wanted))
                expected = tree.multicast_ports(node, arrival, wanted)
            got = ctx.get(unit.children)
            if got != expected:
                bad.append((node, case, got, expected))

    sim = Simulator(unit)
    sim.add_testbench(testbench)
    sim.run()
    return bad


@pytest.mark.parametrize("members", [None, "subcube", "vector"])
@pytest.mark.parametrize("topology", NETWORKS, ids=lambda t: t.label)
def test_flood_children_equal_the_model(topology, members):
    rng = random.Random(topology.num_nodes)
    forests = trees(topology)
    subcubes = member_cases(topology, rng)
    for in_port in range(topology.degree + 1):
        cases = [(tree, node, case) for tree in forests for node in tree.nodes
                 for case in (subcubes if members else [None])]
        assert mismatches(topology, in_port, members, cases) == [], (topology.label, in_port)


def test_a_broadcast_floods_every_tree_port_but_the_arrival_port():
    tree = healthy_tree(Hypercube(3), FaultSet(Hypercube(3), [0]))
    node = 3
    for in_port in range(3):
        assert mismatches(Hypercube(3), in_port, None, [(tree, node, None)]) == []
    # the source sends on every tree port
    assert mismatches(Hypercube(3), 3, None, [(tree, node, None)]) == []


def test_the_unit_refuses_a_port_outside_the_router():
    with refused(ValueError, match="Input port"):
        FloodChildren(Hypercube(3), 4)


def test_the_unit_refuses_an_unknown_member_form():
    with refused(ValueError, match="Multicast members must be None or one of"):
        FloodChildren(Hypercube(3), 0, "list")


def test_a_port_that_is_no_tree_link_has_nothing_beyond():
    tree = healthy_tree(Hypercube(3), FaultSet(Hypercube(3), [1]))
    # node 0's port 0 leads to the faulty node 1
    assert beyond_vector(tree, 0, 0) == 0
    assert beyond_vector(tree, 1, 0) == 0     # a faulty node has no tree port
