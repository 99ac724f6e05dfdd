"""The ``cubefab`` command line: the framework shared by every command.

Each command lives in a module of :mod:`cubefab.commands` that defines
``register(subparsers)``; :data:`COMMAND_MODULES` lists them in help order.
Conventions (docs/conventions.md): addresses accept decimal, ``0b...`` and
``0x...``; ``--json`` prints exactly one JSON document; bad input prints one
``error: ...`` line to stderr and exits 2.
"""

import argparse
import importlib
import json
import sys

from .topology.catalog import FAMILIES, make_topology


__all__ = ["main", "CliError", "parse_address", "add_topology_command", "emit",
           "format_table", "COMMAND_MODULES"]


COMMAND_MODULES = [
    "cubefab.commands.topology",
    "cubefab.commands.demo",
    "cubefab.commands.export",
    "cubefab.commands.sweep",
    "cubefab.commands.verilog",
    "cubefab.commands.synth",
    "cubefab.commands.optical",
    "cubefab.commands.mcube",
    "cubefab.commands.paths",
    "cubefab.commands.sim",
    "cubefab.commands.deadlock",
    "cubefab.commands.board",
]


class CliError(Exception):
    """A user error: printed as one ``error:`` line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise CliError(message)


def parse_address(text):
    """Parse a node address written in decimal, ``0b...`` or ``0x...``."""
    t = text.strip().lower().replace("_", "")
    try:
        if t.startswith(("0b", "0x")):
            value = int(t, 0)
        else:
            value = int(t, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"invalid address {text!r} (use decimal, 0b... or 0x...)") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"invalid address {text!r}: must be >= 0")
    return value


def _nonneg_int(text):
    try:
        return int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid integer {text!r}") from None


def add_topology_command(subparsers, name, help, handler, configure=None, families=None):
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
    """
    parser = subparsers.add_parser(name, help=help, description=help)
    fams = parser.add_subparsers(dest="family", metavar="TOPO", parser_class=_Parser)
    fams.required = True
    for family in (families or FAMILIES):
        _, parameters = FAMILIES[family]
        fp = fams.add_parser(family, help=f"{family} network")
        for param, letter, param_help in parameters:
            fp.add_argument(f"-{letter}", dest=f"param_{param}", type=_nonneg_int,
                            required=True, metavar=letter.upper(), help=param_help)
        if configure is not None:
            configure(fp)
        fp.set_defaults(_handler=handler, _parameters=[p for p, _, _ in parameters])
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


def format_table(headers, rows):
    """Plain-text table with right-aligned columns."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def build_parser():
    parser = _Parser(prog="cubefab", description="Hypercube-family interconnects from "
                     "paper to verified hardware.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for module in COMMAND_MODULES:
        importlib.import_module(module).register(sub)
    return parser


def main(argv=None):
    """Entry point; returns the exit status."""
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if hasattr(args, "_parameters"):
            topology = topology_from_args(args)
            status = args._handler(args, topology)
        else:
            status = args._handler(args)
        return 0 if status is None else status
    except CliError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (TypeError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
