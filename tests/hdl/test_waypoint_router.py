"""The fault-tolerant router (``RouterConfig.fault_waypoints``): every per-flit decision
(output port, VC, phase written back) equal to the waypoint model."""

import itertools

import pytest
from amaranth.hdl import Shape

from cubefab.hdl.config import RouterConfig
from cubefab.hdl.modes import Deterministic, Waypoints, parts
from cubefab.hdl.router import Router
from cubefab.topology import DLH, Hypercube, Metacube
from cubefab.topology.deadlock import wrap_ports
from cubefab.topology.fault_routing import FaultSet, plan_waypoints, waypoint_step
from tests.helpers import refused, run_clocked


def send(router, vectors):
    """Feed each vector ``(here, in_port, vc, dest, waypoints, phase)`` alone to the
    address-strapped ``router`` and return what it does with it: ``(out_port, vc,
    phase)`` of the departing flit (``out_port`` = degree: delivered, vc and phase as
    ejected)."""
    topo, config = router.topology, router.config
    degree, W = topo.degree, config.fault_waypoints
    layout = router.layout
    got = []

    async def bench(ctx):
        ctx.set(router.local_out.ready, 1)
        here_now = None
        for here, port, vc, dest, waypoints, phase in vectors:
            if here != here_now:
                for name, value in Router.strap_values(topo, here).items():
                    ctx.set(getattr(router, name), value)
                here_now = here
            flit = layout.const({
                "head": 1, "tail": 1, "vc": vc, "dest": dest, "src": here,
                "waypoint_count": len(waypoints), "phase": phase,
                "waypoint": list(waypoints) + [0] * (W - len(waypoints)), "payload": 0})
            stream = router.local_in if port == degree else router.link_in[port].flit
            ctx.set(stream.valid, 1)
            ctx.set(stream.payload, flit)
            await ctx.tick()
            ctx.set(stream.valid, 0)
            seen = None
            for _ in range(6):
                for o in range(degree):
                    if ctx.get(router.link_out[o].flit.valid):
                        seen = (o, ctx.get(router.link_out[o].flit.payload))
                if ctx.get(router.local_out.valid):
                    seen = (degree, ctx.get(router.local_out.payload))
                if seen:
                    break
                await ctx.tick()
            assert seen is not None, "the flit never left"
            o, out = seen
            if o < degree:   # give the credit back
                ctx.set(router.link_out[o].credit, 1 << out.vc)
            await ctx.tick()
            if o < degree:
                ctx.set(router.link_out[o].credit, 0)
            got.append((o, out.vc, out.phase))
        assert not ctx.get(router.bad_turn) and not ctx.get(router.overflow)

    run_clocked(router, bench)
    return got


def expected(config, vectors):
    """The model's decision for each vector: ``waypoint_step`` for the port and the
    phase; the VC ``phase_out * C + class``, the class 0 on a new leg, else the
    arriving one, one up on a wrap link (up to the last)."""
    topo, C = config.topology, config.vc_classes
    rows = []
    for here, port, vc, dest, waypoints, phase in vectors:
        out, phase_out = waypoint_step(topo, here, dest, waypoints, phase)
        if out == topo.degree:   # delivered: the flit keeps its VC and phase
            rows.append((out, vc, phase))
            continue
        cls = 0 if phase_out != phase else vc - phase * C
        cls = min(cls + int(wrap_ports(topo, here)[out]), C - 1)
        rows.append((out, phase_out * C + cls, phase_out))
    return rows


def vectors_of(topology, W, here):
    """Every input of node ``here`` with up to ``W`` waypoints: each input port (the
    injection port with phase 0 and VC 0), destination, waypoint list, phase and
    arriving class."""
    nodes = [int(a) for a in topology.nodes()]
    C = RouterConfig.for_topology(topology).vc_classes
    lists = [ws for k in range(W + 1) for ws in itertools.product(nodes, repeat=k)]
    out = []
    for dest, ws in itertools.product(nodes, lists):
        out.append((here, topology.degree, 0, dest, ws, 0))
        for port, phase, cls in itertools.product(range(topology.degree),
                                                  range(len(ws) + 1), range(C)):
            out.append((here, port, phase * C + cls, dest, ws, phase))
    return out


def router_of(topology, W):
    return Router(RouterConfig.for_topology(topology, routing=Waypoints(W)), None)


@pytest.mark.parametrize("topology, here", [(Hypercube(3), 5), (Metacube(1, 1), 6)],
                         ids=lambda x: getattr(x, "label", str(x)))
def test_every_input_of_a_node_with_one_waypoint(topology, here):
    router = router_of(topology, 1)
    vectors = vectors_of(topology, 1, here)
    assert send(router, vectors) == expected(router.config, vectors)


@pytest.mark.slow
@pytest.mark.parametrize("topology", [Hypercube(3), Metacube(1, 1)], ids=lambda t: t.label)
def test_every_input_of_every_node_with_one_waypoint(topology):
    router = router_of(topology, 1)
    vectors = [v for here in topology.nodes() for v in vectors_of(topology, 1, int(here))]
    assert send(router, vectors) == expected(router.config, vectors)


@pytest.mark.parametrize("topology, faults", [
    (Hypercube(3), [0, 5]), (Metacube(1, 1), [3]),
    pytest.param(DLH(2, 1), [0, 1, 12], marks=pytest.mark.slow)],
    ids=lambda x: getattr(x, "label", str(x)))
def test_the_hops_of_detoured_routes_take_the_model_vcs(topology, faults):
    # every hop of every route through waypoints, the flit arriving as the router
    # before it sent it: the ports walk the route and the VCs are hop_vcs
    config = RouterConfig.for_topology(topology, routing=Waypoints(2))
    routing = plan_waypoints(topology, FaultSet(topology, faults), 2)
    vectors, model = [], []
    for (s, t), waypoints in sorted(routing.waypoints.items())[:10]:
        path, vcs = routing.route(s, t), routing.hop_vcs(s, t)
        port, vc, phase = topology.degree, 0, 0
        for i, here in enumerate(path[:-1]):
            vectors.append((here, port, vc, t, waypoints, phase))
            out, phase = waypoint_step(topology, here, t, waypoints, phase)
            assert topology.neighbor(here, out) == path[i + 1]
            model.append((out, vcs[i], phase))
            port, vc = topology.port(path[i + 1], here), vcs[i]
    assert model and send(Router(config, None), vectors) == model


def test_no_waypoints_is_the_plain_router():
    plain = RouterConfig.for_topology(Hypercube(3))
    assert RouterConfig.for_topology(Hypercube(3), routing=Deterministic()) == plain
    assert plain.layout.waypoints == 0 and "phase" not in dict(plain.layout)


def test_the_layout_carries_the_header():
    config = RouterConfig.for_topology(DLH(2, 1), routing=Waypoints(2))
    layout = config.layout
    assert config.link_vcs == 3 * config.vcs == 6
    assert {name: Shape.cast(layout[name].shape).width for name in
            ("vc", "waypoint_count", "phase", "waypoint")} == \
        {"vc": 3, "waypoint_count": 2, "phase": 2, "waypoint": 8}


@pytest.mark.parametrize("count", [-1, 0, 9])
def test_bad_fault_waypoint_counts_are_refused(count):
    with pytest.raises(ValueError, match="Number of fault waypoints"):
        Waypoints(count)


def test_waypoints_and_adaptive_routing_are_two_routings():
    with pytest.raises(ValueError, match="Fault waypoints need deterministic routing"):
        parts(fault_waypoints=1, adaptive_vcs=1)


def test_a_routing_that_reads_the_source_is_refused():
    with pytest.raises(ValueError, match="reads the header field"):
        RouterConfig.for_topology(Metacube(1, 1), algorithm="paper", routing=Waypoints(1))


def test_a_dead_link_drops_and_counts_its_flits_without_stalling():
    # node 0 of Q(3): four flits for node 2 leave through port 1 and take its four
    # credits (never returned); its link goes down: ten more flits for node 2 are all
    # dropped and counted, and a flit for node 1 still leaves
    topo = Hypercube(3)
    router = router_of(topo, 1)
    layout = router.layout
    dead = waypoint_step(topo, 0, 2, (), 0)[0]
    alive = waypoint_step(topo, 0, 1, (), 0)[0]
    assert dead != alive
    seen = {"dropped": 0, "out": []}

    def flit(dest):
        return layout.const({"head": 1, "tail": 1, "vc": 0, "dest": dest, "src": 0,
                             "waypoint_count": 0, "phase": 0, "waypoint": [0],
                             "payload": dest})

    async def tick(ctx):
        await ctx.tick()
        seen["dropped"] += ctx.get(router.lost_to_fault) >> dead & 1
        seen["out"] += [(o, ctx.get(link.flit.payload.dest))
                        for o, link in enumerate(router.link_out)
                        if ctx.get(link.flit.valid)]

    async def bench(ctx):
        for name, value in Router.strap_values(topo, 0).items():
            ctx.set(getattr(router, name), value)
        assert ctx.get(router.link_up) == 0b111
        for i, dest in enumerate([2] * 14 + [1]):
            if i == 4:   # the four leave while the link is up, then it goes down
                ctx.set(router.local_in.valid, 0)
                for _ in range(4):
                    await tick(ctx)
                ctx.set(router.link_up, 0b111 & ~(1 << dead))
            ctx.set(router.local_in.valid, 1)
            ctx.set(router.local_in.payload, flit(dest))
            for _ in range(50):   # (a stalled port would never take it)
                ready = ctx.get(router.local_in.ready)
                await tick(ctx)
                if ready:
                    break
            assert ready, "the router stalled"
        ctx.set(router.local_in.valid, 0)
        for _ in range(6):
            await tick(ctx)

    run_clocked(router, bench)
    assert seen["dropped"] == 10
    assert seen["out"] == [(dead, 2)] * 4 + [(alive, 1)]


def cut_bench(fail, after):
    """Node 0 of Q(3) (address-strapped, W = 1): the head and one body flit of a
    4-flit packet from node 1 to node 2 arrive on the port from node 1; then, with
    ``fail``, that link fails; then ``after`` (flits to inject). Returns what leaves
    toward node 2 (``(src, head, tail, cut, payload)``; the next router takes every
    flit) and whether a buffer overflowed."""
    topo = Hypercube(3)
    router = router_of(topo, 1)
    layout = router.layout
    into, out = waypoint_step(topo, 0, 1, (), 0)[0], waypoint_step(topo, 0, 2, (), 0)[0]
    seen = []

    def flit(src, head, tail, payload):
        return layout.const({"head": head, "tail": tail, "vc": 0, "dest": 2, "src": src,
                             "waypoint_count": 0, "phase": 0, "waypoint": [0],
                             "payload": payload})

    async def tick(ctx):
        link = router.link_out[out]
        valid = ctx.get(link.flit.valid)
        ctx.set(link.credit, 1 if valid else 0)
        if valid:
            f = ctx.get(link.flit.payload)
            seen.append((f.src, f.head, f.tail, f.cut, f.payload))
        await ctx.tick()

    async def bench(ctx):
        for name, value in Router.strap_values(topo, 0).items():
            ctx.set(getattr(router, name), value)
        link = router.link_in[into].flit
        for head, payload in ((1, 10), (0, 11)):
            ctx.set(link.valid, 1)
            ctx.set(link.payload, flit(1, head, 0, payload))
            await tick(ctx)
        ctx.set(link.valid, 0)
        if fail:
            ctx.set(router.link_up, 0b111 & ~(1 << into))
        for _ in range(8):
            await tick(ctx)
        for head, tail, payload in after:
            ctx.set(router.local_in.valid, 1)
            ctx.set(router.local_in.payload, flit(0, head, tail, payload))
            assert ctx.get(router.local_in.ready)
            await tick(ctx)
        ctx.set(router.local_in.valid, 0)
        for _ in range(8):
            await tick(ctx)
        seen.append(("overflow", ctx.get(router.overflow)))

    run_clocked(router, bench)
    return seen


def test_a_packet_cut_by_a_failed_link_gets_a_synthetic_tail():
    # the packet leaves as head, body and a synthetic tail (a copy of the body with
    # tail and cut set), which releases the output VC: the next packet to node 2
    # (injected, on the same output VC) passes
    seen = cut_bench(True, [(1, 0, 20), (0, 1, 21)])
    assert seen == [(1, 1, 0, 0, 10), (1, 0, 0, 0, 11), (1, 0, 1, 1, 11),
                    (0, 1, 0, 0, 20), (0, 0, 1, 0, 21), ("overflow", 0)]


def test_a_link_that_stays_up_makes_no_synthetic_tail():
    # the same open packet, its link up: nothing but its two flits leaves
    assert cut_bench(False, []) == [(1, 1, 0, 0, 10), (1, 0, 0, 0, 11), ("overflow", 0)]
