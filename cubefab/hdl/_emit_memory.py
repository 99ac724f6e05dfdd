"""A Yosys ``$mem_v2`` cell as a Verilog array, for :mod:`cubefab.hdl._emit_verilog`.

The array keeps the memory's live columns (those some read port's live data reads).
Write ports write in port order in one clocked block (a later port wins, as Yosys's
priority masks order them); a synchronous read port is a register that reads the
array before this edge's writes, then takes the data of the write ports it is
transparent to where they write its address.
"""

from ._emit_netlist import NetlistError


__all__ = ["memory_nets", "write_memory"]


def _bit(value, index):
    return (value >> index) & 1


def memory_nets(writer, cell, nets, name_of):
    """Name the array and the net of every read port with live columns
    (``name_of(bits)``: the net name of ``bits``)."""
    width = cell.params["WIDTH"]
    live = sorted(cell.live.get("RD_DATA", ()))
    columns = sorted({k % width for k in live})
    if not columns:
        return
    nets[cell.name, "array"] = (writer.unique(cell.text["MEMID"]), columns)
    for port in range(cell.params["RD_PORTS"]):
        mine = [k - port * width for k in live if k // width == port]
        if mine:
            bits = [cell.conns["RD_DATA"][port * width + k] for k in mine]
            name = name_of(bits, f"{cell.text['MEMID']}_r{port}")
            writer.bind(name, bits)
            nets[cell.name, f"RD{port}"] = (name, mine)


def _check(cell):
    params = cell.params
    if params["OFFSET"] != 0 or params["RD_WIDE_CONTINUATION"] or (
            params["WR_WIDE_CONTINUATION"]):
        raise NetlistError(f"Memory {cell.name}: offsets and wide ports are not supported")
    if params["ABITS"] != (params["SIZE"] - 1).bit_length() or params["SIZE"] < 2:
        raise NetlistError(f"Memory {cell.name}: {params['SIZE']} words with "
                           f"{params['ABITS']} address bits (the array's index must be "
                           f"as wide as its largest address)")
    if any(bit != "0" for name in ("RD_ARST", "RD_SRST") for bit in cell.conns[name]):
        raise NetlistError(f"Memory {cell.name}: read port resets are not supported")
    if params["WR_CLK_ENABLE"] != (1 << params["WR_PORTS"]) - 1:
        raise NetlistError(f"Memory {cell.name}: asynchronous write ports are not supported")


def _address(cell, prefix, port):
    abits = cell.params["ABITS"]
    return cell.conns[f"{prefix}_ADDR"][port * abits:(port + 1) * abits]


def _runs(enables):
    """Runs ``(first, last, enable)`` of consecutive positions with the same enable."""
    runs = []
    for position, enable in enumerate(enables):
        if runs and runs[-1][2] == enable:
            runs[-1][1] = position
        else:
            runs.append([position, position, enable])
    return runs


def _part(name, first, last, width):
    if first == 0 and last == width - 1:
        return name
    return f"{name}[{first}]" if first == last else f"{name}[{last}:{first}]"


def _guarded(writer, enable, statement):
    if enable == "0":
        return None
    if enable == "1":
        return statement
    return f"if ({writer.render([enable])}) {statement}"


def _write_port(writer, cell, array, columns, port):
    """The statements of write port ``port``."""
    width, statements = cell.params["WIDTH"], []
    base = port * width
    enables = [cell.conns["WR_EN"][base + k] for k in columns]
    address = writer.render(_address(cell, "WR", port))
    for first, last, enable in _runs(enables):
        data = writer.render([cell.conns["WR_DATA"][base + columns[k]]
                              for k in range(first, last + 1)])
        target = _part(f"{array}[{address}]", first, last, len(columns))
        statements.append(_guarded(writer, enable, f"{target} <= {data};"))
    return [s for s in statements if s]


def _clock(writer, cell, prefix, port):
    edge = "posedge" if _bit(cell.params[f"{prefix}_CLK_POLARITY"], port) else "negedge"
    return edge, writer.render([cell.conns[f"{prefix}_CLK"][port]])


def _word(array, columns, mine, address):
    """The live columns ``mine`` of word ``address`` of ``array`` (which holds
    ``columns``), as one expression."""
    runs = _runs([columns.index(k) - i for i, k in enumerate(mine)])
    word = f"{array}[{address}]"
    parts = [_part(word, columns.index(mine[first]), columns.index(mine[last]),
                   len(columns)) for first, last, _offset in runs]
    return parts[0] if len(parts) == 1 else "{ " + ", ".join(reversed(parts)) + " }"


def _read_port(writer, cell, array, columns, port, net):
    """Declare read port ``port``'s net and write its statements."""
    name, mine = net
    width = cell.params["WIDTH"]
    address = writer.render(_address(cell, "RD", port))
    clocked = _bit(cell.params["RD_CLK_ENABLE"], port)
    if clocked and _reads_through_address_register(cell, port):
        # no initial value: a register with one is not merged into a block RAM's read
        # port; until the first clock edge the data is the word at an unknown address
        # (as in Amaranth's own Verilog), and no design reads it before then
        register = writer.unique(f"{name}_address")
        writer.declare("reg", register, cell.params["ABITS"])
        writer.blocks[_clock(writer, cell, "RD", port)].append(f"{register} <= {address};")
        address, clocked = register, False
    value = _word(array, columns, mine, address)
    if not clocked:
        writer.declare("wire", name, len(mine))
        writer.assigns.append(f"  assign {name} = {value};")
        return
    init = cell.text["RD_INIT_VALUE"][::-1][port * width:(port + 1) * width]
    writer.declare("reg", name, len(mine), [init[k] if init[k] in "01" else "0"
                                            for k in mine])
    statements = [f"{name} <= {value};"]
    for write in range(cell.params["WR_PORTS"]):
        if _bit(cell.params["RD_TRANSPARENCY_MASK"], port * cell.params["WR_PORTS"] + write):
            statements += _transparent(writer, cell, port, write, name, mine)
    enable = cell.conns["RD_EN"][port]
    if enable != "1":
        statements = [f"if ({writer.render([enable])}) begin"] + [
            f"  {s}" for s in statements] + ["end"]
    writer.blocks[_clock(writer, cell, "RD", port)].extend(statements)


def _reads_through_address_register(cell, port):
    """Whether synchronous read port ``port`` may be written as a registered address
    and an asynchronous read (the form synthesis maps to block RAM) with the same
    behaviour as a register of the data after the first clock edge: always enabled,
    transparent to every write port, every write port on its clock."""
    writes = cell.params["WR_PORTS"]
    if cell.conns["RD_EN"][port] != "1" or writes == 0:
        return False
    for write in range(writes):
        if not _bit(cell.params["RD_TRANSPARENCY_MASK"], port * writes + write):
            return False
        if (cell.conns["WR_CLK"][write] != cell.conns["RD_CLK"][port]
                or _bit(cell.params["WR_CLK_POLARITY"], write)
                != _bit(cell.params["RD_CLK_POLARITY"], port)):
            return False
    return True


def _transparent(writer, cell, port, write, name, mine):
    width = cell.params["WIDTH"]
    base = write * width
    same = (f"{writer.render(_address(cell, 'WR', write))} == "
            f"{writer.render(_address(cell, 'RD', port))}")
    statements = []
    for first, last, enable in _runs([cell.conns["WR_EN"][base + k] for k in mine]):
        if enable == "0":
            continue
        data = writer.render([cell.conns["WR_DATA"][base + mine[k]]
                              for k in range(first, last + 1)])
        condition = same if enable == "1" else f"{writer.render([enable])} && {same}"
        statements.append(f"if ({condition}) {_part(name, first, last, len(mine))} "
                          f"<= {data};")
    return statements


def write_memory(writer, cell, nets):
    """Declare the array of ``cell``, its initial contents, write and read ports."""
    if (cell.name, "array") not in nets:
        return
    _check(cell)
    array, columns = nets[cell.name, "array"]
    params, width = cell.params, cell.params["WIDTH"]
    style = cell.attributes.get("ram_style")
    if style:   # where the memory goes (block RAM or logic): synthesis reads it
        writer.decls.append(f'  (* ram_style = "{style}" *)')
    writer.decls.append(f"  reg [{len(columns) - 1}:0] {array} [0:{params['SIZE'] - 1}];"
                        if len(columns) > 1 else f"  reg {array} [0:{params['SIZE'] - 1}];")
    init = cell.text["INIT"][::-1]
    words = [f"    {array}[{params['ABITS']}'h{i:x}] = "
             f"{len(columns)}'h{sum(1 << j for j, k in enumerate(columns) if init[i * width + k] == '1'):x};"
             for i in range(params["SIZE"])]
    writer.initials += ["  initial begin", *words, "  end"]
    for port in range(params["WR_PORTS"]):
        writer.blocks[_clock(writer, cell, "WR", port)].extend(
            _write_port(writer, cell, array, columns, port))
    for port in range(params["RD_PORTS"]):
        if (cell.name, f"RD{port}") in nets:
            _read_port(writer, cell, array, columns, port, nets[cell.name, f"RD{port}"])
