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


def _script(name):
    """The benchmark script ``benchmarks/NAME.py`` as a module."""
    spec = importlib.util.spec_from_file_location(name, RESULTS.parent / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("result", sorted(RESULTS.glob("*.json")), ids=lambda p: p.name)
def test_a_saved_result_records_no_scratch_folder(result):
    assert "--workdir" not in json.loads(result.read_text())["command"]


def test_the_recorded_command_leaves_the_scratch_folder_out():
    saved = _script("saved_results")
    line = saved.command_line("benchmarks/fabric_fit.py",
                              ["--seeds", "1", "--workdir", "/tmp/w", "--workdir=/x", "-q"])
    assert line == "python benchmarks/fabric_fit.py --seeds 1 -q"


def test_fabric_fit_passes_the_packing_flit_width_and_depth_on():
    """``--packing header-flit --flit-width 18 --depth 3`` reach every ``synth fabric``
    the fabric benchmark runs, and name its work folder."""
    fit = _script("fabric_fit")
    args = type("Args", (), {"packing": "header-flit", "flit_width": 18, "depth": 3,
                             "workdir": "w"})()
    argv = fit._design_argv("hypercube", {"n": 3}, 16, "hx8k", args)
    assert argv[argv.index("--packing") + 1] == "header-flit"
    assert argv[argv.index("--flit-width") + 1] == "18"
    assert argv[argv.index("--depth") + 1] == "3"
    assert argv[-1] == "w/hx8k_hypercube_n3_w16_header-flit_f18_d3"
    args.packing, args.flit_width, args.depth = "auto", None, None
    argv = fit._design_argv("hypercube", {"n": 3}, 16, "hx8k", args)
    assert "--packing" not in argv and "--flit-width" not in argv and "--depth" not in argv
    assert argv[-1] == "w/hx8k_hypercube_n3_w16"
