"""``cubefab demo``: its steps, and how it reports missing or failing parts."""

import json

import pytest

from cubefab.commands import demo
from tests.helpers import needs_family


def test_missing_and_failing_parts_are_reported_not_raised(cli, tmp_path, monkeypatch):
    def missing(ctx):
        raise demo.Missing("the widget is not available in this installation")

    def broken(ctx):
        raise RuntimeError("boom")

    def fine(ctx):
        ctx.say("fine step ran")
        return {"x": 1}
    monkeypatch.setattr(demo, "STEPS", [("missing", missing), ("broken", broken),
                                        ("fine", fine)])
    monkeypatch.setattr(demo, "start_synthesis", missing)
    r = cli("demo", "-o", tmp_path)
    assert r.status == 1
    assert "skipped: the widget is not available" in r.out
    assert "failed: RuntimeError: boom" in r.out
    assert "fine step ran" in r.out
    summary = json.loads((tmp_path / "demo.json").read_text())
    assert [s["status"] for s in summary["steps"]] == ["skipped", "failed", "done"]


def test_demo_json_prints_one_document(cli, tmp_path, monkeypatch):
    monkeypatch.setattr(demo, "STEPS", [("properties", demo.step_properties),
                                        ("route unit", demo.step_route_unit)])
    monkeypatch.setattr(demo, "start_synthesis", lambda ctx: None)
    r = cli("demo", "-o", tmp_path, "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert [s["status"] for s in doc["steps"]] == ["done", "done"]
    assert (tmp_path / "properties.txt").exists()
    manifest = json.loads((tmp_path / "verilog" / "cubefab_mc12_route_n0.json").read_text())
    # the conventions' route-unit interface: dest in, port out
    assert {p["name"] for p in manifest["ports"]} == {"dest", "port"}
    # named after the design, packaged, and stating what made it
    command = f"cubefab demo -o {tmp_path} --json"
    assert manifest["top"] == demo.DESIGN_NAMES["route"] == "cubefab_mc12_route_n0"
    assert manifest["generator"]["command"] == doc["generator"]["command"] == command
    assert (tmp_path / "verilog" / "cubefab_mc12_route_n0.core").exists()
    route = doc["steps"][1]["result"]
    assert route["core"] == str(tmp_path / "verilog" / "cubefab_mc12_route_n0.core")
    assert f"// Made by: {command}\n" in \
        (tmp_path / "verilog" / "cubefab_mc12_route_n0.v").read_text()


def _first(ctx):
    ctx.say("first results")
    return {}


def test_background_parts_start_after_the_first_results(cli, tmp_path, monkeypatch):
    # a slow background part: the demo says what it waits for, then reports it
    import concurrent.futures
    import threading
    release = threading.Event()

    def fake_fabric(ctx):
        def work():
            release.wait(10)
            return {"ports": [{"name": "clk", "width": 1}],
                    "top": "cubefab_mc12_fabric",
                    "verilog_path": str(tmp_path / "verilog" / "cubefab_mc12_fabric.v"),
                    "manifest_path": str(tmp_path / "verilog" / "cubefab_mc12_fabric.json"),
                    "core_path": str(tmp_path / "verilog" / "cubefab_mc12_fabric.core")}
        future = concurrent.futures.ThreadPoolExecutor(1).submit(work)
        threading.Timer(1.0, release.set).start()
        return future
    monkeypatch.setattr(demo, "STEPS", [("first", _first), ("fabric", demo.step_fabric)])
    monkeypatch.setattr(demo, "start_fabric", fake_fabric)
    r = cli("demo", "-o", tmp_path)
    assert r.status == 0, r.out
    assert r.out.index("first results") < r.out.index("started in the background")
    assert "still running: Verilog of the whole fabric" in r.out
    assert "cubefab_mc12_fabric.v (1 ports, 1 bits)" in r.out
    summary = json.loads((tmp_path / "demo.json").read_text())
    assert "fabric" in summary["background_seconds"]


def test_a_background_part_that_cannot_start_is_reported_by_its_step(cli, tmp_path,
                                                                     monkeypatch):
    def missing(ctx):
        raise demo.Missing("the fabric is not available in this installation")
    monkeypatch.setattr(demo, "STEPS", [("first", _first), ("fabric", demo.step_fabric)])
    monkeypatch.setattr(demo, "start_fabric", missing)
    r = cli("demo", "-o", tmp_path)
    assert r.status == 0, r.err
    assert "skipped: the fabric is not available" in r.out


def test_the_router_manifest_says_which_buffer_auto_chose(cli, tmp_path, monkeypatch):
    monkeypatch.setattr(demo, "STEPS", [("router", demo.step_router)])
    monkeypatch.setattr(demo, "start_synthesis", lambda ctx: None)
    monkeypatch.setattr(demo, "start_fabric", lambda ctx: None)
    r = cli("demo", "-o", tmp_path)
    assert r.status == 0, r.err
    manifest = json.loads((tmp_path / "verilog" / "cubefab_mc12_router_n0.json").read_text())
    assert manifest["parameters"]["buffer_auto"] is True
    assert manifest["parameters"]["buffer"] == demo.router_config().storage == "memory"


def test_demo_refuses_an_unknown_device(cli, tmp_path):
    r = cli("demo", "-o", tmp_path, "--device", "ecp5")
    assert r.status == 2 and "--device" in r.err
    assert not (tmp_path / "demo.json").exists()


@pytest.mark.slow
@needs_family("lfe5u-85f")
def test_demo_on_a_named_device_estimates_the_self_checking_fabric(cli, tmp_path,
                                                                    monkeypatch):
    monkeypatch.setattr(demo, "STEPS", [("properties", demo.step_properties),
                                        ("iCE40 resources and Fmax", demo.step_synthesis)])
    r = cli("demo", "-o", tmp_path, "--device", "lfe5u-85f")
    assert r.status == 0, r.out + r.err
    assert "[2/2] ECP5 resources and Fmax" in r.out
    assert "ECP5 LFE5U-85F-6CABGA381, yosys synth_ecp5 + nextpnr-ecp5" in r.out
    report = json.loads((tmp_path / "synthesis.json").read_text())
    assert report["router"]["device"] == "lfe5u-85f" and report["router"]["fits"]
    estimate = report["self-checking fabric (estimate)"]
    assert estimate["nodes"] == 32
    assert estimate["fabric"]["lut4"] == 32 * estimate["lut4"] > 0


def test_the_fabric_made_in_a_child_process_names_the_parents_command(tmp_path,
                                                                      monkeypatch):
    # the fabric's Verilog is made in a spawned process, which the command line's
    # context does not reach: the parent hands its invocation over
    from cubefab.hdl.fabric import Fabric, FabricConfig
    from cubefab.topology import Hypercube
    monkeypatch.setattr(demo, "make_fabric", lambda: Fabric(
        FabricConfig.for_topology(Hypercube(1), payload_width=8)))
    manifest = demo.fabric_verilog(str(tmp_path), invocation="cubefab demo -o out")
    assert manifest["top"] == "cubefab_mc12_fabric"
    assert manifest["generator"]["command"] == "cubefab demo -o out"
    text = (tmp_path / "verilog" / "cubefab_mc12_fabric.v").read_text()
    assert "// Made by: cubefab demo -o out\n" in text
    assert (tmp_path / "verilog" / "cubefab_mc12_fabric.core").exists()
