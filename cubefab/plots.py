"""Network drawings with matplotlib (headless): the links of a topology, paths drawn
over it, and broadcast trees coloured by step.

Layouts (:func:`node_positions`) follow each network's structure: the metacube as a
grid of classes, each a grid of clusters; the DLH as the two rings of DL(2m) with a
small hypercube at every ring position; the hypercube as a Gray-code grid; anything
else on a circle. Files are PNG, SVG or PDF, chosen by the suffix. Networks up to
:data:`MAX_PLOT_NODES` nodes.
"""

import math
from pathlib import Path

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt                     # noqa: E402
from matplotlib.collections import LineCollection   # noqa: E402
import numpy as np                                  # noqa: E402

from .topology.dlh import DLH                      # noqa: E402
from .topology.hypercube import Hypercube          # noqa: E402
from .topology.metacube import Metacube            # noqa: E402


__all__ = ["MAX_PLOT_NODES", "PLOT_SUFFIXES", "check_plot_file", "node_positions", "draw_network", "plot_paths",
           "plot_broadcast", "save_figure", "PNG_DPI"]

#: The largest network these drawings accept.
MAX_PLOT_NODES = 1024

#: The files a plot is written as, by suffix (every ``--plot`` takes them all).
PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def _check_size(topology):
    if topology.num_nodes > MAX_PLOT_NODES:
        raise ValueError(f"{topology.label} has {topology.num_nodes} nodes; plots are "
                         f"drawn for networks up to {MAX_PLOT_NODES} nodes")


def check_plot_file(filename):
    """Return the suffix of ``filename`` (one of :data:`PLOT_SUFFIXES`), or raise
    ValueError."""
    suffix = Path(filename).suffix.lower()
    if suffix not in PLOT_SUFFIXES:
        raise ValueError(f"plot file must end in {', '.join(PLOT_SUFFIXES[:-1])} or "
                         f"{PLOT_SUFFIXES[-1]}, not {str(filename)!r}")
    return suffix


def _gray_rank(g):
    """Position of the Gray code word ``g`` in the reflected Gray sequence."""
    r = 0
    while g:
        r ^= g
        g >>= 1
    return r


def _split_bits(value, bits):
    """``value``'s even-indexed and odd-indexed bits, each compressed, Gray-ranked."""
    x = y = 0
    for b in range(bits):
        bit = value >> b & 1
        if b % 2 == 0:
            x |= bit << (b // 2)
        else:
            y |= bit << (b // 2)
    return _gray_rank(x), _gray_rank(y)


def _grid(bits):
    """Width and height of the grid :func:`_split_bits` fills."""
    return 1 << ((bits + 1) // 2), 1 << (bits // 2)


def node_positions(topology):
    """dict address -> (x, y) for drawing ``topology``."""
    _check_size(topology)
    nodes = [int(a) for a in topology.nodes()]
    if isinstance(topology, Metacube) and topology.k > 0:
        k, m, h = topology.k, topology.m, topology.h
        cluster_bits = m * (h - 1)
        cw, ch = _grid(cluster_bits)
        nw, nh = _grid(m)
        cell = max(nw, nh) + 1.0
        cx, cy = _grid(k)
        block_w, block_h = cw * cell + 2, ch * cell + 2
        pos = {}
        for u in nodes:
            c = topology.class_of(u)
            node_id = topology.field(u, c)
            cluster = 0
            shift = 0
            for i in range(h):
                if i != c:
                    cluster |= topology.field(u, i) << shift
                    shift += m
            bx, by = _split_bits(c, k)
            gx, gy = _split_bits(cluster, cluster_bits)
            ox, oy = _split_bits(node_id, m)
            pos[u] = (bx * block_w + gx * cell + ox * 0.8,
                      -(by * block_h + gy * cell + oy * 0.8))
        return pos
    if isinstance(topology, DLH):
        m, d = topology.m, topology.d
        pos = {}
        for u in nodes:
            ring, p, cube = topology.split(u)
            angle = 2 * math.pi * p / (2 * m)
            radius = (2.0 + ring * 1.6) * max(1.0, 2 * m / 6)
            sub = 2 * math.pi * cube / (1 << d)
            r_cube = 0.35 if d else 0.0
            pos[u] = (radius * math.cos(angle) + r_cube * math.cos(sub),
                      radius * math.sin(angle) + r_cube * math.sin(sub))
        return pos
    if isinstance(topology, (Hypercube, Metacube)):
        bits = topology.address_bits
        pos = {}
        for u in nodes:
            x, y = _split_bits(u, bits)
            pos[u] = (x + 0.15 * (y % 2), -y - 0.15 * (x % 2))
        return pos
    n = len(nodes)
    return {u: (math.cos(2 * math.pi * i / n), math.sin(2 * math.pi * i / n))
            for i, u in enumerate(nodes)}


def draw_network(ax, topology, positions=None, node_size=None):
    """Draw every link (light grey) and node (small dots) of ``topology`` on ``ax``."""
    positions = positions or node_positions(topology)
    segments = [(positions[int(u)], positions[int(v)]) for u, v in topology.edges()]
    ax.add_collection(LineCollection(segments, colors="0.82", linewidths=0.5, zorder=1))
    xy = np.array(list(positions.values()))
    size = node_size or max(2.0, 2000.0 / topology.num_nodes)
    ax.scatter(xy[:, 0], xy[:, 1], s=size, c="0.55", zorder=2, linewidths=0)
    ax.set_aspect("equal")
    ax.axis("off")
    return positions


#: Dots per inch of a PNG (a journal's figure resolution).
PNG_DPI = 300


def save_figure(fig, filename, pad_inches=0.1, suffix=None):
    """Write ``fig`` to ``filename`` as PDF or SVG (vector) or PNG at :data:`PNG_DPI`,
    by ``suffix`` (default ``filename``'s), and close it; ValueError for another suffix
    (before anything is written). The file names cubefab as its maker and holds no
    creation date (the same figure gives the same file). The caller makes the writing
    safe (:func:`cubefab.files.output_path`)."""
    try:
        suffix = check_plot_file(filename if suffix is None else "x" + suffix)
        fig.savefig(filename, format=suffix[1:], dpi=PNG_DPI, bbox_inches="tight",
                    pad_inches=pad_inches, metadata=_metadata(suffix))
    finally:
        plt.close(fig)
    return Path(filename)


def _metadata(suffix):
    """The file's metadata: the tool that made it (PNG, SVG and PDF each name their
    own key), no creation date."""
    if suffix == ".png":
        return {"Software": "cubefab"}
    if suffix == ".svg":
        return {"Creator": "cubefab", "Date": None}
    return {"Creator": "cubefab", "CreationDate": None}


def _new_figure(topology):
    side = 6 + 4 * min(1.0, topology.num_nodes / MAX_PLOT_NODES)
    return plt.subplots(figsize=(side, side))


def plot_paths(topology, paths, filename, src, dst, faulty_nodes=(), highlight=None,
               title=None):
    """Draw ``paths`` (lists of addresses) over the network, one colour each; mark
    ``src``, ``dst`` and the faulty nodes; ``highlight`` (a path) is drawn thick."""
    _check_size(topology)
    check_plot_file(filename)
    fig, ax = _new_figure(topology)
    pos = draw_network(ax, topology)
    colours = plt.get_cmap("tab10")
    for n, path in enumerate(paths):
        xy = np.array([pos[v] for v in path])
        ax.plot(xy[:, 0], xy[:, 1], "-", color=colours(n % 10), linewidth=1.6,
                zorder=3, label=f"P{n} ({len(path) - 1} hops)")
    if highlight:
        xy = np.array([pos[v] for v in highlight])
        ax.plot(xy[:, 0], xy[:, 1], "-", color="black", linewidth=3.0, alpha=0.6,
                zorder=4, label=f"fault-free path ({len(highlight) - 1} hops)")
    if faulty_nodes:
        xy = np.array([pos[v] for v in faulty_nodes])
        ax.scatter(xy[:, 0], xy[:, 1], marker="x", s=80, c="red", zorder=5,
                   label="faulty")
    for node, marker, label in ((src, "o", f"src {src}"), (dst, "s", f"dst {dst}")):
        ax.scatter(*pos[node], marker=marker, s=90, c="black", zorder=6, label=label)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    ax.set_title(title or f"{topology.label}: {len(paths)} disjoint paths {src} -> {dst}")
    save_figure(fig, filename)


def plot_broadcast(topology, steps, filename, source, title=None):
    """Draw the broadcast tree of ``steps`` (lists of (sender, receiver)), each
    transfer and receiver coloured by its step."""
    _check_size(topology)
    check_plot_file(filename)
    fig, ax = _new_figure(topology)
    pos = draw_network(ax, topology)
    cmap = plt.get_cmap("viridis")
    total = max(1, len(steps))
    for n, step in enumerate(steps, start=1):
        colour = cmap((n - 1) / max(1, total - 1))
        segments = [(pos[u], pos[v]) for u, v in step]
        if segments:
            ax.add_collection(LineCollection(segments, colors=[colour], linewidths=1.4,
                                             zorder=3))
            xy = np.array([pos[v] for _, v in step])
            ax.scatter(xy[:, 0], xy[:, 1], s=max(6.0, 3000.0 / topology.num_nodes),
                       c=[colour], zorder=4, linewidths=0)
    ax.scatter(*pos[source], marker="*", s=200, c="red", zorder=5, label=f"source {source}")
    sm = plt.cm.ScalarMappable(cmap=cmap, norm=plt.Normalize(1, total))
    fig.colorbar(sm, ax=ax, shrink=0.6, label="step")
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    ax.autoscale()
    ax.set_title(title or f"{topology.label}: broadcast from {source}, {len(steps)} steps")
    save_figure(fig, filename)
