"""Bridges between a router's packets and AXI4-Stream messages, for fabrics whose
traffic runs through the endpoints (``cubefab sim --interface axi-stream``).

A packet of a flit layout is the bit string of its data: the head flit's ``payload``,
then every further flit's data bits (its ``payload``, or with ``header="head"`` all
of :attr:`~cubefab.hdl.flit.FlitLayout.body`'s ``data``). :class:`PacketToMessage`
sends that string as one AXI4-Stream message (``data_width``-bit beats, bit 0 first,
the last zero-padded, ``dest`` the head's); :class:`MessageToPacket` cuts a message
back into the flits of a ``packet_flits``-flit packet (``dest`` this node, ``src`` the
message's ``id``). :class:`EndpointInterface` is the configuration a self-checking
fabric takes to put :class:`~cubefab.hdl.endpoint.EndpointInject` and
:class:`~cubefab.hdl.endpoint.EndpointEject` between its generators, routers and
checkers (:class:`~cubefab.hdl.selfcheck.SelfCheckConfig`).
"""

import dataclasses
import math
from dataclasses import dataclass

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ...topology.base import check_int
from ..flit import FlitLayout
from .message import MAX_DATA_WIDTH, MAX_WINDOW, axis_in_layout, axis_out_layout, check_packing


__all__ = ["EndpointInterface", "PacketToMessage", "MessageToPacket", "packet_bits",
           "packet_beats"]


def _check_layout(layout):
    if not isinstance(layout, FlitLayout):
        raise TypeError(f"Layout must be a FlitLayout, not {layout!r}")
    return layout


def _check_data_width(data_width):
    data_width = check_int("Data width", data_width, 8, MAX_DATA_WIDTH)
    if data_width % 8:
        raise ValueError(f"Data width must be a whole number of bytes (8, 16, ..., "
                         f"{MAX_DATA_WIDTH}), not {data_width}")
    return data_width


def packet_bits(layout, packet_flits):
    """Data bits of a ``packet_flits``-flit packet of ``layout``: the head's payload
    and every other flit's data bits."""
    _check_layout(layout)
    packet_flits = check_int("Packet length in flits", packet_flits, 1)
    return layout.payload_width + (packet_flits - 1) * layout.body_payload_width


def packet_beats(layout, packet_flits, data_width):
    """Beats of ``data_width`` bits of the message that carries such a packet."""
    return math.ceil(packet_bits(layout, packet_flits) / _check_data_width(data_width))


@dataclass(frozen=True)
class EndpointInterface:
    """AXI4-Stream endpoints between a self-checking fabric's generators and checkers
    and its routers (docs/endpoints.md, "Through ``cubefab sim``").

    Parameters
    ----------
    data_width : int
        ``tdata`` bits, a whole number of bytes from 8 to 512.
    max_beats : int, optional
        The endpoints' longest message in beats (``None``: the beats of one packet,
        :meth:`for_packets`).
    window : int
        With adaptive routers: unacknowledged messages per destination
        (:class:`~cubefab.hdl.endpoint.MessageFormat`; default 1).
    packing : str
        How the endpoints cut beats into flits, one of
        :data:`~cubefab.hdl.endpoint.message.PACKINGS` (default ``"auto"``).
    """

    data_width: int
    max_beats: int | None = None
    window: int = 1
    packing: str = "auto"

    def __post_init__(self):
        _check_data_width(self.data_width)
        if self.max_beats is not None:
            check_int("Maximum message length in beats", self.max_beats, 1)
        check_int("Window", self.window, 1, MAX_WINDOW)
        check_packing(self.packing)

    def for_packets(self, layout, packet_flits):
        """This interface with ``max_beats`` filled in for packets of
        ``packet_flits`` flits of ``layout`` (ValueError when they do not fit)."""
        beats = packet_beats(layout, packet_flits, self.data_width)
        if self.max_beats is None:
            return dataclasses.replace(self, max_beats=beats)
        if self.max_beats < beats:
            raise ValueError(
                f"Maximum message length must be at least {beats} beats (a "
                f"{packet_flits}-flit packet holds {packet_bits(layout, packet_flits)} "
                f"data bits, {beats} beats of {self.data_width} bits), not "
                f"{self.max_beats}")
        return self


class PacketToMessage(wiring.Component):
    """Each packet of ``flits`` as one AXI4-Stream message on ``axis``.

    The packet's data bits (:func:`packet_bits`) leave as beats of ``data_width``
    bits, bit 0 first, as soon as a beat's bits are in; the last beat (``last``) is
    zero-padded; ``dest`` is the head's ``dest`` on every beat of the message. A
    packet's head is taken in the cycle the last beat of the message before leaves.

    Parameters
    ----------
    layout : FlitLayout
        The packets' flits.
    data_width : int
        ``tdata`` bits (a whole number of bytes, 8 to 512).

    Members
    -------
    flits : In(stream.Signature(layout))
        The packets (from a traffic generator).
    axis : Out(stream.Signature(axis_in_layout(data_width, address_bits)))
        The messages (to an :class:`~cubefab.hdl.endpoint.EndpointInject`).
    """

    def __init__(self, layout, data_width):
        self.layout = _check_layout(layout)
        self.data_width = _check_data_width(data_width)
        super().__init__({
            "flits": In(stream.Signature(layout)),
            "axis": Out(stream.Signature(axis_in_layout(self.data_width,
                                                       layout.address_bits))),
        })

    def elaborate(self, platform):
        m = Module()
        layout, width = self.layout, self.data_width
        head_bits, body_bits = layout.payload_width, layout.body_payload_width
        chunk = max(head_bits, body_bits)
        # room for a flit whatever leaves in the cycle (``ready`` reads registers only):
        # a flit is taken while fewer than ``chunk + width`` bits wait
        size = 2 * chunk + width - 1
        buf, n = Signal(size), Signal(range(size + 1))
        ended = Signal()                       # the packet's tail is in buf
        dest = Signal(layout.address_bits)
        axis = self.axis
        last = ended & (n <= width)
        m.d.comb += [axis.valid.eq((n >= width) | (ended & (n != 0))),
                     axis.payload.data.eq(buf[:width]), axis.payload.last.eq(last),
                     axis.payload.dest.eq(dest)]
        beat = axis.valid & axis.ready
        done = beat & last
        n_after = Signal.like(n)
        m.d.comb += n_after.eq(Mux(done, 0, Mux(beat, n - width, n)))
        buf_after = Mux(beat, buf >> width, buf)
        flit = self.flits.payload
        if layout.header == "head":
            body = data.View(layout.body, flit.as_value()).data
        else:
            body = flit.payload
        bits = Mux(flit.head, flit.payload, body)
        m.d.comb += self.flits.ready.eq((~ended | done) & (n + chunk <= size))
        m.d.sync += [buf.eq(buf_after), n.eq(n_after)]
        with m.If(done):
            m.d.sync += ended.eq(0)
        with m.If(self.flits.valid & self.flits.ready):
            m.d.sync += [buf.eq(buf_after | (bits << n_after)),
                         n.eq(n_after + Mux(flit.head, head_bits, body_bits)),
                         ended.eq(flit.tail)]
            with m.If(flit.head):
                m.d.sync += dest.eq(flit.dest)
        return m


class MessageToPacket(wiring.Component):
    """Each AXI4-Stream message of ``axis`` as a ``packet_flits``-flit packet on
    ``flits``: :class:`PacketToMessage` undone.

    A flit leaves as soon as its bits are in: the head (``head``; ``dest`` this node,
    ``src`` the message's ``id``, ``vc`` 0) with the first ``payload_width`` bits, then
    body flits, the ``packet_flits``-th with ``tail``; the padding of the last beat is
    dropped. A message of another length is passed on so that a checker sees it:
    a short one ends early (a zero-padded tail), the bits of a long one continue
    after the tail as flits of no packet.

    Parameters
    ----------
    layout : FlitLayout
        The packets' flits.
    packet_flits : int
        Flits per packet (>= 1).
    data_width : int
        ``tdata`` bits (a whole number of bytes, 8 to 512).
    node : int or None
        This node's address (the packets' ``dest``), or ``None`` to take it from the
        ``here`` input.

    Members
    -------
    axis : In(stream.Signature(axis_out_layout(data_width, address_bits)))
        The messages (from an :class:`~cubefab.hdl.endpoint.EndpointEject`).
    flits : Out(stream.Signature(layout))
        The packets (to a traffic checker).
    here : In(address_bits)
        This node's address; present only when ``node`` is ``None``.
    """

    def __init__(self, layout, packet_flits, data_width, node=None):
        self.layout = _check_layout(layout)
        self.packet_flits = check_int("Packet length in flits", packet_flits, 1, 1 << 16)
        self.data_width = _check_data_width(data_width)
        bits = layout.address_bits
        self.node = None if node is None else check_int("Node address", node, 0,
                                                        (1 << bits) - 1)
        super().__init__({
            **({"here": In(bits)} if self.node is None else {}),
            "axis": In(stream.Signature(axis_out_layout(self.data_width, bits))),
            "flits": Out(stream.Signature(layout)),
        })

    def elaborate(self, platform):
        m = Module()
        layout, width, flits = self.layout, self.data_width, self.packet_flits
        head_bits, body_bits = layout.payload_width, layout.body_payload_width
        # room for a beat whatever leaves in the cycle (``ready`` reads no adder): a
        # beat is taken while fewer than ``max(head_bits, body_bits) + width`` bits wait
        size = max(head_bits, body_bits) + 2 * width - 1
        buf, n = Signal(size), Signal(range(size + 1))
        index = Signal(range(flits + 2))      # flits of the message sent (flits + 1: past)
        ended = Signal()                      # the message's last beat is in buf
        src = Signal(layout.address_bits)
        here = self.here if self.node is None else self.node
        chunk = Mux(index == 0, head_bits, body_bits)
        expected = index < flits
        out = self.flits
        tail = (index == flits - 1) | (ended & (n <= chunk))
        m.d.comb += out.valid.eq((n >= chunk) | (ended & expected))
        sent = out.valid & out.ready
        # the message is over: its last flit left, or what is left of it is padding
        over = ended & ((sent & (n <= chunk)) | (sent & (index == flits - 1))
                        | (~out.valid & (n < chunk)))
        n_after = Signal.like(n)
        m.d.comb += n_after.eq(Mux(over, 0, Mux(sent, n - chunk, n)))
        buf_after = Mux(sent, Mux(index == 0, buf >> head_bits, buf >> body_bits), buf)
        head = Signal(layout)
        m.d.comb += [head.head.eq(1), head.tail.eq(tail), head.dest.eq(here),
                     head.src.eq(src), head.payload.eq(buf[:head_bits])]
        if layout.header == "head":
            body = Signal(layout.body)
            m.d.comb += [body.tail.eq(tail), body.data.eq(buf[:body_bits])]
        else:
            body = Signal(layout)
            m.d.comb += [body.tail.eq(tail), body.dest.eq(here), body.src.eq(src),
                         body.payload.eq(buf[:body_bits])]
        m.d.comb += out.payload.eq(Mux(index == 0, head.as_value(), body.as_value()))
        axis = self.axis
        # (bits above ``n`` stay zero: a new beat is ORed in at ``n``)
        kept = Mux(over, 0, buf_after)
        m.d.comb += axis.ready.eq((~ended | over) & (n + width <= size))
        m.d.sync += [buf.eq(kept), n.eq(n_after)]
        with m.If(over):
            m.d.sync += [index.eq(0), ended.eq(0)]
        with m.Elif(sent):
            m.d.sync += index.eq(Mux(index > flits, index, index + 1))
        with m.If(axis.valid & axis.ready):
            m.d.sync += [buf.eq(kept | (axis.payload.data << n_after)),
                         n.eq(n_after + width), ended.eq(axis.payload.last),
                         src.eq(axis.payload.id)]
        return m
