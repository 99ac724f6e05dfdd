"""The run-time model behind the estimates of ``synth`` and ``board`` against the runs
that measured it (benchmarks/results/run_times.json)."""

import json
import pathlib

import pytest

from cubefab.build import run_time

RESULT = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "results" / \
    "run_times.json"


@pytest.fixture(scope="module")
def saved():
    return json.loads(RESULT.read_text())["figures"]


def test_the_model_is_the_one_the_benchmark_saved(saved):
    assert run_time.MODEL == saved["model"]


def test_the_fit_of_the_saved_runs_is_the_saved_model(saved):
    fitted = run_time.fit(saved["runs"])
    assert fitted["verilog"] == pytest.approx(saved["model"]["verilog"], rel=1e-3, abs=1e-4)
    for part in ("synthesis", "cells_per_mb", "pnr", "pack"):
        for family, values in saved["model"][part].items():
            assert fitted[part][family] == pytest.approx(values, rel=1e-3, abs=1e-4), \
                (part, family)


def _stages(saved):
    """(run, stage, measured seconds, estimate) of every stage that took 2 s or more."""
    runs = run_time.estimate_runs(json.loads(json.dumps(saved["runs"])))
    return [(name, stage, seconds, run["estimate"][stage])
            for name, run in runs.items() for stage, seconds in run["seconds"].items()
            if seconds >= 2]


def test_every_estimate_is_within_twice_the_measured_seconds(saved):
    stages = _stages(saved)
    assert {stage for _, stage, _, _ in stages} >= {"synthesis", "pnr"}
    off = [(name, stage, seconds, estimate) for name, stage, seconds, estimate in stages
           if not seconds / 2 <= estimate <= 2 * seconds]
    assert off == []


@pytest.mark.parametrize("load, cores, factor", [(6.0, 2, 3.0), (1.0, 2, 1.0), (0.2, 8, 1.0)])
def test_a_busy_machine_lengthens_the_estimates_by_its_load_per_core(load, cores, factor):
    assert run_time.load_factor(load, cores) == factor


def test_the_hierarchical_synthesis_is_estimated_from_the_flattened_one(monkeypatch):
    from cubefab.progress import Stages
    monkeypatch.setattr(run_time, "load_factor", lambda: 1.0)
    stages = Stages("a design", run_time.implementation_stages("lfe5u-25f", 1.0,
                                                               parts=True))
    run_time.expect_synthesis(stages, 2_000_000, "lfe5u-25f")
    synthesis, parts = stages.stages["synthesis"], stages.stages["parts"]
    assert parts.estimate == pytest.approx(run_time.PARTS_SYNTHESIS * synthesis.estimate)
    assert "parts" not in run_time.implementation_stages("lfe5u-25f", 1.0)
    synthesis.seconds = 200.0       # once synthesis ran, from the seconds it took
    run_time.expect_parts(stages)
    assert parts.estimate == pytest.approx(run_time.PARTS_SYNTHESIS * 200.0)
