"""The suite's own rules: every test file on disk is collected, slow shards cover every
slow test once, every recorded duration is a slow test's, and the fuzz tests' alarm
keeps the test's timeout."""

import json
import signal
import time

import pytest

from tests.conftest import (COLLECTED_FILES, SLOW_DURATIONS, SLOW_IDS, TESTS, parse_shard,
                            slow_shards)
from tests.helpers import alarm_after


def skip_unless_the_whole_suite(config):
    """Skip the test unless the run collects the whole suite (no path, or tests/)."""
    here = config.invocation_params.dir
    if any((here / str(a).split("::")[0]).resolve() != TESTS.resolve() for a in config.args):
        pytest.skip("checks a run of the whole suite (pytest with no path, or tests/)")


def test_every_test_file_on_disk_is_collected(request):
    """pytest skips folders such as ``build`` by default (tests/build held the proofs and
    was never run): every ``tests/**/test_*.py`` must give the run at least one test."""
    config = request.config
    skip_unless_the_whole_suite(config)
    on_disk = {p.resolve() for p in TESTS.rglob("test_*.py")
               if "__pycache__" not in p.parts}
    collected = config.stash[COLLECTED_FILES]
    missing = sorted(str(p.relative_to(TESTS)) for p in on_disk - collected)
    assert not missing, f"test files that pytest did not collect: {missing}"


def test_every_recorded_duration_is_a_slow_test_of_the_suite(request):
    """A test renamed, removed or made fast leaves no duration behind in
    tests/slow_durations.json (the shards would be balanced by tests that are not
    there)."""
    skip_unless_the_whole_suite(request.config)
    recorded = set(json.loads(SLOW_DURATIONS.read_text()))
    stale = sorted(recorded - request.config.stash[SLOW_IDS])
    assert not stale, f"durations of no slow test: {stale}"


def test_shard_option_is_checked():
    assert parse_shard("2/5") == (2, 5)
    for bad in ("5/5", "-1/3", "1", "a/b", "0/0"):
        with pytest.raises(pytest.UsageError, match="--slow-shard takes I/N"):
            parse_shard(bad)


def test_every_slow_test_within_the_limit_is_in_exactly_one_shard():
    ids = [f"t.py::t{i}" for i in range(20)]
    durations = {f"t.py::t{i}": float(i) for i in range(0, 20, 2)}   # half measured
    shard = slow_shards(ids, 3, durations)
    assert sorted(shard) == sorted(ids) and set(shard.values()) <= {0, 1, 2}


def test_a_test_longer_than_the_limit_is_in_no_shard():
    durations = {"long": 300.0, "short": 10.0}
    shard = slow_shards(["long", "short", "new"], 2, durations, limit=250.0)
    assert set(shard) == {"short", "new"}


def test_shards_balance_the_measured_time():
    """Durations 9, 8, 7, 6, 5, 4 into two shards, longest first into the lighter one
    (the first on a tie): 9 | 8; 9 | 8+7; 9+6 | 15; 15+5 | 15; 20 | 15+4."""
    durations = {f"t{d}": float(d) for d in (9, 8, 7, 6, 5, 4)}
    shard = slow_shards(list(durations), 2, durations)
    loads = [sum(d for n, d in durations.items() if shard[n] == s) for s in (0, 1)]
    assert sorted(loads) == [19.0, 20.0]


def test_unmeasured_tests_keep_their_shard():
    a = slow_shards(["x::a", "x::b", "x::c"], 4, {})
    b = slow_shards(["x::c", "x::b", "x::a", "x::d"], 4, {})
    assert all(a[n] == b[n] for n in a)


@pytest.mark.timeout(60)
def test_a_nested_alarm_restores_the_tests_timeout():
    before, _ = signal.getitimer(signal.ITIMER_REAL)
    handler = signal.getsignal(signal.SIGALRM)
    assert before > 0       # pytest-timeout's alarm is armed (signal method)
    with alarm_after(5, TimeoutError):
        time.sleep(0.01)
    after, _ = signal.getitimer(signal.ITIMER_REAL)
    assert 0 < after <= before and signal.getsignal(signal.SIGALRM) is handler


@pytest.mark.timeout(60)
def test_a_nested_alarm_fires():
    with pytest.raises(TimeoutError):
        with alarm_after(0.05, TimeoutError):
            time.sleep(1)
    assert signal.getitimer(signal.ITIMER_REAL)[0] > 0
