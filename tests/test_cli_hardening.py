"""The paths no one names: interrupted runs (Ctrl-C, SIGTERM), odd output paths, pipes
closed early, an unusable cache or home, arguments that are not valid text. Each ends in
one ``error:`` line (exit 2, or 130/143 when interrupted) or a result; never a
traceback, a partial file or a process left behind."""

import os
import pathlib
import signal
import subprocess
import sys
import time

import psutil
import pytest

from tests.helpers import alarm_after

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _default_signals():
    """In the child: Ctrl-C and SIGTERM as a terminal's user would meet them, also when
    the test run itself ignores SIGINT (started in the background by a shell, or under
    nohup: the child would inherit that and never see the interrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _cubefab(*args, **kwargs):
    """The command in a process group of its own (a terminal's foreground job)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "cubefab", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_default_signals, start_new_session=True, **kwargs)


def _interrupt(proc, signum, ready, within=120, group=False):
    """Send ``signum`` to ``proc`` (``group``: to its whole process group, as a
    terminal's Ctrl-C does) once ``ready(process)`` holds; returns (status, stderr, the
    descendants it had then)."""
    process = psutil.Process(proc.pid)
    deadline = time.monotonic() + within
    while not ready(process):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "never got ready"
        time.sleep(0.1)
    children = process.children(recursive=True)
    if group:
        os.killpg(proc.pid, signum)
    else:
        proc.send_signal(signum)
    _, err = proc.communicate(timeout=120)
    return proc.returncode, err, children


def _left_behind(children):
    gone, alive = psutil.wait_procs(children, timeout=10)
    alive = [p for p in alive if p.status() != psutil.STATUS_ZOMBIE]
    for p in alive:
        p.kill()
    return alive


def _files(directory):
    return sorted(p.name for p in directory.rglob("*") if p.is_file())


def _cpu(seconds):
    """Ready once the process has spent ``seconds`` of CPU: its imports are done and
    its own signal handling is in place, the work under way."""
    return lambda process: sum(process.cpu_times()[:2]) >= seconds


@pytest.mark.parametrize("signum,status,word", [(signal.SIGINT, 130, "interrupted"),
                                                (signal.SIGTERM, 143, "terminated")],
                         ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_fabric_leaves_no_file(tmp_path, signum, status, word):
    proc = _cubefab("verilog", "fabric", "hypercube", "-n", "5", "-o",
                    str(tmp_path / "out" / "fabric.v"))
    code, err, children = _interrupt(proc, signum, _cpu(2.0))
    assert (code, err) == (status, f"error: {word}\n")
    assert [f for f in _files(tmp_path) if f != ".cubefab-outputs.json"] == []
    assert _left_behind(children) == []


@pytest.mark.slow
@pytest.mark.parametrize("signum,status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)],
                         ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("when", ["starting", "running"])
@pytest.mark.parametrize("group", [False, True], ids=["process", "group"])
def test_an_interrupted_sweep_leaves_no_worker_and_no_plot(tmp_path, signum, status, when,
                                                            group):
    """The Dask workers of a sweep stop with it, also while the cluster starts, and say
    nothing when the signal reaches them too (a terminal's Ctrl-C goes to the whole
    process group)."""
    proc = _cubefab("sweep", "hypercube", "-n", "2", "--rates", "0.1:0.9:0.1", "--engine",
                    "amaranth", "--jobs", "2", "--cycles", "20000", "--plot",
                    str(tmp_path / "sweep.png"))
    workers = 1 if when == "starting" else 3
    code, err, children = _interrupt(
        proc, signum, lambda p: len(p.children(recursive=True)) >= workers, group=group)
    assert code == status and err.splitlines()[-1].startswith("error: "), err
    assert len(err.splitlines()) == 1, err
    assert _files(tmp_path) == []
    assert _left_behind(children) == []


def test_an_interrupted_build_step_leaves_no_process(tmp_path):
    """A Verilator build step (make and the compilers it starts) runs in a process
    group of its own, killed whole when the build is interrupted."""
    from cubefab.tools.verilator import _run_build_step

    class Stop(Exception):
        pass
    pids = tmp_path / "pids"
    script = f"echo $$ > {pids}; sleep 60 & echo $! >> {pids}; wait"
    with pytest.raises(Stop), alarm_after(1.5, Stop):
        _run_build_step(["sh", "-c", script], str(tmp_path), "test step")
    started = [psutil.Process(int(pid)) for pid in pids.read_text().split()
               if psutil.pid_exists(int(pid))]
    assert _left_behind(started) == []


@pytest.mark.parametrize("args", [("edges", "hypercube", "-n", "12"),
                                  ("edges", "hypercube", "-n", "12", "--json")],
                         ids=["text", "json"])
def test_a_pipe_closed_early_is_no_error(args):
    proc = _cubefab(*args)
    assert proc.stdout.readline()
    proc.stdout.close()               # as `| head -1` does
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 0 and err == ""


def _route(cli, output, *extra):
    return cli("verilog", "route", "dualcube", "-m", "1", "--node", "1", "-o", output,
               *extra)


def test_a_symlink_output_is_refused_and_its_target_kept(cli, tmp_path):
    target = tmp_path / "mine.v"
    target.write_text("my own work\n")
    link = tmp_path / "link.v"
    link.symlink_to(target)
    r = _route(cli, link)
    assert r.status == 2 and r.err.count("\n") == 1 and "--force" in r.err
    r = _route(cli, link, "--force")      # asked: the link is replaced, not its target
    assert r.status == 0, r.err
    assert not link.is_symlink() and "module cubefab_mc11_route_n1 (" in link.read_text()
    assert target.read_text() == "my own work\n"


def test_a_dangling_symlink_output_is_refused(cli, tmp_path):
    link = tmp_path / "link.v"
    link.symlink_to(tmp_path / "nowhere" / "x.v")
    r = _route(cli, link)
    assert r.status == 2 and r.err.count("\n") == 1
    assert link.is_symlink() and not (tmp_path / "nowhere").exists()


def test_a_name_too_long_is_refused_before_the_work(cli, tmp_path):
    r = _route(cli, tmp_path / ("a" * 300 + ".v"))
    assert r.status == 2 and r.err.count("\n") == 1
    assert "a name of 302 bytes; the file system takes at most" in r.err
    assert list(tmp_path.iterdir()) == []


def test_a_long_name_that_fits_is_written(cli, tmp_path):
    """The temporary file beside it has a name the file system takes too."""
    r = _route(cli, tmp_path / ("a" * 240 + ".v"))
    assert r.status == 0, r.err


@pytest.mark.parametrize("variable", ["CUBEFAB_CACHE", "HOME"])
def test_an_unusable_cache_is_one_error_line(cli, tmp_path, monkeypatch, variable):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    if variable == "HOME":
        monkeypatch.delenv("CUBEFAB_CACHE", raising=False)
    monkeypatch.setenv(variable, str(blocker))
    r = cli("sim", "hypercube", "-n", "2", "--engine", "verilator", "--cycles", "10")
    assert r.status == 2 and r.err.count("\n") == 1, r.err
    assert r.err.startswith("error: the Verilator build cache ")
    assert "CUBEFAB_CACHE" in r.err


@pytest.mark.parametrize("args", [("info", "dualcube", "-m", "\udcff"),
                                  ("verilog", "route", "dualcube", "-m", "1", "--node",
                                   "1", "-o", "\udcfe.v"),
                                  ("\udcff",)], ids=["value", "file name", "command"])
def test_arguments_that_are_not_text_are_one_error_line(cli, tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    r = cli(*args)
    assert r.status == 2 and r.out == "" and r.err.count("\n") == 1
    assert "is not valid text" in r.err and "\\udc" in r.err
    r.err.encode("ascii")                   # printable whatever stderr's encoding
    assert list(tmp_path.iterdir()) == []
