"""Building blocks of the route units: priority selection and functions given by tables.

These turn decisions made in Python (by the topology reference model) into small,
shallow combinational logic; they never encode topology knowledge themselves.
"""

from collections import Counter

from amaranth.hdl import Mux, Value


__all__ = ["first_true", "table_function"]


def _first_tree(choices):
    if len(choices) == 1:
        return choices[0]
    middle = len(choices) // 2
    low_any, low_value = _first_tree(choices[:middle])
    high_any, high_value = _first_tree(choices[middle:])
    return low_any | high_any, Mux(low_any, low_value, high_value)


def first_true(choices, default):
    """The value of the first ``(condition, value)`` pair whose condition holds.

    A priority encoder generalised to arbitrary values: with ``choices`` =
    ``[(diff[j], j) for j in ...]`` it is the lowest-set-bit encoder. It is built as a
    balanced tree of 2:1 multiplexers, so its depth grows with the logarithm of
    ``len(choices)``; constant values fold away in synthesis.

    Parameters
    ----------
    choices : list of (Value, Value or int)
        Conditions (1-bit) in priority order, each with the value it selects.
    default : Value or int
        The value when no condition holds.
    """
    choices = [(Value.cast(condition), value) for condition, value in choices]
    if not choices:
        return Value.cast(default)
    any_true, value = _first_tree(choices)
    return Mux(any_true, value, default)


def table_function(m, target, select, table, width):
    """Drive ``target`` with ``table[select]``: a function given by its truth table.

    Emits one ``Switch`` on ``select`` whose cases group the entries by value (the
    most frequent value is the default), which synthesis minimises to a sum of
    products; meant for small functions (up to a few thousand entries).

    Parameters
    ----------
    m : Module
    target : Signal
    select : Value
        The table index, ``width`` bits.
    table : sequence of int
        ``2**width`` entries.
    width : int
        Width of ``select``.
    """
    if len(table) != 1 << width:
        raise ValueError(f"Table must have {1 << width} entries, not {len(table)}")
    groups = {}
    for index, value in enumerate(table):
        groups.setdefault(int(value), []).append(index)
    default = Counter(int(v) for v in table).most_common(1)[0][0]
    if len(groups) == 1 or width == 0:
        m.d.comb += target.eq(default)
        return
    with m.Switch(select):
        for value, indices in sorted(groups.items()):
            if value == default:
                continue
            with m.Case(*indices):
                m.d.comb += target.eq(value)
        with m.Default():
            m.d.comb += target.eq(default)
