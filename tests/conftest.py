"""Shared fixtures and the suite's own rules: one build cache per run, every test file
collected, slow tests by shard, a timeout in every test."""

import json
import os
import pathlib
import shutil
import tempfile
import zlib

import pytest
from hypothesis import settings

from cubefab.cli import main


#: The folder of the test suite.
TESTS = pathlib.Path(__file__).parent

#: Measured seconds of the slow tests, what the slow shards are balanced by
#: (``pytest -m slow --record-slow-durations`` merges a run's into it).
SLOW_DURATIONS = TESTS / "slow_durations.json"

#: The longest a slow test may have measured to be dealt into a shard: the longer ones
#: (the largest exhaustive runs) would each make a shard of their own longer than the
#: whole fast set, so they run only with ``-m slow``.
SHARD_LIMIT = 250.0

#: The timeout of a slow test that sets none: hours of exhaustive work stay bounded.
SLOW_TIMEOUT = 3600

# In CI (CI=true) property tests draw the same examples on every run, so that a
# submission's result is repeatable; elsewhere they explore anew.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")

#: The environment variable that names the run's build cache.
CACHE_VARIABLE = "CUBEFAB_CACHE"

#: Test files whose functions pytest saw (one item at least), for the collection check.
COLLECTED_FILES = pytest.StashKey[set]()

#: The ids of the slow tests pytest collected (before the fast run leaves them out).
SLOW_IDS = pytest.StashKey[set]()


class CliResult:
    def __init__(self, status, out, err):
        self.status = status
        self.out = out
        self.err = err

    def json(self):
        return json.loads(self.out)


@pytest.fixture
def cli(capsys):
    """Run ``cubefab ARGS...`` in-process; returns a CliResult (status, out, err, json())."""
    def run(*args):
        status = main([str(a) for a in args])
        captured = capsys.readouterr()
        return CliResult(status, captured.out, captured.err)
    return run


# -- the run's own build cache ------------------------------------------------------------

def pytest_addoption(parser):
    parser.addoption("--slow-shard", default=None, metavar="I/N",
                     help="also run shard I (0 <= I < N) of the slow tests (balanced by "
                          "tests/slow_durations.json); with -m slow, only that shard")
    parser.addoption("--record-slow-durations", action="store_true",
                     help="write the measured seconds of the slow tests that ran (setup, "
                          "call and teardown) into tests/slow_durations.json")


def pytest_configure(config):
    """One Verilator build cache for the whole run, shared by the xdist workers (they
    inherit the controller's environment) and by no other run, so no test depends on
    what an earlier run or the user's ``~/.cache/cubefab`` holds."""
    config.stash[COLLECTED_FILES] = set()
    if hasattr(config, "workerinput"):        # an xdist worker: the controller made it
        return
    if config.getoption("--record-slow-durations"):
        config.pluginmanager.register(SlowDurations(), "slow-durations")
    cache = tempfile.mkdtemp(prefix="cubefab-test-cache-")
    config.stash[_CACHE] = (cache, os.environ.get(CACHE_VARIABLE))
    os.environ[CACHE_VARIABLE] = cache


_CACHE = pytest.StashKey[tuple]()


def pytest_unconfigure(config):
    if _CACHE in config.stash:
        cache, before = config.stash[_CACHE]
        shutil.rmtree(cache, ignore_errors=True)
        if before is None:
            os.environ.pop(CACHE_VARIABLE, None)
        else:
            os.environ[CACHE_VARIABLE] = before


@pytest.fixture(scope="session")
def verilator_cache():
    """The run's Verilator build cache (``$CUBEFAB_CACHE``, made by
    :func:`pytest_configure`): tests that build the same hardware share one build."""
    return pathlib.Path(os.environ[CACHE_VARIABLE])


# -- collection: every file, slow shards, timeouts ----------------------------------------

def pytest_itemcollected(item):
    item.config.stash[COLLECTED_FILES].add(pathlib.Path(item.path).resolve())


def parse_shard(text):
    """``(index, count)`` of ``--slow-shard I/N``; UsageError when it is not that."""
    try:
        index, count = (int(x) for x in text.split("/"))
    except ValueError:
        index = count = None
    if count is None or count < 1 or not 0 <= index < count:
        raise pytest.UsageError(f"--slow-shard takes I/N with 0 <= I < N, not {text!r}")
    return index, count


def slow_shards(nodeids, count, durations, limit=SHARD_LIMIT):
    """Deal the slow tests ``nodeids`` into ``count`` shards of about equal time: the
    tests with a measured duration longest first, each into the shard with the least
    time so far; then the unmeasured ones by a hash of their id (a test keeps its
    shard while the durations file is unchanged). A test measured at over ``limit``
    seconds is in no shard. Returns {nodeid: shard}."""
    loads = [0.0] * count
    shard = {}
    measured = sorted((n for n in nodeids if n in durations),
                      key=lambda n: (-durations[n], n))
    for nodeid in measured:
        if durations[nodeid] <= limit:
            shard[nodeid] = loads.index(min(loads))
            loads[shard[nodeid]] += durations[nodeid]
    for nodeid in nodeids:
        if nodeid not in durations:
            shard[nodeid] = zlib.crc32(nodeid.encode()) % count
    return shard


@pytest.hookimpl(tryfirst=True)      # (before -k leaves tests out: SLOW_IDS is all of them)
def pytest_collection_modifyitems(config, items):
    """Slow tests: left out unless ``-m`` names them or ``--slow-shard`` takes a shard of
    them in; every slow test gets :data:`SLOW_TIMEOUT` unless it sets its own."""
    shard_option = config.getoption("--slow-shard")
    explicit_marks = bool(config.getoption("markexpr"))
    slow = [item for item in items if item.get_closest_marker("slow")]
    config.stash[SLOW_IDS] = {item.nodeid for item in slow}
    keep_slow = {item.nodeid for item in slow} if explicit_marks else set()
    if shard_option is not None:
        index, count = parse_shard(shard_option)
        durations = json.loads(SLOW_DURATIONS.read_text()) if SLOW_DURATIONS.exists() else {}
        shard = slow_shards([item.nodeid for item in slow], count, durations)
        keep_slow = {n for n, s in shard.items() if s == index and
                     (n in keep_slow or not explicit_marks)}
    dropped = [item for item in slow if item.nodeid not in keep_slow]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        dropped_ids = {id(item) for item in dropped}
        items[:] = [item for item in items if id(item) not in dropped_ids]
    for item in items:
        if item.get_closest_marker("slow") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(SLOW_TIMEOUT))


# -- the slow tests' durations ------------------------------------------------------------

class SlowDurations:
    """Adds up each slow test's seconds (setup, call, teardown; on the xdist controller,
    the workers' reports too) and merges them into :data:`SLOW_DURATIONS` at the end."""

    def __init__(self):
        self.seconds = {}

    def pytest_runtest_logreport(self, report):
        if "slow" in report.keywords:
            self.seconds[report.nodeid] = self.seconds.get(report.nodeid, 0.0) + report.duration

    def pytest_sessionfinish(self, session):
        if not self.seconds:
            return
        known = json.loads(SLOW_DURATIONS.read_text()) if SLOW_DURATIONS.exists() else {}
        known.update({n: round(s, 1) for n, s in self.seconds.items()})
        SLOW_DURATIONS.write_text(json.dumps(dict(sorted(known.items())), indent=1) + "\n")
