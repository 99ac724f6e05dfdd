"""The router's crossbar: one-hot selected AND-OR multiplexers."""

import functools
import operator

from amaranth.hdl import Module, Mux, Shape
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..topology.base import check_int


__all__ = ["Crossbar"]


class Crossbar(wiring.Component):
    """Connect each output to the input its one-hot select names.

    Parameters
    ----------
    shape : shape-like
        Shape of the data (e.g. a :class:`~cubefab.hdl.flit.FlitLayout`).
    inputs, outputs : int
        Numbers of inputs and outputs.

    Members
    -------
    i : In(shape).array(inputs)
    select : In(inputs).array(outputs)
        ``select[o]``: one-hot input for output ``o``; zero gives zero.
    o : Out(shape).array(outputs)
        Combinational.
    """

    def __init__(self, shape, inputs, outputs):
        self.shape = shape
        self.inputs = check_int("Input count", inputs, 1)
        self.outputs = check_int("Output count", outputs, 1)
        super().__init__({
            "i": In(shape).array(inputs),
            "select": In(inputs).array(outputs),
            "o": Out(shape).array(outputs),
        })

    def elaborate(self, platform):
        m = Module()
        width = Shape.cast(self.shape).width
        for o in range(self.outputs):
            terms = [Mux(self.select[o][i], self.i[i].as_value(), 0)
                     for i in range(self.inputs)]
            m.d.comb += self.o[o].as_value().eq(functools.reduce(operator.or_, terms)[:width])
        return m
