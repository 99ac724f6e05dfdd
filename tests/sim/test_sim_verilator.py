"""cubefab sim --engine verilator (the self-checking fabric behind the sim command)."""

import pytest

from cubefab.sim.verilator_engine import verilator_missing_reason


@pytest.mark.skipif(verilator_missing_reason() is not None,
                    reason=str(verilator_missing_reason()))
def test_sim_command_with_the_verilator_engine(cli, verilator_cache):
    # same hardware configuration as test_selfcheck_run's CI test: one shared build
    r = cli("sim", "hypercube", "-n", 2, "--engine", "verilator", "--rate", 0.3,
            "--cycles", 1000, "--packet-flits", 2, "--seed", 4, "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["engine"] == "verilator" and doc["ok"] and doc["checker_errors"] == 0
    assert doc["delivered"] == doc["created"] > 100 and doc["pending"] == 0
    assert doc["vcs"] == 1 and doc["throughput"] == pytest.approx(0.3, abs=0.05)
    assert 0 < doc["drain_cycles"] < 200   # ends once every packet arrived (limit 2080)


@pytest.mark.skipif(verilator_missing_reason() is not None,
                    reason=str(verilator_missing_reason()))
def test_sim_command_says_what_the_hardware_checked(cli, verilator_cache):
    r = cli("sim", "hypercube", "-n", 2, "--engine", "verilator", "--rate", 0.3,
            "--cycles", 300, "--packet-flits", 2, "--seed", 4)
    assert r.status == 0, r.err
    assert "the hardware checkers found no wrong destination" in r.out
    assert "reference route" not in r.out


def test_verilator_engine_refuses_vcd(cli):
    r = cli("sim", "hypercube", "-n", 2, "--engine", "verilator", "--vcd", "x.vcd")
    assert r.status == 2 and "writes no VCD" in r.err
