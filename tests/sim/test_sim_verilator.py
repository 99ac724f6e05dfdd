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


def test_verilator_engine_refuses_vcd(cli):
    r = cli("sim", "hypercube", "-n", 2, "--engine", "verilator", "--vcd", "x.vcd")
    assert r.status == 2 and "writes no VCD" in r.err
