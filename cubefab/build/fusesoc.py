"""FuseSoC cores of generated Verilog: a design that a FuseSoC project depends on.

Beside every Verilog file it writes for users, cubefab writes a CAPI2 core file
``<top>.core`` that names the file and its top module:

* ``name``: the VLNV ``cubefab:generated:<top>:<cubefab version>`` (:func:`core_vlnv`);
* one fileset, ``rtl``, holding the Verilog file (``verilogSource``), by its name
  relative to the core (the two are written side by side);
* targets ``default`` (the fileset and the top module, for a core that depends on
  this one), ``lint`` (Verilator ``--lint-only -Wall``, plus ``-Wno-DECLFILENAME``
  only when the file is not named ``<top>.v``) and ``sim`` (Icarus Verilog), each
  with ``toplevel: <top>``.

``fusesoc --cores-root DIR run --target lint cubefab:generated:<top>:<version>`` then
lints the design, ``--target sim`` builds it in Icarus (docs/integration.md).
"""

import json
import os

from .. import files
from ..hdl.emit import check_module_name
from ..provenance import VERSION, header_lines


__all__ = ["CORE_VENDOR", "CORE_LIBRARY", "TARGETS", "FILE_NAME_WAIVER", "core_vlnv", "core_path",
           "core_text", "write_core", "write_packaged"]

#: The vendor and library parts of a generated core's VLNV.
CORE_VENDOR, CORE_LIBRARY = "cubefab", "generated"

#: The targets of a generated core: name -> (default tool, tool options as YAML lines
#: below ``tools:``, or ()).
TARGETS = {
    "default": (None, ()),
    "lint": ("verilator", ("verilator:", "  mode: lint-only", "  verilator_options:",
                           "    - -Wall")),
    "sim": ("icarus", ()),
}

#: The lint option added when the Verilog file is not named after its module
#: (``-o route5.v`` for module ``cubefab_mc12_route_n5``): Verilator's style warning
#: about that names the user's choice of file name, not the design.
FILE_NAME_WAIVER = "-Wno-DECLFILENAME"


def core_vlnv(top):
    """The VLNV of the core of top module ``top``:
    ``cubefab:generated:<top>:<cubefab version>``."""
    return f"{CORE_VENDOR}:{CORE_LIBRARY}:{check_module_name(top)}:{VERSION}"


def core_path(verilog_path, top):
    """The path of the core of ``verilog_path``: ``<top>.core`` in the same directory."""
    return os.path.join(os.path.dirname(os.fspath(verilog_path)),
                        f"{check_module_name(top)}.core")


def _quoted(text):
    """``text`` as a YAML double-quoted scalar (JSON's string syntax is YAML's)."""
    return json.dumps(str(text), ensure_ascii=True)


def _target_lines(name, tool, tool_lines, top):
    lines = [f"  {name}:", "    filesets:", "      - rtl"]
    if tool is not None:
        lines.append(f"    default_tool: {tool}")
    if tool_lines:
        lines += ["    tools:", *(f"      {line}" for line in tool_lines)]
    return lines + [f"    toplevel: {top}"]


def core_text(top, verilog_file, description, made_by=None):
    """The CAPI2 core of one generated Verilog file.

    Parameters
    ----------
    top : str
        The top module (a Verilog identifier); it names the core.
    verilog_file : str
        The Verilog file's path relative to the core file (its name when they lie
        side by side).
    description : str
        What the design is, in words.
    made_by : str, optional
        The library call that makes the file, for its header comment when no command
        line is running (:func:`cubefab.provenance.header_lines`).

    Returns
    -------
    str
        The core file's text: ``CAPI=2:``, a provenance comment, then the YAML.
    """
    top = check_module_name(top)
    lines = ["CAPI=2:", *(f"# {line}" for line in header_lines(made_by)), "",
             f"name: {core_vlnv(top)}",
             f"description: {_quoted(description)}", "",
             "filesets:", "  rtl:", "    files:", f"      - {_quoted(verilog_file)}",
             "    file_type: verilogSource", "", "targets:"]
    renamed = os.path.splitext(os.path.basename(verilog_file))[0] != top
    for name, (tool, tool_lines) in TARGETS.items():
        if name == "lint" and renamed:
            tool_lines = (*tool_lines, f"    - {FILE_NAME_WAIVER}")
        lines += _target_lines(name, tool, tool_lines, top)
    return "\n".join(lines) + "\n"


def write_core(verilog_path, top, description, made_by=None, force=None):
    """Write the core of the Verilog file ``verilog_path`` (top module ``top``) beside
    it, through :mod:`cubefab.files` (atomic, never replacing a file cubefab did not
    write unless ``force``); returns the core's path. A caller that writes the
    Verilog too checks both paths first (:func:`write_packaged`)."""
    path = core_path(verilog_path, top)
    text = core_text(top, os.path.basename(os.fspath(verilog_path)), description, made_by)
    return files.write_text(path, text, force)


def write_packaged(verilog_path, text, top, description, made_by=None, force=None):
    """Write Verilog ``text`` (top module ``top``) to ``verilog_path`` and its core
    beside it (:func:`write_core`), after checking that both may be written
    (:func:`cubefab.files.check_output`): a refused core leaves no Verilog behind.

    Returns
    -------
    tuple of str
        The Verilog file's path and the core's path.
    """
    core = core_path(verilog_path, top)
    for path in (verilog_path, core):
        files.check_output(path, force)
    if os.path.abspath(core) == os.path.abspath(verilog_path):
        raise files.OutputRefused(f"{verilog_path}: the Verilog file may not be named "
                                  f"like its core ({os.path.basename(core)})")
    files.write_text(verilog_path, text, force)
    return verilog_path, write_core(verilog_path, top, description, made_by, force)
