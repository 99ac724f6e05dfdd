"""Every benchmark script starts: its ``--help`` runs (the scripts are run by hand, so an
import broken by a refactor would otherwise go unseen until someone measures)."""

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
