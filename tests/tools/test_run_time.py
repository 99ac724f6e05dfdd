"""The run-time model behind the estimates of ``synth`` and ``board`` against the runs
that measured it (benchmarks/results/run_times.json)."""

import json
import pathlib

import pytest

from cubefab.build import run_time
from cubefab.tools.devices import check_device

RESULT = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "results" / \
    "run_times.json"


@pytest.fixture(scope="module")
def saved():
    return json.loads(RESULT.read_text())["figures"]


def test_the_model_is_the_one_the_benchmark_saved(saved):
    assert run_time.MODEL == saved["model"]


def _one_device(runs, part, family):
    """The thousands of LUTs of the one device ``family``'s runs of stage ``part`` ran
    on, or None when they ran on several."""
    devices = {run["device"] for run in runs.values() if part in run["seconds"]
               and check_device(run["device"]).family.name == family}
    return check_device(devices.pop()).luts / 1000 if len(devices) == 1 else None


def _identifiable(values, part, luts):
    """The terms of a fitted ``part`` the runs determine: with all runs of a family on
    one device (``luts``, thousands of LUTs) nextpnr's and the packer's constant and
    per-LUT terms are one number, ``a + c * luts`` (the least squares may split it any
    way, by the machine's arithmetic)."""
    if part in ("pnr", "pack") and luts is not None:
        return [values[0] + values[1] * luts, *values[2:]]
    return list(values)


def test_the_fit_of_the_saved_runs_is_the_saved_model(saved):
    fitted = run_time.fit(saved["runs"])
    assert fitted["verilog"] == pytest.approx(saved["model"]["verilog"], rel=1e-3, abs=1e-4)
    for part in ("synthesis", "cells", "pnr", "pack"):
        for family, values in saved["model"][part].items():
            # a constant term of seconds (the first) may sit at its lower bound, 1e-6 s,
            # or a few milliseconds above it, by the scipy release: the optimum is flat
            # there; the other terms to a thousandth
            luts = _one_device(saved["runs"], part, family)
            got = _identifiable(fitted[part][family], part, luts)
            want = _identifiable(values, part, luts)
            constant = 1e-2 if part in ("synthesis", "pnr", "pack") else 1e-4
            assert got[0] == pytest.approx(want[0], rel=1e-3, abs=constant), (part, family)
            assert got[1:] == pytest.approx(want[1:], rel=1e-3, abs=1e-4), (part, family)


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


def test_the_saved_runs_span_large_designs(saved):
    """The fit reaches the designs users build: a netlist of 40,000 cells or more placed
    and routed, a design of 5 MB of Verilog or more synthesised."""
    runs = saved["runs"].values()
    assert max(run["cells"] for run in runs if "pnr" in run["seconds"]) >= 40_000
    assert max(run["megabytes"] for run in runs) >= 5


def test_the_worst_ratio_is_the_estimate_off_by_the_largest_factor():
    runs = {"a": {"seconds": {"synthesis": 10.0, "pnr": 1.0},
                  "ratio": {"synthesis": 2.2, "pnr": 0.1, "pnr_before_synthesis": 0.05}},
            "b": {"seconds": {"synthesis": 10.0}, "ratio": {"synthesis": 0.4}}}
    assert run_time.worst_ratio(runs) == (0.1, "a", "pnr")
    assert run_time.worst_ratio(runs, least=2) == (0.4, "b", "synthesis")
    assert run_time.worst_ratio(runs, ["pnr_before_synthesis"]) == \
        (0.05, "a", "pnr_before_synthesis")


def test_the_saved_worst_ratio_is_within_twice(saved):
    assert 0.5 <= saved["worst_ratio"]["ratio"] <= 2


@pytest.mark.parametrize("load, cores, exponent, factor", [
    (6.0, 2, 1.0, 3.0), (8.0, 2, 0.5, 2.0), (1.0, 2, 1.0, 1.0), (0.2, 8, 0.5, 1.0)])
def test_a_busy_machine_lengthens_the_estimates_by_a_power_of_its_load_per_core(
        load, cores, exponent, factor):
    assert run_time.load_factor(load, cores, exponent) == pytest.approx(factor)


def test_the_load_factor_takes_the_models_power_by_default():
    assert run_time.load_factor(8.0, 2) == pytest.approx(4.0 ** run_time.MODEL["load"])


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


def test_a_fit_of_one_family_s_runs_has_coefficients_of_that_family_alone(saved):
    """``run_times.py --only`` some runs: a family with no run placed and routed, or
    packed, gets no coefficients of nextpnr or the packer (and the fit does not fail)."""
    ecp5 = {name: run for name, run in json.loads(json.dumps(saved["runs"])).items()
            if check_device(run["device"]).family.name == "ECP5"
            and "pack" not in run["seconds"]}
    fitted = run_time.fit(ecp5)
    assert set(fitted["pnr"]) == {"ECP5"} and fitted["pack"] == {}
    assert set(run_time.estimate_runs(ecp5, fitted)) == set(ecp5)
