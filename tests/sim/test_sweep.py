"""cubefab sweep: rates, seeds and intervals, saturation detection, outputs, bad input
(the sweep on Dask clusters: test_sweep_cluster.py)."""

import csv
import io
import os

import pytest

from cubefab.sim.run_spec import SelfCheckRun
from cubefab.sim.sweep import (TIMING_KEYS, _splitmix64, derive_seeds, mean_ci95, parse_rates,
                               saturation, sweep, sweep_csv, sweep_runs,
                               t_quantile_975)
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
    assert saturation(calm) == (None, None)
    latency_only = [point(0.1, 0.1, 0.1, 10), point(0.2, 0.2, 0.2, 31)]
    assert saturation(latency_only) == (0.2, 0.2)


def test_t_quantile_matches_the_tables():
    table = {1: 12.7062, 2: 4.3027, 3: 3.1824, 4: 2.7764, 9: 2.2622, 10: 2.2281,
             29: 2.0452, 100: 1.9840}
    for df, t in table.items():
        assert t_quantile_975(df) == pytest.approx(t, abs=1e-4)


def test_mean_ci95():
    mean, (low, high) = mean_ci95([1.0, 2.0, 3.0])
    assert mean == 2.0 and high - 2.0 == pytest.approx(4.3027 / 3 ** 0.5, abs=1e-4)
    assert low == pytest.approx(4.0 - high)
    assert mean_ci95([5.0]) == (5.0, None)
    assert mean_ci95([5.0, None]) == (None, None)


def test_derived_seeds_start_at_the_base_seed_and_differ():
    seeds = derive_seeds(7, 10)
    assert seeds[0] == 7 and len(set(seeds)) == 10 and seeds == derive_seeds(7, 10)
    assert all(0 <= s < 1 << 32 for s in seeds) and derive_seeds(7, 3) == seeds[:3]
    for bad in (0, -1):
        with pytest.raises(ValueError, match="Seed count must be a positive integer"):
            derive_seeds(7, bad)


def test_derived_seeds_are_splitmix64_hashes_of_the_seed_and_index():
    """Seed ``i >= 1`` of base ``s`` is the low 32 bits of SplitMix64's first output
    for the state ``(s << 32) | i``; the hash is Vigna's (its first output for state 0
    is the reference 0xE220A8397B1DCDAF), so the seeds of a sweep, and the runs they
    give, stay those of earlier versions."""
    assert _splitmix64(0) == 0xE220A8397B1DCDAF
    assert derive_seeds(5, 2) == [5, 0xE219399E]
    assert derive_seeds(7, 3) == [7, 0x25C3A340, 0x8CD2F00D]


@pytest.fixture(scope="module")
def small_sweep():
    topo = make_topology("metacube", k=1, m=1)
    return sweep(topo, [0.2, 1.0], engine="amaranth", cycles=100, warmup=30)


def tiny_sweep(rates, **options):
    """In-process amaranth sweep of Q(1) (two nodes: ~0.5 s a run)."""
    return sweep(make_topology("hypercube", n=1), rates, engine="amaranth", cycles=60,
                 warmup=10, **options)


@pytest.fixture(scope="module")
def unsaturated():
    return tiny_sweep([0.1, 0.2])


@pytest.fixture(scope="module")
def three_seeds():
    return tiny_sweep([0.3], seeds=3)


def test_sweep_reaches_saturation_below_the_bound(small_sweep):
    r = small_sweep
    assert r["ok"] and [p["rate"] for p in r["points"]] == [0.2, 1.0]
    assert r["bound"]["saturation_bound"] == pytest.approx(0.875)
    low, high = r["points"]
    assert low["throughput"] == pytest.approx(low["offered"], abs=0.07)
    assert high["throughput"] < 0.95 * high["offered"]      # offered 1.0 saturates
    assert r["saturation_rate"] == 1.0
    assert 0 < r["fraction_of_bound"] <= 1.05


def test_csv(small_sweep):
    rows = list(csv.DictReader(io.StringIO(sweep_csv([small_sweep]))))
    assert [float(row["rate"]) for row in rows] == [0.2, 1.0]
    assert float(rows[0]["channel_load_bound"]) == pytest.approx(0.875)
    assert rows[0]["network"] == rows[0]["topology"] == "MC(1,1)"   # no name given


def test_unsaturated_curve_has_no_saturation_throughput(unsaturated):
    assert not unsaturated["saturated"]
    assert unsaturated["saturation_throughput"] is None
    assert unsaturated["saturation_rate"] is None and unsaturated["fraction_of_bound"] is None
    assert unsaturated["max_throughput"] == max(p["throughput"]
                                                for p in unsaturated["points"])


def test_seeds_give_mean_and_interval(three_seeds):
    (p,) = three_seeds["points"]
    assert p["seeds"] == derive_seeds(1, 3) and len(p["runs"]) == 3
    values = [r["throughput"] for r in p["runs"]]
    assert p["throughput"] == pytest.approx(sum(values) / 3)
    assert p["throughput_ci95"] == pytest.approx(mean_ci95(values)[1])
    assert len(set(values)) > 1     # three seeds, three different experiments


def test_progress_counts_points():
    reports = []
    tiny_sweep([0.1], seeds=2, progress=lambda done, total: reports.append((done, total)))
    assert reports == [(1, 2), (2, 2)]


def test_first_seed_is_the_single_seed_run(three_seeds):
    single = tiny_sweep([0.3])["points"][0]
    first = three_seeds["points"][0]["runs"][0]
    assert single["seeds"] == [1] and first["seed"] == 1
    for key in ("created", "delivered", "throughput", "avg_latency", "latency_histogram"):
        assert single[key] == first[key]


def test_csv_has_seed_intervals(three_seeds):
    (row,) = csv.DictReader(io.StringIO(sweep_csv([three_seeds])))
    assert row["seeds"] == "3"
    assert float(row["throughput_ci95_low"]) <= float(row["throughput"]) \
        <= float(row["throughput_ci95_high"])


def test_unsaturated_text_says_so(cli):
    r = cli("sweep", "hypercube", "-n", 1, "--rates", "0.1", "--engine", "amaranth",
            "--cycles", 60, "--warmup", 10, "--jobs", 1)
    assert r.status == 0 and "not saturated up to offered 0.1" in r.out
    assert "saturation throughput" not in r.out


def test_seed_count_must_be_positive(cli):
    r = cli("sweep", "hypercube", "-n", 1, "--rates", "0.1", "--seeds", 0)
    assert r.status == 2 and r.err.count("\n") == 1
    assert r.err.startswith("error: argument --seeds: must be an integer from 1")


def test_unknown_engine_is_one_error_line(cli):
    r = cli("sweep", "hypercube", "-n", 1, "--rates", "0.1", "--engine", "booksim")
    assert r.status == 2 and r.err.count("\n") == 1 and "verilator" in r.err


def test_plot_never_overwrites_an_existing_file(cli, tmp_path):
    path = tmp_path / "curve.png"
    path.write_bytes(b"someone's figure")
    r = cli("sweep", "hypercube", "-n", 1, "--rates", "0.1", "--plot", path)
    assert r.status == 2 and "--force" in r.err and path.read_bytes() == b"someone's figure"


def test_plot_force_overwrites(cli, tmp_path):
    path = tmp_path / "curve.png"
    path.write_bytes(b"old")
    r = cli("sweep", "hypercube", "-n", 1, "--rates", "0.1", "--engine", "amaranth",
            "--cycles", 60, "--warmup", 10, "--jobs", 1, "--plot", path, "--force")
    assert r.status == 0 and path.read_bytes()[:4] == b"\x89PNG"


def test_a_plot_of_a_run_that_delivered_nothing(cli, tmp_path):
    """5 cycles at 0.1 flits/node/cycle deliver no packet (the zero-load latency alone
    is more than 5 cycles): the curve has no latency to draw on a log scale, and the
    plot is written all the same (it was an internal error, found by the long fuzz)."""
    path = tmp_path / "curve.png"
    r = cli("sweep", "hypercube", "-n", 2, "--rates", "0.1", "--engine", "amaranth",
            "--cycles", 5, "--warmup", 0, "--jobs", 1, "--plot", path, "--json")
    assert r.status == 0, r.err
    assert [p["avg_latency"] for p in r.json()["points"]] == [None]
    assert path.read_bytes()[:4] == b"\x89PNG"


def test_plot_format_checked_before_running(cli, tmp_path):
    r = cli("sweep", "hypercube", "-n", 1, "--rates", "0.1", "--plot", tmp_path / "c.xyz")
    assert r.status == 2 and ".png" in r.err and not os.path.exists(tmp_path / "c.xyz")


def test_sweep_command_errors(cli):
    r = cli("sweep", "hypercube", "-n", 2, "--rates", "0.5:0.1:0.1")
    assert r.status == 2 and r.err.startswith("error: rates must")
    r = cli("sweep", "hypercube", "-n", 2, "--rates", "0.1", "--algorithm", "paper")
    assert r.status == 2 and "algorithm must be one of" in r.err


def test_a_permutation_the_topology_lacks_is_one_error_line(cli):
    """Transpose traffic needs an even number of address bits: Q(3) has none, which the
    sweep said as an internal error (exit 3) before it built its runs under the input
    checks."""
    r = cli("sweep", "hypercube", "-n", 3, "--traffic", "transpose", "--rates", "0.1",
            "--engine", "amaranth")
    assert r.status == 2 and r.err == ("error: transpose traffic needs an even number of "
                                       "address bits; Q(3) has 3\n")


def test_a_sweep_of_runs_is_the_sweep_of_their_keywords():
    """:func:`sweep_runs` of a template run gives the curve that :func:`sweep` gives for
    the same keywords (timing fields aside)."""
    topo = make_topology("hypercube", n=1)
    run = SelfCheckRun.of(topo, engine="amaranth", cycles=60, warmup=10, seed=3)
    by_run, = sweep_runs([run], [0.2])
    by_keywords = tiny_sweep([0.2], seed=3)
    assert _untimed(by_run) == _untimed(by_keywords)
    assert by_run["points"][0]["delivered"] > 0


def _untimed(curve):
    return {**curve, "points": [{k: v for k, v in p.items() if k not in TIMING_KEYS}
                                for p in curve["points"]]}


def test_fault_counts_need_fault_tolerant_routers():
    run = SelfCheckRun.of(make_topology("hypercube", n=2), engine="amaranth")
    with pytest.raises(ValueError, match="fault-tolerant routers"):
        sweep_runs([run], [0.1], fault_counts=[0])


def test_the_runs_of_a_sweep_share_their_seed():
    one = make_topology("hypercube", n=1)
    runs = [SelfCheckRun.of(one, engine="amaranth", seed=s) for s in (1, 2)]
    with pytest.raises(ValueError, match="share their base seed"):
        sweep_runs(runs, [0.1])
    with pytest.raises(ValueError, match="at least one run"):
        sweep_runs([], [0.1])


def test_a_sweep_of_two_topologies_is_their_sweeps_side_by_side():
    """Runs of several networks sweep in one set of tasks, each curve the curve its
    run alone gives (timing fields aside), in the order of the runs."""
    one = SelfCheckRun.of(make_topology("hypercube", n=1), engine="amaranth", cycles=40,
                          warmup=10)
    two = SelfCheckRun.of(make_topology("metacube", k=1, m=1), engine="amaranth",
                          cycles=40, warmup=10)
    both = sweep_runs([two, one], [0.2])
    assert [c["topology"] for c in both] == ["MC(1,1)", "Q(1)"]
    assert _untimed(both[1]) == _untimed(sweep_runs([one], [0.2])[0])


def test_sweep_command_json(cli):
    r = cli("sweep", "hypercube", "-n", 1, "--rates", "0.3", "--engine", "amaranth",
            "--cycles", 100, "--warmup", 20, "--json")
    assert r.status == 0
    doc = r.json()
    assert doc["points"][0]["errors"] == 0 and doc["bound"]["saturation_bound"] == 1.0
