"""Broadcast trees: depth against BFS, children from (source, here), one-port order
against the papers' schedules, multicast pruning."""

import numpy as np
import pytest

from cubefab.topology import DLH, Hypercube, Mcube, Metacube
from cubefab.topology.adaptive import minimal_port_masks
from cubefab.topology.broadcast import broadcast_schedule, lower_bounds, validate_schedule
from cubefab.topology.broadcast_tree import (
    back_ports, broadcast_tree, multicast_tree, one_port_tree, parent_ports,
    member_array, member_vector, subcube_members, tree_algorithm)
from cubefab.topology.deadlock import translation_mask
from cubefab.topology.properties import bfs_distances

from tests.helpers import child_ports


FAST = [Hypercube(4), Metacube(1, 2), Metacube(2, 1), DLH(2, 2), DLH(3, 1), Mcube(5)]
SLOW = [Hypercube(6), Metacube(1, 3), Metacube(2, 2), DLH(4, 3), Mcube(7)]
ids = lambda t: t.label          # noqa: E731


def sources(topology, count=12):
    nodes = topology.nodes().tolist()
    return nodes if len(nodes) <= count else nodes[::len(nodes) // count]


def forward(topology, source, children):
    """Copies a node receives and copies each directed link carries when every router
    forwards on its child ports (the per-node decision alone)."""
    received = {int(a): 0 for a in topology.nodes()}
    links = {}
    frontier = [source]
    while frontier:
        nxt = []
        for u in frontier:
            mask = int(children[topology.index(u)])
            for p in range(topology.degree):
                if mask >> p & 1:
                    v = topology.neighbor(u, p)
                    links[u, v] = links.get((u, v), 0) + 1
                    received[v] += 1
                    nxt.append(v)
        frontier = nxt
        assert sum(received.values()) <= topology.num_nodes, "copies loop"
    return received, links


def check_tree(topology, count=12):
    for s in sources(topology, count):
        tree = broadcast_tree(topology, s)
        dist = bfs_distances(topology, s).astype(np.int64)
        assert np.array_equal(tree.depth, dist)
        assert tree.height == lower_bounds(topology, s, "all-port")["eccentricity"]
        received, links = forward(topology, s, tree.children)
        assert received[s] == 0
        assert all(c == 1 for v, c in received.items() if v != s)
        report = validate_schedule(topology, s, tree.schedule(), "all-port")
        assert report.ok and report.num_steps == tree.height


@pytest.mark.parametrize("topology", FAST, ids=ids)
def test_tree_depth_is_the_eccentricity_and_every_node_gets_one_copy(topology):
    check_tree(topology)


@pytest.mark.slow
@pytest.mark.parametrize("topology", SLOW, ids=ids)
def test_tree_depth_is_the_eccentricity_on_larger_networks(topology):
    check_tree(topology, topology.num_nodes)          # every source


@pytest.mark.parametrize("topology", [Hypercube(4), Metacube(2, 1), DLH(3, 2)], ids=ids)
def test_parent_is_the_routings_next_hop_towards_the_source(topology):
    algorithm = tree_algorithm(topology)
    for s in sources(topology, 6):
        tree = broadcast_tree(topology, s)
        for v in topology.nodes().tolist():
            if v != s:
                path = topology.route(v, s, algorithm)
                assert tree.edges().count((path[1], v)) == 1


def test_mcube_parent_is_the_lowest_minimal_port():
    topology = Mcube(6)
    for s in sources(topology, 6):
        masks = minimal_port_masks(topology, s)
        ports = parent_ports(topology, s)
        for i, mask in enumerate(masks.tolist()):
            expected = topology.degree if mask == 0 else (mask & -mask).bit_length() - 1
            assert ports[i] == expected


@pytest.mark.parametrize("topology", [Hypercube(5), Metacube(2, 1), DLH(3, 2)], ids=ids)
def test_translated_parents_equal_the_routing_from_the_source(topology):
    assert translation_mask(topology)
    algorithm = tree_algorithm(topology)
    nodes = topology.nodes().tolist()
    for s in [nodes[-1], nodes[len(nodes) // 3]]:
        direct = [topology.next_port(v, s, algorithm) for v in nodes]
        assert parent_ports(topology, s).tolist() == direct


def test_children_are_the_neighbours_routed_back_here():
    topology = Metacube(1, 2)
    back = back_ports(topology)
    for s in sources(topology, 4):
        tree = broadcast_tree(topology, s)
        for u in topology.nodes().tolist():
            expected = [p for p, w in enumerate(topology.neighbors(u))
                        if w != s and topology.next_port(w, s) == back[p]]
            assert child_ports(tree, u) == expected


def test_mcube_routings_are_not_minimal_so_the_tree_uses_bfs():
    topology = Mcube(6)
    assert tree_algorithm(topology) == "bfs-lowest"
    longer = [(s, t) for s in range(64) for t in range(64)
              if len(topology.route(s, t, "mroute")) - 1 > topology.distance(s, t)]
    assert longer


# -- one-port ---------------------------------------------------------------------------

ONE_PORT = [Hypercube(4), Metacube(1, 2), Metacube(2, 1), DLH(2, 2), DLH(3, 1)]


@pytest.mark.parametrize("topology", ONE_PORT, ids=ids)
def test_one_port_sends_are_the_papers_schedule(topology):
    for s in sources(topology, 8):
        tree = one_port_tree(topology, s)
        paper = broadcast_schedule(topology, s, "one-port")
        assert [sorted(step) for step in tree.schedule()] == [sorted(step) for step in paper.steps]
        assert tree.num_steps == paper.paper_steps
        assert tree.validate().ok
        for sends in tree.sends.values():
            assert len({step for step, _ in sends}) == len(sends)     # one per step


@pytest.mark.parametrize("topology", [Hypercube(5), Metacube(2, 1), DLH(3, 2)], ids=ids)
def test_one_port_sends_depend_on_the_source_class_and_the_relative_address(topology):
    # the sender choice is a function of (source & ~T, here ^ (source & T), step)
    mask = translation_mask(topology)
    for s in sources(topology, 5):
        t = s & mask
        own = one_port_tree(topology, s).sends
        rep = one_port_tree(topology, s ^ t).sends
        assert all(own[x] == rep[x ^ t] for x in own)


@pytest.mark.parametrize("k", [3, 5, 6])
def test_mcube_one_port_binomial_meets_the_log2_bound(k):
    topology = Mcube(k)
    for s in sources(topology, 8):
        tree = one_port_tree(topology, s)
        assert tree.validate().ok
        assert tree.num_steps == lower_bounds(topology, s, "one-port")["lower_bound"] == k


# -- multicast --------------------------------------------------------------------------

def check_multicast(topology, source, members):
    tree = multicast_tree(topology, source, members)
    full = broadcast_tree(topology, source)
    if np.asarray(members).dtype == bool:
        members = topology.nodes()[np.asarray(members)].tolist()
    wanted = set(members) - {source}
    received, links = forward(topology, source, tree.children)
    assert all(c <= 1 for c in links.values())                        # no duplicate on a link
    assert {v for v, c in received.items() if c} >= wanted
    assert all(c == 1 for v, c in received.items() if v in wanted)
    # exactly the links of the members' tree paths (no copy goes anywhere else)
    used = set()
    for v in wanted:
        while v != source:
            u = topology.neighbor(v, int(full.parent[topology.index(v)]))
            used.add((u, v))
            v = u
    assert set(links) == used
    assert (tree.children & ~full.children).sum() == 0
    on = {source} | {v for _, v in used}
    assert {int(a) for a, d in zip(topology.nodes(), tree.depth) if d >= 0} == on
    return tree


@pytest.mark.parametrize("topology", [Hypercube(5), Metacube(2, 1), DLH(3, 2), Mcube(5)],
                         ids=ids)
def test_subcube_multicast_reaches_each_member_once(topology):
    rng = np.random.default_rng(7)
    nodes = topology.nodes()
    for _ in range(6):
        source = int(rng.choice(nodes))
        value = int(rng.choice(nodes))
        mask = int(rng.integers(0, 1 << topology.address_bits))
        check_multicast(topology, source, subcube_members(topology, value, mask))


def test_explicit_multicast_reaches_each_member_once():
    topology = Metacube(1, 2)
    rng = np.random.default_rng(3)
    for _ in range(6):
        members = rng.random(topology.num_nodes) < 0.2
        check_multicast(topology, int(rng.integers(topology.num_nodes)), members)
    check_multicast(topology, 5, [5, 6, 30])


def test_multicast_to_nobody_sends_nothing():
    topology = Hypercube(4)
    tree = multicast_tree(topology, 3, [3])
    assert not tree.children.any()
    assert tree.edges() == []


def test_member_vector_sets_the_bit_of_each_members_dense_index():
    topology = DLH(2, 1)            # addresses are not dense indices
    nodes = [int(a) for a in topology.nodes()]
    picked = [nodes[1], nodes[6]]
    assert member_vector(topology, picked) == 0b1000010
    assert member_vector(topology, member_array(topology, picked)) == 0b1000010
    assert member_vector(topology, np.ones(topology.num_nodes, dtype=bool)) == 0xffff
    with pytest.raises(ValueError, match="member"):
        member_array(topology, [max(nodes) + 1])
    with pytest.raises(ValueError, match="16 entries"):
        member_array(topology, np.ones(3, dtype=bool))


def test_subcube_members_are_the_nodes_matching_value_under_mask():
    topology = Hypercube(4)
    members = subcube_members(topology, 0b1010, 0b1100)
    assert topology.nodes()[members].tolist() == [8, 9, 10, 11]


@pytest.mark.parametrize("value, mask", [(-1, 0), (0, 1 << 4), (True, 0), (0, 1.5)])
def test_subcube_members_refuse_bad_words(value, mask):
    with pytest.raises(ValueError, match="Multicast"):
        subcube_members(Hypercube(4), value, mask)


def test_multicast_refuses_a_mask_of_the_wrong_length():
    with pytest.raises(ValueError, match="16 entries"):
        multicast_tree(Hypercube(4), 0, np.zeros(5, dtype=bool))


def test_tree_refuses_bad_sources_and_topologies():
    with pytest.raises(ValueError, match="source"):
        broadcast_tree(Hypercube(3), 8)
    with pytest.raises(TypeError, match="Topology"):
        broadcast_tree("Q(3)", 0)


def test_subtrees_are_the_nodes_whose_parent_chain_passes_through():
    topology = DLH(2, 2)
    for s in (0, 5):
        tree = broadcast_tree(topology, s)
        inside = tree.subtrees()
        for x in topology.nodes().tolist():
            chain = [x]
            while chain[-1] != s:
                chain.append(topology.neighbor(chain[-1], int(tree.parent[topology.index(chain[-1])])))
            row = inside[:, topology.index(x)]
            assert set(topology.nodes()[row].tolist()) == set(chain)
