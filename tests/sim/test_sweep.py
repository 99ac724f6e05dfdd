"""cubefab sweep: rates, saturation detection, outputs."""

import csv
import io

import pytest

from cubefab.sim.sweep import parse_rates, saturation, sweep, sweep_csv, plot_sweep
from cubefab.topology.catalog import make_topology


def test_parse_rates():
    assert parse_rates("0.1:0.5:0.2") == [0.1, 0.3, 0.5]
    assert parse_rates("0.2,0.4") == [0.2, 0.4]
    for bad in ("0.5:0.1:0.1", "0.1:0.5:0", "0:0.5:0.1", "a:b:c", "0.1:0.2", "1.5"):
        with pytest.raises(ValueError, match="rates must"):
            parse_rates(bad)


def point(rate, offered, throughput, latency):
    return {"rate": rate, "offered": offered, "throughput": throughput,
            "avg_latency": latency}


def test_saturation_by_throughput_and_latency():
    curve = [point(0.1, 0.1, 0.1, 10), point(0.3, 0.3, 0.3, 12), point(0.5, 0.5, 0.42, 40),
             point(0.7, 0.7, 0.41, 200)]
    assert saturation(curve) == (0.42, 0.5)
    calm = [point(0.1, 0.1, 0.1, 10), point(0.2, 0.2, 0.2, 11)]
    assert saturation(calm) == (0.2, None)
    latency_only = [point(0.1, 0.1, 0.1, 10), point(0.2, 0.2, 0.2, 31)]
    assert saturation(latency_only) == (0.2, 0.2)


@pytest.fixture(scope="module")
def small_sweep():
    topo = make_topology("metacube", k=1, m=1)
    return sweep(topo, [0.2, 1.0], engine="amaranth", cycles=150, warmup=50, jobs=2)


def test_sweep_reaches_saturation_below_the_bound(small_sweep):
    r = small_sweep
    assert r["ok"] and [p["rate"] for p in r["points"]] == [0.2, 1.0]
    assert r["bound"]["saturation_bound"] == pytest.approx(0.875)
    low, high = r["points"]
    assert low["throughput"] == pytest.approx(low["offered"], abs=0.07)
    assert high["throughput"] < 0.95 * high["offered"]      # offered 1.0 saturates
    assert r["saturation_rate"] == 1.0
    assert 0 < r["fraction_of_bound"] <= 1.05


def test_csv_and_plot(small_sweep, tmp_path):
    rows = list(csv.DictReader(io.StringIO(sweep_csv([small_sweep]))))
    assert [float(row["rate"]) for row in rows] == [0.2, 1.0]
    assert float(rows[0]["channel_load_bound"]) == pytest.approx(0.875)
    path = plot_sweep([small_sweep], tmp_path / "curve.png")
    assert (tmp_path / "curve.png").stat().st_size > 10000 and path


def test_sweep_command_errors(cli):
    r = cli("sweep", "hypercube", "-n", 2, "--rates", "0.5:0.1:0.1")
    assert r.status == 2 and r.err.startswith("error: rates must")
    r = cli("sweep", "hypercube", "-n", 2, "--rates", "0.1", "--algorithm", "paper")
    assert r.status == 2 and "algorithm must be one of" in r.err


def test_sweep_command_json(cli):
    r = cli("sweep", "hypercube", "-n", 1, "--rates", "0.3", "--engine", "amaranth",
            "--cycles", 100, "--warmup", 20, "--json")
    assert r.status == 0
    doc = r.json()
    assert doc["points"][0]["errors"] == 0 and doc["bound"]["saturation_bound"] == 1.0
