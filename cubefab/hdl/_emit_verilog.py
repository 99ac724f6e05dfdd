"""Verilog text of a :class:`~cubefab.hdl._emit_netlist.Netlist`, lint-clean by
construction (:func:`~cubefab.hdl.emit.emit_verilog` states the rules it keeps).

Every expression is written at one width: the operands of an operator are extended or
cut (as bit lists, so the written operand has exactly that width) to the width of its
result, which is the width of the net it is assigned to. Only live columns
(:func:`~cubefab.hdl._emit_netlist.live_columns`) are declared. A priority multiplexer
is a chain of ``?:``, a right shift that keeps fewer bits than it shifts a chain of
``?:`` over the shift amount, never a ``casez``.
"""

from collections import defaultdict

from ._emit_cells import write_cell
from ._emit_memory import memory_nets
from ._emit_netlist import NetlistError, live_columns, plain_name


__all__ = ["write_module"]


def _const(bits):
    """Constant bits (LSB first; ``x`` and ``z`` as 0: Amaranth has no X) as a sized
    hexadecimal literal."""
    value = sum(1 << i for i, bit in enumerate(bits) if bit == "1")
    return f"{len(bits)}'h{value:x}"


class _Writer:
    """Names, declarations and statements of one module."""

    def __init__(self, netlist):
        self.netlist = netlist
        self.refs = {}            # live bit -> (net name, index, net width)
        self.taken = set()
        self.decls, self.initials, self.assigns = [], [], []
        self.blocks = defaultdict(list)   # (edge, clock) -> statements
        self.port_kinds = {}      # output port name -> "reg" or "wire"
        self.notes = {}           # net name -> the bits of a design signal it holds

    # -- names and references ------------------------------------------------------

    def unique(self, name):
        """``name`` (plain), or with a numeric suffix if it is taken; now taken."""
        base = candidate = plain_name(name)
        suffix = 1
        while candidate in self.taken:
            candidate, suffix = f"{base}_{suffix}", suffix + 1
        self.taken.add(candidate)
        return candidate

    def bind(self, name, bits):
        for index, bit in enumerate(bits):
            if isinstance(bit, int):
                self.refs[bit] = (name, index, len(bits))

    def render(self, bits):
        """Bits (LSB first) as a Verilog expression of exactly ``len(bits)`` bits."""
        pieces = []               # [kind, payload, count], LSB first
        for bit in bits:
            ref = self.refs.get(bit) if isinstance(bit, int) else None
            if ref is None:
                bit = bit if bit in ("0", "1") else "0"
                if pieces and pieces[-1][0] == "const":
                    pieces[-1][1].append(bit)
                else:
                    pieces.append(["const", [bit], 0])
                continue
            last = pieces[-1] if pieces else None
            if last and last[0] == "slice" and last[1][0] == ref[0] and (
                    last[1][1] + last[2] == ref[1]):
                last[2] += 1
            elif last and last[0] == "repeat" and last[1] == ref:
                last[2] += 1
            elif last and last[0] == "slice" and last[2] == 1 and last[1] == ref:
                last[0], last[2] = "repeat", 2
            else:
                pieces.append(["slice", ref, 1])
        texts = [self._piece(*piece) for piece in pieces]
        return texts[0] if len(texts) == 1 else "{ " + ", ".join(reversed(texts)) + " }"

    @staticmethod
    def _piece(kind, payload, count):
        if kind == "const":
            return _const(payload)
        name, index, width = payload
        if kind == "repeat":
            one = name if width == 1 else f"{name}[{index}]"
            return f"{{{count}{{{one}}}}}"
        if count == width:
            return name
        return f"{name}[{index}]" if count == 1 else f"{name}[{index + count - 1}:{index}]"

    # -- declarations --------------------------------------------------------------

    def declare(self, kind, name, width, init=None):
        """Declare net ``name`` (``wire`` or ``reg``), unless it is an output port;
        ``init``: its initial bits."""
        if name in self.port_kinds:
            self.port_kinds[name] = kind
        else:
            note = f"  // {self.notes[name]}" if name in self.notes else ""
            self.decls.append(f"  {kind} {_range(width)}{name};{note}")
        if init is not None:
            self.initials.append(f"  initial {name} = {_const(init)};")


def _range(width):
    return f"[{width - 1}:0] " if width > 1 else ""


def _net_name(writer, bits, outputs, wires, fallback=None):
    """An output port whose bits are ``bits``, else a public wire's, else the name of
    the public wire that holds them all (noted: which bits), else ``fallback``, else a
    new one."""
    key = tuple(bits)
    if key in outputs and outputs[key] not in writer.named_outputs:
        writer.named_outputs.add(outputs[key])
        return outputs[key]
    if key in wires:
        return writer.unique(wires[key])
    holder = wires.get(("of", bits[0]))
    if holder is not None:
        indices = [holder[1].get(bit) for bit in bits]
        if None not in indices:
            name = writer.unique(holder[0])
            writer.notes[name] = f"bits {_ranges(indices)} of {holder[0]}"
            return name
    return writer.unique(fallback or f"_{len(writer.taken)}_")


def _columns(cell, port):
    return sorted(cell.live.get(port, ()))


def name_nets(writer, netlist, outputs):
    """Name the net of every cell's live output columns and bind its bits."""
    wires = {}
    for name, bits in sorted(netlist.wires.items(), key=lambda w: (w[0].count("."),
                                                                     len(w[0]), w[0])):
        wires.setdefault(tuple(bits), name)
        places = {bit: index for index, bit in enumerate(bits) if isinstance(bit, int)}
        for bit in places:
            wires.setdefault(("of", bit), (name, places))
    nets = {}
    for cell in netlist.cells:
        if cell.type == "$mem_v2":
            memory_nets(writer, cell, nets, lambda bits, fallback: _net_name(
                writer, bits, outputs, wires, fallback))
            continue
        for port in sorted(cell.live):
            columns = _columns(cell, port)
            if not columns:
                continue
            bits = [cell.conns[port][k] for k in columns]
            name = _net_name(writer, bits, outputs, wires)
            writer.bind(name, bits)
            nets[cell.name, port] = (name, columns)
    return nets


def write_module(netlist, name):
    """The Verilog module ``name`` of ``netlist`` (its only module)."""
    live = live_columns(netlist)
    writer = _Writer(netlist)
    writer.named_outputs = set()
    for port, _direction, _bits in netlist.ports:
        if plain_name(port) != port:
            raise NetlistError(f"Port name must be a plain Verilog identifier, not {port!r}")
        writer.taken.add(port)
    outputs = {}
    for port, direction, bits in netlist.ports:
        if direction == "input":
            writer.bind(port, bits)
        else:
            writer.port_kinds[port] = "wire"
            if all(isinstance(b, int) for b in bits):
                outputs.setdefault(tuple(bits), port)
    nets = name_nets(writer, netlist, outputs)
    for cell in netlist.cells:
        write_cell(writer, cell, nets)
    for port, direction, bits in netlist.ports:
        if direction == "output" and port not in writer.named_outputs:
            writer.assigns.append(f"  assign {port} = {writer.render(bits)};")
    return _module_text(writer, netlist, name, live)


def _port_lines(writer, netlist, live):
    """One declaration per port (``input [3:0] x;``, then ``reg [3:0] x;`` for an
    output a clocked block drives), by name (as Yosys declares
    them); an input some of whose bits no logic reads is waived for exactly that."""
    lines = []
    for port, direction, bits in sorted(netlist.ports):
        line = f"  {direction} {_range(len(bits))}{port};"
        if writer.port_kinds.get(port) == "reg":
            line += f"\n  reg {_range(len(bits))}{port};"
        unread = [i for i, bit in enumerate(bits) if direction == "input"
                  and isinstance(bit, int) and bit not in live]
        if unread:
            what = "is" if len(unread) == len(bits) else f"has bits {_ranges(unread)}"
            lines += [f"  // {port} {what} not read by this design; the port stays "
                      f"for the interface", "  /* verilator lint_off UNUSEDSIGNAL */",
                      line, "  /* verilator lint_on UNUSEDSIGNAL */"]
        else:
            lines.append(line)
    return lines


def _ranges(indices):
    """Indices (ascending) as ``hi:lo`` runs, highest first (``"86:85, 80:0"``)."""
    runs, start = [], indices[0]
    for previous, index in zip(indices, indices[1:] + [None]):
        if index != previous + 1:
            runs.append(f"{previous}:{start}" if previous != start else f"{start}")
            start = index
    return ", ".join(reversed(runs))


def _module_text(writer, netlist, name, live):
    names = [port for port, _direction, _bits in netlist.ports]
    lines = [f"module {name} ("] + [f"    {port}," for port in names[:-1]]
    lines += [f"    {port}" for port in names[-1:]] + [");"]
    lines += _port_lines(writer, netlist, live)
    lines += writer.decls + writer.initials + writer.assigns
    for (edge, clock), statements in writer.blocks.items():
        lines.append(f"  always @({edge} {clock}) begin")
        lines += [f"    {statement}" for statement in statements]
        lines.append("  end")
    lines.append("endmodule")
    return "\n".join(lines) + "\n"
