"""Replicating routers: broadcast copies follow the model's trees, on the model's VCs."""

import pytest

from cubefab.hdl.config import FabricConfig, RouterConfig
from cubefab.hdl.fabric import Fabric
from cubefab.hdl.modes import Adaptive, Broadcast, Multicast, Waypoints, parts
from cubefab.hdl.router import Router
from cubefab.topology import DLH, Hypercube, Mcube, Metacube, bfs_distances
from cubefab.topology.broadcast_deadlock import (BroadcastDeadlockError, broadcast_next_vc,
                                                 check_broadcast, required_broadcast_vcs)
from cubefab.topology.broadcast_tree import (broadcast_tree, member_array, multicast_tree,
                                            one_port_tree, subcube_members)
from tests.hdl.broadcast_helpers import broadcast_fabric
from tests.hdl.fabric_helpers import run_packets
from tests.helpers import child_ports, never_elaborated, refused


def tree_hops(topology, source, vcs, model="all-port"):
    """``{(u, port): vc}`` of the tree of ``source`` (of ``model``), VCs by
    ``broadcast_next_vc`` (within the broadcast class), walked from the source."""
    degree = topology.degree
    if model == "one-port":
        tree = one_port_tree(topology, source)
        children = {u: [p for _, p in sends] for u, sends in tree.sends.items()}
    else:
        tree = broadcast_tree(topology, source)
        children = {int(u): child_ports(tree, int(u)) for u in topology.nodes()}
    hops, todo = {}, [(source, degree, 0)]
    while todo:
        here, in_port, vc_in = todo.pop()
        for port in children[here]:
            vc = broadcast_next_vc(topology, here, in_port, port, vc_in, vcs, model)
            hops[here, port] = vc
            child = topology.neighbor(here, port)
            todo.append((child, topology.port(child, here), vc))
    return hops


def check_broadcasts(fabric, record, packets):
    """Every broadcast of ``packets`` crossed exactly its tree's links (a multicast's:
    the tree pruned to its members: the subcube ``(dest, mmask)`` or the addresses
    ``members``), each once and whole, on the
    rule's VCs, and reached every node but its source (every member) exactly once,
    intact; nothing else moved."""
    topo = fabric.topology
    config = fabric.config.router
    model = config.broadcast_model
    first = config.link_vcs - config.broadcast_vcs
    assert not record["overflow"]
    for pkt in packets:
        s, n = pkt["src"], pkt["flits"]
        members = (member_array(topo, pkt["members"]) if "members" in pkt
                   else subcube_members(topo, pkt["dest"], pkt.get("mmask", 0)))
        if model == "one-port":
            links = {(u, topo.port(u, v)) for u, v in one_port_tree(topo, s).edges()}
        else:
            pruned = multicast_tree(topo, s, members)
            links = {(u, topo.port(u, v)) for u, v in pruned.edges()}
        want = {hop: first + vc for hop, vc in
                tree_hops(topo, s, config.broadcast_vcs, model).items() if hop in links}
        seen = {}
        for _, u, p, f in record["links"]:
            if f["src"] == s and f["payload"] >> 4 == pkt["tag"]:
                seen.setdefault((u, p), []).append(f)
        assert set(seen) == set(want), (s, set(seen) ^ set(want))
        for hop, flits in seen.items():
            assert [f["payload"] & 15 for f in flits] == list(range(n)), (s, hop)
            assert {f["vc"] for f in flits} == {want[hop]}, (s, hop)
            assert all(f["bcast"] for f in flits)
        got = {}
        for _, v, f in record["local"]:
            if f["src"] == s and f["payload"] >> 4 == pkt["tag"]:
                got.setdefault(v, []).append(f)
        others = {int(a) for a, member in zip(topo.nodes(), members) if member} - {s}
        assert set(got) == others, (s, set(got) ^ others)
        for v, flits in got.items():
            assert [(f["head"], f["tail"], f["payload"] & 15) for f in flits] == \
                [(int(i == 0), int(i == n - 1), i) for i in range(n)], (s, v)


def broadcast(src, flits=2, at=0, tag=1):
    return {"src": src, "dest": 0, "bcast": 1, "flits": flits, "at": at, "tag": tag}


def test_a_broadcast_reaches_every_other_node_once_in_the_eccentricity():
    # Q(3) from node 5: every node at its BFS distance, the last at the eccentricity
    topo = Hypercube(3)
    fabric = broadcast_fabric(topo)
    packets = [broadcast(5, flits=3)]
    record = run_packets(fabric, packets, 30)
    check_broadcasts(fabric, record, packets)
    tails = {v: cycle for cycle, v, f in record["local"] if f["tail"]}
    dist = bfs_distances(topo, 5)
    for v, cycle in tails.items():
        # the head offered in cycle 0: out of a node d hops away in 2 + 2d (2 cycles in
        # the source router, 2 per hop: test_router.test_zero_load_latencies), the
        # tail two flits later
        assert cycle == 4 + 2 * dist[topo.index(v)], v
    assert max(tails.values()) == 10    # the eccentricity, 3 hops


def every_source_at_once(fabric, cycles):
    """Every node broadcasts in the same cycle, with a unicast packet from every node
    among them; run ``cycles(N)`` cycles, check the broadcasts (:func:`check_broadcasts`)
    and that each unicast arrived whole; returns the record and the broadcasts."""
    nodes = [int(a) for a in fabric.topology.nodes()]
    packets = [broadcast(s, flits=2, tag=i + 1) for i, s in enumerate(nodes)]
    unicast = [{"src": s, "dest": nodes[-1 - i], "bcast": 0, "flits": 2, "at": 0,
                "tag": 0} for i, s in enumerate(nodes) if nodes[-1 - i] != s]
    record = run_packets(fabric, packets + unicast, cycles(len(nodes)))
    check_broadcasts(fabric, record, packets)
    for pkt in unicast:
        got = [v for _, v, f in record["local"] if f["src"] == pkt["src"] and not f["bcast"]]
        assert got == [pkt["dest"]] * 2
    return record, packets


@pytest.mark.parametrize("topology, settings", [
    (Hypercube(3), {}),
    (Metacube(1, 1), {}),
    pytest.param(Metacube(1, 1), {"strapped": True}, marks=pytest.mark.slow),
    pytest.param(DLH(2, 1), {}, marks=pytest.mark.slow),
    pytest.param(DLH(2, 1), {"strapped": True, "turns": "all"}, marks=pytest.mark.slow),
    (Mcube(3), {"algorithm": "ecube"}),
    (Mcube(3), {"algorithm": "ecube", "strapped": True}),
], ids=lambda x: getattr(x, "label", None) or "-".join(map(str, x.values())))
def test_every_source_broadcasts_along_its_tree_at_once(topology, settings):
    every_source_at_once(broadcast_fabric(topology, **settings), lambda n: 40 + 4 * n)


def test_the_unicast_router_is_unchanged_without_broadcast_vcs():
    config = RouterConfig.for_topology(Hypercube(2), payload_width=4)
    assert "bcast" not in dict(config.layout)
    assert "broadcast_vcs" not in config.as_dict()
    assert "bcast" in dict(RouterConfig.for_topology(Hypercube(2), payload_width=4,
                                                     replication=Broadcast(1)).layout)


def test_too_few_broadcast_vcs_is_a_deadlock():
    topo = DLH(2, 2)
    assert required_broadcast_vcs(topo) > 1
    with pytest.raises(BroadcastDeadlockError, match="broadcast VC"):
        FabricConfig.for_topology(topo, replication=Broadcast(1))


def test_a_fault_tolerant_router_floods_on_one_broadcast_vc():
    config = RouterConfig.for_topology(Hypercube(2), routing=Waypoints(2),
                                       replication=Broadcast(1))
    assert config.floods and config.link_vcs == (2 + 1) * config.vcs + 1
    with pytest.raises(ValueError, match="on one broadcast VC"):
        RouterConfig.for_topology(Hypercube(2), routing=Waypoints(2),
                                  replication=Broadcast(2))


def test_an_adaptive_router_replicates_on_vcs_after_its_adaptive_ones():
    config = RouterConfig.for_topology(DLH(2, 1), routing=Adaptive(2),
                                       replication=Broadcast(2))
    assert (config.vcs, config.adaptive_vcs, config.broadcast_vcs) == (2, 2, 2)
    assert config.link_vcs == 6 and {"bcast", "cls"} <= set(dict(config.layout))


@pytest.mark.parametrize("topology, settings", [
    (Hypercube(3), {}), (Metacube(1, 1), {}), (Mcube(3), {"algorithm": "ecube"})],
    ids=lambda x: getattr(x, "label", None))
def test_every_source_multicasts_to_a_subcube_along_its_pruned_tree(topology, settings):
    import random
    rng = random.Random(topology.label)
    bits = topology.address_bits
    fabric = broadcast_fabric(topology, multicast=True, **settings)
    nodes = [int(a) for a in topology.nodes()]
    packets = []
    for i, s in enumerate(nodes):
        mask = 0 if i == 0 else rng.randrange(1 << bits)     # mask 0: a broadcast
        packets.append({"src": s, "dest": rng.choice(nodes), "mmask": mask, "bcast": 1,
                        "flits": 2, "at": 0, "tag": i + 1})
    record = run_packets(fabric, packets, 40 + 4 * len(nodes))
    check_broadcasts(fabric, record, packets)


@pytest.mark.parametrize("topology, settings", [
    (Hypercube(3), {}), (Metacube(1, 1), {}),
    pytest.param(DLH(2, 1), {}, marks=pytest.mark.slow)],
    ids=lambda x: getattr(x, "label", None))
def test_every_source_multicasts_to_named_members_along_its_pruned_tree(topology, settings):
    import random
    rng = random.Random(topology.label)
    fabric = broadcast_fabric(topology, multicast="vector", **settings)
    nodes = [int(a) for a in topology.nodes()]
    packets = []
    for i, s in enumerate(nodes):
        # the first names every node (a broadcast), the second only its source (nobody)
        members = (nodes if i == 0 else [s] if i == 1 else
                   rng.sample(nodes, rng.randrange(1, len(nodes) + 1)))
        packets.append({"src": s, "dest": s, "members": members, "bcast": 1,
                        "flits": 2, "at": 0, "tag": i + 1})
    record = run_packets(fabric, packets, 40 + 4 * len(nodes))
    check_broadcasts(fabric, record, packets)


def test_member_vector_multicast_is_for_small_networks():
    config = RouterConfig.for_topology(Hypercube(3), replication=Multicast(1, form='vector'))
    assert dict(config.layout)["members"].width == 8 and "mmask" not in dict(config.layout)
    with pytest.raises(ValueError, match="at most 256 nodes"):
        RouterConfig.for_topology(Hypercube(9), replication=Multicast(1, form='vector'))
    with pytest.raises(ValueError, match="Multicast form must be one of 'subcube', 'vector'"):
        Multicast(1, form="list")


def test_multicast_routers_with_straps_are_built_up_to_128_nodes():
    config = RouterConfig.for_topology(Hypercube(2), replication=Multicast(1))
    assert "mmask" in dict(config.layout)
    assert "here" in Router(config, None).signature.members
    with refused(ValueError, match="subcube multicast routers with address straps "
                                   "tabulate every .node, source. pair; they are built "
                                   "for at most 128 nodes, not 256"):
        Router(RouterConfig.for_topology(Hypercube(8), replication=Multicast(1)), None)
    with pytest.raises(ValueError, match="Multicast needs broadcast VCs"):
        parts(multicast="subcube")


# -- one-port replication -----------------------------------------------------------------

def check_one_port_order(fabric, record, packets):
    """Every node sent each broadcast's copies in its schedule's order, each copy's head
    after the previous copy's tail (one port at a time)."""
    topo = fabric.topology
    for pkt in packets:
        s = pkt["src"]
        heads, tails = {}, {}
        for cycle, u, p, f in record["links"]:
            if f["src"] == s and f["bcast"] and f["payload"] >> 4 == pkt["tag"]:
                if f["head"]:
                    heads[u, p] = cycle
                if f["tail"]:
                    tails[u, p] = cycle
        for u, sends in one_port_tree(topo, s).sends.items():
            ports = [p for _, p in sends]
            assert sorted(ports, key=lambda p: heads[u, p]) == ports, (s, u)
            for a, b in zip(ports, ports[1:]):
                assert heads[u, b] > tails[u, a], (s, u, a, b)


@pytest.mark.parametrize("topology, settings", [
    (Hypercube(3), {}),
    (Metacube(1, 1), {}),
    pytest.param(DLH(2, 1), {}, marks=pytest.mark.slow),
    (Mcube(3), {"algorithm": "ecube"}),
], ids=lambda x: getattr(x, "label", None) or "-".join(map(str, x.values())))
def test_every_source_broadcasts_one_port_at_once(topology, settings):
    # every node broadcasts in the same cycle, with unicast packets among them: the
    # copies cross the one-port tree's links in the schedule's order, on the rule's VCs
    fabric = broadcast_fabric(topology, broadcast_model="one-port", **settings)
    record, packets = every_source_at_once(fabric, lambda n: 60 + 6 * n)
    check_one_port_order(fabric, record, packets)


def test_one_port_copies_leave_back_to_back():
    # one broadcast alone on Q(3) from 5: the source sends on ports 0, 1, 2, each head
    # the cycle after the previous tail was granted (L = 3 flits apart)
    topo = Hypercube(3)
    fabric = broadcast_fabric(topo, broadcast_model="one-port")
    packets = [broadcast(5, flits=3)]
    record = run_packets(fabric, packets, 40)
    check_broadcasts(fabric, record, packets)
    heads = {p: c for c, u, p, f in record["links"] if u == 5 and f["head"]}
    assert [p for _, p in one_port_tree(topo, 5).sends[5]] == [0, 1, 2]
    assert heads[1] - heads[0] == heads[2] - heads[1] == 3


def test_one_port_routers_are_validated():
    with pytest.raises(ValueError, match="A broadcast model needs broadcast VCs"):
        parts(broadcast_model="one-port")
    with pytest.raises(ValueError, match="model must be one of"):
        Broadcast(1, model="two-port")
    with pytest.raises(ValueError, match="Multicast needs the all-port broadcast model"):
        parts(broadcast_vcs=1, multicast="subcube", broadcast_model="one-port")
    config = RouterConfig.for_topology(Hypercube(2), replication=Broadcast(1, model='one-port'))
    assert config.as_dict()["broadcast_model"] == "one-port"
    assert "broadcast_model" not in RouterConfig.for_topology(
        Hypercube(2), replication=Broadcast(1)).as_dict()
    assert "here" in Router(config, None).signature.members
    with refused(ValueError, match="one-port broadcast routers with address straps"):
        Router(RouterConfig.for_topology(
            Hypercube(8), replication=Broadcast(1, model="one-port")), None)


def test_too_few_broadcast_vcs_is_a_one_port_deadlock():
    with pytest.raises(BroadcastDeadlockError, match="one-port"):
        FabricConfig.for_topology(DLH(2, 2), replication=Broadcast(1, model='one-port'))


@pytest.mark.parametrize("replication", [
    lambda vcs: Broadcast(vcs, "one-port"), lambda vcs: Multicast(vcs),
    lambda vcs: Multicast(vcs, "vector")], ids=["one-port", "subcube", "vector"])
@pytest.mark.parametrize("topology, settings", [
    (Hypercube(3), {}), (Metacube(1, 1), {}), (DLH(2, 1), {}),
    (Mcube(3), {"algorithm": "ecube"})], ids=lambda x: getattr(x, "label", ""))
def test_strapped_replicating_fabrics_stand_on_the_configurations_proof(
        topology, settings, replication):
    # the straps change where the units' tables come from, not the trees or the VC
    # rule: the one deadlock proof of the configuration (the channel dependencies of
    # its trees) is made before a fabric of either form is built
    model = "one-port" if isinstance(replication(1), Broadcast) else "all-port"
    vcs = required_broadcast_vcs(topology, model)
    config = FabricConfig.for_topology(topology, replication=replication(vcs), **settings)
    router = config.router
    assert check_broadcast(topology, router.algorithm, router.vc_classes, vcs,
                           model=model).deadlock_free
    with never_elaborated():
        assert all(r.node is None for r in Fabric(config, strapped=True).routers)
    if vcs > 1:
        with pytest.raises(BroadcastDeadlockError):
            FabricConfig.for_topology(topology, replication=replication(vcs - 1), **settings)
