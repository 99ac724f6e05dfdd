"""The AXI4-Stream endpoints against the independent model of tests/hdl/endpoint_helpers."""

import random

import pytest
from amaranth.lib import data

from cubefab.hdl.config import FabricConfig, RouterConfig, block_rams_per_buffer
from cubefab.hdl.endpoint import (AlignedEject, AlignedInject, EndpointEject,
                                  EndpointFabric, EndpointInject, MessageFormat,
                                  EndpointInterface, ReorderBuffer, SkidBuffer,
                                  ejection_side, injection_side)
from cubefab.hdl.endpoint.fabric import endpoint_block_rams
from cubefab.hdl.selfcheck import SelfCheckConfig
from cubefab.hdl.modes import Adaptive, Waypoints
from cubefab.topology import DLH, Hypercube
from tests.helpers import never_elaborated, refused, run_clocked
from tests.hdl.endpoint_helpers import (check_delivery, loopback, model_packet,
                                        random_messages, run_endpoints)


def _format(data_width, payload_width=16, header="every", max_beats=4, packing="auto"):
    config = RouterConfig.for_topology(Hypercube(2), payload_width=payload_width,
                                       header=header)
    return MessageFormat(config, data_width, max_beats, packing=packing)


def _decode(fmt, value):
    """(head, tail, payload bits) of a flit value, read by the layout's fields."""
    flit = data.Const(fmt.layout, value)
    if flit.head:
        return 1, int(flit.tail), int(flit.payload)
    if fmt.layout.header == "head":
        body = data.Const(fmt.layout.body, value)
        return 0, int(body.tail), int(body.data)
    return 0, int(flit.tail), int(flit.payload)


# tdata narrower than, equal to, wider than and not dividing the flit payload, both
# headers (header="head": body flits carry more than the head); messages of at most 4
# beats, or 16 (where the head-only header's 20-bit body flits carry a beat each)
WIDTHS = [(8, 16, "every", 4), (16, 16, "every", 4), (32, 16, "every", 4),
          (24, 16, "every", 4), (16, 20, "every", 4), (8, 16, "head", 4),
          (40, 16, "head", 4), (16, 16, "head", 16), (32, 16, "head", 16),
          (24, 32, "head", 4)]
# aligned packing: a beat per flit (W = 8, 16) or 2, 3, 4 and 8 parts of a beat
ALIGNED_WIDTHS = [(8, 16, "every", 4, "aligned"), (16, 16, "head", 4, "aligned"),
                  (32, 16, "head", 16, "aligned"), (24, 16, "every", 4, "aligned"),
                  (40, 16, "head", 4, "aligned"), (128, 16, "head", 3, "aligned")]
# header-flit packing: a head of no beat, then a beat (W = 16 in a Q(2)'s 16-bit body
# data: 12-bit payloads) or a part of one per body flit
HEADER_FLIT_WIDTHS = [(16, 12, "head", 4, "header-flit"), (32, 12, "head", 16, "header-flit"),
                      (8, 1, "every", 4, "header-flit"), (24, 16, "head", 4, "header-flit")]


@pytest.mark.parametrize("width, payload, header, max_beats, packing",
                         [w + ("auto",) for w in WIDTHS] + ALIGNED_WIDTHS
                         + HEADER_FLIT_WIDTHS)
def test_loopback_packets_match_the_model(width, payload, header, max_beats, packing):
    """Through an injection side wired to an ejection side: every flit is the model's
    and every message comes back whole, under random backpressure."""
    fmt = _format(width, payload, header, max_beats, packing)
    rng = random.Random(width * 100 + payload)
    inject, eject = injection_side(fmt, 1), ejection_side(fmt)
    messages = random_messages(rng, fmt, [1], 12, self_share=1.0)
    received, _, flits = run_endpoints(loopback(inject, eject), [inject.axis], [eject.axis],
                                       [1], messages, cycles=800, rng=rng,
                                       ready_share=0.7, flits=[inject.local_in])
    check_delivery(fmt, [1], messages, received, {1: 0})
    want = [f for _, beats in messages[1] for f in model_packet(fmt, beats)]
    assert [_decode(fmt, v) for v in flits] == want
    sent = [data.Const(fmt.layout, v) for v in flits]
    assert all(int(f.src) == 1 and int(f.dest) == 1 for f in sent if f.head)


def test_a_strapped_injection_side_sends_from_its_here_input():
    """EndpointInject(fmt, None) takes its address from ``here``: every head it sends
    carries it as ``src``, and the messages come back with it as ``tid``."""
    from amaranth.hdl import Module
    fmt = _format(16, 16, "head", 16)
    inject, eject = injection_side(fmt, None), ejection_side(fmt)
    assert isinstance(inject, AlignedInject)
    top = Module()
    top.submodules.pair = loopback(inject, eject)
    top.d.comb += inject.here.eq(2)
    rng = random.Random(5)
    messages = {2: [(2, [rng.getrandbits(16) for _ in range(n)]) for n in (1, 3, 16)]}
    received, _, flits = run_endpoints(top, [inject.axis], [eject.axis], [2], messages,
                                       cycles=80, rng=rng, flits=[inject.local_in])
    check_delivery(fmt, [2], messages, received, {2: 0})
    heads = [data.Const(fmt.layout, v) for v in flits]
    assert [int(f.src) for f in heads if f.head] == [2, 2, 2]


def _flit_cycles(fmt, lengths):
    """The cycles in which an injection side sends a flit when messages of
    ``lengths`` beats were all taken while ``local_in`` was not ready, and it then is
    ready every cycle."""
    inject, cycles = injection_side(fmt, 1), []
    beats = [i == n - 1 for n in lengths for i in range(n)]

    async def bench(ctx):
        for cycle in range(sum(lengths) + sum(fmt.flits(n) for n in lengths) + 8):
            ctx.set(inject.axis.valid, bool(beats))
            ctx.set(inject.axis.payload, {"data": cycle, "last": bool(beats) and beats[0],
                                          "dest": 1})
            ctx.set(inject.local_in.ready, not beats)
            if ctx.get(inject.local_in.valid) and not beats:
                cycles.append(cycle)
            if beats and ctx.get(inject.axis.ready):
                beats.pop(0)
            await ctx.tick()

    run_clocked(inject, bench)
    return cycles


def _q4_config(flit_width=None):
    """Q(4)'s default router configuration, or with ``flit_width``-bit flits."""
    config = RouterConfig.for_topology(Hypercube(4))
    if flit_width is None:
        return config
    header = config.layout.size - config.payload_width
    return RouterConfig.for_topology(Hypercube(4), payload_width=flit_width - header)


@pytest.mark.parametrize("lengths", [[3, 1, 6], [1, 1, 2], [2, 5, 1]])
@pytest.mark.parametrize("width, packing, flit_width", [
    (32, "auto", None), (16, "auto", None), (32, "aligned", None),
    (16, "header-flit", 18), (32, "header-flit", 18)])
def test_packets_leave_back_to_back_once_stored(width, packing, flit_width, lengths):
    """Q(4)'s default flits (24-bit body flits; W = 16, or aligned packing: a beat or
    half a beat per flit), and 18-bit flits with header-flit packing (a head, then a
    beat or half a beat per flit): stored messages leave a flit every cycle, with no
    cycle between two packets (as many messages as the injection side holds: one
    being sent, two decided)."""
    fmt = MessageFormat(_q4_config(flit_width), width, 16, packing=packing)
    cycles = _flit_cycles(fmt, lengths)
    assert len(cycles) == sum(fmt.flits(n) for n in lengths)
    assert cycles == list(range(cycles[0], cycles[0] + len(cycles)))


def _packet_flits(fmt, lengths, seed):
    """The flit values of messages of ``lengths`` beats from node 1 to itself, as an
    injection side sends them."""
    rng = random.Random(seed)
    inject, eject = injection_side(fmt, 1), ejection_side(fmt)
    messages = {1: [(1, [rng.getrandbits(fmt.data_width) for _ in range(n)])
                    for n in lengths]}
    _, _, flits = run_endpoints(loopback(inject, eject), [inject.axis], [eject.axis], [1],
                                messages, cycles=4 * sum(lengths) + 20, rng=rng,
                                flits=[inject.local_in])
    return messages, flits


def _eject(fmt, flits, sink_ready, probe=False):
    """Offer ``flits`` to an ejection side back to back, its sink ready when
    ``sink_ready()``; returns the cycles a flit was taken in, those a beat left in and
    the messages (``{1: [(tid, beats)]}``). With ``probe``, asserts every cycle that
    ``local_out.ready`` is the same whether the sink is ready or not."""
    eject, taken, beats, received, partial = ejection_side(fmt), [], [], {1: []}, []

    async def bench(ctx):
        pending = list(flits)
        for cycle in range(4 * len(flits) * max(1, fmt.body_bits // fmt.data_width) + 40):
            ctx.set(eject.local_out.valid, bool(pending))
            ctx.set(eject.local_out.payload.as_value(), pending[0] if pending else 0)
            if probe:
                ready = []
                for sink in (0, 1):
                    ctx.set(eject.axis.ready, sink)
                    ready.append(ctx.get(eject.local_out.ready))
                assert ready[0] == ready[1], f"cycle {cycle}: ready follows tready"
            ctx.set(eject.axis.ready, sink_ready())
            if pending and ctx.get(eject.local_out.ready):
                taken.append(cycle)
                pending.pop(0)
            if ctx.get(eject.axis.valid) and ctx.get(eject.axis.ready):
                beat = ctx.get(eject.axis.payload)
                beats.append(cycle)
                partial.append(int(beat.data))
                if beat.last:
                    received[1].append((int(beat.id), list(partial)))
                    partial.clear()
            await ctx.tick()

    run_clocked(eject, bench)
    return taken, beats, received


# flit-paced (W = 32: 20-bit body flits), both at a flit a beat (W = 16), and
# sink-paced (W = 8, 16 beats: a flit carries two and a half beats)
EJECT_FORMATS = [(32, 16, "head", 16), (16, 16, "head", 16), (8, 16, "head", 16)]
# aligned packing: two 16-bit parts a beat, flit-paced; header-flit packing: a beat,
# or two parts of one, per body flit (16-bit body data)
ALIGNED_EJECT_FORMATS = [(32, 16, "head", 16, "aligned"), (16, 12, "head", 16, "header-flit"),
                         (32, 12, "head", 16, "header-flit")]


@pytest.mark.parametrize("width, payload, header, max_beats, packing",
                         [f + ("auto",) for f in EJECT_FORMATS] + ALIGNED_EJECT_FORMATS)
def test_ejection_keeps_pace_with_back_to_back_packets(width, payload, header, max_beats,
                                                       packing):
    """Packets offered back to back, a sink always ready: whichever of the two sets the
    pace never waits, a flit every cycle or a beat every cycle, from the first message
    to the last (no gap between messages; with header-flit packing the flits set the
    pace, a head carrying no beat), and the messages come out whole."""
    fmt = _format(width, payload, header, max_beats, packing)
    lengths = [3, 1, 5, 2, 1, 4]
    messages, flits = _packet_flits(fmt, lengths, seed=width)
    taken, beats, received = _eject(fmt, flits, lambda: 1)
    check_delivery(fmt, [1], messages, received, {1: 0})
    paced = taken if fmt.body_bits < fmt.data_width or fmt.header_flit else beats
    assert paced == list(range(paced[0], paced[0] + len(paced)))


@pytest.mark.parametrize("width, payload, header, max_beats, packing",
                         [f + ("auto",) for f in EJECT_FORMATS + [(8, 16, "every", 4)]]
                         + ALIGNED_EJECT_FORMATS)
def test_ejection_ready_is_a_register_function(width, payload, header, max_beats, packing):
    """``local_out.ready`` never depends on this cycle's ``tready`` (no combinational
    path from the sink to the router), under random backpressure."""
    fmt = _format(width, payload, header, max_beats, packing)
    rng = random.Random(width + max_beats)
    messages, flits = _packet_flits(fmt, [2, 1, 4, 3, 1], seed=width + 1)
    _, _, received = _eject(fmt, flits, lambda: int(rng.random() < 0.6), probe=True)
    check_delivery(fmt, [1], messages, received, {1: 0})


def test_skid_buffer_passes_every_payload_in_order_with_a_registered_ready():
    """Random valid and ready: the payloads come out in order, none lost or repeated,
    one a cycle while both sides are always willing, and ``w_stream.ready`` is the
    same whichever ``r_stream.ready`` is."""
    skid, rng, out, ready = SkidBuffer(8), random.Random(3), [], []

    async def bench(ctx):
        nxt = 0
        for cycle in range(300):
            steady = cycle < 40                  # both sides always willing
            ctx.set(skid.w_stream.valid, steady or rng.random() < 0.7)
            ctx.set(skid.w_stream.payload, nxt % 256)
            for r in (0, 1):
                ctx.set(skid.r_stream.ready, r)
                ready.append(ctx.get(skid.w_stream.ready))
            assert ready[-1] == ready[-2]
            ctx.set(skid.r_stream.ready, steady or rng.random() < 0.5)
            if ctx.get(skid.r_stream.valid) and ctx.get(skid.r_stream.ready):
                out.append((cycle, ctx.get(skid.r_stream.payload)))
            if ctx.get(skid.w_stream.valid) and ctx.get(skid.w_stream.ready):
                nxt += 1
            await ctx.tick()
        assert nxt - len(out) in (0, 1)

    run_clocked(skid, bench)
    assert [v for _, v in out] == [i % 256 for i in range(len(out))]
    assert [c for c, _ in out[:40]] == list(range(40))


def test_count_field_only_where_flits_leave_beats_ambiguous():
    assert _format(8).count_width == 2          # 1 and 2 beats both fit one flit
    assert _format(16).count_width == 0
    assert _format(32).count_width == 0
    assert _format(24).count_width == 0         # padding always under 24 bits
    assert _format(8, 16, "head").count_width == 2   # 20-bit body flits: 2.5 beats
    assert [_format(16).flits(b) for b in (1, 2, 4)] == [1, 2, 4]


def test_a_beat_per_flit_where_one_fits_and_two_do_not():
    """Where padding could hide a beat but no body flit holds two beats, every flit
    carries one beat and there is no count field: the default 16-bit payloads with
    the head-only header (20-bit body flits in Q(2)), or 20-bit payloads."""
    for fmt in (_format(16, 16, "head", max_beats=16), _format(16, 20)):
        assert fmt.aligned and fmt.count_width == 0
        assert (fmt.head_bits, fmt.body_bits) == (16, 16)
        assert [fmt.flits(b) for b in (1, 2, 4)] == [1, 2, 4]
    assert [_format(16, 16, "head", max_beats=16).flits(b) for b in (5, 6, 16)] == [5, 6, 16]
    # up to 4 beats no padding hides a beat in 20-bit body flits: packed, no count
    assert [_format(16, 16, "head").flits(b) for b in (1, 2, 3, 4)] == [1, 2, 3, 4]
    assert not _format(16, 16, "head").aligned
    assert not _format(16).aligned and not _format(8, 16, "head").aligned


def test_aligned_packing_cuts_beats_into_the_fewest_parts_that_fit_the_head():
    """``packing="aligned"``: every flit one beat or one equal part of a beat, the
    fewest parts of at most the head's data bits (beside the kind and seq fields)."""
    for width, parts in ((8, 1), (16, 1), (24, 2), (32, 2), (40, 4), (128, 8)):
        fmt = _format(width, 16, "head", 16, "aligned")
        assert (fmt.aligned, fmt.parts, fmt.count_width) == (True, parts, 0)
        assert fmt.head_bits == fmt.body_bits == fmt.part_bits == width // parts
        assert [fmt.flits(b) for b in (1, 2, 16)] == [parts, 2 * parts, 16 * parts]
    adaptive = RouterConfig.for_topology(Hypercube(2), routing=Adaptive(1))
    fmt = MessageFormat(adaptive, 32, 4, window=2, packing="aligned")
    assert (fmt.parts, fmt.head_bits) == (4, 2 + 8)   # 8-bit parts beside kind and seq
    assert (_format(16, packing="auto").parts, _format(16).packing) == (1, "auto")


def test_header_flit_packing_puts_every_part_in_a_body_flit():
    """``packing="header-flit"``: the head carries only the kind and seq fields, every
    body flit one beat or one equal part of a beat, the fewest parts that fit a body
    flit's data bits (Q(2), 12-bit payloads: 16 data bits a body flit)."""
    for width, parts in ((8, 1), (16, 1), (24, 2), (32, 2), (40, 4), (128, 8)):
        fmt = _format(width, 12, "head", 16, "header-flit")
        assert (fmt.aligned, fmt.header_flit, fmt.parts) == (True, True, parts)
        assert (fmt.head_bits, fmt.body_bits, fmt.count_width) == (0, width // parts, 0)
        assert [fmt.flits(b) for b in (1, 2, 16)] == [1 + parts, 1 + 2 * parts,
                                                      1 + 16 * parts]
    adaptive = RouterConfig.for_topology(Hypercube(2), routing=Adaptive(1), payload_width=8)
    fmt = MessageFormat(adaptive, 16, 4, window=2, packing="header-flit")   # 10 data bits
    assert (fmt.head_bits, fmt.body_bits, fmt.flits(3)) == (2, 8, 1 + 3 * 2)
    with refused(ValueError, "at least 2 bits .the kind and seq fields. for header-flit"):
        MessageFormat(RouterConfig.for_topology(Hypercube(2), routing=Adaptive(1),
                                                payload_width=1), 8, 4, window=2,
                      packing="header-flit")


# a packed format, and an aligned one (a beat per flit: messages of 5 beats or more
# would leave a beat's worth of padding in 20-bit body flits)
# and a header-flit one (a head, then a beat per body flit)
DROP_FORMATS = [(16, 16, "every", 3, "auto"), (16, 16, "head", 5, "auto"),
                (16, 12, "head", 4, "header-flit")]


@pytest.mark.parametrize("width, payload, header, max_beats, packing", DROP_FORMATS)
def test_drops_too_long_messages_whole_and_counts_them(width, payload, header, max_beats,
                                                       packing):
    fmt = _format(width, payload, header, max_beats, packing)
    rng = random.Random(7)
    inject, eject = injection_side(fmt, 2), ejection_side(fmt)
    messages = random_messages(rng, fmt, [2], 16, too_long=0.4, self_share=1.0)
    assert sum(len(b) > max_beats for _, b in messages[2]) >= 3
    received, counts, flits = run_endpoints(
        loopback(inject, eject), [inject.axis], [eject.axis], [2], messages, cycles=500,
        rng=rng, ready_share=0.8, dropped=[inject.dropped], flits=[inject.local_in])
    check_delivery(fmt, [2], messages, received, counts)
    kept = [b for _, b in messages[2] if len(b) <= max_beats]
    assert len(flits) == sum(fmt.flits(len(b)) for b in kept)   # nothing else sent


@pytest.mark.parametrize("max_beats", [2, 16], ids=["packed", "aligned"])
def test_drops_messages_to_addresses_that_name_no_node(max_beats):
    topology = DLH(3, 1)
    config = RouterConfig.for_topology(topology)
    fmt = MessageFormat(config, 16, max_beats)
    assert fmt.aligned == (max_beats == 16)
    bad = next(a for a in range(1 << topology.address_bits) if not topology.is_node(a))
    node = int(topology.nodes()[0])
    inject, eject = injection_side(fmt, node), ejection_side(fmt)
    rng = random.Random(3)
    messages = {node: [(node, [1]), (bad, [2, 3]), (bad, [4]), (node, [5, 6])]}
    received, counts, _ = run_endpoints(loopback(inject, eject), [inject.axis],
                                        [eject.axis], [node], messages, cycles=60, rng=rng,
                                        dropped=[inject.dropped])
    assert received[node] == [(node, [1]), (node, [5, 6])]
    assert counts == {node: 2}


@pytest.mark.parametrize("width, header, hop, packing", [
    (8, "every", "buffered", "auto"), (32, "every", "buffered", "auto"),
    (16, "head", "lookahead", "auto"), (32, "head", "buffered", "aligned"),
    (16, "head", "lookahead", "header-flit")])
def test_fabric_delivers_every_pair_in_order(width, header, hop, packing):
    """Q(2): every node sends to every node (itself included) under backpressure."""
    config = FabricConfig.for_topology(Hypercube(2), header=header, hop=hop)
    fabric = EndpointFabric(config, width, 4, packing=packing)
    nodes = [int(a) for a in fabric.topology.nodes()]
    rng = random.Random(width)
    messages = random_messages(rng, fabric.fmt, nodes, 10, too_long=0.1)
    for src in nodes:   # every pair, self included
        messages[src] += [(d, [rng.getrandbits(width)] * (1 + d % 3)) for d in nodes]
    received, counts, _ = run_endpoints(fabric, fabric.s_axis, fabric.m_axis, nodes,
                                        messages, cycles=700, rng=rng, ready_share=0.6,
                                        dropped=fabric.dropped)
    check_delivery(fabric.fmt, nodes, messages, received, counts)


@pytest.mark.parametrize("topology, payload, max_beats, packing", [
    (Hypercube(2), 16, 4, "auto"), (Hypercube(2), 20, 8, "auto"),
    (Hypercube(2), 16, 4, "aligned"), (Hypercube(2), 8, 4, "header-flit"),
    pytest.param(Hypercube(3), 16, 4, "auto", marks=pytest.mark.slow)], ids=str)
def test_adaptive_fabric_delivers_every_pair_in_order(topology, payload, max_beats, packing):
    """Adaptive routers may reorder packets; one unacknowledged message per pair keeps
    each pair's messages in order (20-bit payloads: a beat per flit, the kind bit
    beside the first in the head; 16-bit payloads with aligned packing: two 8-bit
    parts a beat; 8-bit payloads with header-flit packing: a head of the kind bit,
    two 8-bit parts a beat in 10-bit body flit data)."""
    config = FabricConfig.for_topology(topology, routing=Adaptive(1), payload_width=payload)
    fabric = EndpointFabric(config, 16, max_beats, packing=packing)
    assert fabric.fmt.acknowledged and fabric.fmt.kind_width == 1
    assert fabric.fmt.aligned == (payload == 20 or packing != "auto")
    nodes = [int(a) for a in topology.nodes()]
    rng = random.Random(topology.num_nodes)
    messages = random_messages(rng, fabric.fmt, nodes, 8, too_long=0.1)
    for src in nodes:
        messages[src] += [(d, [rng.getrandbits(16)] * (1 + d % 3)) for d in nodes]
    received, counts, _ = run_endpoints(fabric, fabric.s_axis, fabric.m_axis, nodes,
                                        messages, cycles=1500, rng=rng, ready_share=0.6,
                                        dropped=fabric.dropped)
    check_delivery(fabric.fmt, nodes, messages, received, counts)


def _arrival_order(fabric, flits):
    """Per (source, destination): the ``seq`` fields of the message heads the routers
    delivered, in arrival order (``flits[i]``: node i's ``local_out`` transfers)."""
    fmt, order = fabric.fmt, {}
    for i, values in enumerate(flits):
        for value in values:
            flit = data.Const(fmt.layout, value)
            if flit.head and not int(flit.payload) & 1:        # a message, not an ack
                seq = int(flit.payload) >> fmt.kind_width & (fmt.window - 1)
                order.setdefault((int(flit.src), i), []).append(seq)
    return order


@pytest.mark.parametrize("topology, payload, max_beats, packing, count, cycles", [
    pytest.param(Hypercube(2), 16, 4, "auto", 40, 800, id="Hypercube(n=2)-16-4-auto"),
    pytest.param(Hypercube(3), 16, 4, "auto", 24, 1500, marks=pytest.mark.slow,
                 id="Hypercube(n=3)-16-4-auto"),
    pytest.param(Hypercube(3), 20, 8, "auto", 24, 1500, marks=pytest.mark.slow,
                 id="Hypercube(n=3)-20-8-auto"),
    pytest.param(Hypercube(3), 10, 4, "header-flit", 24, 1500, marks=pytest.mark.slow,
                 id="Hypercube(n=3)-10-4-header-flit")])
def test_windowed_fabric_puts_reordered_messages_back_in_order(topology, payload, max_beats,
                                                              packing, count, cycles):
    """A window of 4 messages per pair: the routers deliver some out of order (seen at
    their local_out), the reorder buffers hand every pair's messages over in order
    (20-bit payloads: a beat per flit; 10-bit payloads with header-flit packing: a head
    of the kind and seq fields, then a beat per flit); ``count`` messages a node,
    delivered within ``cycles``. Q(2), with two paths between opposite corners only,
    reorders fewer: 40 messages a node where Q(3) takes 24."""
    config = FabricConfig.for_topology(topology, routing=Adaptive(1), payload_width=payload)
    fabric = EndpointFabric(config, 16, max_beats, window=4, packing=packing)
    assert fabric.fmt.seq_width == 2
    assert fabric.fmt.aligned == (payload == 20 or packing != "auto")
    assert fabric.fmt.parts == 1
    nodes = [int(a) for a in topology.nodes()]
    rng = random.Random(11)
    messages = random_messages(rng, fabric.fmt, nodes, count, too_long=0.05)
    received, counts, seen = run_endpoints(
        fabric, fabric.s_axis, fabric.m_axis, nodes, messages, cycles=cycles, rng=rng,
        ready_share=0.6, dropped=fabric.dropped, flits=list(fabric.fabric.local_out),
        flits_per_stream=True)
    check_delivery(fabric.fmt, nodes, messages, received, counts)
    order = _arrival_order(fabric, seen)
    late = sum(1 for seqs in order.values()
               for i, s in enumerate(seqs[1:]) if s != (seqs[i] + 1) % 4)
    assert late > 0, "no message arrived out of order: the reorder buffer was not tested"


def test_refuses_bad_parameters():
    config = RouterConfig.for_topology(Hypercube(2))
    with pytest.raises(ValueError, match="whole number of bytes"):
        MessageFormat(config, 12, 4)
    with pytest.raises(ValueError, match=r"Data width must be.*8.*512"):
        MessageFormat(config, 1024, 4)
    with pytest.raises(ValueError, match="Maximum message length"):
        MessageFormat(config, 8, 0)
    with pytest.raises(ValueError, match="deterministic or adaptive"):
        MessageFormat(RouterConfig.for_topology(Hypercube(2), routing=Waypoints(1)), 8, 4)
    with pytest.raises(ValueError, match="count field"):
        MessageFormat(RouterConfig.for_topology(Hypercube(4), payload_width=3,
                                                header="head"), 8, 16)
    with refused(ValueError, "deterministic routing"):
        MessageFormat(config, 8, 4, window=2)
    adaptive = RouterConfig.for_topology(Hypercube(2), routing=Adaptive(1))
    with refused(ValueError, "power of two"):
        MessageFormat(adaptive, 8, 4, window=3)
    with refused(ValueError, "Window"):
        MessageFormat(adaptive, 8, 4, window=0)
    with refused(ValueError, "window over 1"):
        ReorderBuffer(MessageFormat(adaptive, 8, 4))
    with refused(ValueError, "node"):
        EndpointInject(MessageFormat(config, 8, 4), 9)
    with refused(TypeError, "MessageFormat"):
        EndpointEject(config)
    packed = MessageFormat(config, 8, 4)
    with refused(ValueError, "aligned message format"):
        AlignedInject(packed, 0)
    with refused(ValueError, "aligned message format"):
        AlignedEject(packed)
    with refused(ValueError, "Packing must be one of 'auto', 'aligned', 'header-flit', "
                             "not 'tight'"):
        MessageFormat(config, 8, 4, packing="tight")
    with refused(ValueError, "more than the 1 bits of the kind and seq fields"):
        MessageFormat(RouterConfig.for_topology(Hypercube(2), routing=Adaptive(1),
                                                payload_width=1), 8, 4, packing="aligned")


def test_aligned_formats_get_the_aligned_sides():
    aligned, packed = _format(16, 16, "head", 16), _format(16, 16, "head", 4)
    with never_elaborated():
        assert type(injection_side(aligned, 0)) is AlignedInject
        assert type(ejection_side(aligned)) is AlignedEject
        assert type(injection_side(packed, 0)) is EndpointInject
        assert type(ejection_side(packed)) is EndpointEject


@pytest.mark.parametrize("max_beats", [1, 5], ids=["packed", "aligned"])
def test_drop_counter_stops_at_its_largest_value(max_beats):
    fmt = _format(16, 20, max_beats=max_beats)
    assert fmt.aligned == (max_beats == 5)
    inject, eject = injection_side(fmt, 0, counter_width=1), ejection_side(fmt)
    long = list(range(1, max_beats + 2))
    messages = {0: [(0, long), (0, long + [9]), (0, [6]), (0, long)]}
    received, counts, _ = run_endpoints(loopback(inject, eject), [inject.axis], [eject.axis],
                                        [0], messages, cycles=80, rng=random.Random(1),
                                        dropped=[inject.dropped])
    assert received[0] == [(0, [6])] and counts == {0: 1}


def _auto_routers(n, data_width, budget, **settings):
    """The routers, and the endpoints' format, of a Q(n) EndpointFabric whose "auto"
    buffer rule sizes for ``budget`` block RAMs (the fabric is never elaborated)."""
    router = RouterConfig.for_topology(Hypercube(n), block_ram_budget=budget,
                                       memory_depth=4, **settings)
    with never_elaborated():
        fabric = EndpointFabric(FabricConfig(router), data_width, 16)
        routers, fmt = fabric.config.router, fabric.fmt
        del fabric
    return routers, fmt


def test_auto_buffers_leave_the_endpoints_their_block_rams():
    routers, fmt = _auto_routers(2, 32, budget=32)
    per_node = endpoint_block_rams(fmt)
    assert per_node == 3          # the 32-bit message store: 3 SB_RAM40_4K
    assert routers.block_ram_budget == 32 - 4 * per_node
    # the routers' 4 x 6 block RAMs and the endpoints' 12 need 36 of the 32
    assert routers.storage == "registers"
    assert _auto_routers(2, 32, budget=36)[0].storage == "memory"


def test_a_self_checking_fabric_through_endpoints_builds_the_endpoint_fabric_s_routers():
    router = RouterConfig.for_topology(Hypercube(2), block_ram_budget=32, memory_depth=4)
    design = SelfCheckConfig(router, interface=EndpointInterface(32, 16))
    assert router.storage == "memory"
    assert design.router == _auto_routers(2, 32, budget=32)[0]
    assert design.router.storage == "registers"


def test_buffers_chosen_by_hand_stay_as_chosen():
    routers, _ = _auto_routers(2, 32, budget=32, buffer="memory")
    assert routers.storage == "memory"
    assert routers.block_ram_budget == 32


def test_a_reorder_buffer_counts_its_slots():
    router = RouterConfig.for_topology(Hypercube(2), routing=Adaptive(1))
    fmt = MessageFormat(router, 16, 16, window=2)
    # a slot of the longest packet, rounded up to a power of two, per source and number
    slots = 4 * 2 * (1 << (fmt.flits(16) - 1).bit_length())
    assert ReorderBuffer.block_rams(fmt) == block_rams_per_buffer(fmt.layout.size, slots)
    assert ReorderBuffer.block_rams(MessageFormat(router, 16, 16)) == 0
    assert endpoint_block_rams(fmt) == (EndpointInject.store_block_rams(fmt)
                                        + ReorderBuffer.block_rams(fmt))
