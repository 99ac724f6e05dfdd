"""Every benchmark script starts: its ``--help`` runs (the scripts are run by hand, so an
import broken by a refactor would otherwise go unseen until someone measures)."""

import importlib.util
import json
import pathlib
import subprocess
import sys

import pytest


BENCHMARKS = sorted((pathlib.Path(__file__).parent.parent / "benchmarks").glob("*.py"))


def test_the_benchmarks_are_found():
    assert len(BENCHMARKS) >= 10


@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda p: p.name)
def test_a_benchmark_shows_its_usage(script):
    r = subprocess.run([sys.executable, str(script), "--help"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("usage:") and r.stderr == ""


RESULTS = pathlib.Path(__file__).parent.parent / "benchmarks" / "results"


@pytest.mark.parametrize("result", sorted(RESULTS.glob("*.json")), ids=lambda p: p.name)
def test_a_saved_result_records_no_scratch_folder(result):
    assert "--workdir" not in json.loads(result.read_text())["command"]


def test_the_recorded_command_leaves_the_scratch_folder_out():
    spec = importlib.util.spec_from_file_location(
        "saved_results", RESULTS.parent / "saved_results.py")
    saved = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(saved)
    line = saved.command_line("benchmarks/fabric_fit.py",
                              ["--seeds", "1", "--workdir", "/tmp/w", "--workdir=/x", "-q"])
    assert line == "python benchmarks/fabric_fit.py --seeds 1 -q"
