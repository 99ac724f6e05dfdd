"""The router's crossbar: one-hot selected AND-OR multiplexers."""

import functools
import operator

from amaranth.hdl import Module, Mux, Value
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..topology.base import check_int


__all__ = ["Crossbar", "one_hot_mux"]


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
        for o in range(self.outputs):
            m.d.comb += self.o[o].eq(one_hot_mux(self.select[o], self.i))
        return m


def one_hot_mux(select, inputs):
    """The AND-OR multiplexer: the OR of the ``inputs`` (values or views of one width)
    whose ``select`` bit is set."""
    width = len(Value.cast(inputs[0]))
    terms = [Mux(select[i], Value.cast(x), 0) for i, x in enumerate(inputs)]
    return functools.reduce(operator.or_, terms)[:width]
