"""Generated designs on disk: Verilog plus a JSON manifest that describes it.

The manifest lets a tool that instantiates the Verilog (a testbench, a vendor
flow, a script) find out what it is without reading the Python: what generated it
(``generator``: the cubefab, Amaranth and Yosys versions and the command), the
topology and component parameters, the top module's ports
(name, direction, width, as they appear in the Verilog) and the address map
(every node the design covers, with its dense index and its neighbour on each
port; the local port is ``degree``). A FuseSoC core ``{name}.core`` lies beside the
Verilog (:mod:`cubefab.build.fusesoc`).
"""

import json
import os
import re

import amaranth
from .. import __version__, files
from ..hdl.emit import check_module_name
from ..provenance import generator
from ..topology.base import Topology
from .fusesoc import core_path, core_vlnv, write_core
from .verilog import verilog_text as convert


__all__ = ["MANIFEST_VERSION", "verilog_ports", "address_map", "write_design"]

#: Version of the manifest's format: 2 made ``generator`` the record of what made the
#: files (it was the string ``"cubefab"``) and added ``core`` and ``vlnv``.
MANIFEST_VERSION = 2

_MODULE = re.compile(r"module\s+\\?([A-Za-z_][\w$.]*)\s*\(([^)]*)\)\s*;")
_PORT = re.compile(r"^\s*(input|output|inout)\s+(?:wire\s+|reg\s+)?(?:\[(\d+):(\d+)\]\s*)?"
                   r"\\?([^\s;,]+)\s*;", re.MULTILINE)


#: A function of a module (Yosys writes ``$pmux`` cells as functions), whose
#: ``input`` declarations are its arguments, not the module's ports.
_FUNCTION = re.compile(r"^\s*function\b.*?^\s*endfunction\b", re.MULTILINE | re.DOTALL)


def verilog_ports(text, top):
    """Ports of module ``top`` in Verilog ``text`` (one ``input``/``output``
    declaration per port, as Yosys writes them), as a list of
    ``{"name", "direction", "width"}`` in the order of the module's port list.
    Declarations of functions' inputs inside the module are not ports."""
    for match in _MODULE.finditer(text):
        if match.group(1) == top:
            names = [n.strip().lstrip("\\") for n in match.group(2).split(",") if n.strip()]
            end = text.find("endmodule", match.end())
            body = _FUNCTION.sub("", text[match.end():end])
            declared = {}
            for direction, msb, lsb, name in _PORT.findall(body):
                width = 1 if msb == "" else abs(int(msb) - int(lsb)) + 1
                declared.setdefault(name, {"name": name, "direction": direction,
                                           "width": width})
            return [declared[name] for name in names]
    raise ValueError(f"Module {top!r} is not in the Verilog text")


def address_map(topology, nodes=None):
    """The address map of ``nodes`` (all nodes of ``topology`` when None): for each,
    its dense index, address and the neighbour address on every port."""
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    if nodes is None:
        nodes = [int(a) for a in topology.nodes()]
    entries = []
    for a in nodes:
        a = topology.check_node(a, "node")
        entries.append({"index": int(topology.index(a)), "address": a,
                        "neighbors": [int(v) for v in topology.neighbors(a)]})
    return {"address_bits": topology.address_bits, "port_width": topology.port_width,
            "degree": topology.degree, "local_port": topology.degree, "nodes": entries}


def write_design(component, name, out_dir, kind, topology=None, parameters=None,
                 nodes=None, verilog_text=None):
    """Write ``{out_dir}/{name}.v``, ``{out_dir}/{name}.json`` (the manifest) and
    ``{out_dir}/{name}.core`` (its FuseSoC core, :mod:`cubefab.build.fusesoc`); every
    one is checked before any is written.

    Parameters
    ----------
    component : wiring.Component
        The design (converted with :func:`cubefab.build.verilog.verilog_text` unless
        ``verilog_text`` is given).
    name : str
        Top module name and file stem (:func:`cubefab.build.names.default_top` names
        designs so that they coexist).
    kind : str
        What it is: ``"route_unit"``, ``"router"``, ``"fabric"``, ...
    topology : Topology, optional
        The network, for the topology section and the address map.
    parameters : dict, optional
        The component's own parameters (node, algorithm, flit width, ...).
    nodes : list of int, optional
        Nodes the design covers (default: all nodes of ``topology``).

    Returns
    -------
    dict
        The manifest, with ``verilog_path``, ``manifest_path`` and ``core_path`` added.
    """
    name = check_module_name(name)
    verilog_path = os.path.join(out_dir, f"{name}.v")
    manifest_path = os.path.join(out_dir, f"{name}.json")
    core = core_path(verilog_path, name)
    for path in (verilog_path, manifest_path, core):   # all may be written, before any is
        files.check_output(path)
    os.makedirs(out_dir, exist_ok=True)
    if verilog_text is None:
        verilog_text = convert(component, name)
    ports = verilog_ports(verilog_text, name)
    made_by = f"cubefab.build.manifest.write_design(..., {name!r}, ..., {kind!r})"
    manifest = {
        "manifest_version": MANIFEST_VERSION,
        "generator": generator(made_by),
        "generator_version": __version__,
        "amaranth_version": amaranth.__version__,
        "kind": kind,
        "top": name,
        "verilog": f"{name}.v",
        "core": f"{name}.core",
        "vlnv": core_vlnv(name),
        "clocked": any(p["name"] == "clk" for p in ports),
        "parameters": dict(parameters or {}),
        "ports": ports,
    }
    if topology is not None:
        manifest["topology"] = {"family": topology.name, "label": topology.label,
                                "params": dict(topology.params),
                                "nodes": topology.num_nodes, "degree": topology.degree}
        manifest["address_map"] = address_map(topology, nodes)
    files.write_text(verilog_path, verilog_text)
    write_core(verilog_path, name, _description(kind, topology, parameters), made_by)
    files.write_text(manifest_path, json.dumps(manifest, indent=2) + "\n")
    return {**manifest, "verilog_path": verilog_path, "manifest_path": manifest_path,
            "core_path": core}


def _description(kind, topology, parameters):
    """The design in words, for its core: ``"MC(1,2) router (node 0)"``."""
    what = kind.replace("_", " ")
    where = f"{topology.label} " if topology is not None else ""
    node = (parameters or {}).get("node")
    return f"{where}{what}" + (f" (node {node})" if node is not None else "") + \
        ", generated by cubefab"
