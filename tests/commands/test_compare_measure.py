"""`cubefab compare --simulate` and `--synth`: each network's figure is what `cubefab
sweep` and `cubefab synth router` measure of the same router."""

import pytest

#: The measuring options of a short run (the Amaranth engine, in this process).
SIMULATE = ("--simulate", "--rates", "0.3,0.9", "--cycles", "120", "--warmup", "20",
            "--engine", "amaranth", "--jobs", "1")


def compare_rows(cli, *args):
    r = cli("compare", *args, "--json")
    assert r.status == 0, r.err
    return r.json()["rows"]


def test_simulated_saturation_is_the_sweeps(cli):
    row, = compare_rows(cli, "hypercube:n=2", *SIMULATE)
    sweep = cli("sweep", "hypercube", "-n", "2", "--rates", "0.3,0.9", "--cycles", "120",
                "--warmup", "20", "--engine", "amaranth", "--jobs", "1", "--json").json()
    for key in ("saturated", "saturation_throughput", "max_throughput",
                "fraction_of_bound"):
        assert row["simulated"][key] == sweep[key], key
    assert row["simulated"]["errors"] == 0 and row["simulated"]["ok"]


def test_the_table_shows_the_simulated_columns(cli):
    r = cli("compare", "hypercube:n=2", *SIMULATE)
    assert r.status == 0, r.err
    assert "sat. throughput" in r.out and "of bound" in r.out


def test_a_fabric_too_large_to_simulate_gets_a_note_not_a_figure(cli):
    row, = compare_rows(cli, "hypercube:n=14", *SIMULATE)
    assert row["simulated"]["note"].startswith("not simulated: the Q(14) self-checking "
                                               "fabric would need about")


@pytest.mark.slow
def test_synthesized_router_is_synth_routers(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    row, = compare_rows(cli, "hypercube:n=2", "--synth", "--no-pnr")
    synth = cli("synth", "router", "hypercube", "-n", "2", "--node", "0",
                "--no-pnr", "--workdir", "w", "--json").json()
    assert row["synthesized"]["lut4"] == synth["lut4"] > 0
    assert row["synthesized"]["ff"] == synth["ff"]


@pytest.mark.parametrize("args, message", [
    (["--rates", "0.1"], "--rates sets up --simulate: it needs --simulate"),
    (["--jobs", "2"], "--jobs sets up --simulate: it needs --simulate"),
    (["--no-pnr"], "--no-pnr sets up --synth: it needs --synth"),
    (["--timeout", "60"], "--timeout sets up --synth: it needs --synth"),
    (["--simulate", "--rates", "2"], "--rates:"),
])
def test_bad_measuring_options_are_one_error_line(cli, args, message):
    r = cli("compare", "hypercube:n=2", *args)
    assert r.status == 2 and len(r.err.splitlines()) == 1, r.err
    assert r.err.startswith(f"error: {message}"), r.err
