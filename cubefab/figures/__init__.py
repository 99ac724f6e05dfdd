"""Figures fit for a paper, drawn from the JSON documents cubefab's commands print.

A result - ``cubefab sweep --json``, ``cubefab compare --json``, ``cubefab sim
--trace ... --json`` - holds everything its figure needs, so the figure is drawn from
the document alone: ``sweep --plot`` and ``compare --plot`` draw the document they
print, and ``cubefab plot RESULT.json -o FIG`` draws a saved one again, identically,
without rerunning anything. :func:`result_kind` tells what a document is,
:func:`draw` makes its matplotlib figure and :func:`write` writes it (PDF or SVG as
vector graphics, PNG at 300 dpi; :mod:`cubefab.figures.style`).
"""

import matplotlib.pyplot as plt

from . import compare, sweep, trace
from .style import PAPER_STYLE, save


__all__ = ["KINDS", "NotAResult", "result_kind", "draw", "write"]

#: What a result is, by the keys its document holds, and its figure.
KINDS = {"sweep": sweep.draw, "compare": compare.draw, "trace": trace.draw}


class NotAResult(ValueError):
    """A document that is no sweep, comparison or trace result of cubefab."""


def _is_curve(value):
    return isinstance(value, dict) and isinstance(value.get("points"), list) \
        and isinstance(value.get("bound"), dict)


def result_kind(document):
    """``"sweep"``, ``"compare"`` or ``"trace"``: the command whose ``--json`` output
    ``document`` is; NotAResult for anything else."""
    if isinstance(document, dict):
        curves = document.get("curves")
        if _is_curve(document) or (isinstance(curves, list) and curves
                                   and all(_is_curve(c) for c in curves)):
            return "sweep"
        if isinstance(document.get("rows"), list) and "selection" in document:
            return "compare"
        if isinstance(document.get("trace"), dict) and document.get("command") == "sim":
            return "trace"
    raise NotAResult("not a result of cubefab sweep, compare or sim --trace (their "
                     "--json output)")


def draw(document, caption=True):
    """The matplotlib figure of ``document`` (:func:`result_kind`), with a caption
    line of the run's parameters unless ``caption`` is false."""
    kind = result_kind(document)
    with plt.rc_context(PAPER_STYLE):
        return KINDS[kind](document, caption)


def write(document, path, caption=True):
    """Draw ``document`` and write it to ``path`` (``.pdf``, ``.svg`` or ``.png`` by
    the suffix), whole or not at all; returns ``path``."""
    kind = result_kind(document)
    with plt.rc_context(PAPER_STYLE):
        return save(KINDS[kind](document, caption), path)
