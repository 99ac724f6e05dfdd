"""``cubefab plot RESULT.json -o FIG``: a saved result's figure, drawn again without
rerunning anything (:mod:`cubefab.figures`)."""

import json

from .. import figures
from ..cli import (CliError, add_force_option, add_json_option, check_plot_option, emit,
                   input_errors, plot_written)


__all__ = ["register", "read_result"]

#: Largest result file read (a sweep of 1000 loads x 1000 seeds stays far below).
MAX_RESULT_BYTES = 1 << 30


def register(sub):
    parser = sub.add_parser(
        "plot", help="draw a saved sweep, compare or trace result as a figure fit for "
        "a paper", description="Draw the figure of a result that cubefab sweep, "
        "cubefab compare or cubefab sim --trace printed with --json, without rerunning "
        "it: PDF or SVG (vector) or PNG (300 dpi) by the suffix of -o, a legend entry "
        "for every colour, line style and mark, and a caption line with the run's "
        "parameters.")
    parser.add_argument("result", metavar="RESULT.json",
                        help="the --json output of cubefab sweep, compare or sim --trace")
    parser.add_argument("-o", "--output", required=True, metavar="FIG",
                        help="the figure file: .pdf, .svg or .png")
    parser.add_argument("--no-caption", action="store_true",
                        help="leave out the caption line of the run's parameters "
                             "(default: drawn below the figure)")
    add_json_option(parser)
    add_force_option(parser)
    parser.set_defaults(_handler=_plot)


def read_result(path):
    """The document in ``path`` and its kind (:func:`cubefab.figures.result_kind`), or
    CliError naming the file."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_RESULT_BYTES + 1)
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_RESULT_BYTES:
        raise CliError(f"{path} is larger than {MAX_RESULT_BYTES >> 20} MiB: not a "
                       f"cubefab result")
    try:
        document = json.loads(data)
    except (ValueError, RecursionError):
        raise CliError(f"{path} is not a cubefab result: not JSON (give the --json "
                       f"output of cubefab sweep, compare or sim --trace)") from None
    with input_errors(f"{path} is "):
        return document, figures.result_kind(document)


def _plot(args):
    check_plot_option(args.output, "-o")
    document, kind = read_result(args.result)
    try:
        figures.write(document, args.output, caption=not args.no_caption)
    except ValueError as exc:         # a result without what its figure needs
        raise CliError(f"{args.result}: {exc}") from None
    except (KeyError, TypeError, IndexError, AttributeError) as exc:   # a damaged one
        raise CliError(f"{args.result} is not a complete {kind} result ({type(exc).__name__}"
                       f" {exc}): give the --json output of cubefab "
                       f"{'sim --trace' if kind == 'trace' else kind}") from None
    emit(args, {"command": "plot", "result": args.result, "kind": kind,
                "file": args.output, "caption": not args.no_caption},
         plot_written(args.output))
