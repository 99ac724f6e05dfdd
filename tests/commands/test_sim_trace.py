"""cubefab sim --trace: the options of a trace-driven run, its report and its log."""

import csv
import io

import pytest

from tests.sim.engine_helpers import needs_verilator
from tests.sim.test_netrace import trace_file

SHRTEX = str(trace_file("shrtex"))


@pytest.mark.parametrize("args,message", [
    (["--trace-region", "1"], "--trace-region needs --trace FILE"),
    (["--ignore-dependencies"], "--ignore-dependencies needs --trace FILE"),
    (["--trace", SHRTEX, "--rate", "0.2"], "leave out --rate"),
    (["--trace", SHRTEX, "--packet-flits", "2", "--cycles", "50"],
     "leave out --packet-flits, --cycles"),
    (["--trace", SHRTEX, "--trace-region", "1"],
     "--trace-region must be at most 0 (shrtex.tra.bz2 has 1 region), not 1"),
    (["--trace", "/nonexistent.tra.bz2"], "--trace /nonexistent.tra.bz2: cannot read"),
], ids=["region", "dependencies", "rate", "two", "region-range", "missing"])
def test_trace_options_are_checked(cli, args, message):
    r = cli("sim", "hypercube", "-n", "6", *args)
    assert r.status == 2 and r.err.startswith("error: ") and message in r.err, r.err


def test_a_network_smaller_than_the_trace_is_refused(cli):
    r = cli("sim", "hypercube", "-n", "5", "--trace", SHRTEX)
    assert r.status == 2 and "Q(5) has 32 nodes; the trace" in r.err, r.err


def test_a_file_that_is_no_trace_is_refused(cli, tmp_path):
    path = tmp_path / "notes.tra.bz2"
    path.write_text("hello")
    r = cli("sim", "hypercube", "-n", "6", "--trace", str(path))
    assert r.status == 2 and "no bzip2-compressed netrace trace" in r.err, r.err


@pytest.mark.slow
@needs_verilator
def test_a_trace_run_reports_and_logs(cli, tmp_path):
    log = tmp_path / "packets.csv"
    r = cli("sim", "hypercube", "-n", "6", "--trace", SHRTEX, "--engine", "verilator",
            "--trace-log", str(log), "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["ok"] and doc["trace"]["packets"] == 12 and doc["router"]["vcs"] >= 1
    assert doc["trace"]["trace_cycles"] == 221
    assert doc["trace"]["cycles_per_second"] == doc["trace"]["cycles"] / doc["trace"]["seconds"]
    rows = list(csv.DictReader(io.StringIO(log.read_text())))
    assert [int(r["id"]) for r in rows] == list(range(12))
