"""What every figure shares: a paper's proportions, readable log axes, a caption line
with the run's parameters, one legend, and files written whole.

Files are PDF or SVG (vector: text and lines stay text and lines) or PNG at
:data:`PNG_DPI` dots per inch, chosen by the suffix; a file is written through
:func:`cubefab.files.output_path`, so an error or Ctrl-C leaves no partial file and an
existing file that cubefab did not write is refused unless ``--force``.
"""

import math
from pathlib import Path

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt                                  # noqa: E402
from matplotlib.lines import Line2D                              # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # noqa: E402

from .. import files                                             # noqa: E402
from ..plots import PNG_DPI, check_plot_file, save_figure        # noqa: E402


__all__ = ["PNG_DPI", "PAPER_STYLE", "new_figure", "log_axis", "add_caption",
           "add_legend", "proxy", "cumulative", "save"]


#: Matplotlib settings of every figure: serif text of a paper's size, fonts embedded
#: as text (Type 42 in PDF; SVG keeps text as text), thin grid lines.
PAPER_STYLE = {
    "font.family": "serif", "font.size": 8, "axes.titlesize": 9, "axes.labelsize": 8,
    "legend.fontsize": 7, "xtick.labelsize": 7, "ytick.labelsize": 7,
    "pdf.fonttype": 42, "ps.fonttype": 42, "svg.fonttype": "none",
    "axes.grid": True, "grid.alpha": 0.3, "grid.linewidth": 0.5,
    "lines.linewidth": 1.2, "lines.markersize": 3.5, "errorbar.capsize": 2,
}

#: Labelled ticks per decade of a log axis, by the decades it spans: at least three
#: labelled ticks on any range (a range of one decade is labelled 1..9).
_LABELLED = ((0.5, (1, 2, 3, 4, 5, 6, 7, 8, 9)), (1.3, (1, 2, 3, 5)), (3.0, (1, 2, 5)),
             (math.inf, (1,)))


#: The factor a log axis reaches beyond its outermost labelled ticks (so that a mark
#: or a step on such a tick is not cut by the frame).
_LOG_MARGIN = 1.12


def new_figure(columns, rows=1, width=7.0, height=2.6):
    """A figure of ``rows`` x ``columns`` axes, ``width`` x ``height`` inches (7 inches:
    a two-column paper's text width), in :data:`PAPER_STYLE`; returns ``(fig, axes)``,
    the axes row by row."""
    with plt.rc_context(PAPER_STYLE):
        fig, axes = plt.subplots(rows, columns, figsize=(width, height), squeeze=False,
                                 layout="constrained")
    return fig, list(axes.flat)


def _number(value, _position=None):
    """A tick label: a plain number (``20``, ``0.05``, ``1000``), never ``10^1``."""
    return f"{value:g}"


def log_axis(ax, axis, low, high):
    """Make ``ax``'s ``axis`` (``"x"`` or ``"y"``) logarithmic over data from ``low`` to
    ``high`` (both > 0), labelled with plain numbers at enough ticks to read
    (:data:`_LABELLED`), unlabelled minor ticks between."""
    decades = math.log10(high / low) if high > low > 0 else 0.0
    subs = next(s for limit, s in _LABELLED if decades <= limit)
    getattr(ax, f"set_{axis}scale")("log")
    target = ax.xaxis if axis == "x" else ax.yaxis
    target.set_major_locator(LogLocator(base=10, subs=subs, numticks=30))
    target.set_major_formatter(FuncFormatter(_number))
    target.set_minor_locator(LogLocator(base=10, subs=tuple(range(1, 10)), numticks=30))
    target.set_minor_formatter(NullFormatter())
    if high > low > 0:          # the labelled ticks nearest the data, outside it
        below = [10 ** math.floor(math.log10(low)) * s for s in subs]
        above = [10 ** math.floor(math.log10(high)) * s for s in subs + (10,)]
        lo = max([v for v in below if v <= low] or [low])
        hi = min([v for v in above if v >= high] or [high])
        getattr(ax, f"set_{axis}lim")(lo / _LOG_MARGIN, hi * _LOG_MARGIN)
        target.set_major_formatter(FuncFormatter(   # no label in the margins
            lambda v, _: _number(v) if lo / 1.001 <= v <= hi * 1.001 else ""))


def cumulative(histogram):
    """``(latencies, fractions)`` of the steps of the cumulative distribution of an
    exact histogram ``[[latency, packets], ...]`` (drawn ``where="post"``), from 0 at
    the least latency, so that a lone packet's step shows."""
    histogram = sorted(histogram)
    total = sum(c for _, c in histogram)
    xs, ys, seen = [histogram[0][0]], [0.0], 0
    for latency, packets in histogram:
        seen += packets
        xs.append(latency)
        ys.append(seen / total)
    return xs, ys


def proxy(label, **style):
    """A legend entry of a line or mark that no single artist of the figure stands for
    (a colour, a line style, a mark)."""
    style.setdefault("color", "black")
    return Line2D([], [], label=label, **style)


def add_legend(fig, handles, columns=4):
    """One legend for the whole figure, above the panels: every colour, line style
    and mark with its one meaning (the caption line goes below)."""
    return fig.legend(handles=handles, loc="outside upper center", ncol=columns,
                      frameon=False)


def add_caption(fig, text):
    """The run's parameters as one line below everything else."""
    return fig.supxlabel(text, fontsize=6.5, color="0.25", wrap=True)


def save(fig, path):
    """Write ``fig`` to ``path`` (:func:`cubefab.plots.save_figure`, with a paper's
    narrow margin) through :func:`cubefab.files.output_path` (see the module doc) and
    close it."""
    try:
        suffix = check_plot_file(path)
        with files.output_path(path) as tmp:
            save_figure(fig, tmp, pad_inches=0.05, suffix=suffix)
    finally:
        plt.close(fig)
    return Path(path)
