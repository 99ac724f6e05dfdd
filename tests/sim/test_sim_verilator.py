"""cubefab sim --engine verilator: the same design and results as --engine amaranth."""

import os

from tests.sim.engine_helpers import needs_verilator, same_results


@needs_verilator
def test_sim_command_gives_the_same_results_in_both_engines(cli, verilator_cache):
    # same hardware configuration as test_selfcheck_run's: one shared build
    args = ("sim", "hypercube", "-n", 2, "--rate", 0.3, "--cycles", 300,
            "--packet-flits", 2, "--seed", 4, "--json")
    v = cli(*args, "--engine", "verilator")
    a = cli(*args, "--engine", "amaranth")
    assert v.status == a.status == 0, v.err + a.err
    left, right = same_results(a.json(), v.json())
    assert left == right and left["ok"]
    assert 0 < left["drain_cycles"] < 200   # ends once every packet arrived (limit 2080)


def test_verilator_engine_refuses_vcd(cli, tmp_path):
    r = cli("sim", "hypercube", "-n", 2, "--engine", "verilator", "--vcd", tmp_path / "x.vcd")
    assert r.status == 2 and "writes no VCD" in r.err
    assert os.listdir(tmp_path) == []
