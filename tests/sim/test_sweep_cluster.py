"""cubefab sweep on Dask: a running cluster through its scheduler address gives the
in-process results (of one network and of several), workers find the Verilator model
in the cache, a killed worker loses no point, an unreachable scheduler is one error
line."""

import os
import socket
import sys
import threading
import warnings

import cloudpickle
import pytest
from dask.distributed import Client, LocalCluster, WorkerPlugin

from cubefab import cluster
from cubefab.sim.sweep import TIMING_KEYS, sweep
from cubefab.topology.catalog import make_topology

from .engine_helpers import needs_verilator


# Worker processes cannot import this test module by name: pickle its classes by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

#: A sweep small enough for a test: Q(1), two loads, two seeds, a short Verilator run.
SWEEP = dict(rates=[0.2, 0.9], engine="verilator", cycles=300, warmup=50, seed=5, seeds=2)


def measured(point):
    """A point without the figures that measure the host (time, threads)."""
    point = {k: v for k, v in point.items() if k not in TIMING_KEYS}
    if "runs" in point:
        point["runs"] = [measured(r) for r in point["runs"]]
    return point


@pytest.fixture(scope="module")
def two_workers(verilator_cache):
    """A running 2-worker cluster (its workers inherit CUBEFAB_CACHE and sys.path)."""
    with warnings.catch_warnings():     # port 8787 may be another cluster's
        warnings.filterwarnings("ignore", message="Port .* is already in use")
        running = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=40)
    with running:
        yield running


class RecordBuilds(WorkerPlugin):
    """Appends a line to the file ``log`` each time a task on the worker asks for a
    Verilator build: ``cached`` when it found the model in the cache, ``built``
    when it had to compile it."""

    def __init__(self, log):
        self.log = log

    def setup(self, worker):
        from cubefab.tools.verilator import VerilatorModel
        self.original = build = VerilatorModel.build
        log = self.log

        def recorded(model, progress=None):
            with open(log, "a") as f:
                f.write("cached\n" if model.cached else "built\n")
            return build(model, progress)
        VerilatorModel.build = recorded

    def teardown(self, worker):
        from cubefab.tools.verilator import VerilatorModel
        VerilatorModel.build = self.original


@pytest.fixture(scope="module")
def on_cluster(two_workers, tmp_path_factory):
    """The sweep run by ``cubefab sweep --scheduler ADDRESS --json``, and the builds
    its tasks asked for on the workers (:class:`RecordBuilds`' lines)."""
    from cubefab.cli import main
    import contextlib
    import io
    import json
    log = tmp_path_factory.mktemp("builds") / "builds.log"
    out = io.StringIO()
    args = ["sweep", "hypercube", "-n", "1", "--rates", "0.2,0.9", "--cycles", "300",
            "--warmup", "50", "--seed", "5", "--seeds", "2", "--scheduler",
            two_workers.scheduler_address, "--json"]
    with Client(two_workers.scheduler_address, set_as_default=False) as client:
        client.register_plugin(RecordBuilds(str(log)), name="record-builds")
        try:
            with contextlib.redirect_stdout(out):
                status = main(args)
        finally:
            client.unregister_worker_plugin("record-builds")
    assert status == 0
    doc = json.loads(out.getvalue())
    doc["worker_builds"] = log.read_text().split() if log.exists() else []
    return doc


@needs_verilator
def test_cluster_sweep_equals_the_in_process_sweep(on_cluster):
    local = sweep(make_topology("hypercube", n=1), **SWEEP)
    assert [measured(p) for p in on_cluster["points"]] == \
        [measured(p) for p in local["points"]]
    # derive_seeds: the base seed, then the low 32 bits of splitmix64((5 << 32) | 1)
    assert on_cluster["seeds"] == local["seeds"] == [5, 0xE219399E]


@needs_verilator
def test_workers_find_the_model_in_the_cache(on_cluster):
    # built once, on the client, before any task ran: each of the 4 runs (2 loads x 2
    # seeds) asked for it on its worker (a run asks more than once) and found it in the
    # cache; none compiled it
    builds = on_cluster["worker_builds"]
    assert len([r for p in on_cluster["points"] for r in p["runs"]]) == 4
    assert builds.count("cached") >= 4 and builds.count("built") == 0


class KillFirstTask(WorkerPlugin):
    """Kills its worker process as the first task of the cluster starts (once: a marker
    file says it happened)."""

    def __init__(self, marker):
        self.marker = marker

    def transition(self, key, start, finish, **kwargs):
        if finish == "executing" and not os.path.exists(self.marker):
            open(self.marker, "w").close()
            os._exit(1)


@pytest.mark.slow    # fast: the cluster's sweep equals the in-process one
@needs_verilator
def test_killed_worker_loses_no_point(two_workers, on_cluster, tmp_path):
    marker = tmp_path / "killed"
    with Client(two_workers.scheduler_address, set_as_default=False) as client:
        client.register_plugin(KillFirstTask(str(marker)), name="kill-first-task")
        try:
            result = sweep(make_topology("hypercube", n=1), client=client, **SWEEP)
        finally:
            client.unregister_worker_plugin("kill-first-task")
    assert marker.exists()          # a worker died mid-sweep ...
    assert [measured(p) for p in result["points"]] == \
        [measured(p) for p in on_cluster["points"]]    # ... and every point came back


def test_networks_on_a_cluster_equal_the_in_process_sweep(two_workers, cli):
    """Several networks sweep as one set of tasks on the cluster: each curve the one
    the same command gives in this process."""
    args = ("sweep", "hypercube:n=1", "foldedcube:n=2", "--rates", "0.2,0.6", "--engine",
            "amaranth", "--cycles", 30, "--warmup", 10, "--json")
    remote = cli(*args, "--scheduler", two_workers.scheduler_address)
    local = cli(*args, "--jobs", 1)
    assert remote.status == local.status == 0, remote.err + local.err
    for a, b in zip(remote.json()["curves"], local.json()["curves"], strict=True):
        assert [measured(p) for p in a["points"]] == [measured(p) for p in b["points"]]
        assert a["network"] == b["network"]


@pytest.mark.timeout(120)   # (a guard against a hang, not a speed check)
def test_unreachable_scheduler_is_one_error_line(cli):
    with socket.socket() as s:      # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = cli("sweep", "hypercube", "-n", 1, "--rates", "0.1", "--engine", "amaranth",
            "--scheduler", f"127.0.0.1:{port}")
    # the refused connection, reported at once by the probe (Dask's own client would
    # retry until SCHEDULER_TIMEOUT and name the timeout instead); nothing ran
    assert r.status == 2 and r.out == ""
    assert r.err == (f"error: no Dask scheduler answered at 127.0.0.1:{port} "
                     f"(Connection refused)\n")


def test_a_server_that_is_no_scheduler_is_one_error_line(cli, monkeypatch):
    with socket.socket() as server:     # answers every connection with garbage
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]

        def garbage():
            for _ in range(3):
                conn, _ = server.accept()
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n" * 4)
                conn.close()

        threading.Thread(target=garbage, daemon=True).start()
        monkeypatch.setattr(cluster, "SCHEDULER_TIMEOUT", 3)
        r = cli("sweep", "hypercube", "-n", 1, "--rates", "0.1", "--engine", "amaranth",
                "--scheduler", f"tcp://127.0.0.1:{port}")
    assert r.status == 2 and r.err.count("\n") == 1
    assert r.err.startswith(f"error: no Dask scheduler answered at tcp://127.0.0.1:{port}")


def test_jobs_and_scheduler_exclude_each_other(cli):
    r = cli("sweep", "hypercube", "-n", 1, "--rates", "0.1", "--jobs", 2,
            "--scheduler", "127.0.0.1:1")
    assert r.status == 2 and r.err.startswith("error: --jobs sizes the embedded cluster")


def test_missing_compiler_is_one_error_line(cli, monkeypatch, tmp_path):
    monkeypatch.setenv("CUBEFAB_CACHE", str(tmp_path))     # nothing built yet
    monkeypatch.setenv("PATH", str(tmp_path))              # no make, no g++
    monkeypatch.setenv("CXX", "no-such-compiler")
    r = cli("sweep", "hypercube", "-n", 1, "--rates", "0.1", "--jobs", 1)
    assert r.status == 2 and r.err.count("\n") == 1
    assert r.err.startswith("error: ") and "Verilator builds need make and a C++ compiler" in r.err
    assert "install" in r.err
