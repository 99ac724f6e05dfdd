"""The router's crossbar: one-hot selected AND-OR multiplexers."""

import functools
import operator

from amaranth.hdl import Mux, Value


__all__ = ["one_hot_mux"]


def one_hot_mux(select, inputs):
    """The AND-OR multiplexer: the OR of the ``inputs`` (values or views of one width)
    whose ``select`` bit is set (zero when none is; ``select`` one-hot or zero)."""
    width = len(Value.cast(inputs[0]))
    terms = [Mux(select[i], Value.cast(x), 0) for i, x in enumerate(inputs)]
    return functools.reduce(operator.or_, terms)[:width]
