"""The figure of a comparison (``cubefab compare --json``): diameter, cost, bisection
per node and uniform-traffic throughput bound against node count.

Each series (a family, or a metacube of one class dimension) has its colour, mark and
dash pattern together; marks are hollow and of decreasing size, so a series that lies
on another shows around it. The throughput bound is capped at a node's injection
limit, 1 flit/node/cycle (the dotted line). The compared networks are circled; a
network whose node count differs from the count asked for (``--nodes N``) by more
than a factor two - the nearest instance of a series that has none near N - is boxed
instead.
"""

import math

from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

from .style import add_caption, add_legend, log_axis, new_figure, proxy


__all__ = ["PANELS", "INJECTION_LIMIT", "series_points", "far_from_asked", "caption",
           "draw"]

#: A node's injection channel: no network accepts more (flits/node/cycle).
INJECTION_LIMIT = 1.0


def _bound(row):
    """The throughput bound of a row, capped at the injection limit (None for a
    bound valid for any routing, not this routing's)."""
    load = row["channel_load"]
    if load["method"] == "any routing":
        return None
    return min(INJECTION_LIMIT, load["network_bound"])


#: ``(key, y label, value(row))`` of the four panels.
PANELS = (
    ("diameter", "diameter", lambda r: r["diameter"]),
    ("cost", "cost (degree x diameter)", lambda r: r["cost"]),
    ("bisection_per_node", "bisection width / nodes", lambda r: r["bisection_per_node"]),
    ("bound", "uniform-traffic throughput bound\n(flits/node/cycle)", _bound),
)

#: ``(mark, size, dash pattern)`` of the series, in order: sizes fall so that a series
#: drawn over another leaves the other's mark visible around its own.
_SERIES_STYLES = (("o", 7.0, "-"), ("s", 6.0, "--"), ("^", 5.5, "-."),
                  ("D", 4.5, (0, (6, 2))), ("v", 4.0, (0, (3, 1, 1, 1))),
                  ("P", 3.5, (0, (8, 2, 2, 2))), ("*", 3.0, (0, (1.5, 1))))
_INJECTION_STYLE = (0, (1, 2))


def series_points(document):
    """``{series name: [row, ...]}`` the comparison's plot holds (``plot.points``), or
    an empty dict when it was made without ``--plot`` (the rows alone are drawn)."""
    plot = document.get("plot") or {}
    return plot.get("points") or {}


def far_from_asked(document, row):
    """Whether ``row`` lies more than a factor two from the node count asked for."""
    selection = document.get("selection") or {}
    asked = selection.get("nodes")
    return bool(asked) and max(row["nodes"], asked) > 2 * min(row["nodes"], asked)


def caption(document):
    """What the figure shows and how each figure was computed, in one line."""
    selection = document.get("selection") or {}
    chosen = (f"networks nearest {selection['nodes']:,} nodes (per series, by ratio)"
              if selection.get("by") == "nodes" else "networks as named")
    plot = document.get("plot") or {}
    reach = (f"series up to {plot['max_nodes']:,} nodes" if series_points(document)
             else "no series (compare without --plot): the compared networks only")
    return (f"{chosen}; {reach}; uniform traffic under each family's default routing; "
            f"bound = min(1, 1 / max channel load), a node's injection caps it at "
            f"{INJECTION_LIMIT:g} flit/node/cycle")


def _power_axis(ax, low, high):
    """The node-count axis: log base 2, labelled 2^k at up to eight powers."""
    ax.set_xscale("log", base=2)
    first, last = math.floor(math.log2(low)), math.ceil(math.log2(high))
    step = max(1, math.ceil((last - first) / 8))
    ax.xaxis.set_major_locator(FixedLocator([2.0 ** k for k in range(first, last + 1,
                                                                      step)]))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"$2^{{{round(math.log2(v))}}}$"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlim(2.0 ** first / 1.6, 2.0 ** last * 1.6)


def _series(ax, points, value, colours, styles):
    """Draw every series' ``value`` on ``ax``; returns the values drawn."""
    drawn = []
    for name, rows in points.items():
        xy = [(r["nodes"], value(r)) for r in rows if value(r) is not None]
        if not xy:
            continue
        marker, size, dashes = styles[name]
        xs, ys = zip(*xy)
        ax.plot(xs, ys, marker=marker, markersize=size, markerfacecolor="none",
                markeredgewidth=0.8, linestyle=dashes, linewidth=0.9,
                color=colours[name])
        drawn += ys
    return drawn


def _marked(ax, document, value):
    """Circle the compared networks (box those far from the size asked); returns the
    values drawn."""
    drawn = []
    for row in document["rows"]:
        v = value(row)
        if v is None:
            continue
        far = far_from_asked(document, row)
        ax.plot([row["nodes"]], [v], linestyle="none", marker="s" if far else "o",
                markersize=11, markerfacecolor="none", markeredgewidth=1.1,
                color="red" if far else "black", zorder=6)
        drawn.append(v)
    return drawn


def _panel(ax, document, points, panel, colours, styles):
    key, label, value = panel
    values = _series(ax, points, value, colours, styles)
    values += _marked(ax, document, value)
    if key == "bound":
        ax.axhline(INJECTION_LIMIT, color="black", linestyle=_INJECTION_STYLE,
                   linewidth=0.9)
        values.append(INJECTION_LIMIT)
    values = [v for v in values if v and v > 0]
    if values:
        log_axis(ax, "y", min(values), max(values))
    ax.set(xlabel="nodes", ylabel=label)


def _legend(document, colours, styles):
    """Every series drawn (colour, mark, dashes together; a series without an
    instance in the plot's range has none), the marks of the compared networks and
    the injection limit."""
    drawn = [name for name, rows in _points(document).items() if rows]
    entries = [proxy(name, color=colours[name], marker=styles[name][0],
                     markersize=styles[name][1], markerfacecolor="none",
                     linestyle=styles[name][2]) for name in drawn]
    entries.append(proxy("compared network", marker="o", markersize=9,
                         markerfacecolor="none", linestyle="none"))
    far = [r["label"] for r in document["rows"] if far_from_asked(document, r)]
    if far:
        asked = document["selection"]["nodes"]
        entries.append(proxy(f"compared, over 2x from {asked:,} nodes (its series' nearest): "
                             + ", ".join(far), marker="s", markersize=9, color="red",
                             markerfacecolor="none", linestyle="none"))
    entries.append(proxy(f"injection limit, {INJECTION_LIMIT:g} flit/node/cycle",
                         linestyle=_INJECTION_STYLE))
    return entries


def _points(document):
    """``{series name: rows}`` drawn: the plot's series, else the compared rows by
    their series (or family)."""
    points = series_points(document)
    if points:
        return points
    out = {}
    for row in document["rows"]:
        out.setdefault(row.get("series") or row["family"], []).append(row)
    return out


def draw(document, caption_line=True):
    """The figure of a comparison ``document``; with ``caption_line`` what it shows
    (:func:`caption`) below it. Returns the matplotlib figure."""
    points = _points(document)
    colours = {n: f"C{i % 10}" for i, n in enumerate(points)}
    styles = {n: _SERIES_STYLES[i % len(_SERIES_STYLES)] for i, n in enumerate(points)}
    fig, axes = new_figure(2, rows=2, width=7.0, height=5.4)
    nodes = [r["nodes"] for rows in points.values() for r in rows]
    nodes += [r["nodes"] for r in document["rows"]]
    for ax, panel in zip(axes, PANELS):
        _panel(ax, document, points, panel, colours, styles)
        _power_axis(ax, min(nodes), max(nodes))
    add_legend(fig, _legend(document, colours, styles), columns=4)
    if caption_line:
        add_caption(fig, caption(document))
    return fig
