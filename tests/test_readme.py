"""The console blocks of README.md and docs/cli.md are what the commands print today.

Every ```` ```console ```` block is a session: ``$ COMMAND`` lines, each followed by the
output it shows. The test runs the block's commands in order in an empty directory
(``cubefab ...`` in this process, others in a shell) and compares each command's
standard output with what the block shows. Only timing may differ: a number of seconds,
milliseconds or MHz, or the value of a ``*seconds``/``*per_second`` row, reads
``<time>``, and runs of spaces or dashes (table columns a different width wide) are one.
A shown line ``PREFIX ... (what is left out)`` stands for an actual line that starts
with PREFIX and the lines after it up to the next shown line. The commands leave nothing
in the working directory but ``./build/``.

Blocks that build a Verilator model and simulate (``sim``, ``sweep``: a minute or more)
are slow tests (``-m slow``); the others run in the fast suite (about 10 s together).
"""

import pathlib
import re
import shlex
import subprocess

import pytest

from cubefab.cli import main


ROOT = pathlib.Path(__file__).resolve().parent.parent

#: The documents whose console blocks are checked.
DOCUMENTS = ("README.md", "docs/cli.md")

#: Commands that take a minute or more (a Verilator build, then the simulation).
SLOW_COMMANDS = ("cubefab sim ", "cubefab sweep ")

_BLOCK = re.compile(r"^```console\n(.*?)^```", re.MULTILINE | re.DOTALL)
_ELLIPSIS = re.compile(r"^(\S.*?) \.\.\. \(.*\)$")
_TIME_ROW = re.compile(r"^(\s*\w*(?:seconds|per_second)\s+)\S+")
_TIME = re.compile(r"\d[\d,]*(?:\.\d+)?\s?(?:s|ms|us|MHz)\b")


def console_blocks(document):
    """``[(line, [(command, [shown lines])])]`` of every console block of ``document``."""
    text = (ROOT / document).read_text()
    blocks = []
    for match in _BLOCK.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        session = []
        for shown in match.group(1).splitlines():
            if shown.startswith("$ "):
                session.append((shown[2:], []))
            elif session:
                session[-1][1].append(shown)
        blocks.append((line, session))
    return blocks


def normalize(line):
    """``line`` with its timing fields as ``<time>`` and runs of spaces or dashes as one."""
    line = _TIME_ROW.sub(r"\1<time>", line)
    line = _TIME.sub("<time>", line)
    return re.sub(r"-{2,}", "-", re.sub(r"\s+", " ", line)).strip()


def matches(shown, actual):
    """Whether the ``actual`` lines are the ``shown`` ones (both normalized), each
    ``PREFIX ... (comment)`` line standing for a line starting with PREFIX and those
    after it up to the next shown line."""
    i = j = 0
    while i < len(shown):
        ellipsis = _ELLIPSIS.match(shown[i])
        if ellipsis:
            if j >= len(actual) or not actual[j].startswith(ellipsis.group(1)):
                return False
            j += 1
            following = shown[i + 1] if i + 1 < len(shown) else None
            while j < len(actual) and actual[j] != following:
                j += 1
        elif j >= len(actual) or actual[j] != shown[i]:
            return False
        else:
            j += 1
        i += 1
    return j == len(actual)


def _sessions():
    for document in DOCUMENTS:
        for line, session in console_blocks(document):
            slow = any(command.startswith(SLOW_COMMANDS) for command, _ in session)
            # (named by the first command, not the line: ids outlive edits above)
            yield pytest.param(session, id=f"{document}: {session[0][0]}",
                               marks=[pytest.mark.slow] if slow else [])


def test_the_readme_has_console_blocks():
    assert len(console_blocks("README.md")) >= 5


@pytest.mark.parametrize("session", list(_sessions()))
def test_console_block(session, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for command, shown in session:
        words = shlex.split(command)
        if words[0] == "cubefab":
            status = main(words[1:])
            out = capsys.readouterr().out
        else:
            done = subprocess.run(command, shell=True, capture_output=True, text=True,
                                  cwd=tmp_path, timeout=60)
            status, out = done.returncode, done.stdout
        assert status == 0, f"{command}: exit status {status}"
        expected = [normalize(line) for line in shown]
        actual = [normalize(line) for line in out.rstrip("\n").splitlines()]
        if not matches(expected, actual):      # show the difference
            assert "\n".join(expected) == "\n".join(actual), command
    # what the commands wrote, and cubefab's list of it, is under ./build/ (ignored)
    assert {path.name for path in tmp_path.iterdir()} <= {"build"}


@pytest.mark.parametrize("shown,actual,same", [
    (["a ... (left out)", "b"], ["a 1", "x", "y", "b"], True),
    (["a ... (left out)", "b"], ["c", "b"], False),
    (["a", "b"], ["a", "b", "c"], False),
    (["rate <time>"], ["rate <time>"], True),
])
def test_matches(shown, actual, same):
    assert matches(shown, actual) is same


@pytest.mark.parametrize("line,normal", [
    ("cycles_per_second    5358", "cycles_per_second <time>"),
    ("            seconds   0.02", "seconds <time>"),
    ("It took 55 s, 12.5 ms at 102.7 MHz", "It took <time>, <time> at <time>"),
    ("-----  ------", "- -"),
    ("  injected    1879", "injected 1879"),
    ("0.100   0.0995    0.0996        12.05       0", "0.100 0.0995 0.0996 12.05 0"),
])
def test_normalize_touches_only_timing(line, normal):
    assert normalize(line) == normal
