"""The command-line framework: argparse validators and the one error path."""

import argparse

import pytest

from cubefab import cli


@pytest.mark.parametrize("text", ["", " ", "abc", "1.5", "1e3", "1_000", "\u0663", "\uff13",
                                  "0x10", "9" * 41, "nan"])
def test_int_rejects(text):
    with pytest.raises(argparse.ArgumentTypeError, match="must be an integer"):
        cli.int_range(0)(text)


@pytest.mark.parametrize("text,value", [("0", 0), ("+3", 3), (" 7 ", 7)])
def test_int_accepts(text, value):
    assert cli.int_range(0)(text) == value


def test_int_range_names_the_bounds():
    with pytest.raises(argparse.ArgumentTypeError, match="from 1 to 64, not '65'"):
        cli.int_range(1, 64)("65")


@pytest.mark.parametrize("text", ["nan", "NaN", "inf", "-inf", "1e999", "", "\u0661.5",
                                  "-0.1", "1.0001", "1_0"])
def test_fraction_rejects(text):
    with pytest.raises(argparse.ArgumentTypeError, match=r"\[0.0, 1.0\]"):
        cli.fraction(text)


@pytest.mark.parametrize("text", ["\u0663", "-1", "", "0x", "0b2", "1" * 200])
def test_address_rejects(text):
    with pytest.raises(argparse.ArgumentTypeError, match="invalid address"):
        cli.parse_address(text)


def test_check_size_states_estimate_and_limit():
    with pytest.raises(cli.CliError, match="about 10 MiB; the limit is 5 MiB"):
        cli.check_size("the thing", 10, 5, "MiB")


def test_input_errors_turns_value_errors_into_cli_errors():
    with pytest.raises(cli.CliError, match="bad"):
        with cli.input_errors():
            raise ValueError("bad")


def test_internal_error_exit_3_without_traceback(cli_bug, capsys):
    assert cli.main(["route", "hypercube", "-n", "3", "--src", "0", "--dst", "1"]) == 3
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" in err and "--debug" in err


def test_debug_shows_the_traceback(cli_bug, capsys):
    assert cli.main(["--debug", "route", "hypercube", "-n", "3", "--src", "0",
                     "--dst", "1"]) == 3
    assert "Traceback" in capsys.readouterr().err


def test_debug_after_the_command(cli_bug, capsys):
    assert cli.main(["route", "hypercube", "-n", "3", "--src", "0", "--dst", "1",
                     "--debug"]) == 3
    assert "Traceback" in capsys.readouterr().err


@pytest.fixture
def cli_bug(monkeypatch):
    """A bug in the route command: a ValueError from the work, not from the input."""
    from cubefab.topology.hypercube import Hypercube

    def broken(self, *args, **kwargs):
        raise ValueError("a bug")
    monkeypatch.setattr(Hypercube, "route", broken)


class YosysError(Exception):
    """Stands in for Amaranth's yosys error (matched by its name)."""


class VerilatorError(Exception):
    """Stands in for the Verilator engine's error (matched by its name)."""


@pytest.mark.parametrize("exc", [MemoryError(), YosysError("std::bad_alloc"),
                                 # Amaranth's yosys (WebAssembly) under an address-space
                                 # limit (ulimit -v): wasmtime cannot reserve its memory
                                 YosysError("wasmtime._error.WasmtimeError: mmap failed to "
                                            "reserve 0x104000000 bytes\n\nCaused by:\n"
                                            "    Cannot allocate memory (os error 12)"),
                                 VerilatorError("verilator failed (2):\ng++: fatal error: "
                                                "Killed signal terminated program cc1plus")],
                         ids=["python", "yosys", "yosys-wasm", "verilator"])
def test_out_of_memory_is_one_error_line(monkeypatch, capsys, exc):
    from cubefab.topology.hypercube import Hypercube

    def exhausted(self, *args, **kwargs):
        raise exc
    monkeypatch.setattr(Hypercube, "route", exhausted)
    assert cli.main(["route", "hypercube", "-n", "3", "--src", "0", "--dst", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: 'cubefab route hypercube' ran out of memory") and err.count("\n") == 1
    assert ("yosys" in err) == isinstance(exc, YosysError)
    assert ("Verilator" in err) == isinstance(exc, VerilatorError)


@pytest.mark.parametrize("exc", [YosysError("ERROR: Module port is not unique"),
                                 VerilatorError("verilator failed (1):\n%Error: syntax")],
                         ids=["yosys", "verilator"])
def test_other_tool_errors_stay_internal(monkeypatch, capsys, exc):
    from cubefab.topology.hypercube import Hypercube

    def failing(self, *args, **kwargs):
        raise exc
    monkeypatch.setattr(Hypercube, "route", failing)
    assert cli.main(["route", "hypercube", "-n", "3", "--src", "0", "--dst", "1"]) == 3


def test_help_exits_0(capsys):
    assert cli.main(["--help"]) == 0
    assert "exit status" in capsys.readouterr().out


@pytest.mark.parametrize("value", ["\r0", "a\nb", "\x1b[31m"])
def test_control_characters_a_user_typed_come_back_escaped_on_one_line(cli, value):
    # found by the slow set's hostile-options fuzz: an unknown option's value with "\r"
    r = cli("export", "booksim", "hypercube", "-n", "2", "-o", "out", "--buffer", value)
    assert r.status == 2 and len(r.err.splitlines()) == 1
    assert r.err.startswith("error: unrecognized arguments: --buffer ")
    assert value.encode("unicode_escape").decode() in r.err


def test_no_command_lists_the_commands(cli):
    r = cli()
    assert r.status == 2
    assert r.err == "error: give a command (cubefab COMMAND --help for its options)\n"
    assert "sim" in r.out and "compare" in r.out and "modes" in r.out


@pytest.mark.parametrize("name", ["missing/", "missing/deeper/"])
def test_an_output_file_name_ending_in_a_slash_is_refused(cli, tmp_path, monkeypatch, name):
    # "-o outdir/" once wrote a *file* named outdir
    monkeypatch.chdir(tmp_path)
    r = cli("verilog", "route", "hypercube", "-n", "2", "--node", "0", "-o", name)
    assert r.status == 2 and r.err == f"error: {name} names a directory; give a file name\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", [
    ("optical", "hypercube", "-n", "2"),
    ("paths", "hypercube", "-n", "2", "--src", "0", "--dst", "3"),
    ("broadcast", "hypercube", "-n", "2", "--src", "0"),
], ids=lambda c: c[0])
def test_every_plot_is_written_as_pdf_too(cli, tmp_path, command):
    # docs/cli.md promises PNG, SVG and PDF for every --plot
    path = tmp_path / "plot.pdf"
    r = cli(*command, "--plot", path)
    assert r.status == 0, r.err
    assert path.read_bytes().startswith(b"%PDF") and f"plot written to {path}" in r.out
