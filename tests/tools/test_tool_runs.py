"""Long tool runs are honest: no fixed time limit, a user's ``--timeout`` ends a run with
one ``error:`` line (no process left behind, no partial file), and the stages of a run
are reported with the time left also when stderr is not a terminal."""

import io
import json
import os
import stat
import time

import psutil
import pytest

from cubefab.progress import Stage, Stages
from cubefab.tools.process import Deadline, ToolTimeout, run_process


def _running(process):
    try:
        return process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _left_behind(pids_file, within=10):
    """The processes named in ``pids_file`` still running ``within`` seconds from now
    (a killed process may run for a moment on a busy machine; one that has ended stays a
    zombie where nothing reaps it)."""
    processes = []
    for pid in pids_file.read_text().split():
        try:
            processes.append(psutil.Process(int(pid)))
        except psutil.NoSuchProcess:
            pass
    deadline = time.monotonic() + within
    while any(map(_running, processes)) and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = [process for process in processes if _running(process)]
    for process in alive:
        process.kill()
    return alive


def _slow_tool(tmp_path, writes):
    """An executable that starts a child, writes ``writes`` (a partial output) in its
    work directory and waits a minute; it notes both process ids in ``pids``."""
    pids = tmp_path / "pids"
    path = tmp_path / "slow-tool"
    path.write_text(f"#!/bin/sh\necho $$ > {pids}\nsleep 60 &\necho $! >> {pids}\n"
                    f"echo partial > {writes}\nwait\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path, pids


def test_a_tool_past_its_deadline_is_stopped_with_its_children(tmp_path):
    tool, pids = _slow_tool(tmp_path, "out.json")
    start = time.monotonic()
    with pytest.raises(ToolTimeout) as caught:
        run_process([str(tool)], str(tmp_path), "slow-tool", Deadline(1.0), ["out.json"])
    assert time.monotonic() - start < 30
    assert (caught.value.tool, caught.value.seconds) == ("slow-tool", 1.0)
    assert _left_behind(pids) == []
    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("seconds", [0, -1, float("nan"), float("inf"), True, "60"])
def test_a_deadline_must_be_a_positive_number(seconds):
    with pytest.raises(ValueError, match="Time limit must be a positive number"):
        Deadline(seconds)


def test_synthesis_past_timeout_is_one_error_line(cli, tmp_path, monkeypatch):
    tool, pids = _slow_tool(tmp_path, "top.json")
    monkeypatch.setenv("YOSYS", str(tool))
    work = tmp_path / "work"
    result = cli("synth", "route", "hypercube", "-n", "2", "--node", "0", "--workdir",
                 work, "--timeout", "1")
    assert result.status == 2
    assert result.err.startswith("error: yosys ran past --timeout 1 s and was stopped")
    assert result.err.count("\n") == 1 and "Traceback" not in result.err
    assert _left_behind(pids) == []
    assert not (work / "top.json").exists()


def test_a_board_past_timeout_leaves_no_bitstream(cli, tmp_path, monkeypatch):
    """Neither the killed tool's file nor the bitstream of an earlier build is left."""
    tool, pids = _slow_tool(tmp_path, "top.json")
    monkeypatch.setenv("YOSYS", str(tool))
    out = tmp_path / "board"
    out.mkdir()
    (out / "top.bin").write_text("an earlier build's bitstream")
    result = cli("board", "hypercube", "-n", "1", "--board", "icestick",
                 "--payload-width", "4", "-o", out, "--force", "--timeout", "5")
    assert result.status == 2
    assert result.err.splitlines()[-1].startswith("error: yosys ran past --timeout 5 s")
    assert _left_behind(pids) == []
    assert not (out / "top.json").exists() and not (out / "top.bin").exists()


def _quick_yosys(tmp_path):
    """A yosys that writes an empty netlist of a timing harness at once."""
    netlist = json.dumps({"modules": {"top": {"cells": {}}, "top.dut": {"cells": {}}}})
    path = tmp_path / "quick-yosys"
    path.write_text(f"#!/bin/sh\necho '{netlist}' > top.json\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


def test_synth_prints_its_stages_on_a_pipe(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("YOSYS", str(_quick_yosys(tmp_path)))
    monkeypatch.chdir(tmp_path)         # Amaranth asks YOSYS its version where it runs
    result = cli("synth", "router", "hypercube", "-n", "1", "--node", "0", "--no-pnr",
                 "--workdir", tmp_path / "work", "--json")
    assert result.status == 0, result.err
    lines = result.err.splitlines()
    assert [line.split(" ", 2)[:2] for line in lines] == [
        ["[1/2]", "Verilog"], ["[1/2]", "Verilog"], ["[2/2]", "yosys"], ["[2/2]", "yosys"]]
    assert "estimate" in lines[0] and "left" in lines[1] and "done in" in lines[3]
    assert set(json.loads(result.out)["stages"]) == {"verilog", "synthesis"}


def test_a_running_stage_repeats_its_line_on_a_pipe():
    out = io.StringIO()
    stages = Stages("the design", {"one": Stage("step one", 10.0), "two": Stage("two", 5)},
                    stream=out, every=0.05)
    with stages.stage("one"):
        time.sleep(0.3)
    lines = out.getvalue().splitlines()
    assert lines[0] == "[1/2] step one of the design (estimate 10 s; about 15 s left)"
    assert lines[1].startswith("  step one: under 1 s of an estimated 10 s; about 1")
    assert lines[-1] == "[1/2] step one done in under 1 s; about 5 s left"
    assert "\r" not in out.getvalue() and "\x1b" not in out.getvalue()


def test_a_stage_past_its_estimate_leaves_the_time_left_unknown():
    stages = Stages("the design", {"one": Stage("step one", 1.0), "two": Stage("two", 5)})
    assert stages.left("one", 0.5) == 5.5
    assert stages.left("one", 1.5) is None


def test_a_stage_run_again_counts_both_runs_and_says_why():
    out = io.StringIO()
    stages = Stages("the design", {"one": Stage("step one", 1.0)}, stream=out)
    for _ in range(2):
        with stages.stage("one"):
            time.sleep(0.1)
    stages.say("why it ran again")
    assert stages.summary()["one"]["seconds"] >= 0.2
    assert out.getvalue().splitlines()[-1] == "why it ran again"
