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
    from cubefab.tools.verilator import VerilatorUnavailable
    raise VerilatorUnavailable("stopped by the test")


@pytest.mark.parametrize("command", [
    ("sim", "hypercube", "-n", "2", "--engine", "verilator", "--cycles", "10"),
    ("sweep", "hypercube", "-n", "2", "--rates", "0.1", "--jobs", "1")], ids=lambda c: c[0])
def test_sim_and_sweep_say_that_a_model_is_built(cli, monkeypatch, command):
    """A first run's Verilator build is said on stderr (here not a terminal)."""
    from cubefab.commands import sim, sweep
    monkeypatch.setattr(sim, "check_engine", lambda name: None)
    monkeypatch.setattr(sim, "run_selfcheck", lambda topology, **kw: _fake_build(**kw))
    monkeypatch.setattr(sweep, "sweep_runs", lambda runs, rates, **kw: _fake_build(**kw))
    r = cli(*command)
    assert r.status == 2 and "stopped by the test" in r.err
    assert r.err.startswith("building the Verilator model of the Q(2) node (once: it is "
                            "kept in ")
    assert "compiling the C++ model" in r.err


def _leaf_parsers():
    """``(command words, parser)`` of every command's parser (one per topology)."""
    import argparse
    from cubefab.cli import build_parser

    def walk(parser, words):
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            yield words, parser
            return
        for name, child in subs[0].choices.items():
            yield from walk(child, words + (name,))
    return list(walk(build_parser(), ()))


def _options_with_defaults():
    """``(command, option, default, help)`` of every option that has a default (not
    None, False or an empty list) in every command (the first topology's parser)."""
    import argparse
    seen, found = set(), []
    for words, parser in _leaf_parsers():
        command = " ".join(w for w in words if w not in ("hypercube", "metacube", "dualcube",
                                                         "dlh", "mcube"))
        for action in parser._actions:
            if (not action.option_strings or isinstance(action, argparse._HelpAction)
                    or action.required or action.default in (None, False, [])
                    or action.default == argparse.SUPPRESS):
                continue
            key = (command, action.option_strings[-1])
            if key not in seen:
                seen.add(key)
                found.append((command, action.option_strings[-1], action.default,
                              action.help or ""))
    return found


@pytest.mark.parametrize("command,option,default,help", [
    pytest.param(*entry, id=f"{entry[0]} {entry[1]}") for entry in _options_with_defaults()])
def test_every_help_states_the_default(command, option, default, help):
    """`cubefab COMMAND TOPO --help` states each option's default, and the value is the
    one the option takes."""
    text = help % {"default": default} if "%(default)" in help else help
    assert "default" in text, f"{command} {option}: {help!r}"
    if isinstance(default, (int, float, str)) and not isinstance(default, bool):
        assert str(default) in text, f"{command} {option}: default {default!r}: {text!r}"


def test_every_command_takes_json():
    missing = [" ".join(words) for words, parser in _leaf_parsers()
               if "--json" not in parser._option_string_actions]
    assert missing == []


def test_edges_json_lists_every_link(cli):
    doc = cli("edges", "dualcube", "-m", 2, "--json").json()
    text = cli("edges", "dualcube", "-m", 2).out.split("\n")
    assert doc["topology"] == "MC(1,2)" and doc["nodes"] == 32 and doc["links"] == 48
    assert [f"{u} {v}" for u, v in doc["edges"]] == [line for line in text if line]


def test_help_without_a_topology_says_how_to_see_the_options(cli):
    r = cli("info", "--help")
    assert r.status == 0
    assert "hypercube" in r.out and "dlh" in r.out       # the topologies
    assert "'cubefab info TOPO --help' lists them" in " ".join(r.out.split())


def test_info_points_to_the_errata_where_a_paper_differs(cli):
    dlh = cli("info", "dlh", "-m", "4", "-d", "3").out
    assert ("papers' values that differ from the computed ones (average_distance): why, "
            "in docs/errata.md") in dlh
    assert "errata" not in cli("info", "dualcube", "-m", "2").out
