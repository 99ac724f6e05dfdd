"""``cubefab demo``: its steps, and how it reports missing or failing parts."""

import json

from cubefab.commands import demo


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
    manifest = json.loads((tmp_path / "verilog" / "route_unit_n0.json").read_text())
    # the conventions' route-unit interface: dest in, port out
    assert {p["name"] for p in manifest["ports"]} == {"dest", "port"}
