"""The figure of a sweep (``cubefab sweep --json``): latency and accepted throughput
against offered load, and each curve's latency distribution.

One colour and one hollow mark per network (marks of falling size: a curve on top of
another leaves the other's marks visible), one line style per router variant
(algorithm, adaptive, fault count), the dotted style only for the channel-load bounds;
a saturating point is a cross (``X``), a 95 % confidence interval an error bar.
The latency distributions are the cumulative distributions of the exact histograms
(of all seeds' runs) at one offered load, the highest below every curve's saturation
(:func:`cdf_rate`).
"""

from .style import add_caption, add_legend, cumulative, log_axis, new_figure, proxy


__all__ = ["curves_of", "network_of", "variant_of", "cdf_rate", "merged_histogram",
           "caption", "draw"]

#: Line styles of the router variants, in order (never ``:``, the bounds' style).
VARIANT_STYLES = ("-", "--", "-.", (0, (6, 2, 1, 2, 1, 2)), (0, (8, 3)), (0, (2, 1)))

#: The bound lines' style.
BOUND_STYLE = ":"

#: A dot and the gap after it (in line widths) of lines that share a bound.
DOT = (1, 1.65)

#: The ``gid`` of the bound lines (what tells them from the curves).
BOUND_GID = "bound"

#: ``(mark, size)`` of the networks' measured points, in order: hollow, sizes falling,
#: so that a network whose curve lies on another's shows around it.
NETWORK_MARKS = (("o", 5.5), ("s", 4.5), ("^", 4.5), ("D", 3.5), ("v", 3.5), ("P", 3.0))


def curves_of(document):
    """The curves of a sweep document: its ``curves``, or the document itself (a sweep
    of one curve)."""
    return document["curves"] if "curves" in document else [document]


def network_of(curve):
    """The curve's network, as the sweep named it (``hypercube:n=6``), else its
    topology's label (results of older versions)."""
    return curve.get("network") or curve["topology"]


def variant_of(curve):
    """The curve's router variant in words: as the sweep named it (``variant``: the
    same on every network), else its algorithm and ``adaptive``; and its fault
    count."""
    words = curve.get("variant") or curve["algorithm"] + (
        " adaptive" if curve.get("adaptive_vcs") else "")
    if "faults" in curve:
        words += f", {curve['faults']} fault{'s' * (curve['faults'] != 1)}"
    return words


def merged_histogram(point):
    """The exact latency histogram ``[[latency, packets], ...]`` of a point: its own
    (one seed) or the sum of its runs' (several)."""
    runs = point.get("runs") or [point]
    counts = {}
    for run in runs:
        for latency, packets in run.get("latency_histogram") or []:
            counts[latency] = counts.get(latency, 0) + packets
    return sorted([latency, packets] for latency, packets in counts.items())


def cdf_rate(curves):
    """The offered load whose latency distributions the figure shows: the highest
    load below every curve's saturation (all loads of a curve that does not saturate)
    at which every curve delivered packets; else the lowest load of the sweep."""
    rates = sorted({p["rate"] for c in curves for p in c["points"]})

    def calm(curve, rate):
        limit = curve.get("saturation_rate")
        return (limit is None or rate < limit) and any(
            p["rate"] == rate and merged_histogram(p) for p in curve["points"])
    below = [r for r in rates if all(calm(c, r) for c in curves)]
    return below[-1] if below else rates[0]


def _common(curves, value):
    """The values ``value(curve)`` takes, in order of appearance, joined by ``/``."""
    return "/".join(dict.fromkeys(str(value(c)) for c in curves))


def _packet_flits(curve):
    if "packet_flits" in curve:
        return curve["packet_flits"]
    first = curve["points"][0]
    return (first.get("runs") or [first])[0].get("packet_flits", "?")


def caption(curves):
    """The run's parameters in one line: traffic, routers, packets, cycles, seeds and
    engine (values that differ between curves joined by ``/``)."""
    router = [c.get("router") or {} for c in curves]
    pairs = list(zip(curves, router))
    return (f"{_common(curves, lambda c: c['traffic'])} traffic; routers: "
            f"{_common(pairs, lambda p: p[1].get('vcs', '?'))} VCs "
            f"({_common(pairs, lambda p: p[1].get('vcs_per_class', '?'))} per class), "
            f"{_common(pairs, lambda p: p[1].get('depth', '?'))}-flit buffers, "
            f"{_common(pairs, lambda p: p[1].get('payload_width', '?'))}-bit payloads; "
            f"{_common(curves, _packet_flits)}-flit packets; "
            f"{_common(curves, lambda c: c['cycles'])} cycles after "
            f"{_common(curves, lambda c: c['warmup'])} warm-up, "
            f"{_common(curves, lambda c: len(c['seeds']))} seed(s) per point "
            f"(base seed {_common(curves, lambda c: c['seed'])}); "
            f"{_common(curves, lambda c: c['engine'])} engine")


def _error_bars(points, key):
    """Matplotlib ``yerr`` of ``points``' 95 % intervals of ``key`` (None without)."""
    if not all(p.get(key + "_ci95") for p in points):
        return None
    return [[p[key] - p[key + "_ci95"][0] for p in points],
            [p[key + "_ci95"][1] - p[key] for p in points]]


def _series(ax, curve, key, style):
    """Draw ``curve``'s ``key`` against offered load, its saturating point crossed;
    returns the values drawn (interval ends included)."""
    points = [p for p in curve["points"] if p[key] is not None]
    if not points:
        return []
    ax.errorbar([p["offered"] for p in points], [p[key] for p in points],
                yerr=_error_bars(points, key), markerfacecolor="white", **style)
    saturating = [p for p in points if p["rate"] == curve.get("saturation_rate")]
    ax.plot([p["offered"] for p in saturating], [p[key] for p in saturating],
            linestyle="none", marker="X", markersize=7, markeredgecolor="black",
            markeredgewidth=0.6, color=style["color"], zorder=5)
    return [v for p in points for v in [p[key], *(p.get(key + "_ci95") or [])]]


def _bounds(ax_lat, ax_thr, curves, colours):
    """One dotted line per distinct channel-load bound: horizontal (throughput) and
    vertical (latency), its value beside it. The line of a bound that one network has
    is in its colour; where several networks share a bound, their dots interleave along
    one line, each network's in its colour (none hides another), and the value is
    written in black."""
    sharing = {}
    for curve in curves:
        networks = sharing.setdefault(curve["bound"]["saturation_bound"], [])
        if network_of(curve) not in networks:
            networks.append(network_of(curve))
    for bound, networks in sharing.items():
        for i, network in enumerate(networks):
            style = _interleaved_dots(i, len(networks))
            ax_thr.axhline(bound, color=colours[network], linestyle=style, linewidth=1,
                           gid=BOUND_GID)
            ax_lat.axvline(bound, color=colours[network], linestyle=style, linewidth=1,
                           gid=BOUND_GID)
        colour = colours[networks[0]] if len(networks) == 1 else "black"
        ax_thr.annotate(f"{bound:.3g}", (1.0, bound), xycoords=("axes fraction", "data"),
                        xytext=(2, 0), textcoords="offset points", va="center",
                        fontsize=6, color=colour, annotation_clip=False)


def _interleaved_dots(i, count):
    """The dotted line style of the ``i``-th of ``count`` networks that share a bound:
    :data:`BOUND_STYLE` for one, else dots spaced for ``count`` and shifted by ``i``
    so that each network's dots fall between the others'."""
    if count == 1:
        return BOUND_STYLE
    on, off = DOT
    period = count * (on + off)
    return (i * (on + off), (on, period - on))


def _cdf(ax, curve, rate, style):
    """The latency CDF of ``curve`` at offered load ``rate``; returns its latency
    range (empty when no packet arrived)."""
    histogram = [h for p in curve["points"] if p["rate"] == rate
                 for h in merged_histogram(p)]
    if not histogram:
        return []
    xs, ys = cumulative(histogram)
    ax.step(xs, ys, where="post", **style)
    return [xs[0], xs[-1]]


def _panels(axes, curves, looks, styles):
    """Draw every curve on the three panels; returns the latencies drawn, the load
    of the CDFs and their latency range."""
    ax_lat, ax_thr, ax_cdf = axes
    rate = cdf_rate(curves)
    latencies, span = [], []
    for curve in curves:
        colour, mark, size = looks[network_of(curve)]
        style = dict(color=colour, linestyle=styles[variant_of(curve)])
        marked = dict(style, marker=mark, markersize=size)
        latencies += _series(ax_lat, curve, "avg_latency", marked)
        _series(ax_thr, curve, "throughput", marked)
        span += _cdf(ax_cdf, curve, rate, style)
    _bounds(ax_lat, ax_thr, curves, {n: look[0] for n, look in looks.items()})
    top = max(p["offered"] for c in curves for p in c["points"])
    ax_thr.plot([0, top], [0, top], color="0.6", linewidth=0.8, zorder=0)
    return latencies, rate, span


def _axes(axes, latencies, rate, span):
    """Labels and scales of the three panels."""
    ax_lat, ax_thr, ax_cdf = axes
    offered = "offered load (flits/node/cycle)"
    ax_lat.set(xlabel=offered, ylabel="average latency (cycles)", title="latency")
    ax_thr.set(xlabel=offered, ylabel="accepted (flits/node/cycle)",
               title="throughput")
    ax_cdf.set(xlabel="packet latency (cycles)", ylabel="fraction of packets",
               title=f"latency distribution at load {rate:g}", ylim=(0, 1.02))
    if latencies and min(latencies) > 0:
        log_axis(ax_lat, "y", min(latencies), max(latencies))
    else:       # no packet arrived at any load (a run too short): nothing to scale
        ax_lat.set_title("latency (no packet delivered)")
    if span and min(span) > 0:
        log_axis(ax_cdf, "x", min(span), max(span))


def _legend_entries(curves, looks, styles):
    """Every colour and mark (network: its measured points, the mean over seeds),
    line style (variant) and other mark, with its meaning."""
    entries = [proxy(network, color=colour, marker=mark, markersize=size,
                     markerfacecolor="white") for network, (colour, mark, size) in
               looks.items()]
    entries += [proxy(variant, linestyle=style) for variant, style in styles.items()]
    if any(p.get("avg_latency_ci95") or p.get("throughput_ci95")
           for c in curves for p in c["points"]):
        entries.append(proxy("95% confidence interval", marker="|", markersize=8,
                             linestyle="none"))
    if any(c.get("saturated") for c in curves):
        entries.append(proxy("saturation (first load below 0.95 x offered, or 3 x "
                             "zero-load latency)", marker="X", markersize=7,
                             linestyle="none", markerfacecolor="white"))
    entries.append(proxy("channel-load bound (value at right)", linestyle=BOUND_STYLE))
    entries.append(proxy("accepted = offered", color="0.6", linewidth=0.8))
    return entries


def draw(document, caption_line=True):
    """The figure of a sweep ``document``; with ``caption_line`` the run's parameters
    below it (:func:`caption`). Returns the matplotlib figure."""
    curves = curves_of(document)
    networks = list(dict.fromkeys(network_of(c) for c in curves))
    variants = list(dict.fromkeys(variant_of(c) for c in curves))
    looks = {n: (f"C{i % 10}", *NETWORK_MARKS[i % len(NETWORK_MARKS)])
             for i, n in enumerate(networks)}
    styles = {v: VARIANT_STYLES[i % len(VARIANT_STYLES)] for i, v in enumerate(variants)}
    fig, axes = new_figure(3, width=7.2, height=2.7)
    _axes(axes, *_panels(axes, curves, looks, styles))
    add_legend(fig, _legend_entries(curves, looks, styles))
    if caption_line:
        add_caption(fig, caption(curves))
    return fig
