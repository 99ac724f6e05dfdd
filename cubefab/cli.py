"""The ``cubefab`` command line: the framework shared by every command.

Each command lives in a module of :mod:`cubefab.commands` that defines
``register(subparsers)``; :data:`COMMAND_MODULES` lists them in help order.
Conventions (docs/conventions.md): addresses accept decimal, ``0b...`` and
``0x...``; ``--json`` prints exactly one JSON document.

Exit statuses, the same in every command:

- 0: done, and every check passed;
- 1: done, and a check or validation failed (an invalid layout, a deadlock cycle,
  a lost packet, no fault-free path): the handler returns 1;
- 2: bad input: the handler (or an argparse type helper of this module) raises
  :class:`CliError`, printed as one ``error: ...`` line on stderr; the same line
  when the work runs out of memory (``MemoryError``, yosys' ``std::bad_alloc``
  while Amaranth converts a design to Verilog, or the C++ compiler or model of the
  Verilator engine out of memory): the input is too large here; and when a tool
  (yosys, nextpnr) runs past the user's ``--timeout`` (the run is larger than what
  was allowed; :mod:`cubefab.commands.tool_runs`);
- 3: internal error: any other exception is a bug, reported in a short message
  (``--debug`` shows the traceback);
- 130 (Ctrl-C) and 143 (SIGTERM): interrupted, ``error: interrupted`` (or
  ``terminated``): SIGTERM raises :class:`Terminated` as Ctrl-C raises
  KeyboardInterrupt, so every cleanup runs (no partial output file, no Dask worker
  or build process left behind).

Handlers validate their input before they work: option types come from the
helpers here (:func:`int_range`, :func:`float_range`, :data:`fraction`, ...),
library checks that reject a parameter are wrapped in :func:`input_errors`, and
sizes are checked against a limit before memory is allocated (:func:`check_size`).
"""

import argparse
import collections.abc
import contextlib
import importlib
import json
import math
import shlex
import signal
import sys
import threading
import traceback

from . import files, provenance
from .topology.catalog import FAMILIES, make_topology


__all__ = ["main", "CliError", "Terminated", "parse_address", "add_topology_command", "emit",
           "format_table", "plural", "one_line", "COMMAND_MODULES", "int_range", "float_range",
           "fraction", "input_errors", "check_size", "add_json_option", "add_plot_option",
           "check_plot_option", "plot_written", "add_force_option", "version_text", "EXIT_OK",
           "EXIT_CHECK_FAILED", "EXIT_BAD_INPUT", "EXIT_INTERNAL", "NETWORKS_FORM"]

#: Exit statuses (see the module docstring).
EXIT_OK, EXIT_CHECK_FAILED, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2, 3


COMMAND_MODULES = [
    "cubefab.commands.topology",
    "cubefab.commands.compare",
    "cubefab.commands.demo",
    "cubefab.commands.export",
    "cubefab.commands.sweep",
    "cubefab.commands.plot",
    "cubefab.commands.verilog",
    "cubefab.commands.synth",
    "cubefab.commands.optical",
    "cubefab.commands.mcube",
    "cubefab.commands.paths",
    "cubefab.commands.sim",
    "cubefab.commands.deadlock",
    "cubefab.commands.board",
    "cubefab.commands.modes",
]


class CliError(Exception):
    """A user error: printed as one ``error:`` line, exit status 2."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is (as Ctrl-C raises KeyboardInterrupt) so that
    every cleanup runs: temporary files removed, Dask workers and builds stopped."""


def _terminate(signum, frame):
    raise Terminated()


@contextlib.contextmanager
def _sigterm_raises():
    """Within the block SIGTERM raises :class:`Terminated` (in the main thread only,
    where Python handles signals); the previous handler is restored after it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _quiet_abandoned_designs():
    """No warning about the Amaranth components of a design that an interrupt left
    half built (they are garbage-collected at exit): the one ``error:`` line says it."""
    hdl = sys.modules.get("amaranth.hdl")
    if hdl is not None:
        import warnings
        warnings.filterwarnings("ignore", category=hdl.UnusedElaboratable)


def _not_text(argv):
    """The first argument that is not valid text (bytes that were not UTF-8, which
    Python keeps as lone surrogates), or None."""
    for arg in argv:
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            return arg
    return None


def one_line(message):
    """``message`` as one printable line: control characters (a user's ``\\r`` or
    ``\\n`` quoted back in an error) written as their escapes."""
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii")
                   for ch in str(message))


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise CliError(message)


#: Integers on the command line have at most this many digits (no huge-int parsing).
_MAX_DIGITS = 40


def parse_address(text):
    """Parse a node address written in decimal, ``0b...`` or ``0x...`` (ASCII only)."""
    t = text.strip().lower().replace("_", "")
    value = None
    if t.isascii() and 0 < len(t) <= 2 + 4 * _MAX_DIGITS:
        try:
            value = int(t, 0) if t.startswith(("0b", "0x")) else int(t, 10)
        except ValueError:
            value = None
    if value is None:
        raise argparse.ArgumentTypeError(
            f"invalid address {text!r} (use decimal, 0b... or 0x...)")
    if value < 0:
        raise argparse.ArgumentTypeError(f"invalid address {text!r}: must be >= 0")
    return value


def _parse_int(text):
    """``text`` as an int: ASCII decimal digits with an optional sign, else None."""
    t = text.strip()
    body = t[1:] if t[:1] in "+-" else t
    if not (body.isascii() and body.isdigit()) or len(body) > _MAX_DIGITS:
        return None
    return int(t, 10)


def _describe_range(kind, lo, hi):
    if lo is not None and hi is not None:
        return f"{kind} from {lo} to {hi}"
    if lo is not None:
        return f"{kind} >= {lo}"
    if hi is not None:
        return f"{kind} <= {hi}"
    return kind


def int_range(lo=None, hi=None):
    """An argparse ``type``: an integer in ``[lo, hi]`` (either bound may be None).

    Accepts ASCII decimal only: non-ASCII digits, underscores, fractions and empty
    strings are rejected with a message that says what is allowed.
    """
    allowed = _describe_range("an integer", lo, hi)

    def parse(text):
        value = _parse_int(text)
        if value is None or (lo is not None and value < lo) or \
                (hi is not None and value > hi):
            raise argparse.ArgumentTypeError(f"must be {allowed}, not {text!r}")
        return value
    parse.__name__ = allowed
    return parse


def float_range(lo=None, hi=None, lo_open=False, hi_open=False):
    """An argparse ``type``: a finite float in the interval from ``lo`` to ``hi``
    (closed unless ``lo_open``/``hi_open``); NaN, infinities and non-ASCII text
    are rejected."""
    left = "(" if lo_open else "["
    right = ")" if hi_open else "]"
    if lo is not None and hi is not None:
        allowed = f"a number in {left}{lo}, {hi}{right}"
    elif lo is not None:
        allowed = f"a number {'>' if lo_open else '>='} {lo}"
    elif hi is not None:
        allowed = f"a number {'<' if hi_open else '<='} {hi}"
    else:
        allowed = "a finite number"

    def parse(text):
        t = text.strip()
        value = None
        if t.isascii() and 0 < len(t) <= 64 and "_" not in t:
            try:
                value = float(t)
            except ValueError:
                value = None
        bad = (value is None or not math.isfinite(value)
               or (lo is not None and (value <= lo if lo_open else value < lo))
               or (hi is not None and (value >= hi if hi_open else value > hi)))
        if bad:
            raise argparse.ArgumentTypeError(f"must be {allowed}, not {text!r}")
        return value
    parse.__name__ = allowed
    return parse


#: A probability or fraction in [0, 1].
fraction = float_range(0.0, 1.0)


@contextlib.contextmanager
def input_errors(prefix=""):
    """Turn the ValueError/TypeError a library raises when it rejects a parameter
    into :class:`CliError` (exit 2). Wrap only the code that builds objects from the
    user's input, never the work itself: there such an exception is a bug."""
    try:
        yield
    except (TypeError, ValueError) as exc:
        raise CliError(f"{prefix}{exc}") from None


def check_size(what, cost, limit, unit="", hint=""):
    """Refuse work whose estimated ``cost`` exceeds ``limit`` (same ``unit``), before
    anything is allocated: raises :class:`CliError` with both figures."""
    if cost > limit:
        unit = f" {unit}" if unit else ""
        raise CliError(f"{what} would need about {cost:,}{unit}; the limit is "
                       f"{limit:,}{unit}" + (f" ({hint})" if hint else ""))


def add_json_option(parser):
    """Add ``--json``: one JSON document on stdout instead of the text report."""
    parser.add_argument("--json", action="store_true",
                        help="print one JSON document instead of the text report "
                             "(default: the text)")


def add_plot_option(parser, what):
    """Add ``--plot FILE``: ``what`` is drawn into FILE, PNG, SVG or PDF by its suffix."""
    parser.add_argument("--plot", metavar="FILE", default=None,
                        help=f"{what} into FILE, PNG, SVG or PDF by its suffix (default: "
                             f"no plot)")


def check_plot_option(path, option="--plot"):
    """Refuse (CliError, before any work) a plot file (given to ``option``) of a format
    no plot is written in, or one that may not be written
    (:func:`cubefab.files.check_output`)."""
    from .plots import check_plot_file
    with input_errors(f"{option} {path}: "):
        check_plot_file(path)
    files.check_output(path)


def plot_written(path):
    """The line every command prints for a plot it wrote."""
    return f"plot written to {path}"


def add_force_option(parser):
    """Add ``--force``: replace files that this command did not write itself."""
    parser.add_argument("--force", action="store_true",
                        help="replace existing files that cubefab did not write "
                             "(default: refuse them)")


#: The form of a topology command that takes networks as ``FAMILY:P=V,...`` words
#: (``cubefab sweep hypercube:n=6 dlh:m=4,d=3 ...``), named as its help lists it.
NETWORKS_FORM = "FAMILY:P=V,..."


class _FamiliesOrNetworks(collections.abc.Mapping):
    """The TOPO choices of a command with a networks form: its parsers by name (a
    mapping, as argparse's own choices), and besides them any word with a colon (a
    network, checked by the form's own parser)."""

    def __init__(self, parsers):
        self.parsers = parsers

    def __contains__(self, word):
        return word in self.parsers or (isinstance(word, str) and ":" in word)

    def __getitem__(self, name):
        return self.parsers[name]

    def __iter__(self):
        return iter(self.parsers)

    def __len__(self):
        return len(self.parsers)


class _TopologyOrNetworks(argparse._SubParsersAction):
    """TOPO of :func:`add_topology_command`: a family and its options, or (a first
    word with a colon) networks in :data:`NETWORKS_FORM`, the words handed whole to
    that form's parser."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.choices = _FamiliesOrNetworks(self._name_parser_map)

    def __call__(self, parser, namespace, values, option_string=None):
        if values[0] not in self._name_parser_map:
            values = [NETWORKS_FORM, *values]
        super().__call__(parser, namespace, values, option_string)


def add_topology_command(subparsers, name, help, handler, configure=None, families=None,
                         networks=None):
    """Add ``cubefab NAME TOPO ...`` with one sub-command per topology family.

    Parameters
    ----------
    subparsers : argparse subparsers action
    name, help : str
    handler : callable
        ``handler(args, topology)``; returns the process exit status or None.
    configure : callable, optional
        ``configure(parser)`` adds the command's own options to each family's parser.
    families : iterable of str, optional
        Restrict to these families (default: all of :data:`FAMILIES`).
    networks : callable, optional
        ``networks(parser)`` makes the command also take networks as
        ``FAMILY:P=V,...`` words instead of TOPO (:data:`NETWORKS_FORM`): it adds
        that form's arguments and handler (``handler(args)``) to ``parser``.
    """
    parser = subparsers.add_parser(name, help=help, description=help)
    parser.epilog = (f"the options follow the topology and its parameters: "
                     f"'{parser.prog} TOPO --help' lists them (e.g. "
                     f"'{parser.prog} {next(iter(families or FAMILIES))} --help')")
    fams = parser.add_subparsers(dest="family", metavar="TOPO", parser_class=_Parser,
                                 **({"action": _TopologyOrNetworks} if networks else {}))
    fams.required = True
    if networks is not None:
        networks(fams.add_parser(NETWORKS_FORM, help="one or more networks, e.g. "
                                 "hypercube:n=6 dlh:m=4,d=3 (as cubefab compare "
                                 "names them)"))
    for family in (families or FAMILIES):
        _, parameters = FAMILIES[family]
        fp = fams.add_parser(family, help=f"{family} network")
        for p in parameters:
            fp.add_argument(f"-{p.letter}", dest=f"param_{p.name}",
                            type=int_range(p.lo, p.hi), required=True,
                            metavar=p.letter.upper(), help=f"{p.help}, {p.lo} to {p.hi}")
        if configure is not None:
            configure(fp)
        fp.set_defaults(_handler=handler, _parameters=[p.name for p in parameters])
    return parser


def topology_from_args(args):
    """Build the topology named by parsed ``args`` (raises CliError on bad parameters)."""
    params = {p: getattr(args, f"param_{p}") for p in args._parameters}
    try:
        return make_topology(args.family, **params)
    except (TypeError, ValueError) as exc:
        raise CliError(str(exc)) from None


def emit(args, document, text):
    """Print ``document`` as JSON with ``--json``, else the human-readable ``text``."""
    if getattr(args, "json", False):
        print(json.dumps(document, indent=2))
    else:
        print(text)


def plural(count, noun):
    """``"1 VC"``, ``"2 VCs"``: ``count`` and ``noun``, plural unless ``count`` is 1."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def format_table(headers, rows):
    """Plain-text table with right-aligned columns."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def version_text():
    """What ``cubefab --version`` prints: one ``tool version`` line each for cubefab,
    Amaranth and the Yosys that writes the Verilog
    (:func:`cubefab.provenance.tool_versions`)."""
    return "\n".join(f"{tool} {version}"
                     for tool, version in provenance.tool_versions().items())


class _VersionAction(argparse.Action):
    """``--version``: print :func:`version_text` and exit 0 (the versions are looked up
    only then: Yosys is asked in a subprocess)."""

    def __init__(self, option_strings, dest, help=None):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text())
        parser.exit(EXIT_OK)


def build_parser():
    parser = _Parser(prog="cubefab", description="Hypercube-family interconnects from "
                     "paper to verified hardware.",
                     epilog="exit status: 0 done, every check passed; 1 a check failed; "
                            "2 bad input; 3 internal error")
    parser.add_argument("--debug", action="store_true",
                        help="show the traceback of an internal error")
    parser.add_argument("--version", action=_VersionAction,
                        help="print the versions of cubefab, Amaranth and Yosys (the "
                             "tools that decide the generated Verilog) and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for module in COMMAND_MODULES:
        importlib.import_module(module).register(sub)
    return parser


def _misplaced_options(argv):
    """A CliError when options stand between a command and its network
    (``cubefab info -m 2 dualcube``), saying where they go; else None."""
    for i, word in enumerate(argv):
        if word in FAMILIES and i > 0 and argv[i - 1] not in FAMILIES:
            before = argv[:i]
            first = next((j for j, w in enumerate(before) if w.startswith("-")), None)
            if first is None or any(w in ("-h", "--help") for w in before):
                return None
            moved = [*before[:first], word, *argv[i + 1:], *before[first:]]
            return CliError(f"options go after the network and its parameters: "
                            f"{shlex.join(['cubefab', *moved])} (not "
                            f"{' '.join(before[first:])!s} before {word!r})")
    return None


def _command_name(argv):
    words = ["cubefab"]
    for word in argv:
        if word.startswith("-"):
            break
        words.append(word)
    return " ".join(words[:3])


def _from_yosys(exc):
    """Whether ``exc`` is the error Amaranth raises when yosys fails."""
    return type(exc).__name__ == "YosysError"


def _from_verilator(exc):
    """Whether ``exc`` is the error the Verilator engine raises when Verilator, the
    C++ compiler or the simulation binary fails."""
    return type(exc).__name__ == "VerilatorError"


#: What the tools say when memory runs out: the C++ compiler and runtime (g++'s
#: "virtual memory exhausted", "Cannot allocate memory", std::bad_alloc, a compiler
#: killed by the kernel's OOM killer) and the WebAssembly runtime of Amaranth's yosys
#: (wasmtime's "mmap failed ... Cannot allocate memory" under an address-space limit).
_OUT_OF_MEMORY = ("bad_alloc", "memory exhausted", "Cannot allocate memory",
                  "out of memory", "Killed signal terminated program")


def _out_of_memory(exc):
    """Whether ``exc`` reports exhausted memory: Python's own, or yosys' or the Verilator
    engine's (build or run) in their output."""
    if isinstance(exc, MemoryError):
        return True
    return (_from_yosys(exc) or _from_verilator(exc)) and \
        any(text in str(exc) for text in _OUT_OF_MEMORY)


def main(argv=None):
    """Entry point; returns the exit status (see the module docstring)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    with _sigterm_raises(), provenance.invoked_as(argv):
        return _main(argv)


def _main(argv):
    debug = "--debug" in argv
    argv = [a for a in argv if a != "--debug"]
    command = _command_name(argv)
    try:
        bad = _not_text(argv)
        if bad is not None:
            raise CliError(f"argument {ascii(bad)} is not valid text (bytes that are not "
                           f"UTF-8); give names and values in UTF-8")
        misplaced = _misplaced_options(argv)
        if misplaced is not None:
            raise misplaced
        parser = build_parser()
        if not argv:   # no command: what the commands are, not only that one is missing
            parser.print_help()
            print("error: give a command (cubefab COMMAND --help for its options)",
                  file=sys.stderr)
            return EXIT_BAD_INPUT
        args = parser.parse_args(argv)
        with files.policy(force=getattr(args, "force", False)):
            if hasattr(args, "_parameters"):
                topology = topology_from_args(args)
                status = args._handler(args, topology)
            else:
                status = args._handler(args)
        return EXIT_OK if status is None else status
    except (CliError, files.OutputRefused) as exc:
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt as exc:    # Ctrl-C, or SIGTERM (Terminated)
        _quiet_abandoned_designs()
        terminated = isinstance(exc, Terminated)
        print(f"error: {'terminated' if terminated else 'interrupted'}", file=sys.stderr)
        return 128 + (signal.SIGTERM if terminated else signal.SIGINT)
    except BrokenPipeError:
        return EXIT_OK
    except SystemExit as exc:   # argparse --help
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    except BaseException as exc:
        if _out_of_memory(exc):
            where = (" in yosys (4 GiB at most)" if _from_yosys(exc) else
                     " building or running the Verilator model" if _from_verilator(exc)
                     else "")
            print(f"error: '{command}' ran out of memory{where}: the input is too large "
                  f"for this machine; allowed: a smaller network (for hardware also fewer "
                  f"VCs or narrower flits)", file=sys.stderr)
            return EXIT_BAD_INPUT
        if debug:
            traceback.print_exc()
        what = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        print(f"internal error in '{command}' ({what}). This is a bug in cubefab: "
              f"please report it with the command line"
              + ("." if debug else " and the traceback that --debug shows."),
              file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    # ``python -m cubefab.cli``: run the imported module's main, whose CliError is the
    # one the command modules raise (this file, run as __main__, is a second copy)
    from cubefab.cli import main as _main
    sys.exit(_main())
