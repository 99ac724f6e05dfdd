"""What docs/cli.md and the README promise of every command, kept true: the Verilator
build announced on stderr, --json everywhere, defaults in --help, shared options."""

import io

import pytest

from cubefab.progress import build_stages


class _Pipe(io.StringIO):
    def isatty(self):
        return False


def test_build_stages_speak_when_stderr_is_not_a_terminal():
    out = _Pipe()
    report = build_stages("the Q(3) node", "/cache", stream=out)
    for stage in ("verilog", "verilate", "compile"):
        report(stage)
    lines = out.getvalue().splitlines()
    assert lines[0] == ("building the Verilator model of the Q(3) node (once: it is kept "
                        "in /cache for later runs)")
    assert [line.strip() for line in lines[1:]] == [
        "converting the design to Verilog...", "running Verilator...",
        "compiling the C++ model (the longest part)..."]


def _fake_build(**kwargs):
    kwargs["build_progress"]("verilog")
    kwargs["build_progress"]("compile")
    from cubefab.sim.verilator_engine import VerilatorUnavailable
    raise VerilatorUnavailable("stopped by the test")


@pytest.mark.parametrize("command", [
    ("sim", "hypercube", "-n", "2", "--engine", "verilator", "--cycles", "10"),
    ("sweep", "hypercube", "-n", "2", "--rates", "0.1", "--jobs", "1")], ids=lambda c: c[0])
def test_sim_and_sweep_say_that_a_model_is_built(cli, monkeypatch, command):
    """A first run's Verilator build is said on stderr (here not a terminal)."""
    from cubefab.commands import sim, sweep
    monkeypatch.setattr(sim, "check_engine", lambda name: None)
    monkeypatch.setattr(sim, "run_selfcheck", lambda topology, **kw: _fake_build(**kw))
    monkeypatch.setattr(sweep, "sweep_curves", lambda topology, rates, **kw: _fake_build(**kw))
    r = cli(*command)
    assert r.status == 2 and "stopped by the test" in r.err
    assert r.err.startswith("building the Verilator model of the Q(2) node (once: it is "
                            "kept in ")
    assert "compiling the C++ model" in r.err
