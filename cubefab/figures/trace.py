"""The figure of a trace-driven run (``cubefab sim --trace --json``): the latency
distribution of each packet type, and of all packets, from the run's exact
histograms.

A packet's latency runs from its trace cycle (the earliest it could be injected) to
its delivery, dependencies and queueing included. One colour and line style per
packet type; all packets together in a thick black line.
"""

from .style import add_caption, add_legend, cumulative, log_axis, new_figure, proxy


__all__ = ["histograms", "caption", "draw"]

#: Line styles of the packet types, cycled with the ten colours.
_TYPE_STYLES = ("-", "--", "-.")


def histograms(document):
    """``{type name: [[latency, packets], ...]}`` of a trace result (ValueError when
    it holds statistics without histograms: a result of an older cubefab)."""
    latency = document["trace"]["latency"]
    missing = [name for name, stats in latency.items() if "histogram" not in stats]
    if missing:
        raise ValueError("the trace result holds no latency histograms (written by an "
                         "older cubefab): rerun cubefab sim --trace ... --json")
    return {name: stats["histogram"] for name, stats in latency.items()}


def caption(document):
    """The network, router, engine and trace of the run, and its cycles against the
    trace's, in one line."""
    trace, router = document["trace"], document.get("router") or {}
    where = "whole trace" if trace["region"] is None else f"region {trace['region']}"
    ratio = f" (x{trace['ratio']:.3f})" if trace.get("ratio") else ""
    return (f"{document['topology']}, {router.get('algorithm', '?')} routing, "
            f"{router.get('vcs', '?')} VCs, {router.get('depth', '?')}-flit buffers, "
            f"{router.get('payload_width', '?')}-bit payloads, {document['engine']} engine; "
            f"trace {trace['benchmark']} ({document.get('trace_file', '?')}, {where}), "
            f"{trace['packets']:,} packets, dependencies "
            f"{'kept' if trace['dependencies'] else 'ignored'}; {trace['cycles']:,} cycles "
            f"against the trace's {trace['trace_cycles']:,}{ratio}")


def draw(document, caption_line=True):
    """The figure of a trace ``document``; with ``caption_line`` the run's parameters
    below it (:func:`caption`). Returns the matplotlib figure."""
    by_type = histograms(document)
    fig, (ax,) = new_figure(1, width=4.5, height=3.2)
    entries, merged = [], {}
    for i, (name, histogram) in enumerate(by_type.items()):
        style = dict(color=f"C{i % 10}", linestyle=_TYPE_STYLES[i // 10 % len(_TYPE_STYLES)])
        ax.step(*cumulative(histogram), where="post", **style)
        packets = sum(c for _, c in histogram)
        entries.append(proxy(f"{name} ({packets:,})", **style))
        for latency, count in histogram:
            merged[latency] = merged.get(latency, 0) + count
    if merged:
        xs, ys = cumulative(list(merged.items()))
        ax.step(xs, ys, where="post", color="black", linewidth=2.0)
        entries.append(proxy(f"all packets ({sum(merged.values()):,})", linewidth=2.0))
        if xs[0] > 0:
            log_axis(ax, "x", xs[0], xs[-1])
    ax.set(xlabel="latency from trace cycle to delivery (cycles)",
           ylabel="fraction of packets", ylim=(0, 1.02),
           title="latency distribution (CDF) by packet type")
    add_legend(fig, entries, columns=3)
    if caption_line:
        add_caption(fig, caption(document))
    return fig
