"""One broadcast alone in the RTL fabric: arrivals, tree and depth against the model."""

import pytest

from cubefab.sim import verilator_broadcast
from cubefab.sim.broadcast_run import hardware_broadcast, measured_steps
from cubefab.topology import DLH, Hypercube, Mcube, Metacube, bfs_distances
from cubefab.topology.broadcast_tree import broadcast_tree, one_port_tree
from tests.sim.engine_helpers import needs_verilator


@pytest.mark.parametrize("topology, source, settings", [
    (Hypercube(3), 5, {}), (Metacube(1, 1), 3, {}), (Mcube(3), 6, {"algorithm": "ecube"})],
    ids=lambda x: getattr(x, "label", None))
def test_every_copy_arrives_over_its_shortest_path_along_the_models_tree(
        topology, source, settings):
    doc = hardware_broadcast(topology, source, packet_flits=2, **settings)
    dist = bfs_distances(topology, source)
    # a 2-flit copy's tail d hops away: 2 cycles in the source router, 2 per hop
    # (test_router.test_zero_load_latencies), 1 behind the head
    assert doc["arrivals"] == {int(a): 3 + 2 * int(dist[topology.index(int(a))])
                               for a in topology.nodes() if int(a) != source}
    assert sorted(map(tuple, doc["tree"])) == sorted(broadcast_tree(topology, source).edges())
    assert doc["depth"] == int(dist.max()) and doc["injection"] == 2
    assert set(doc["copies"].values()) == {1}


def test_a_broadcast_beats_n_minus_1_unicasts():
    doc = hardware_broadcast(Hypercube(2), 0, packet_flits=2, unicasts=True)
    # the source sends 3 packets of 2 flits one after the other
    assert doc["unicast_injection"] == 6 and doc["injection_ratio"] == 3
    assert doc["unicast_latency"] > doc["latency"] and doc["latency_ratio"] > 1


def test_a_packet_longer_than_a_buffer_is_refused():
    with pytest.raises(ValueError, match="fit a buffer"):
        hardware_broadcast(Hypercube(2), 0, packet_flits=5)


# -- one-port ------------------------------------------------------------------------------

def one_port_arrivals(topology, source, flits):
    """Zero-load tail cycles of a one-port broadcast, from the schedule: a head the
    source offers in cycle 0 would be on its own ``local_out`` in cycle 2, and each hop
    adds 2 cycles (test_router.test_zero_load_latencies) plus ``flits`` cycles per
    copy the sender sent before this one."""
    tree = one_port_tree(topology, source)
    out, todo = {}, [(source, 2)]
    while todo:
        u, at = todo.pop()
        for i, (_, port) in enumerate(tree.sends[u]):
            v = topology.neighbor(u, port)
            out[v] = at + 2 + i * flits
            todo.append((v, out[v]))
    return {v: c + flits - 1 for v, c in out.items()}


ONE_PORT = [(Hypercube(3), {}), (Metacube(1, 1), {}),
            pytest.param(DLH(2, 1), {}, marks=pytest.mark.slow),   # ~35 s
            (Mcube(3), {"algorithm": "ecube"})]


def one_port_case(topology, source, settings):
    doc = hardware_broadcast(topology, source, packet_flits=2, model="one-port", **settings)
    tree = one_port_tree(topology, source)
    assert doc["model"] == "one-port"
    assert set(doc["copies"]) == {int(a) for a in topology.nodes()} - {source}
    assert set(doc["copies"].values()) == {1}
    assert sorted(map(tuple, doc["tree"])) == sorted(tree.edges())
    assert doc["sends"] == {u: [topology.neighbor(u, p) for _, p in sends]
                            for u, sends in tree.sends.items() if sends}
    assert doc["steps"] == tree.num_steps
    if tree.paper_steps is not None:
        assert doc["steps"] == tree.paper_steps
    assert doc["arrivals"] == one_port_arrivals(topology, source, 2)
    return doc


@pytest.fixture(scope="module")
def one_port_docs():
    """``doc(topology, source, settings)``: :func:`one_port_case`'s checked document,
    each broadcast run once in the module (a fabric build is most of a run's seconds)."""
    docs = {}

    def doc(topology, source, settings):
        key = (topology.label, source, tuple(sorted(settings.items())))
        if key not in docs:
            docs[key] = one_port_case(topology, source, settings)
        return docs[key]

    return doc


@pytest.mark.parametrize("topology, settings", ONE_PORT,
                         ids=lambda x: getattr(x, "label", None))
def test_one_port_broadcast_follows_the_schedule_in_its_steps(one_port_docs, topology,
                                                              settings):
    nodes = topology.nodes().tolist()
    for source in (nodes[1], nodes[-2]):
        one_port_docs(topology, source, settings)


@pytest.mark.slow
@pytest.mark.parametrize("topology, settings", ONE_PORT,
                         ids=lambda x: getattr(x, "label", None))
def test_one_port_broadcast_from_every_source(topology, settings):
    # (DLH(2,1), 16 nodes: every second source, about 3 minutes)
    sources = topology.nodes().tolist()
    for source in sources[::2] if topology.num_nodes > 8 else sources:
        one_port_case(topology, source, settings)


def test_one_port_steps_are_the_papers(one_port_docs):
    # Q(n): n steps; Mcube(k): k (binomial over the links); MC(1,1): Theorem 3's count
    # (the same from every source: source 1's broadcasts, which the test above runs)
    assert one_port_docs(Hypercube(3), 1, {})["steps"] == 3
    assert one_port_docs(Mcube(3), 1, {"algorithm": "ecube"})["steps"] == 3
    assert one_port_docs(Metacube(1, 1), 1, {})["steps"] == \
        one_port_tree(Metacube(1, 1), 1).paper_steps


def test_measured_steps_follow_the_departure_order():
    # 0 sends to 1 then 2, 1 to 3: steps 1, 2, 2
    sends, step = measured_steps(0, {(0, 2): 9, (0, 1): 5, (1, 3): 7})
    assert sends == {0: [1, 2], 1: [3]}
    assert step == {0: 0, 1: 1, 2: 2, 3: 2}
    with pytest.raises(ValueError, match="more than one copy"):
        measured_steps(0, {(0, 1): 1, (2, 1): 3, (0, 2): 2})
    with pytest.raises(ValueError, match="never received"):
        measured_steps(0, {(0, 1): 1, (4, 3): 2})


def test_one_port_multicast_is_refused():
    with pytest.raises(ValueError, match="all-port"):
        hardware_broadcast(Hypercube(2), 0, model="one-port", subcube=(0, 0))


# -- the Verilator engine ------------------------------------------------------------------

@needs_verilator
@pytest.mark.parametrize("topology, source", [
    (Hypercube(2), 1),                # (a build each: Q(2)'s the quickest, the others ~20 s)
    pytest.param(Hypercube(3), 5, marks=pytest.mark.slow),
    pytest.param(Metacube(1, 1), 3, marks=pytest.mark.slow)],
    ids=lambda x: getattr(x, "label", None))
def test_the_verilator_engine_gives_the_amaranth_document(verilator_cache, topology,
                                                         source):
    amaranth = hardware_broadcast(topology, source, packet_flits=2, unicasts=True)
    verilator = hardware_broadcast(topology, source, packet_flits=2, unicasts=True,
                                   engine="verilator")
    assert verilator == amaranth


@needs_verilator
@pytest.mark.slow    # (a build each: ~20 s; the self-checking runs cover both in CI)
@pytest.mark.parametrize("topology, options", [
    (Hypercube(3), {"model": "one-port"}), (Hypercube(3), {"subcube": (4, 4)}),
    (Metacube(1, 1), {"members": [1, 2, 5, 7]}), (Metacube(1, 1), {"model": "one-port"})],
    ids=lambda x: getattr(x, "label", None) or "-".join(map(str, x)))
def test_strapped_one_port_and_multicast_routers_give_the_amaranth_document(
        verilator_cache, topology, options):
    amaranth = hardware_broadcast(topology, 0, **options)
    assert hardware_broadcast(topology, 0, engine="verilator", **options) == amaranth


@needs_verilator
@pytest.mark.slow   # (a build of its own: ~15 s)
def test_the_verilator_netlist_straps_each_router_to_its_node(tmp_path, monkeypatch):
    # mutation: every router strapped as node 0, the broadcast's copies go astray
    monkeypatch.setenv("CUBEFAB_CACHE", str(tmp_path))
    straps = verilator_broadcast._strap_values
    monkeypatch.setattr(verilator_broadcast, "_strap_values",
                        lambda config, address, tree=None: straps(config, 0, tree))
    with pytest.raises(RuntimeError, match="did not reach"):
        hardware_broadcast(Hypercube(2), 1, engine="verilator", limit=100)


@pytest.mark.parametrize("options", [{"model": "one-port"}, {"subcube": (4, 4)}])
def test_the_verilator_engine_refuses_one_port_and_multicast_over_128_nodes(options):
    with pytest.raises(ValueError, match="at most 128 nodes, not 256: use the amaranth"):
        hardware_broadcast(Hypercube(8), 0, engine="verilator", **options)


def test_an_unknown_engine_is_refused():
    with pytest.raises(ValueError, match="Engine must be one of amaranth, verilator"):
        hardware_broadcast(Hypercube(2), 0, engine="booksim")
