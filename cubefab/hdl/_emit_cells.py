"""The statements of each Yosys cell type, for :mod:`cubefab.hdl._emit_verilog`.

Each writer gets the cell and the name and live columns of its output net, and writes
an expression of exactly the net's width whose every operand has that width too (or is
a one-bit condition, a shift amount, or the operand of a reduction).
"""

from ._emit_memory import write_memory
from ._emit_netlist import BITWISE, ONE_BIT, PREFIX, SHIFTS, NetlistError, extend


__all__ = ["write_cell"]


_BINARY = {"$and": "&", "$or": "|", "$xor": "^", "$xnor": "~^", "$add": "+",
           "$sub": "-", "$mul": "*"}
_COMPARE = {"$eq": "==", "$ne": "!=", "$lt": "<", "$le": "<=", "$gt": ">", "$ge": ">="}
_REDUCE = {"$reduce_and": "&", "$reduce_or": "|", "$reduce_bool": "|",
           "$reduce_xor": "^", "$reduce_xnor": "~^"}


def _operand(cell, port, width, columns=None):
    """Operand ``port`` extended or cut to ``width``, at ``columns`` if given."""
    bits = extend(cell.conns[port], width, cell.signed(port))
    return bits if columns is None else [bits[k] for k in columns]


def _bitwise(writer, cell, name, columns):
    width = len(cell.conns[cell.output])
    kind = cell.type
    if kind in _BINARY:
        a, b = (writer.render(_operand(cell, p, width, columns)) for p in "AB")
        return f"{a} {_BINARY[kind]} {b}"
    if kind in ("$not", "$pos"):
        a = writer.render(_operand(cell, "A", width, columns))
        return f"~{a}" if kind == "$not" else a
    if kind == "$mux":
        a, b = (writer.render([cell.conns[p][k] for k in columns]) for p in "AB")
        return f"{writer.render(cell.conns['S'])} ? {b} : {a}"
    return _pmux(writer, cell, name, columns, width)


def _pmux(writer, cell, name, columns, width):
    """The lowest selected case wins (as Yosys's ``casez`` writes it; Yosys leaves
    more than one selected case undefined)."""
    select = cell.conns["S"]
    terms = []
    for case, bit in enumerate(select):
        value = [cell.conns["B"][case * width + k] for k in columns]
        terms.append(f"{writer.render([bit])} ? {writer.render(value)} :")
    return _chain(writer, name, len(columns),
                  terms, writer.render([cell.conns["A"][k] for k in columns]))


#: The most ``?:`` terms of one expression. A longer chain is cut into pieces of this
#: many, each but the first a wire of its own that is the default of the piece before
#: it: Yosys's Verilog front end (the WebAssembly build) runs out of stack on a chain of
#: a few hundred terms (a multicast unit of MC(2,2), 1,024 source cases).
CHAIN_LIMIT = 64


def _chain(writer, name, width, terms, default):
    """The ``?:`` chain of ``terms`` (``"condition ? value :"``, the first wins), then
    ``default``, for net ``name`` of ``width`` bits: one expression, or pieces of
    :data:`CHAIN_LIMIT` terms (the later ones declared and assigned here)."""
    pieces = [terms[i:i + CHAIN_LIMIT] for i in range(0, len(terms), CHAIN_LIMIT)] or [[]]
    rest = default
    for piece in reversed(pieces[1:]):
        wire = writer.unique(f"{name}_rest")
        writer.declare("wire", wire, width)
        writer.assigns.append(f"  assign {wire} = " + "\n      ".join([""] + piece + [rest])
                              + ";")
        rest = wire
    return "\n      ".join([""] + pieces[0] + [rest])


def _one_bit(writer, cell):
    kind, conns = cell.type, cell.conns
    if kind in _COMPARE:
        width = max(len(conns["A"]), len(conns["B"]))
        signed = cell.signed("A") and cell.signed("B")
        a, b = (writer.render(extend(conns[p], width, signed)) for p in "AB")
        if signed and kind not in ("$eq", "$ne"):
            a, b = f"$signed({a})", f"$signed({b})"
        return f"{a} {_COMPARE[kind]} {b}"
    if kind in _REDUCE:
        return _reduce(writer, _REDUCE[kind], conns["A"])
    if kind == "$logic_not":
        return _reduce(writer, "~|", conns["A"])
    a, b = (_reduce(writer, "|", conns[p]) for p in "AB")
    return f"{a} {'&' if kind == '$logic_and' else '|'} {b}"


def _reduce(writer, op, bits):
    """A reduction of ``bits``; of one bit, that bit (inverted for ``~|`` and ``~^``)."""
    text = writer.render(bits)
    if len(bits) > 1:
        return f"({op}{text})"
    return f"~{text}" if op.startswith("~") else text


def _prefix(writer, cell, name, columns):
    """Arithmetic and left shifts, cut to the highest live column; a net with unread
    low columns (a left shift's) is a chain over the shift amount."""
    width = columns[-1] + 1
    kind = cell.type
    if columns != list(range(width)):
        if kind in ("$shl", "$sshl"):
            return _shift_chain(writer, cell, name, columns, left=True)
        raise NetlistError(f"{kind} cell {cell.name} with unread low bits")
    a = writer.render(_operand(cell, "A", width))
    if kind == "$neg":
        return f"-{a}"
    if kind in ("$shl", "$sshl"):
        return f"{a} << {writer.render(cell.conns['B'])}"
    return f"{a} {_BINARY[kind]} {writer.render(_operand(cell, 'B', width))}"


def _right_shift(writer, cell, name, columns):
    """A right shift of the whole operand, or a chain over the shift amount when the
    net keeps only some of the shifted bits (a bit or part select)."""
    if cell.type in ("$shift", "$shiftx") and cell.signed("B"):
        raise NetlistError(f"{cell.type} cell {cell.name} with a signed shift amount")
    out = len(cell.conns["Y"])
    width = max(out, len(cell.conns["A"]))
    if columns != list(range(width)):
        return _shift_chain(writer, cell, name, columns, left=False)
    a = writer.render(_operand(cell, "A", width))
    b = writer.render(cell.conns["B"])
    if cell.type == "$sshr" and cell.signed("A"):
        return f"$signed({a}) >>> {b}"
    return f"{a} >> {b}"


def _shift_chain(writer, cell, name, columns, left):
    """``amount == v ? <operand shifted by v> : ...`` for every amount that keeps a
    bit of the operand, then the fill."""
    out = len(cell.conns["Y"])
    width = max(out, len(cell.conns["A"]))
    a = _operand(cell, "A", width)
    fill = a[-1] if cell.type == "$sshr" and cell.signed("A") else "0"
    amount = cell.conns["B"]
    amounts = min(1 << len(amount), width)

    def shifted(v):
        if left:
            return [a[k - v] if 0 <= k - v else "0" for k in columns]
        return [a[k + v] if k + v < width else fill for k in columns]

    b = writer.render(amount)
    last = amounts - 1 if amounts == 1 << len(amount) else amounts
    terms = [f"{b} == {len(amount)}'h{v:x} ? {writer.render(shifted(v))} :"
             for v in range(last)]
    return _chain(writer, name, len(columns), terms,
                  writer.render(shifted(last) if last < amounts else [fill] * len(columns)))


def _flip_flop(writer, cell, name, columns):
    inits = writer.netlist.inits
    q = [cell.conns["Q"][k] for k in columns]
    writer.declare("reg", name, len(columns), [inits.get(bit, "0") for bit in q])
    edge = "posedge" if cell.params["CLK_POLARITY"] else "negedge"
    d = writer.render([cell.conns["D"][k] for k in columns])
    clock = writer.render(cell.conns["CLK"])
    if cell.type == "$dff":
        writer.blocks[edge, clock].append(f"{name} <= {d};")
        return
    reset = writer.render(cell.conns["ARST"])
    reset_edge = "posedge" if cell.params["ARST_POLARITY"] else "negedge"
    value = extend(list(reversed(cell.text["ARST_VALUE"])), len(cell.conns["Q"]), False)
    writer.blocks[f"{edge} {clock} or {reset_edge}", reset].append(
        f"if ({'' if cell.params['ARST_POLARITY'] else '!'}{reset}) {name} <= "
        f"{writer.render([value[k] for k in columns])}; else {name} <= {d};")


def write_cell(writer, cell, nets):
    """Declare and write ``cell``'s live output net (nothing if it has none)."""
    if cell.type == "$mem_v2":
        return write_memory(writer, cell, nets)
    if (cell.name, cell.output) not in nets:
        return None
    name, columns = nets[cell.name, cell.output]
    if cell.type in ("$dff", "$adff"):
        return _flip_flop(writer, cell, name, columns)
    if cell.type in BITWISE:
        expression = _bitwise(writer, cell, name, columns)
    elif cell.type in ONE_BIT:
        expression = _one_bit(writer, cell)
    elif cell.type in PREFIX:
        expression = _prefix(writer, cell, name, columns)
    elif cell.type in SHIFTS:
        expression = _right_shift(writer, cell, name, columns)
    else:
        raise NetlistError(f"Cell type {cell.type} ({cell.name}) is not supported")
    writer.declare("wire", name, len(columns))
    writer.assigns.append(f"  assign {name} = {expression};")
    return None
