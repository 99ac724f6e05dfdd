"""The default engine of cubefab sim, and a missing compiler as one error line."""

import pytest

from cubefab.sim import engine_choice
from cubefab.sim.engine_choice import (VERILATOR_BUILD_SECONDS, amaranth_seconds,
                                       choose_engine)


def test_the_estimate_is_elaboration_and_cycles_per_node(monkeypatch):
    # nodes x (elaboration + cycles / speed), against the build, with figures set here
    # (the module's are measurements, recalibrated as the simulators change)
    monkeypatch.setattr(engine_choice, "AMARANTH_ELABORATION_SECONDS", 0.5)
    monkeypatch.setattr(engine_choice, "AMARANTH_ROUTER_CYCLES_PER_SECOND", 100)
    monkeypatch.setattr(engine_choice, "VERILATOR_BUILD_SECONDS", 10)
    assert amaranth_seconds(2, 300) == pytest.approx(7.0)      # 2 x (0.5 + 3)
    assert choose_engine(2, 300, cached=False, available=True)[0] == "amaranth"
    assert choose_engine(4, 300, cached=False, available=True) == (   # 14 s > 10 s
        "verilator", "Amaranth would need ~14 s, a build ~10 s")


def test_small_uncached_runs_stay_in_amaranth():
    assert amaranth_seconds(4, 1000) < VERILATOR_BUILD_SECONDS
    assert choose_engine(4, 1000, cached=False, available=True)[0] == "amaranth"


def test_long_runs_pay_for_a_build():
    assert amaranth_seconds(32, 1000) > VERILATOR_BUILD_SECONDS
    assert choose_engine(32, 1000, cached=False, available=True)[0] == "verilator"


def test_a_cached_build_is_free():
    assert choose_engine(2, 10, cached=True, available=True)[0] == "verilator"


def test_no_compiler_means_amaranth():
    assert choose_engine(1024, 10 ** 6, cached=False, available=False)[0] == "amaranth"


@pytest.fixture
def no_compiler(monkeypatch, tmp_path):
    """An empty build cache and a PATH without make or g++."""
    monkeypatch.setenv("CUBEFAB_CACHE", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("CXX", "no-such-compiler")


def test_sim_verilator_without_compiler_is_one_error_line(cli, no_compiler):
    r = cli("sim", "hypercube", "-n", 1, "--cycles", 10, "--engine", "verilator")
    assert r.status == 2 and r.err.count("\n") == 1 and r.out == ""
    assert r.err.startswith("error: ") and "Verilator builds need make and a C++ compiler" in r.err
    assert "install" in r.err and "--engine amaranth" in r.err


def test_sim_auto_without_compiler_runs_amaranth(cli, no_compiler):
    r = cli("sim", "hypercube", "-n", 1, "--cycles", 10000, "--rate", 0.01, "--json")
    assert r.status == 0 and r.json()["engine"] == "amaranth"


def test_sim_auto_writes_a_vcd_with_amaranth(cli, tmp_path):
    r = cli("sim", "hypercube", "-n", 1, "--cycles", 20, "--vcd", tmp_path / "w.vcd",
            "--json")
    assert r.status == 0 and r.json()["engine"] == "amaranth"
    assert (tmp_path / "w.vcd").stat().st_size > 0
