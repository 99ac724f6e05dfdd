"""Generated designs on disk: Verilog plus manifest."""

import re
import json

import pytest

from cubefab import __version__, files, provenance
from cubefab.build.manifest import write_design, verilog_ports, address_map
from cubefab.hdl.route import TableRoute
from cubefab.topology import Metacube, DLH


def test_manifest_ports_are_the_verilog_ports(tmp_path):
    topo = Metacube(1, 2)
    manifest = write_design(TableRoute(topo, node=5), "route_n5", str(tmp_path), "route_unit",
                            topo, {"node": 5}, nodes=[5])
    ports = {p["name"]: (p["direction"], p["width"]) for p in manifest["ports"]}
    assert ports == {"dest": ("input", topo.address_bits),
                     "port": ("output", topo.port_width),
                     "request": ("output", topo.degree + 1)}
    assert manifest["clocked"] is False


def test_manifest_file_matches_returned_document(tmp_path):
    topo = Metacube(1, 2)
    manifest = write_design(TableRoute(topo, node=5), "route_n5", str(tmp_path), "route_unit",
                            topo, {"node": 5}, nodes=[5])
    with open(manifest["manifest_path"]) as f:
        on_disk = json.load(f)
    assert on_disk["generator_version"] == __version__
    assert on_disk["parameters"] == {"node": 5}
    assert on_disk["topology"]["params"] == {"k": 1, "m": 2}
    assert on_disk["address_map"]["nodes"] == [{"index": 5, "address": 5,
                                                "neighbors": topo.neighbors(5)}]
    with open(manifest["verilog_path"]) as f:
        assert re.search(r"^module route_n5 ?\(", f.read(), re.MULTILINE)


def test_the_manifest_records_what_made_it_and_its_core(tmp_path):
    topo = Metacube(1, 2)
    with provenance.invoked_as(["demo", "-o", "x y"]):
        manifest = write_design(TableRoute(topo, node=5), "route_n5", str(tmp_path),
                                "route_unit", topo, {"node": 5}, nodes=[5])
    on_disk = json.loads((tmp_path / "route_n5.json").read_text())
    assert on_disk["generator"] == {**provenance.tool_versions(),
                                    "command": "cubefab demo -o 'x y'"}
    assert on_disk["amaranth_version"] == on_disk["generator"]["amaranth"]
    assert on_disk["core"] == "route_n5.core"
    assert on_disk["vlnv"] == f"cubefab:generated:route_n5:{__version__}"
    core = (tmp_path / "route_n5.core").read_text()
    assert manifest["core_path"] == str(tmp_path / "route_n5.core")
    assert core.startswith("CAPI=2:\n") and "toplevel: route_n5" in core
    assert '- "route_n5.v"' in core
    assert "# Made by: cubefab demo -o 'x y'" in core
    # a library call names itself
    again = write_design(TableRoute(topo, node=5), "route_n5", str(tmp_path),
                         "route_unit", topo, {"node": 5}, nodes=[5])
    assert again["generator"]["command"].startswith("cubefab.build.manifest.write_design(")


def test_a_foreign_core_refuses_every_file_before_any_is_written(tmp_path):
    topo = Metacube(1, 2)
    (tmp_path / "route_n5.core").write_text("mine\n")
    with pytest.raises(files.OutputRefused, match="route_n5.core"):
        write_design(None, "route_n5", str(tmp_path), "route_unit", topo, {"node": 5},
                     nodes=[5], verilog_text="module route_n5(); endmodule")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["route_n5.core"]


def test_address_map_covers_every_node_of_a_sparse_topology():
    topo = DLH(2, 1)
    amap = address_map(topo)
    assert len(amap["nodes"]) == topo.num_nodes
    assert amap["local_port"] == topo.degree
    for entry in amap["nodes"]:
        assert topo.address(entry["index"]) == entry["address"]
        assert entry["neighbors"] == [topo.neighbor(entry["address"], p)
                                      for p in range(topo.degree)]


def test_verilog_ports_parses_vectors_and_scalars():
    text = "module a(x, y);\n  input [7:0] x;\n  output y;\nendmodule\n"
    assert verilog_ports(text, "a") == [{"name": "x", "direction": "input", "width": 8},
                                        {"name": "y", "direction": "output", "width": 1}]


def test_verilog_ports_names_missing_module():
    with pytest.raises(ValueError, match="'b'"):
        verilog_ports("module a(); endmodule", "b")


def test_module_name_must_be_an_identifier(tmp_path):
    topo = Metacube(1, 2)
    with pytest.raises(ValueError, match="Verilog identifier"):
        write_design(None, "1bad", str(tmp_path), "route_unit", topo,
                     verilog_text="module a(); endmodule")


def test_router_manifest_lists_every_non_constant_member(tmp_path):
    from cubefab.hdl.router import Router, RouterConfig
    from cubefab.topology import Hypercube
    topo = Hypercube(2)
    router = Router(RouterConfig.for_topology(topo, payload_width=8), 1)
    manifest = write_design(router, "router_n1", str(tmp_path), "router", topo,
                            {"node": 1}, nodes=[1])
    ports = {p["name"]: p for p in manifest["ports"]}
    assert manifest["clocked"] and {"clk", "rst"} <= set(ports)
    flit = router.layout.size
    for p in range(topo.degree):
        assert ports[f"link_in__{p}__flit__payload"]["width"] == flit
        assert ports[f"link_out__{p}__flit__payload"]["direction"] == "output"
        # always-ready links: no ready port
        assert f"link_in__{p}__flit__ready" not in ports
    assert ports["local_in__ready"]["direction"] == "output"
    assert manifest["address_map"]["nodes"][0]["neighbors"] == [0, 3]


def test_verilog_ports_leaves_out_the_arguments_of_functions():
    text = ("module a(x, y);\n  function [1:0] _1_;\n    input [1:0] a;\n"
            "    input [3:0] b;\n    _1_ = a;\n  endfunction\n  input [7:0] x;\n"
            "  output y;\nendmodule\n")
    assert [p["name"] for p in verilog_ports(text, "a")] == ["x", "y"]
