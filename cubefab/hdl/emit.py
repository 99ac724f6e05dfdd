"""Verilog that every user's tool accepts, from an Amaranth design.

:func:`emit_verilog` turns a design into one self-contained Verilog-2005 module:

* **One behaviour in every simulator.** Every process is lowered to cells (Yosys
  ``proc``), so the output has no ``always @*`` block and no time-0 trigger
  register: combinational logic is continuous assignments, state is
  ``always @(posedge ...)`` blocks, and registers take their initial values in
  ``initial`` statements. It simulates the same in Icarus under ``-g2005`` and
  ``-g2012``, in Verilator and in the Amaranth simulator.
* **One module, named after the design.** The hierarchy is flattened into the top
  module, so two generated designs with different top names never share a module
  name and compile into one design together.
* **Lint-clean by construction.** Yosys only lowers and flattens the design
  (:data:`YOSYS_PASSES`) and writes its netlist as JSON; the module is written from
  that netlist (:mod:`cubefab.hdl._emit_verilog`): every operator's operands have the
  width of its result (extended or cut bit by bit), no declaration has a zero or
  negative width, only the output bits the ports depend on are declared (no unused
  signal), priority multiplexers and bit selects are ``?:`` chains (no ``casez``),
  and comparisons that are constant are constants. Verilator ``--lint-only -Wall``
  and slang find nothing; the one waiver is an ``UNUSEDSIGNAL`` around the
  declaration of an input port some of whose bits the design does not read (the port
  belongs to the interface), with a comment saying so. A net that holds some bits of
  a design signal has its name and a comment saying which bits.
* **Provenance.** The file starts with a comment naming the cubefab, Amaranth and
  Yosys versions and the command (or library call) that made it
  (:mod:`cubefab.provenance`).
"""

import os
import re
import subprocess
import tempfile

from amaranth.back import rtlil

from ..provenance import header_lines
from ._emit_netlist import NetlistError, load_netlist
from ._emit_yosys import yosys_command
from ._emit_verilog import write_module


__all__ = ["VerilogEmitError", "emit_verilog", "check_module_name", "YOSYS_PASSES"]


class VerilogEmitError(RuntimeError):
    """Yosys could not turn a design into Verilog."""


_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def check_module_name(name):
    """``name`` if it is a simple Verilog identifier (letters, digits, ``_``; not
    starting with a digit), else ValueError."""
    if not isinstance(name, str) or not _MODULE_NAME.match(name):
        raise ValueError(f"Module name must be a Verilog identifier (a letter or _, then "
                         f"letters, digits or _), not {name!r}")
    return name


#: The Yosys passes between reading the design and writing its netlist: processes to
#: cells, the hierarchy into one module, constants folded, equal cells merged, dead logic
#: removed, each memory's ports gathered into one cell.
YOSYS_PASSES = (
    "proc",
    "flatten",
    "opt_expr",
    "opt_merge",
    "opt_clean -purge",
    "memory_collect",
    "opt_clean -purge",
)


def _run_yosys(rtlil_text, passes):
    """The JSON netlist Yosys writes of ``rtlil_text`` after ``passes``."""
    with tempfile.TemporaryDirectory(prefix="cubefab-emit-") as work:
        with open(os.path.join(work, "design.il"), "w") as f:
            f.write(rtlil_text)
        with open(os.path.join(work, "emit.ys"), "w") as f:
            f.write("\n".join(["read_rtlil design.il", *passes,
                               "write_json design.json", ""]))
        result = subprocess.run([*yosys_command(), "-q", "-s", "emit.ys"], cwd=work,
                                capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise VerilogEmitError("yosys failed to write the netlist: "
                                   + (result.stderr or result.stdout).strip()[-2000:])
        with open(os.path.join(work, "design.json")) as f:
            return f.read()


def _port_names(ports):
    """The top module's port names in the order ``ports`` gives them (the module's
    port list keeps that order; Yosys's netlist has its own)."""
    if isinstance(ports, dict):
        return list(ports)
    return [port.name for port in ports]


def emit_verilog(design, name, ports, *, made_by=None):
    """The Verilog of ``design`` as one module ``name``.

    Parameters
    ----------
    design : Elaboratable
        The design; its ``sync`` domain (if any) becomes ports ``clk`` and ``rst``
        unless ``design`` defines the domain itself.
    name : str
        The module's name (a simple Verilog identifier).
    ports : list of Signal or dict
        The top module's ports, as :func:`amaranth.back.rtlil.convert` takes them.
    made_by : str, optional
        The library call that makes the file, for its header when no command line
        is running (:func:`cubefab.provenance.header_lines`).

    Returns
    -------
    str
        The Verilog text: a header comment, then the module.
    """
    name = check_module_name(name)
    rtlil_text = rtlil.convert(design, name=name, ports=ports, emit_src=False)
    try:
        netlist = load_netlist(_run_yosys(rtlil_text, YOSYS_PASSES))
        order = {port: i for i, port in enumerate(_port_names(ports))}
        netlist.ports.sort(key=lambda port: order.get(port[0], len(order)))
        text = write_module(netlist, name)
    except NetlistError as error:
        raise VerilogEmitError(f"Cannot write {name}: {error}") from error
    header = "".join(f"// {line}\n" for line in header_lines(made_by))
    return header + "\n" + text.lstrip("\n")
