"""Generated designs on disk: Verilog plus a JSON manifest that describes it.

The manifest lets a tool that instantiates the Verilog (a testbench, a vendor
flow, a script) find out what it is without reading the Python: the generator and
its version, the topology and component parameters, the top module's ports
(name, direction, width, as they appear in the Verilog) and the address map
(every node the design covers, with its dense index and its neighbour on each
port; the local port is ``degree``).
"""

import json
import os
import re

import amaranth
from .. import __version__, files
from ..topology.base import Topology
from .verilog import verilog_text as convert


__all__ = ["MANIFEST_VERSION", "verilog_ports", "address_map", "write_design"]

#: Version of the manifest's format.
MANIFEST_VERSION = 1

_MODULE = re.compile(r"module\s+\\?([A-Za-z_][\w$.]*)\s*\(([^)]*)\)\s*;")
_PORT = re.compile(r"^\s*(input|output|inout)\s+(?:wire\s+|reg\s+)?(?:\[(\d+):(\d+)\]\s*)?"
                   r"\\?([^\s;,]+)\s*;", re.MULTILINE)


def verilog_ports(text, top):
    """Ports of module ``top`` in Verilog ``text`` (one ``input``/``output``
    declaration per port, as Yosys writes them), as a list of
    ``{"name", "direction", "width"}`` in the order of the module's port list.
    Declarations of functions' inputs inside the module are not ports."""
    for match in _MODULE.finditer(text):
        if match.group(1) == top:
            names = [n.strip().lstrip("\\") for n in match.group(2).split(",") if n.strip()]
            end = text.find("endmodule", match.end())
            declared = {}
            for direction, msb, lsb, name in _PORT.findall(text[match.end():end]):
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
    """Write ``{out_dir}/{name}.v`` and ``{out_dir}/{name}.json`` (the manifest).

    Parameters
    ----------
    component : wiring.Component
        The design (converted with :func:`cubefab.build.verilog.verilog_text` unless
        ``verilog_text`` is given).
    name : str
        Top module name and file stem.
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
        The manifest, with ``verilog_path`` and ``manifest_path`` added.
    """
    if not re.fullmatch(r"[A-Za-z_]\w*", name or ""):
        raise ValueError(f"Module name must be a Verilog identifier, not {name!r}")
    os.makedirs(out_dir, exist_ok=True)
    if verilog_text is None:
        verilog_text = convert(component, name)
    ports = verilog_ports(verilog_text, name)
    manifest = {
        "manifest_version": MANIFEST_VERSION,
        "generator": "cubefab",
        "generator_version": __version__,
        "amaranth_version": amaranth.__version__,
        "kind": kind,
        "top": name,
        "verilog": f"{name}.v",
        "clocked": any(p["name"] == "clk" for p in ports),
        "parameters": dict(parameters or {}),
        "ports": ports,
    }
    if topology is not None:
        manifest["topology"] = {"family": topology.name, "label": topology.label,
                                "params": dict(topology.params),
                                "nodes": topology.num_nodes, "degree": topology.degree}
        manifest["address_map"] = address_map(topology, nodes)
    verilog_path = os.path.join(out_dir, f"{name}.v")
    manifest_path = os.path.join(out_dir, f"{name}.json")
    for path in (verilog_path, manifest_path):    # both may be written, before either is
        files.check_output(path)
    files.write_text(verilog_path, verilog_text)
    files.write_text(manifest_path, json.dumps(manifest, indent=2) + "\n")
    return {**manifest, "verilog_path": verilog_path, "manifest_path": manifest_path}
