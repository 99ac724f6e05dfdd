"""--adaptive on sim, sweep, verilog and board; the Mcube's default (Mroute) fabric."""

import pytest


def test_the_default_mcube_fabric_runs_mroute_adaptively(cli):
    r = cli("sim", "mcube", "-k", "3", "--cycles", "60", "--rate", "0.3",
            "--engine", "amaranth", "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["algorithm"] == "mroute" and doc["adaptive_vcs"] == 1 and doc["ok"]
    assert doc["misrouted"] == 0 and doc["delivered"] > 0


def test_the_text_says_why_mroute_runs_adaptively(cli):
    r = cli("sim", "mcube", "-k", "3", "--cycles", "20", "--engine", "amaranth")
    assert r.status == 0, r.err
    assert "adaptive over ecube escape VCs (the only deadlock-free way to run mroute)" \
        in r.out


def test_sim_adaptive(cli):
    doc = cli("sim", "hypercube", "-n", "2", "--adaptive", "--adaptive-vcs", "1",
              "--cycles", "60", "--rate", "0.6", "--engine", "amaranth", "--json").json()
    assert doc["adaptive_vcs"] == 1 and doc["vcs"] == 1 and doc["ok"]


@pytest.mark.parametrize("args, message", [
    (["hypercube", "-n", "2", "--adaptive-vcs", "2"], "--adaptive-vcs needs --adaptive"),
    (["hypercube", "-n", "2", "--adaptive", "--adaptive-vcs", "3"], "power of two"),
    (["metacube", "-k", "1", "-m", "1", "--algorithm", "paper", "--adaptive"],
     "reads only the destination"),
], ids=lambda a: " ".join(a) if isinstance(a, list) else a)
def test_bad_adaptive_options(cli, args, message):
    r = cli("sim", *args, "--cycles", "5", "--engine", "amaranth")
    assert r.status == 2 and r.out == ""
    assert r.err.startswith("error: ") and message in r.err and r.err.count("\n") == 1


def test_verilog_router_adaptive_differs(cli, tmp_path):
    plain, adaptive = tmp_path / "plain.v", tmp_path / "adaptive.v"
    assert cli("verilog", "router", "hypercube", "-n", "2", "--node", "0",
               "-o", plain).status == 0
    r = cli("verilog", "router", "hypercube", "-n", "2", "--node", "0", "--adaptive",
            "-o", adaptive)
    assert r.status == 0 and "1 escape + 1 adaptive VC" in r.out
    assert "held_port" in adaptive.read_text() and "held_port" not in plain.read_text()


@pytest.mark.slow
def test_verilog_fabric_of_the_default_mcube(cli, tmp_path):
    r = cli("verilog", "fabric", "mcube", "-k", "3", "-o", tmp_path / "f.v")
    assert r.status == 0, r.err
    assert "adaptive VC" in r.out


def test_sweep_draws_deterministic_and_adaptive_curves(cli):
    r = cli("sweep", "hypercube", "-n", "2", "--rates", "0.2", "--cycles", "40",
            "--warmup", "10", "--engine", "amaranth", "--jobs", "1",
            "--algorithm", "ecube", "--adaptive", "--json")
    assert r.status == 0, r.err
    curves = r.json()["curves"]
    assert [(c["algorithm"], c["adaptive_vcs"]) for c in curves] == [("ecube", 0),
                                                                     ("ecube", 1)]
