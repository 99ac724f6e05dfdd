"""The flattened Yosys netlist of a design, as :func:`~cubefab.hdl.emit.emit_verilog`
writes it: its cells, which of their output bits the design's outputs depend on, and the
names of what gets declared.

A *bit* is Yosys's: an int (a net bit) or one of ``"0"``, ``"1"``, ``"x"``, ``"z"``.
Liveness is per output column: a column of a cell is *live* when a live input bit of
another cell, or an output port, reads it; every cell type says which input bits one of
its live columns reads (:func:`column_inputs`). Only live columns are written, so every
declared bit is read: no unused signal by construction.
"""

import json
import re
from collections import defaultdict


__all__ = ["Cell", "Netlist", "NetlistError", "load_netlist", "live_columns", "extend",
           "column_inputs", "plain_name", "BITWISE", "PREFIX", "ONE_BIT", "SHIFTS",
           "VERILOG_KEYWORDS"]


class NetlistError(ValueError):
    """The netlist has a cell or parameter the Verilog writer does not support."""


#: Cells whose output column ``k`` reads column ``k`` of each data input (and every
#: select bit): their unread columns are left out.
BITWISE = frozenset({"$and", "$or", "$xor", "$xnor", "$not", "$pos", "$mux", "$pmux",
                     "$dff", "$adff"})
#: Cells whose output columns ``0..k`` read only columns ``0..k`` of their operands
#: (the shift amount of a left shift whole): they are cut to their highest read column.
PREFIX = frozenset({"$add", "$sub", "$mul", "$neg", "$shl", "$sshl"})
#: Cells whose result is one bit, zero-extended to their output width.
ONE_BIT = frozenset({"$eq", "$ne", "$lt", "$le", "$gt", "$ge", "$logic_not",
                     "$logic_and", "$logic_or", "$reduce_and", "$reduce_or",
                     "$reduce_xor", "$reduce_xnor", "$reduce_bool"})
#: Right shifts: every output column may read every operand bit.
SHIFTS = frozenset({"$shr", "$sshr", "$shift", "$shiftx"})
_OUTPUTS = {"$dff": "Q", "$adff": "Q", "$mem_v2": "RD_DATA"}

#: Verilog-2005 and SystemVerilog-2017 keywords: no declared name is one of them.
VERILOG_KEYWORDS = frozenset("""
alias always always_comb always_ff always_latch and assert assign assume automatic before
begin bind bins binsof bit break buf bufif0 bufif1 byte case casex casez cell chandle
checker class clocking cmos config const constraint context continue cover covergroup
coverpoint cross deassign default defparam design disable dist do edge else end endcase
endchecker endclass endclocking endconfig endfunction endgenerate endgroup endinterface
endmodule endpackage endprimitive endprogram endproperty endspecify endsequence endtable
endtask enum event eventually expect export extends extern final first_match for force
foreach forever fork forkjoin function generate genvar global highz0 highz1 if iff ifnone
ignore_bins illegal_bins implements implies import incdir include initial inout input
inside instance int integer interconnect interface intersect join join_any join_none
large let liblist library local localparam logic longint macromodule matches medium
modport module nand negedge nettype new nexttime nmos nor noshowcancelled not notif0
notif1 null or output package packed parameter pmos posedge primitive priority program
property protected pull0 pull1 pulldown pullup pulsestyle_ondetect pulsestyle_onevent
pure rand randc randcase randsequence rcmos real realtime ref reg reject_on release
repeat restrict return rnmos rpmos rtran rtranif0 rtranif1 s_always s_eventually
s_nexttime s_until s_until_with scalared sequence shortint shortreal showcancelled
signed small soft solve specify specparam static string strong strong0 strong1 struct
super supply0 supply1 sync_accept_on sync_reject_on table tagged task this throughout
time timeprecision timeunit tran tranif0 tranif1 tri tri0 tri1 triand trior trireg type
typedef union unique unique0 unsigned until until_with untyped use uwire var vectored
virtual void wait wait_order wand weak weak0 weak1 while wildcard wire with within wor
xnor xor""".split())


class Cell:
    """One Yosys cell: ``type``, integer ``params`` (the string ones in ``text``),
    ``conns`` (port name -> list of bits), ``attributes`` (as Yosys writes them) and
    ``live`` (output port -> set of live columns)."""

    def __init__(self, name, data):
        self.name = name
        self.type = data["type"]
        self.attributes = dict(data.get("attributes", {}))
        self.params, self.text = {}, {}
        for key, value in data["parameters"].items():
            if isinstance(value, str) and value and set(value) <= set("01"):
                self.params[key] = int(value, 2)
            self.text[key] = value
        self.conns = {port: list(bits) for port, bits in data["connections"].items()}
        self.dirs = data["port_directions"]
        self.live = defaultdict(set)

    def signed(self, port):
        """Whether operand ``port`` (``"A"`` or ``"B"``) is signed."""
        return bool(self.params.get(f"{port}_SIGNED", 0))

    @property
    def output(self):
        """The name of the cell's data output port."""
        return _OUTPUTS.get(self.type, "Y")


class Netlist:
    """The top module of a Yosys JSON netlist: ``ports`` (name, direction, bits),
    ``cells``, ``inits`` (bit -> initial value ``"0"``/``"1"``) and ``wires``
    (public name -> bits)."""

    def __init__(self, module):
        self.ports = [(name, port["direction"], list(port["bits"]))
                      for name, port in module["ports"].items()]
        self.cells = [Cell(name, data) for name, data in module["cells"].items()]
        self.inits, self.wires = {}, {}
        for name, net in module["netnames"].items():
            init = net.get("attributes", {}).get("init")
            if isinstance(init, str) and len(init) == len(net["bits"]):
                for bit, value in zip(net["bits"], reversed(init)):
                    self.inits[bit] = value
            if not net.get("hide_name") and not name.startswith("$"):
                self.wires[name] = list(net["bits"])
        for port, direction, _bits in self.ports:
            if direction not in ("input", "output"):
                raise NetlistError(f"Port {port!r} is {direction}; only inputs and "
                                   f"outputs are written")
        _fold_constant_compares(self)
        self.drivers = self._drivers()

    def _drivers(self):
        drivers = {}
        for cell in self.cells:
            for port, bits in cell.conns.items():
                if cell.dirs[port] != "output":
                    continue
                for column, bit in enumerate(bits):
                    if isinstance(bit, int):
                        drivers[bit] = (cell, port, column)
        return drivers


def _constant_compare(cell):
    """``"1"`` or ``"0"`` if unsigned comparison ``cell`` has that value whatever its
    variable operand is (against 0 or all ones: Verilator's UNSIGNED and CMPCONST),
    else None."""
    if cell.type not in ("$lt", "$le", "$gt", "$ge") or (
            cell.signed("A") and cell.signed("B")):
        return None
    width = max(len(cell.conns["A"]), len(cell.conns["B"]))
    a, b = (extend(cell.conns[port], width, False) for port in "AB")
    kind = cell.type
    if all(bit == "0" for bit in b) or all(bit == "1" for bit in a):
        kind = {"$lt": "0", "$ge": "1"}.get(kind)        # a < 0, ones < b ...
    elif all(bit == "1" for bit in b) or all(bit == "0" for bit in a):
        kind = {"$gt": "0", "$le": "1"}.get(kind)        # a > ones, 0 > b ...
    else:
        kind = None
    return kind


def _fold_constant_compares(netlist):
    """Replace the comparisons whose value is constant by that constant."""
    constants = {}
    for cell in netlist.cells:
        value = _constant_compare(cell)
        if value is not None:
            constants.update((bit, value if column == 0 else "0")
                             for column, bit in enumerate(cell.conns["Y"]))
    if not constants:
        return
    netlist.cells = [cell for cell in netlist.cells if _constant_compare(cell) is None]
    for cell in netlist.cells:
        for port, bits in cell.conns.items():
            if cell.dirs[port] == "input":
                cell.conns[port] = [constants.get(bit, bit) for bit in bits]
    netlist.ports = [(name, direction, [constants.get(bit, bit) for bit in bits])
                     for name, direction, bits in netlist.ports]


def load_netlist(text):
    """The :class:`Netlist` of the only module of Yosys JSON ``text``."""
    modules = json.loads(text)["modules"]
    if len(modules) != 1:
        raise NetlistError(f"Netlist must have one (flattened) module, not "
                           f"{sorted(modules)}")
    return Netlist(next(iter(modules.values())))


def extend(bits, width, signed):
    """``bits`` zero- or sign-extended, or cut, to ``width`` bits."""
    if len(bits) >= width:
        return bits[:width]
    fill = bits[-1] if signed and bits else "0"
    return bits + [fill] * (width - len(bits))


def _operand_column(cell, port, column, width):
    bits = cell.conns[port]
    return extend(bits, width, cell.signed(port))[column]


def column_inputs(cell, port, column):
    """The input bits that output column ``column`` of ``port`` of ``cell`` reads."""
    kind, conns = cell.type, cell.conns
    width = len(conns[port])
    if kind in ("$and", "$or", "$xor", "$xnor"):
        return [_operand_column(cell, "A", column, width),
                _operand_column(cell, "B", column, width)]
    if kind in ("$not", "$pos"):
        return [_operand_column(cell, "A", column, width)]
    if kind == "$mux":
        return [conns["A"][column], conns["B"][column], *conns["S"]]
    if kind == "$pmux":
        cases = len(conns["S"])
        return [conns["A"][column], *conns["S"],
                *(conns["B"][case * width + column] for case in range(cases))]
    if kind in ("$dff", "$adff"):
        return [conns["D"][column], *conns["CLK"], *conns.get("ARST", [])]
    if kind in PREFIX:
        operands = [_operand_column(cell, "A", k, width) for k in range(column + 1)]
        if kind in ("$shl", "$sshl"):
            return operands + conns["B"]
        if "B" in conns:
            operands += [_operand_column(cell, "B", k, width) for k in range(column + 1)]
        return operands
    if kind == "$mem_v2":
        return _memory_column_inputs(cell, column)
    return [bit for name, bits in conns.items() if cell.dirs[name] == "input"
            for bit in bits]


def _memory_column_inputs(cell, column):
    """Read-port column ``column`` reads its port's address, enable, clock and resets;
    the memory column under it reads that column of every write port, and their
    addresses and clocks."""
    width, conns = cell.params["WIDTH"], cell.conns
    port, k = divmod(column, width)
    abits = cell.params["ABITS"]
    bits = conns["RD_ADDR"][port * abits:(port + 1) * abits]
    bits += [conns[name][port] for name in ("RD_EN", "RD_CLK", "RD_ARST", "RD_SRST")]
    bits += conns["WR_ADDR"] + conns["WR_CLK"]
    for write in range(cell.params["WR_PORTS"]):
        bits += [conns["WR_DATA"][write * width + k], conns["WR_EN"][write * width + k]]
    return bits


def live_columns(netlist):
    """Mark the live output columns of every cell of ``netlist`` (``cell.live``) from
    its output ports back; returns the set of live bits."""
    live = set()
    stack = [bit for _name, direction, bits in netlist.ports if direction == "output"
             for bit in bits if isinstance(bit, int)]
    while stack:
        bit = stack.pop()
        if bit in live:
            continue
        live.add(bit)
        driver = netlist.drivers.get(bit)
        if driver is None:
            continue
        cell, port, column = driver
        if cell.type in ONE_BIT and column > 0:
            continue                       # a constant 0
        cell.live[port].add(column)
        stack.extend(b for b in column_inputs(cell, port, column)
                     if isinstance(b, int) and b not in live)
    return live


def plain_name(name):
    """A Yosys wire or port name as a simple Verilog identifier: hierarchy dots as
    ``__``, other characters that are no identifier's as ``_``, never a keyword."""
    name = name[1:] if name.startswith("\\") else name
    if re.fullmatch(r"[A-Za-z_]\w*", name) and name not in VERILOG_KEYWORDS:
        return name
    base = re.sub(r"\W", "_", name.replace(".", "__")).strip("_") or "n"
    if base[0].isdigit():
        base = f"n{base}"
    return f"{base}_" if base in VERILOG_KEYWORDS else base
