"""A timing harness: measures a component's register-to-register Fmax on a device
whose pins it could not fit on.

A router with five 16-bit ports has ~200 port bits, more than an iCE40's pins, and
paths from pins are not register-to-register, so nextpnr's Fmax would not see them.
The harness registers every input and output bit of the component: the inputs are
the stages of one shift register fed from the ``scan_in`` pin (so synthesis can
assume nothing about them), the outputs are registered and XOR-reduced to the
``digest`` pin (so none of them can be optimised away). Every path into and out of
the component then starts and ends at a flip-flop, as it would between routers of
a fabric. The harness costs one flip-flop per port bit and about one LUT4 per three
output bits; report the component's own LUT4s from a synthesis of the component
alone.
"""

from amaranth.hdl import Module, Signal, Const, ValueCastable
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out


__all__ = ["TimingHarness"]


class TimingHarness(wiring.Component):
    """Register every port bit of ``dut`` (a :class:`wiring.Component`).

    Members
    -------
    scan_in : In(1)
        Serial input shifted through the registers that drive the inputs of ``dut``.
    digest : Out(1)
        XOR of the registered outputs of ``dut``.
    """

    scan_in: In(1)
    digest: Out(1)

    def __init__(self, dut):
        if not isinstance(dut, wiring.Component):
            raise TypeError(f"Design must be an Amaranth wiring.Component, not {dut!r}")
        self.dut = dut
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.submodules.dut = self.dut
        inputs, outputs = [], []
        for path, member, value in self.dut.signature.flatten(self.dut):
            if isinstance(value, ValueCastable):
                value = value.as_value()
            if isinstance(value, Const):
                continue        # e.g. the ready of an always-ready stream
            (inputs if member.flow == In else outputs).append(value)
        in_width = sum(len(v) for v in inputs)
        out_width = sum(len(v) for v in outputs)
        # inputs: one shift register, a stage per input bit
        if in_width:
            chain = Signal(in_width)
            m.d.sync += chain.eq((chain << 1) | self.scan_in)
            offset = 0
            for value in inputs:
                m.d.comb += value.eq(chain[offset:offset + len(value)])
                offset += len(value)
        # outputs: registered, then folded into one pin (combinational, not timed)
        if out_width:
            captured = Signal(out_width)
            offset = 0
            for value in outputs:
                m.d.sync += captured[offset:offset + len(value)].eq(value)
                offset += len(value)
            m.d.comb += self.digest.eq(captured.xor())
        return m
