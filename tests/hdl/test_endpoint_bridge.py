"""The packet/message bridges of fabrics whose traffic runs through the endpoints
(cubefab.hdl.endpoint.bridge), in Amaranth's simulator."""

import random

import pytest
from amaranth.hdl import Module
from amaranth.lib import data

from cubefab.hdl.config import RouterConfig
from cubefab.hdl.endpoint import (EndpointInterface, MessageToPacket, PacketToMessage,
                                  packet_beats, packet_bits)
from cubefab.topology import Hypercube
from tests.helpers import refused, run_clocked


def _layout(payload_width, header):
    return RouterConfig.for_topology(Hypercube(2), payload_width=payload_width,
                                     header=header).layout


def _flit_value(layout, head, tail, dest, src, bits):
    """A flit of ``layout`` carrying ``bits`` (its payload, or a body flit's data)."""
    if head or layout.header == "every":
        return layout.const({"head": head, "tail": tail, "dest": dest, "src": src,
                             "payload": bits}).as_value().value
    return layout.body.const({"tail": tail, "data": bits}).as_value().value


def _flit_fields(layout, value):
    """``(head, tail, dest, src, bits)`` of a flit value (dest/src None in a head-only
    body flit)."""
    flit = data.Const(layout, value)
    if flit.head or layout.header == "every":
        return int(flit.head), int(flit.tail), int(flit.dest), int(flit.src), \
            int(flit.payload)
    body = data.Const(layout.body, value)
    return 0, int(body.tail), None, None, int(body.data)


def _packets(rng, layout, flits, count):
    """``count`` random packets of ``flits`` flits: ``(dest, [flit values])``."""
    out = []
    for _ in range(count):
        dest = rng.randrange(4)
        values = []
        for i in range(flits):
            width = layout.payload_width if i == 0 else layout.body_payload_width
            values.append(_flit_value(layout, int(i == 0), int(i == flits - 1), dest, 0,
                                      rng.getrandbits(width)))
        out.append((dest, values))
    return out


def _round_trip(layout, flits, width, packets, rng, *, here=2, src=1):
    """Send ``packets`` through PacketToMessage -> MessageToPacket (the messages'
    ``id`` is ``src``) with random valid and ready; returns the beats of each
    message and the flits out."""
    to_message = PacketToMessage(layout, width)
    to_packet = MessageToPacket(layout, flits, width, here)
    top = Module()
    top.submodules.to_message, top.submodules.to_packet = to_message, to_packet
    m_axis, p_axis = to_message.axis, to_packet.axis
    top.d.comb += [p_axis.valid.eq(m_axis.valid), m_axis.ready.eq(p_axis.ready),
                   p_axis.payload.data.eq(m_axis.payload.data),
                   p_axis.payload.last.eq(m_axis.payload.last),
                   p_axis.payload.id.eq(src)]
    queue = [v for _, values in packets for v in values]
    beats, messages, dests, out = [], [], [], []

    async def bench(ctx):
        position = 0
        for _ in range(40 + 12 * len(queue) * max(1, 64 // width)):
            offer = position < len(queue) and rng.random() < 0.8
            ctx.set(to_message.flits.valid, offer)
            if offer:
                ctx.set(to_message.flits.payload, data.Const(layout, queue[position]))
            ready = rng.random() < 0.7
            ctx.set(to_packet.flits.ready, ready)
            if ctx.get(m_axis.valid) and ctx.get(m_axis.ready):
                beats.append(ctx.get(m_axis.payload.data))
                if ctx.get(m_axis.payload.last):
                    messages.append(list(beats))
                    dests.append(ctx.get(m_axis.payload.dest))
                    beats.clear()
            if offer and ctx.get(to_message.flits.ready):
                position += 1
            if ready and ctx.get(to_packet.flits.valid):
                out.append(ctx.get(to_packet.flits.payload).as_value().value)
            await ctx.tick()

    run_clocked(top, bench)
    return messages, dests, out


# tdata narrower than, equal to, wider than and not dividing the payload, both headers
CASES = [(8, 32, "every", 1), (16, 32, "every", 2), (32, 32, "every", 3),
         (48, 32, "every", 2), (24, 32, "every", 3), (16, 40, "head", 1),
         (16, 40, "head", 3), (40, 40, "head", 2), (64, 40, "head", 2),
         (24, 20, "head", 4)]


@pytest.mark.parametrize("width, payload, header, flits", CASES)
def test_a_packet_comes_back_whole(width, payload, header, flits):
    layout = _layout(payload, header)
    rng = random.Random(width * payload + flits)
    packets = _packets(rng, layout, flits, 6)
    messages, dests, out = _round_trip(layout, flits, width, packets, rng)
    beats = packet_beats(layout, flits, width)
    bits = packet_bits(layout, flits)
    assert [d for d, _ in packets] == dests
    assert all(len(m) == beats for m in messages) and len(messages) == len(packets)
    for (_, values), message in zip(packets, messages):
        # the message: the packet's data bits, bit 0 first, zero-padded
        joined, at = 0, 0
        for value in values:
            head, _, _, _, part = _flit_fields(layout, value)
            joined |= part << at
            at += layout.payload_width if head else layout.body_payload_width
        assert sum(b << (i * width) for i, b in enumerate(message)) == joined
        assert at == bits
    # the packets back: the same data, dest the receiving node, src the message's id
    assert len(out) == len(packets) * flits
    for i, (_, values) in enumerate(packets):
        for j, value in enumerate(values):
            head, tail, dest, src, part = _flit_fields(layout, out[i * flits + j])
            sent_head, sent_tail, _, _, sent_part = _flit_fields(layout, value)
            assert (head, tail, part) == (sent_head, sent_tail, sent_part)
            if head or header == "every":
                assert (dest, src) == (2, 1)


def test_a_short_message_ends_its_packet_early():
    """A message shorter than a packet ends in a tail before the packet's length (a
    checker then sees the framing break)."""
    layout = _layout(32, "every")
    to_packet = MessageToPacket(layout, 3, 32, 0)
    out = []

    async def bench(ctx):
        ctx.set(to_packet.flits.ready, 1)
        for k in range(8):
            ctx.set(to_packet.axis.valid, k < 2)
            ctx.set(to_packet.axis.payload.data, 5 + k)
            ctx.set(to_packet.axis.payload.last, k == 1)
            if ctx.get(to_packet.flits.valid):
                out.append(_flit_fields(layout, ctx.get(to_packet.flits.payload)
                                        .as_value().value))
            await ctx.tick()

    run_clocked(to_packet, bench)
    assert [(h, t, bits) for h, t, _, _, bits in out] == [(1, 0, 5), (0, 1, 6)]


def test_the_interface_fits_a_packet():
    layout = _layout(40, "head")
    assert packet_bits(layout, 1) == 40 and packet_beats(layout, 1, 16) == 3
    assert EndpointInterface(16).for_packets(layout, 1) == EndpointInterface(16, 3)
    assert EndpointInterface(16, 8).for_packets(layout, 1).max_beats == 8
    with pytest.raises(ValueError, match="Maximum message length must be at least 3 "
                                         "beats"):
        EndpointInterface(16, 2).for_packets(layout, 1)
    with pytest.raises(ValueError, match="whole number of bytes"):
        EndpointInterface(12)
    with pytest.raises(ValueError, match="Maximum message length in beats"):
        EndpointInterface(16, 0)
    with refused(ValueError, "Packing must be one of 'auto', 'aligned', 'header-flit', "
                             "not 'tight'"):
        EndpointInterface(16, packing="tight")


def test_bridges_refuse_bad_parameters():
    layout = _layout(32, "every")
    with refused(TypeError, "Layout must be a FlitLayout"):
        PacketToMessage(32, 16)
    with refused(ValueError, "whole number of bytes"):
        PacketToMessage(layout, 12)
    with refused(ValueError, "Packet length in flits"):
        MessageToPacket(layout, 0, 16)
    with refused(ValueError, "Node address"):
        MessageToPacket(layout, 1, 16, 4)
