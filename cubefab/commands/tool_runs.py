"""What the commands that run the FPGA tools (yosys, nextpnr, the bitstream packers)
share: ``--timeout``, and the one ``error:`` line of a tool that ran past it.

No run of a tool has a time limit of its own: a large fabric's place and route may
take an hour, and it shows its stages and the time left as it goes
(:class:`~cubefab.progress.Stages`). ``--timeout SECONDS`` sets a limit on the whole
run; past it the tool is stopped with every process it started, the files it was
writing are removed, and the command ends with exit status 2 like any run that is too
large for what the user allowed (memory, the estimated time of a run that shows no
progress: the module docstring of :mod:`cubefab.cli`).
"""

import contextlib

from ..cli import CliError, float_range
from ..tools.process import Deadline, ToolFailed, ToolMissing, ToolTimeout


__all__ = ["MAX_TIMEOUT", "add_timeout_option", "deadline", "tool_errors"]

#: The longest ``--timeout`` (a week, in seconds).
MAX_TIMEOUT = 7 * 24 * 3600


def add_timeout_option(parser, what="the synthesis and place and route", prefix=""):
    """Add ``--timeout SECONDS``: the longest ``what`` (the command's tools, from the
    Verilog on) may take; ``prefix`` starts its help (``"--synth: "``)."""
    parser.add_argument("--timeout", type=float_range(0, MAX_TIMEOUT, lo_open=True),
                        default=None, metavar="SECONDS",
                        help=f"{prefix}stop with an error when {what} (from the Verilog "
                             f"on) take longer than SECONDS in all (default: no limit)")


def deadline(args):
    """The :class:`~cubefab.tools.process.Deadline` of ``--timeout``, from now."""
    return Deadline(args.timeout)


def _first_line(exc):
    return str(exc).splitlines()[0]


@contextlib.contextmanager
def tool_errors(args, describe=_first_line):
    """Within the block a missing or failing tool is a CliError (``describe(exc)``: the
    first line of its message by default), and a tool that ran past ``--timeout`` one
    that names the tool and its log so far."""
    try:
        yield
    except ToolTimeout as exc:
        raise CliError(f"{exc.tool} ran past --timeout {args.timeout:g} s and was stopped"
                       + (f" (its log so far: {exc.log})" if exc.log else "")
                       + "; allowed: a longer --timeout, or none") from None
    except (ToolMissing, ToolFailed) as exc:
        raise CliError(describe(exc)) from None
