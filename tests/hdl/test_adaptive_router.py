"""The adaptive router (``RouterConfig.adaptive_vcs``): its ports, VCs and classes
equal the adaptive model, its selection policy, and packets that follow their head."""

import pytest

from cubefab.hdl.config import FabricConfig, RouterConfig
from cubefab.hdl.modes import Adaptive
from cubefab.hdl.router import HOP_LATENCY, Router
from cubefab.topology import DLH, Hypercube, Mcube, Metacube
from cubefab.topology.adaptive import (adaptive_ports, ecube_as_short_masks, escape_algorithm,
                                       escape_port)
from cubefab.topology.deadlock import DeadlockError, flow_lane, required_vcs, wrap_ports
from cubefab.topology.turns import adaptive_turns, router_turns
from tests.hdl.test_router import (first_outputs, flit, outputs, return_credit,
                                   send_alone)
from tests.helpers import run_clocked


def adaptive_router(topology, node, **parameters):
    return Router(RouterConfig.for_topology(topology, payload_width=8, routing=Adaptive(1),
                                            **parameters), node)


def expected_hop(router, node, dest, src, cls_in, injected=False):
    """(port, VC, class) of a lone flit: on the flow's adaptive VC the escape port if
    it is an adaptive port, else the first adaptive port; with none, the escape port on
    the escape VC of its class; the class one up on a wrap link (capped), as
    :func:`cubefab.topology.duato.check_adaptive` models it. An ``injected`` flit on
    the Mcube with Mroute whose e-cube route is as short as Mroute's
    (:func:`~cubefab.topology.adaptive.ecube_as_short_masks`) takes the escape."""
    topo, config = router.topology, router.config
    offered = adaptive_ports(topo, node, dest, config.algorithm)
    if node == dest:
        return topo.degree, None, None
    escape = escape_port(topo, node, dest, config.algorithm)
    if injected and config.algorithm == "mroute" and ecube_as_short_masks(topo)[node, dest]:
        offered = ()
    port = escape if escape in offered or not offered else offered[0]
    cls = min(cls_in + wrap_ports(topo, node)[port], config.vc_classes - 1)
    if offered:
        vc = config.vcs + flow_lane(src, dest, config.adaptive_vcs)
    else:
        vc = cls * config.vcs_per_class + flow_lane(src, dest, config.vcs_per_class)
    return port, vc, cls


CASES = [
    (Hypercube(3), 5, None),
    (Metacube(1, 1), 0b101, None),
    (DLH(2, 1), DLH(2, 1).make_address(1, 3, 1), None),   # wraps on the successor port
    (Mcube(3), 6, "mroute"),
]


@pytest.mark.parametrize("topology,node,algorithm", CASES,
                         ids=lambda c: getattr(c, "label", str(c)))
def test_lone_flits_take_the_preferred_adaptive_port_and_carry_their_class(topology, node,
                                                                        algorithm):
    router = adaptive_router(topology, node, algorithm=algorithm, vcs_per_class=2,
                             turns="all")
    config, degree = router.config, topology.degree
    src = int(topology.nodes()[-1])

    async def bench(ctx):
        ctx.set(router.local_out.ready, 1)
        for dest in (int(d) for d in topology.nodes()):
            for p in range(degree + 1):
                for cls_in in range(config.vc_classes if p < degree else 1):
                    sent = flit(dest, src, vc=config.vcs)   # arrives on an adaptive VC
                    if config.class_width:
                        sent["cls"] = cls_in
                    out, f = await send_alone(ctx, router, p, sent)
                    want_port, want_vc, want_cls = expected_hop(router, node, dest, src,
                                                                cls_in, p == degree)
                    assert out == want_port, (dest, p, cls_in)
                    if out < degree:
                        assert f.vc == want_vc, (dest, p, cls_in)
                        if config.class_width:
                            assert f.cls == want_cls, (dest, p, cls_in)
                    await return_credit(ctx, router, out, f)
    run_clocked(router, bench)


def test_a_busy_adaptive_vc_sends_heads_to_the_escape_vc_then_to_the_next_port():
    # Q(2), node 0, three 2-flit packets to node 3 (ports 0 and 1 both minimal, escape
    # port 0): VC 0 is the escape VC, VC 1 the adaptive one; the escape port's escape
    # VC, empty, comes before the next port
    topo = Hypercube(2)
    router = adaptive_router(topo, 0, turns="all")
    inputs = [router.link_in[0].flit, router.link_in[1].flit, router.local_in]
    want = [(0, 1), (0, 0), (1, 1)]   # (port, VC) of each packet

    async def send(ctx, port, **fields):
        ctx.set(port.payload, flit(3, 2, **fields))
        ctx.set(port.valid, 1)
        await ctx.tick()
        ctx.set(port.valid, 0)

    async def bench(ctx):
        seen = []
        for i, port in enumerate(inputs):      # the heads, no tails yet
            await send(ctx, port, head=1, tail=0, vc=1, payload=i)
            for _ in range(HOP_LATENCY + 1):
                seen += await outputs(ctx, router)
                await ctx.tick()
        assert [(p, f.vc, f.payload) for p, f in seen] == \
            [(p, vc, i) for i, (p, vc) in enumerate(want)]
        seen = []
        for i, port in enumerate(inputs):      # each tail follows its head
            await send(ctx, port, head=0, tail=1, vc=1, payload=10 + i)
            for _ in range(HOP_LATENCY + 1):
                seen += await outputs(ctx, router)
                await ctx.tick()
        assert [(p, f.vc, f.payload) for p, f in seen] == \
            [(p, vc, 10 + i) for i, (p, vc) in enumerate(want)]
    run_clocked(router, bench)


def test_injected_heads_wait_for_room_that_transit_heads_do_not_need():
    # Q(2), node 0, one-flit packets to node 1 (port 0 only: VC 0 escape, VC 1 adaptive,
    # 4 flits of buffer each downstream, no credit returned): after three transit flits
    # VC 1 has one credit, less than half; the escape VC takes heads while it has three
    # credits (an injected, then a transit one), then an injected head while it has
    # half of them; with two credits left a transit flit takes VC 1's last one, which an
    # injected one may not, and once the escape VC is below half as well an injected
    # flit waits until a credit comes back
    topo = Hypercube(2)
    router = adaptive_router(topo, 0, turns="all")
    transit, local = 1, topo.degree

    async def bench(ctx):
        for p, want_vc in [(transit, 1)] * 3 + [(local, 0), (transit, 0), (local, 0),
                                                 (transit, 1)]:
            out, f = await send_alone(ctx, router, p, flit(1, 3, vc=1))
            assert (out, f.vc) == (0, want_vc), (p, want_vc)
            await ctx.tick()
        ctx.set(router.local_in.payload, flit(1, 3))
        ctx.set(router.local_in.valid, 1)
        await ctx.tick()
        ctx.set(router.local_in.valid, 0)
        for _ in range(3 * HOP_LATENCY):
            assert await outputs(ctx, router) == []
            await ctx.tick()
        ctx.set(router.link_out[0].credit, 1)      # the escape VC back to half
        await ctx.tick()
        ctx.set(router.link_out[0].credit, 0)
        for _ in range(HOP_LATENCY + 1):
            await ctx.tick()
            seen = await outputs(ctx, router)
            if seen:
                break
        assert [(p, f.vc) for p, f in seen] == [(0, 0)]
    run_clocked(router, bench)


def test_injected_heads_steer_clear_of_the_outputs_transit_heads_request():
    # Q(2), node 0: a transit and an injected one-flit packet to node 3 arrive together
    # (ports 0 and 1 both minimal, the escape port 0): the transit head requests port
    # 0, so the injected one takes port 1 and both leave in the same cycle (without
    # the rule both want port 0 and one waits)
    topo = Hypercube(2)
    router = adaptive_router(topo, 0, turns="all")
    transit, local = router.link_in[1].flit, router.local_in

    async def bench(ctx):
        for port, payload in ((transit, 1), (local, 2)):
            ctx.set(port.payload, flit(3, 2, vc=1, payload=payload))
            ctx.set(port.valid, 1)
        await ctx.tick()
        for port in (transit, local):
            ctx.set(port.valid, 0)
        seen = await first_outputs(ctx, router)
        assert sorted((p, f.vc, f.payload) for p, f in seen) == [(0, 1, 1), (1, 1, 2)]
    run_clocked(router, bench)


async def _fill(ctx, router, dest, flits):
    """Send ``flits`` one-flit packets to ``dest`` through input port 1 (each leaves on
    an adaptive VC, VC 1), using as many of its output's credits; the output's
    arbiter has then granted input 1 more recently than the local input."""
    for _ in range(flits):
        out, f = await send_alone(ctx, router, 1, flit(dest, 2, vc=1))
        assert f.vc == 1
        await ctx.tick()


async def _transit_and_injected(ctx, router, dest):
    """A transit (input 1) and an injected packet to ``dest`` arrive together; returns
    the sorted (port, VC, payload) of both (payload 1 transit, 2 injected)."""
    transit, local = router.link_in[1].flit, router.local_in
    for port, payload in ((transit, 1), (local, 2)):
        ctx.set(port.payload, flit(dest, 2, vc=1, payload=payload))
        ctx.set(port.valid, 1)
    await ctx.tick()
    for port in (transit, local):
        ctx.set(port.valid, 0)
    seen = []
    for _ in range(HOP_LATENCY + 2):
        seen += await outputs(ctx, router)
        await ctx.tick()
    return sorted((p, f.vc, f.payload) for p, f in seen)


def test_injected_heads_keep_a_nearly_idle_escape_port_unless_another_is_as_idle():
    # Q(2), node 0 (4 flits of buffer downstream, no credit returned): two flits to
    # node 2 leave port 1's adaptive VC half empty, not three quarters; a transit and
    # an injected packet to node 3 (ports 0 and 1 minimal, escape port 0) then both
    # leave through port 0, which the transit head prefers: the injected head does
    # not steer to port 1 (with port 1 as idle it does,
    # test_injected_heads_steer_clear_of_the_outputs_transit_heads_request)
    router = adaptive_router(Hypercube(2), 0, turns="all")

    async def bench(ctx):
        await _fill(ctx, router, 2, 2)
        assert await _transit_and_injected(ctx, router, 3) == [(0, 1, 1), (0, 1, 2)]
    run_clocked(router, bench)


def test_injected_heads_yield_a_contested_port_unless_nearly_idle():
    # Q(2), node 0: two flits each to nodes 1 and 2 leave both adaptive VCs half empty;
    # a transit and an injected packet to node 3 then arrive together: the injected
    # head may not take port 0's adaptive VC (the transit head prefers port 0, and it
    # is not nearly empty) nor leave its roomy escape port for a port as busy: it
    # keeps its deterministic route on the escape VC, still nearly empty, and wins
    # the arbiter (granted less recently); the transit head follows on port 0's
    # adaptive VC (without the rule the injected head takes port 1)
    router = adaptive_router(Hypercube(2), 0, turns="all")

    async def bench(ctx):
        await _fill(ctx, router, 1, 2)
        await _fill(ctx, router, 2, 2)
        assert await _transit_and_injected(ctx, router, 3) == [(0, 0, 2), (0, 1, 1)]
    run_clocked(router, bench)


def test_the_escape_vc_comes_before_another_port_while_nearly_empty():
    # Q(2), node 0, one-flit packets to node 3 (ports 0 and 1 minimal, escape port 0;
    # VC 0 escape, VC 1 adaptive, 4 flits of buffer downstream, no credit returned):
    # port 0's VC 1 takes heads while at least half empty (three), then port 0's VC 0
    # while at least three quarters empty (two), then port 1's VC 1
    router = adaptive_router(Hypercube(2), 0, turns="all")

    async def bench(ctx):
        for want in [(0, 1)] * 3 + [(0, 0)] * 2 + [(1, 1)]:
            out, f = await send_alone(ctx, router, 1, flit(3, 2, vc=1))
            assert (out, f.vc) == want
            await ctx.tick()
    run_clocked(router, bench)


def test_a_crowded_mroute_port_gives_way_to_a_roomy_escape_vc():
    # Mcube(3) Mroute, node 0, one-flit transit packets to node 7 (Mroute offers port 0
    # only, the e-cube escape is port 2; VC 0 escape, VC 1 adaptive, 4 flits of buffer
    # downstream, no credit returned): port 0's VC 1 takes heads while it holds at most
    # one flit (two), then port 2's escape VC while at least half empty (three), and
    # only then port 0's VC 1 again, roomy or not (two)
    topo = Mcube(3)
    router = adaptive_router(topo, 0, algorithm="mroute", turns="all")
    assert adaptive_ports(topo, 0, 7, "mroute") == (0,) and escape_port(topo, 0, 7,
                                                                         "mroute") == 2

    async def bench(ctx):
        for want in [(0, 1)] * 2 + [(2, 0)] * 3 + [(0, 1)] * 2:
            out, f = await send_alone(ctx, router, 1, flit(7, 3, vc=1))
            assert (out, f.vc) == want
            await ctx.tick()
    run_clocked(router, bench)


def test_a_head_on_the_escape_vc_keeps_to_the_escape_routing_while_it_is_roomy():
    # The same packets arriving on the escape VC (VC 0): they stay on the e-cube escape
    # (port 2's VC 0) while it is at least half empty (three), though Mroute's port 0
    # is idle, and then take port 0's adaptive VC
    router = adaptive_router(Mcube(3), 0, algorithm="mroute", turns="all")

    async def bench(ctx):
        for want in [(2, 0)] * 3 + [(0, 1)]:
            out, f = await send_alone(ctx, router, 1, flit(7, 3, vc=0))
            assert (out, f.vc) == want
            await ctx.tick()
    run_clocked(router, bench)


def test_an_injected_packet_as_short_on_ecube_takes_the_escape_vc():
    # Mcube(3) Mroute, node 0, an injected packet to node 3: e-cube's route is as short
    # as Mroute's (2 hops), so it leaves on the e-cube port 1's escape VC (VC 0), not on
    # its adaptive VC; to node 7 (e-cube 3 hops, Mroute 2) it takes Mroute's port 0
    topo = Mcube(3)
    router = adaptive_router(topo, 0, algorithm="mroute", turns="all")
    short = ecube_as_short_masks(topo)
    assert short[0, 3] and not short[0, 7] and escape_port(topo, 0, 3, "mroute") == 1

    async def bench(ctx):
        for dest, want in ((3, (1, 0)), (7, (0, 1))):
            out, f = await send_alone(ctx, router, topo.degree, flit(dest, 0))
            assert (out, f.vc) == want, dest
            await ctx.tick()
    run_clocked(router, bench)


def test_an_injected_stream_keeps_to_the_escape_routing():
    # Mcube(3) Mroute, node 0, injected packets to node 7 (Mroute's port 0, e-cube's
    # escape port 2; e-cube one hop longer): the first takes Mroute's port 0, the next
    # ones to the same destination (a stream) the escape port 2's escape VC while it is
    # at least half empty (three: 4 credits, none returned), then Mroute's port again;
    # to node 5 (port 2 its only Mroute port, the escape VC no longer roomy) and then to
    # node 7 again, no stream: Mroute's port 0
    topo = Mcube(3)
    router = adaptive_router(topo, 0, algorithm="mroute", turns="all")
    assert adaptive_ports(topo, 0, 5, "mroute") == (2,) and ecube_as_short_masks(topo)[0, 5]

    async def bench(ctx):
        for dest, want in [(7, (0, 1))] + [(7, (2, 0))] * 3 + [(7, (0, 1)), (5, (2, 1)),
                                                               (7, (0, 1))]:
            out, f = await send_alone(ctx, router, topo.degree, flit(dest, 0))
            assert (out, f.vc) == want, dest
            await ctx.tick()
    run_clocked(router, bench)


@pytest.mark.parametrize("topology,algorithm", [
    (Hypercube(3), None), (Metacube(1, 1), None), (DLH(2, 1), None), (Mcube(3), "mroute"),
    (Mcube(4), "mroute"), (Mcube(4), "ecube"),
], ids=str)
def test_adaptive_turns_include_the_reference_ones(topology, algorithm):
    for node in (int(a) for a in topology.nodes()):
        assert router_turns(topology, node, algorithm) <= adaptive_turns(topology, node,
                                                                         algorithm)


@pytest.mark.parametrize("topology,algorithm", [
    (Hypercube(2), None), (Metacube(1, 1), None), (Metacube(1, 2), None),
    (DLH(2, 1), None), (DLH(3, 1), None), (Mcube(3), "mroute"), (Mcube(5), "mroute"),
    (Mcube(4), "ecube"),
], ids=str)
def test_shipped_adaptive_fabrics_are_proven_deadlock_free(topology, algorithm):
    # FabricConfig proves the router's rule by Duato's condition (check_adaptive)
    config = FabricConfig.for_topology(topology, algorithm=algorithm, routing=Adaptive(2),
                                       vcs_per_class=2)
    assert config.router.link_vcs == config.router.vcs + 2


@pytest.mark.slow
@pytest.mark.parametrize("topology,algorithm", [
    (Metacube(1, 3), None), (Metacube(2, 2), None), (DLH(4, 3), None), (DLH(8, 4), None),
    (Mcube(6), "mroute"), (Mcube(7), "mroute"), (Mcube(8), "mroute"),
], ids=str)
def test_large_adaptive_fabrics_are_proven_deadlock_free(topology, algorithm):
    # made only once Duato's condition held (DeadlockError otherwise), with no more
    # escape classes than its escape routing needs
    config = FabricConfig.for_topology(topology, algorithm=algorithm, routing=Adaptive(1))
    assert config.check_deadlock and config.router.adaptive_vcs == 1
    assert config.router.vc_classes == required_vcs(
        topology, escape_algorithm(topology, config.router.algorithm))


def test_an_escape_without_its_dateline_class_is_refused():
    # DLH rings need two escape classes; one leaves Duato's extended graph cyclic
    with pytest.raises(DeadlockError, match="escape class"):
        FabricConfig.for_topology(DLH(2, 1), vcs=1, routing=Adaptive(1))


def test_adaptive_parameters_are_checked():
    with pytest.raises(ValueError, match="power of two"):
        RouterConfig.for_topology(Hypercube(2), routing=Adaptive(3))
    with pytest.raises(ValueError, match="adaptive virtual channels"):
        RouterConfig.for_topology(Hypercube(2), routing=Adaptive(-1))
    with pytest.raises(ValueError, match="reads only the destination"):
        RouterConfig.for_topology(Metacube(1, 1), algorithm="paper", routing=Adaptive(1))


def test_adaptive_flits_carry_their_class_only_when_there_are_classes():
    dlh = RouterConfig.for_topology(DLH(2, 1), routing=Adaptive(2), vcs_per_class=2)
    assert (dlh.vcs, dlh.link_vcs, dlh.class_width) == (4, 6, 1)
    assert dict(dlh.layout)["cls"].shape.width == 1
    cube = RouterConfig.for_topology(Hypercube(2), routing=Adaptive(1))
    assert (cube.vcs, cube.link_vcs, cube.class_width) == (1, 2, 0)
    assert "cls" not in dict(cube.layout)
    # the Mcube's Mroute runs adaptively over an e-cube escape: one class
    mcube = RouterConfig.for_topology(Mcube(4), algorithm="mroute", routing=Adaptive(1))
    assert mcube.vcs == 1 and mcube.adaptive


@pytest.mark.parametrize("k", [3, 4, 5])
def test_the_algorithms_that_need_adaptive_routing_deadlock_without_it(k):
    from cubefab.topology.adaptive import needs_adaptive
    from cubefab.topology.deadlock import check_deadlock_free
    assert needs_adaptive(Mcube(k), "mroute") and not needs_adaptive(Mcube(k), "ecube")
    assert not check_deadlock_free(Mcube(k), "mroute").rule_suffices
    assert not any(needs_adaptive(t) for t in (Hypercube(3), Metacube(1, 2), DLH(2, 1)))
