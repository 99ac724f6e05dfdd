"""Pictures of two-plane optical layouts (PNG, SVG or PDF, by the file suffix)."""

import os

import numpy as np
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt                       # noqa: E402
from matplotlib.patches import ConnectionPatch, Rectangle   # noqa: E402

from .layout import EMPTY                              # noqa: E402


__all__ = ["plot_layout", "LABEL_LIMIT"]


#: Planes with more cells than this are drawn without per-node labels.
LABEL_LIMIT = 600

#: (the suffixes of :data:`cubefab.plots.PLOT_SUFFIXES`: optical uses topology only)
_SUFFIXES = (".png", ".svg", ".pdf")


def _default_origin(layout):
    """The Plane_L node nearest the plane centre (the paper takes the origin there)."""
    r, c = np.nonzero(layout.plane_l != EMPTY)
    centre = ((layout.plane_rows - 1) / 2, (layout.plane_cols - 1) / 2)
    i = int(np.argmin((r - centre[0]) ** 2 + (c - centre[1]) ** 2))
    return int(layout.plane_l[r[i], c[i]])


def _colour_index(layout, grid):
    """Per-cell colour class of a plane: DL(2m) position for DLH blocks, top two address
    bits for a hypercube; -1 for empty cells."""
    topo = layout.topology
    if layout.blocks is not None:
        two_m = 2 * topo.m
        klass = np.where(layout.blocks >= 0, layout.blocks % two_m, -1)
        ring = np.where(layout.blocks >= 0, layout.blocks // two_m, 0)
        return klass, ring, two_m
    top = max(0, topo.address_bits - 2)
    klass = np.where(grid != EMPTY, grid >> top, -1)
    return klass, np.zeros_like(klass), 4


def _label(layout, address):
    topo = layout.topology
    if layout.blocks is not None:
        return format(address & ((1 << topo.d) - 1), f"0{topo.d}b")
    return format(address, f"0{topo.address_bits}b")


def plot_layout(layout, path, highlight=None, origin=None, labels=None, title=None):
    """Draw Plane_L and Plane_R of ``layout`` into ``path`` (``.png``, ``.svg`` or ``.pdf``).

    Node squares are coloured by their DL(2m) position (DLH blocks; the outer ring
    darker) or by their two top address bits (hypercube), and labelled with their address
    in binary (hypercube, as in Figure 4) or their cube address (DLH, as in Figure 6, with
    the block's ``(ring, position)`` above it) when the planes are small enough. The
    shift rule is drawn as arrows on the receiving plane from the position of ``origin``:
    solid where the image lands on a neighbour, dotted where it falls on no node.

    Parameters
    ----------
    layout : Layout
    path : str or os.PathLike
        Output file; the suffix ``.png``, ``.svg`` or ``.pdf`` selects the format.
    highlight : int, optional
        A node whose links are drawn: the node and its neighbours outlined, joined by
        lines across the planes.
    origin : int, optional
        The node the shift-rule arrows start from (default ``highlight``, else the Plane_L
        node nearest the centre).
    labels : bool, optional
        Force labels on or off (default: on up to :data:`LABEL_LIMIT` cells per plane).
    title : str, optional

    Returns
    -------
    str
        The path written.

    Raises
    ------
    ValueError
        On an unknown suffix or an address that is not a node.
    """
    path, suffix = _plot_path(path)
    topo = layout.topology
    if highlight is not None:
        highlight = topo.check_node(highlight, "highlight")
    if origin is None:
        origin = highlight if highlight is not None else _default_origin(layout)
    origin = topo.check_node(origin, "origin")
    if labels is None:
        labels = layout.cells <= LABEL_LIMIT
    fig, axes, cell = _figure(layout)
    pos = {}
    for p, (ax, grid, name) in enumerate(zip(axes, (layout.plane_l, layout.plane_r),
                                             ("Plane_L", "Plane_R"))):
        _draw_plane(ax, layout, grid, name, labels, cell)
        r_idx, c_idx = np.nonzero(grid != EMPTY)
        for r, c in zip(r_idx, c_idx):
            pos[int(grid[r, c])] = (p, int(r), int(c))
    _draw_shift_rule(axes, layout, pos, origin, cell)
    if highlight is not None:
        _draw_links(fig, axes, layout, pos, highlight)
    rows, cols = layout.plane_rows, layout.plane_cols
    fig.suptitle(title or f"{layout.label}: {layout.images} images, "
                 f"{rows} x {cols} cells per plane, fill {layout.fill_factor:.3f}",
                 fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=(150 if labels else 110) if suffix == ".png" else None)
    plt.close(fig)
    return path


def _plot_path(path):
    """``(path, suffix)``: ``path`` as a string and its lower-case suffix.

    Raises
    ------
    ValueError
        If the suffix is not one of ``.png``, ``.svg``, ``.pdf``.
    """
    path = os.fspath(path)
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in _SUFFIXES:
        raise ValueError(f"plot file must end in .png, .svg or .pdf, not {path!r}")
    return path, suffix


def _figure(layout):
    """``(fig, axes, cell)``: a figure with an axes per plane, side by side, or one above
    the other for wide planes (Figure 6), and the size of a cell in inches."""
    rows, cols = layout.plane_rows, layout.plane_cols
    stacked = cols > 2 * rows                  # wide planes one above the other (Figure 6)
    cell = min(0.55, 22.0 / (cols if stacked else 2 * cols), 14.0 / (2 * rows if stacked
                                                                      else rows))
    cell = max(cell, 0.02)
    width = cols * cell + 1.0 if stacked else 2 * cols * cell + 1.5
    height = 2 * rows * cell + 2.0 if stacked else rows * cell + 1.6
    fig, axes = plt.subplots(2 if stacked else 1, 1 if stacked else 2,
                             figsize=(width, height), squeeze=True)
    return fig, axes, cell


def _plane_shade(layout, grid):
    """The RGB colour (floats in [0, 1], ``rows x cols x 3``) of each cell of the plane
    ``grid``: its colour class (:func:`_colour_index`) lightened, the outer ring
    darker; blank between DLH blocks, greyed at empty cells of a block."""
    rows, cols = layout.plane_rows, layout.plane_cols
    klass, ring, nclass = _colour_index(layout, grid)
    cmap = plt.get_cmap("tab20" if nclass > 10 else "tab10")
    shade = np.ones((rows, cols, 3))
    filled = klass >= 0
    palette = np.array([cmap(k % cmap.N)[:3] for k in range(nclass)])
    shade[filled] = 0.55 * palette[klass[filled]] + 0.45
    shade[filled & (ring == 1)] *= 0.8
    if layout.blocks is not None:
        gap = layout.blocks < 0
        shade[gap] = 1.0
        hole = (grid == EMPTY) & ~gap
        shade[hole] = 0.5 * shade[hole] + 0.5
    return shade


def _draw_plane(ax, layout, grid, name, labels, cell):
    """Draw the plane ``grid`` (titled ``name``) on ``ax``: its cells shaded
    (:func:`_plane_shade`) and, with ``labels``, the cell grid and labels
    (:func:`_draw_labels`)."""
    rows, cols = layout.plane_rows, layout.plane_cols
    shade = _plane_shade(layout, grid)
    ax.imshow((shade * 255).round().astype(np.uint8), extent=(0, cols, rows, 0),
              interpolation="nearest")
    ax.set_xlim(0, cols)
    ax.set_ylim(rows, 0)
    ax.set_autoscale_on(False)
    ax.set_title(name, fontsize=10, loc="left",
                 pad=16 if labels and layout.blocks is not None else 4)
    ax.set_xticks([])
    ax.set_yticks([])
    if labels:
        _draw_labels(ax, layout, grid, cell)


def _draw_labels(ax, layout, grid, cell):
    """Draw the cell grid of the plane ``grid`` on ``ax``, each node's label
    (:func:`_label`) in its cell, and for DLH blocks each block's ``(ring, position)``
    above it."""
    rows, cols = layout.plane_rows, layout.plane_cols
    for r in range(rows + 1):
        ax.axhline(r, color="0.85", lw=0.4)
    for c in range(cols + 1):
        ax.axvline(c, color="0.85", lw=0.4)
    size = max(4.0, min(9.0, cell * 72 * 0.9 / max(3, len(_label(layout, 0)) * 0.62)))
    for (r, c), a in np.ndenumerate(grid):
        if a != EMPTY:
            ax.text(c + 0.5, r + 0.5, _label(layout, int(a)), ha="center",
                    va="center", fontsize=size, family="monospace")
    if layout.blocks is not None:
        bc = layout.info["block_cols"]
        places = layout.info["block_places"]
        sr, sc = layout.info["row_stride"], layout.info["col_stride"]
        for i in (0, 1):
            for j, (R, C) in enumerate(places[i]):
                ax.text(C * sc + bc / 2, R * sr - 0.08, f"({i}, {j})", ha="center",
                        va="bottom", fontsize=max(4.0, size * 0.9), clip_on=False)


def _draw_shift_rule(axes, layout, pos, origin, cell):
    """Draw the shift rule on the receiving plane from the position of ``origin``
    (``pos``: node -> ``(plane, row, column)``), outlined on both planes: an arrow to
    each image that lands on a node (black: a neighbour; crimson: not one), a dotted
    ray (and a cross inside the plane) to each that lands on no node, a dot for the
    zero shift."""
    rows, cols = layout.plane_rows, layout.plane_cols
    op, orow, ocol = pos[origin]
    src_ax, dst_ax = axes[op], axes[1 - op]
    dst_grid = (layout.plane_l, layout.plane_r)[1 - op]
    neighbours = set(layout.topology.neighbors(origin))
    src_ax.add_patch(Rectangle((ocol, orow), 1, 1, fill=False, ec="black", lw=2.2))
    dst_ax.add_patch(Rectangle((ocol, orow), 1, 1, fill=False, ec="black", lw=1.2, ls="--"))
    lw = max(0.6, min(1.6, cell * 3))
    for dr, dc in layout.shifts:
        r, c = orow + dr, ocol + dc
        inside = 0 <= r < rows and 0 <= c < cols
        hit = inside and dst_grid[r, c] != EMPTY and int(dst_grid[r, c]) in neighbours
        spurious = inside and dst_grid[r, c] != EMPTY and not hit
        colour = "crimson" if spurious else ("black" if hit else "0.55")
        if (dr, dc) == (0, 0):
            dst_ax.plot(ocol + 0.5, orow + 0.5, "o", color=colour, ms=4)
        elif hit or spurious:
            dst_ax.annotate("", xy=(c + 0.5, r + 0.5), xytext=(ocol + 0.5, orow + 0.5),
                            arrowprops=dict(arrowstyle="-|>", color=colour, lw=lw, alpha=0.85,
                                            shrinkA=0, shrinkB=0))
        else:                                  # falls on no node: a dotted, clipped ray
            dst_ax.plot([ocol + 0.5, c + 0.5], [orow + 0.5, r + 0.5], ":", color=colour,
                        lw=lw, clip_on=True)
            if inside:
                dst_ax.plot(c + 0.5, r + 0.5, "x", color=colour, ms=4)


def _draw_links(fig, axes, layout, pos, highlight):
    """Outline ``highlight`` and its neighbours (``pos``: node -> ``(plane, row,
    column)``) and join it to each by a line across the planes."""
    hp, hr, hc = pos[highlight]
    axes[hp].add_patch(Rectangle((hc, hr), 1, 1, fill=False, ec="darkorange", lw=2.5))
    for v in layout.topology.neighbors(highlight):
        vp, vr, vc = pos[v]
        axes[vp].add_patch(Rectangle((vc, vr), 1, 1, fill=False, ec="darkorange", lw=2))
        fig.add_artist(ConnectionPatch((hc + 0.5, hr + 0.5), (vc + 0.5, vr + 0.5),
                                       "data", "data", axesA=axes[hp], axesB=axes[vp],
                                       color="darkorange", lw=0.9, alpha=0.8))
