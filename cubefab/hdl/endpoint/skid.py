"""A skid buffer: a stream whose ``ready`` comes straight from a register."""

from amaranth.hdl import Module, Mux, Signal, Value
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out


__all__ = ["SkidBuffer"]


class SkidBuffer(wiring.Component):
    """Passes the stream ``w_stream`` on to ``r_stream`` with ``w_stream.ready`` a
    register: no combinational path from ``r_stream.ready`` to ``w_stream.ready``.

    While it is empty, a payload goes straight through (no added latency); a payload
    that ``r_stream`` refuses is held in a register of its own (``w_stream.ready`` goes
    low for as long as it is held) and presented first. So a payload passes every cycle
    while ``r_stream`` takes one every cycle, in order, none lost or repeated.

    Parameters
    ----------
    shape : ShapeLike
        The payload's shape.

    Members
    -------
    w_stream : In(stream.Signature(shape))
        The payloads in; ``ready`` is high exactly when no payload is held.
    r_stream : Out(stream.Signature(shape))
        The same payloads out, the held one first.
    """

    def __init__(self, shape):
        super().__init__({"w_stream": In(stream.Signature(shape)),
                          "r_stream": Out(stream.Signature(shape))})

    def elaborate(self, platform):
        m = Module()
        w, r = self.w_stream, self.r_stream
        held = Signal()
        payload = Value.cast(w.payload)
        kept = Signal(len(payload))
        m.d.comb += [w.ready.eq(~held), r.valid.eq(held | w.valid),
                     r.payload.eq(Mux(held, kept, payload))]
        with m.If(~held):
            m.d.sync += kept.eq(payload)
        m.d.sync += held.eq(r.valid & ~r.ready)
        return m
