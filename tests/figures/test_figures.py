"""cubefab.figures: each result's figure from saved JSON documents (tests/figures/data,
written by ``cubefab sweep``, ``compare`` and ``sim --trace`` with ``--json``): file
types and resolution, legends, captions, log ticks, the CDFs against the exact
histograms, the comparison's bound and marks."""

import json
import pathlib

import matplotlib.pyplot as plt
import pytest
from PIL import Image

from cubefab import figures
from cubefab.figures import compare, style, sweep

DATA = pathlib.Path(__file__).parent / "data"

#: A saved result of each kind: ``cubefab sweep hypercube:n=1 dualcube:m=1 --rates
#: 0.2,1.0 --algorithm default --adaptive``, ``cubefab sweep hypercube -n 1 --seeds 2``,
#: ``cubefab compare --nodes 64 --plot ... --plot-max-nodes 4096``, ``cubefab sim
#: hypercube -n 6 --trace example.tra.bz2 --trace-packets 120`` (all ``--json``).
RESULTS = {"sweep_two_networks": "sweep", "sweep_seeds": "sweep",
           "compare_nodes64": "compare", "trace_q6": "trace"}


def load(name):
    return json.loads((DATA / f"{name}.json").read_text())


@pytest.fixture
def drawn():
    """``drawn(name, caption=True)``: the figure of a saved result, closed after the
    test."""
    made = []

    def draw(name, caption=True):
        made.append(figures.draw(load(name), caption))
        return made[-1]
    yield draw
    for fig in made:
        plt.close(fig)


def legend_texts(fig):
    (legend,) = fig.legends
    return [t.get_text() for t in legend.get_texts()]


def caption_text(fig):
    return fig._supxlabel.get_text() if fig._supxlabel else ""


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_result_kind(name):
    assert figures.result_kind(load(name)) == RESULTS[name]


@pytest.mark.parametrize("document", [{}, [], {"rows": []}, {"curves": []},
                                      {"trace": {}, "command": "sweep"}, "text"])
def test_other_documents_are_no_result(document):
    with pytest.raises(figures.NotAResult, match="not a result of cubefab"):
        figures.result_kind(document)


def test_png_is_written_at_300_dpi(tmp_path):
    path = tmp_path / "fig.png"
    figures.write(load("trace_q6"), path)
    with Image.open(path) as image:
        assert image.format == "PNG"
        assert [round(v) for v in image.info["dpi"]] == [style.PNG_DPI, style.PNG_DPI]


@pytest.mark.parametrize("suffix, magic", [(".pdf", b"%PDF"), (".svg", b"<?xml")])
def test_pdf_and_svg_are_vector_graphics(tmp_path, suffix, magic):
    """No raster image inside: lines and text stay lines and text."""
    path = tmp_path / f"fig{suffix}"
    figures.write(load("sweep_two_networks"), path)
    data = path.read_bytes()
    assert data.startswith(magic)
    assert b"/Subtype /Image" not in data and b"<image" not in data


def test_a_bad_suffix_writes_nothing(tmp_path):
    with pytest.raises(ValueError, match="must end in .png, .svg or .pdf"):
        figures.write(load("trace_q6"), tmp_path / "fig.jpg")
    assert list(tmp_path.iterdir()) == []


# -- sweeps ------------------------------------------------------------------------------

def test_sweep_legend_names_every_colour_style_and_mark(drawn):
    assert legend_texts(drawn("sweep_two_networks")) == [
        "hypercube:n=1", "dualcube:m=1", "default routing", "adaptive",
        "saturation (first load below 0.95 x offered, or 3 x zero-load latency)",
        "channel-load bound (value at right)", "accepted = offered"]


def test_seeds_add_the_interval_to_the_legend(drawn):
    assert "95% confidence interval" in legend_texts(drawn("sweep_seeds"))


def test_each_line_style_has_one_meaning(drawn):
    """Dotted lines are the channel-load bounds only (one per network and bound, in
    each panel of offered load); the variants' styles differ from it and each other."""
    fig = drawn("sweep_two_networks")
    lines = [line for ax in fig.axes[:2] for line in ax.get_lines()]
    dotted = [line for line in lines if line.get_linestyle() == ":"]
    bounds = {(c["network"], c["bound"]["saturation_bound"])
              for c in load("sweep_two_networks")["curves"]}
    assert len(dotted) == 2 * len(bounds)
    assert dotted == [line for line in lines if line.get_gid() == sweep.BOUND_GID]
    assert len(set(sweep.VARIANT_STYLES) | {sweep.BOUND_STYLE}) == \
        len(sweep.VARIANT_STYLES) + 1


def test_networks_with_equal_bounds_interleave_their_dots(tmp_path):
    """Two networks with one bound: a line of each colour, the dots of one between the
    other's, so that neither hides the other."""
    document = load("sweep_two_networks")
    for curve in document["curves"]:
        curve["bound"]["saturation_bound"] = 0.5
    fig = figures.draw(document, True)
    try:
        bounds = [line for line in fig.axes[1].get_lines()
                  if line.get_gid() == sweep.BOUND_GID]
        assert len({line.get_color() for line in bounds}) == 2
        offsets = [line._unscaled_dash_pattern[0] for line in bounds]
        assert len(set(offsets)) == 2
    finally:
        plt.close(fig)


def test_sweep_caption_states_the_run(drawn):
    text = caption_text(drawn("sweep_two_networks"))
    for words in ("uniform traffic", "4-flit buffers", "2-flit packets",
                  "40 cycles after 10 warm-up", "1 seed(s) per point", "amaranth engine",
                  "VCs"):
        assert words in text, words


def test_no_caption(drawn):
    assert caption_text(drawn("sweep_two_networks", caption=False)) == ""


def test_latency_axis_labels_several_ticks(drawn):
    fig = drawn("sweep_seeds")
    fig.canvas.draw()
    low, high = fig.axes[0].get_ylim()
    labelled = [t for t in fig.axes[0].yaxis.get_major_ticks()
                if low <= t.get_loc() <= high and t.label1.get_text()]
    assert fig.axes[0].get_yscale() == "log" and len(labelled) >= 3


@pytest.mark.parametrize("low, high", [(6, 11), (12, 90), (3, 900), (2, 40000)])
def test_log_axis_labels_at_least_three_ticks(low, high):
    fig, (ax,) = style.new_figure(1)
    ax.plot([1, 2], [low, high])
    style.log_axis(ax, "y", low, high)
    fig.canvas.draw()
    bottom, top = ax.get_ylim()
    labels = [t.label1.get_text() for t in ax.yaxis.get_major_ticks()
              if bottom <= t.get_loc() <= top]
    plt.close(fig)
    assert len([text for text in labels if text]) >= 3, labels
    assert not any("10^" in text or "$" in text for text in labels), labels


def test_the_cdf_is_the_exact_histogram(drawn):
    """Each CDF steps through its curve's histogram at the load the figure names,
    from 0 to 1."""
    document = load("sweep_two_networks")
    curves = sweep.curves_of(document)
    rate = sweep.cdf_rate(curves)
    fig = drawn("sweep_two_networks")
    assert f"at load {rate:g}" in fig.axes[2].get_title()
    for curve, line in zip(curves, fig.axes[2].get_lines()):
        (point,) = [p for p in curve["points"] if p["rate"] == rate]
        xs, ys = line.get_data()
        assert list(xs) == [point["latency_histogram"][0][0]] + \
            [latency for latency, _ in point["latency_histogram"]]
        assert ys[0] == 0 and ys[-1] == 1


def test_the_cdf_of_several_seeds_sums_their_runs():
    (point,) = load("sweep_seeds")["points"]
    totals = sum(c for run in point["runs"] for _, c in run["latency_histogram"])
    merged = sweep.merged_histogram(point)
    assert sum(c for _, c in merged) == totals and merged == sorted(merged)


def test_the_cdf_load_is_below_every_saturation():
    curves = sweep.curves_of(load("sweep_two_networks"))
    rate = sweep.cdf_rate(curves)
    assert all(c["saturation_rate"] is None or rate < c["saturation_rate"]
               for c in curves)


# -- comparisons ---------------------------------------------------------------------------

def test_compare_bound_is_capped_at_the_injection_limit(drawn):
    fig = drawn("compare_nodes64")
    bound_panel = fig.axes[3]
    values = [y for line in bound_panel.get_lines() for y in line.get_ydata()]
    assert max(values) == compare.INJECTION_LIMIT
    assert any(r["channel_load"]["network_bound"] > 1
               for rows in load("compare_nodes64")["plot"]["points"].values() for r in rows)
    assert "injection limit, 1 flit/node/cycle" in legend_texts(fig)


def test_compare_series_differ_in_mark_and_dashes(drawn):
    """Series that lie on one another stay visible: each has its own mark, size and
    dash pattern, and its marks are hollow."""
    fig = drawn("compare_nodes64")
    series = [line for line in fig.axes[0].get_lines() if line.get_markersize() < 11]
    drawn_series = [n for n, rows in load("compare_nodes64")["plot"]["points"].items()
                    if rows]
    assert len({(line.get_marker(), line.get_markersize(), str(line.get_linestyle()))
                for line in series}) == len(series) == len(drawn_series)
    assert all(line.get_markerfacecolor() == "none" for line in series)
    assert [t for t in legend_texts(fig) if t in drawn_series] == drawn_series


def test_compare_marks_the_rows_far_from_the_size_asked(drawn):
    document = load("compare_nodes64")
    far = [r["label"] for r in document["rows"] if compare.far_from_asked(document, r)]
    assert far == ["MC(3,1)", "MC(4,1)"]
    (entry,) = [t for t in legend_texts(drawn("compare_nodes64")) if "2x" in t]
    assert entry == "compared, over 2x from 64 nodes (its series' nearest): MC(3,1), MC(4,1)"


def test_compare_without_series_draws_the_rows(drawn):
    document = dict(load("compare_nodes64"), plot=None)
    fig = figures.draw(document)
    try:
        assert "the compared networks only" in caption_text(fig)
        assert len(legend_texts(fig)) == len({r["series"] for r in document["rows"]}) + 3
    finally:
        plt.close(fig)


# -- traces --------------------------------------------------------------------------------

def test_trace_has_a_cdf_per_packet_type_and_all(drawn):
    document = load("trace_q6")
    fig = drawn("trace_q6")
    types = document["trace"]["latency"]
    assert legend_texts(fig) == [f"{name} ({s['count']:,})" for name, s in types.items()] \
        + [f"all packets ({document['trace']['packets']:,})"]
    lines = fig.axes[0].get_lines()
    assert len(lines) == len(types) + 1
    assert lines[-1].get_ydata()[-1] == 1 and lines[-1].get_ydata()[0] == 0


def test_trace_caption_states_the_run(drawn):
    text = caption_text(drawn("trace_q6"))
    assert "Q(6), ecube routing" in text and "example.tra.bz2" in text
    assert "dependencies kept" in text


def test_trace_without_histograms_is_refused():
    document = load("trace_q6")
    for stats in document["trace"]["latency"].values():
        del stats["histogram"]
    with pytest.raises(ValueError, match="no latency histograms"):
        figures.draw(document)
