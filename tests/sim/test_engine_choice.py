"""The default engine of cubefab sim, and a missing compiler as one error line."""

import pytest

from cubefab.sim import engine_choice
from cubefab.sim.engine_choice import (VERILATOR_BUILD_SECONDS, amaranth_seconds,
                                       choose_engine)

from tests.sim.engine_helpers import needs_verilator


def test_the_amaranth_estimate_is_elaboration_plus_cycles():
    """4 nodes x (0.3 s elaboration + 1000 cycles / 250 cycles a second) = 17.2 s."""
    assert amaranth_seconds(4, 1000) == pytest.approx(17.2)


def test_small_runs_stay_in_amaranth():
    """17.2 s of Amaranth (above) is less than a 20 s build."""
    assert VERILATOR_BUILD_SECONDS == 20
    assert choose_engine(4, 1000, available=True) == (
        "amaranth", "Amaranth needs ~17 s, less than a Verilator build (~20 s)")


def test_the_estimate_is_elaboration_and_cycles_per_node(monkeypatch):
    # nodes x (elaboration + cycles / speed), against the build, with figures set here
    # (the module's are measurements, recalibrated as the simulators change)
    monkeypatch.setattr(engine_choice, "AMARANTH_ELABORATION_SECONDS", 0.5)
    monkeypatch.setattr(engine_choice, "AMARANTH_ROUTER_CYCLES_PER_SECOND", 100)
    monkeypatch.setattr(engine_choice, "VERILATOR_BUILD_SECONDS", 10)
    assert amaranth_seconds(2, 300) == pytest.approx(7.0)      # 2 x (0.5 + 3)
    assert choose_engine(2, 300, available=True)[0] == "amaranth"
    assert choose_engine(4, 300, available=True) == (   # 14 s > 10 s
        "verilator", "Amaranth would need ~14 s, a build ~10 s")


def test_long_runs_pay_for_a_build():
    """32 x (0.3 + 1000 / 250) = 137.6 s of Amaranth against a 20 s build."""
    assert choose_engine(32, 1000, available=True) == (
        "verilator", "Amaranth would need ~138 s, a build ~20 s")


def test_the_choice_ignores_the_build_cache(cli, monkeypatch):
    """The same run picks the same engine whatever the machine has cached: a small run
    stays in Amaranth even when every Verilator build is (said to be) cached."""
    from cubefab.tools.verilator import VerilatorModel
    monkeypatch.setattr(VerilatorModel, "cached", property(lambda self: True))
    r = cli("sim", "hypercube", "-n", 1, "--cycles", 100, "--rate", 0.05, "--json")
    assert r.status == 0 and r.json()["engine"] == "amaranth"


def test_no_compiler_means_amaranth():
    assert choose_engine(1024, 10 ** 6, available=False) == (
        "amaranth", "Verilator cannot build here")


@pytest.fixture
def no_compiler(monkeypatch, tmp_path):
    """An empty build cache and a PATH without make or g++."""
    monkeypatch.setenv("CUBEFAB_CACHE", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("CXX", "no-such-compiler")


@needs_verilator     # without it, the error names Verilator rather than the compiler
def test_sim_verilator_without_compiler_is_one_error_line(cli, no_compiler):
    r = cli("sim", "hypercube", "-n", 1, "--cycles", 10, "--engine", "verilator")
    assert r.status == 2 and r.err.count("\n") == 1 and r.out == ""
    assert r.err.startswith("error: ") and "Verilator builds need make and a C++ compiler" in r.err
    assert "install" in r.err and "--engine amaranth" in r.err


def test_sim_auto_without_compiler_runs_amaranth(cli, no_compiler):
    r = cli("sim", "hypercube", "-n", 1, "--cycles", 10000, "--rate", 0.01, "--json")
    assert r.status == 0 and r.json()["engine"] == "amaranth"
    assert r.json()["engine_choice"] == "auto: Verilator cannot build here"


@needs_verilator
def test_sim_auto_says_which_engine_and_why(cli):
    """Q(1) for 100 cycles: 2 x (0.3 + 100 / 250) = 1.4 s of Amaranth, under a build."""
    r = cli("sim", "hypercube", "-n", 1, "--cycles", 100, "--rate", 0.05)
    assert r.status == 0
    assert "engine: amaranth (auto: Amaranth needs ~1 s, less than a Verilator build " \
        "(~20 s))" in r.out.splitlines()


def test_sim_auto_writes_a_vcd_with_amaranth(cli, tmp_path):
    r = cli("sim", "hypercube", "-n", 1, "--cycles", 20, "--vcd", tmp_path / "w.vcd",
            "--json")
    assert r.status == 0 and r.json()["engine"] == "amaranth"
    assert r.json()["engine_choice"] == "auto: only it writes a VCD"
    assert (tmp_path / "w.vcd").stat().st_size > 0
