"""3-D space-invariant layouts of the double-loop hypercube DLH(m, d) (dlh.txt section V.B).

The DLH is 4m copies of the d-cube, one per node of DL(2m) (``ring``, ``position``). Each
copy is laid out as a *block*: the Plane_L and Plane_R layouts of Q(d)
(:func:`~cubefab.optical.hypercube.hypercube_layout`). Per plane the blocks form a matrix,
separated by ``r`` empty rows and ``c`` empty columns; where the DL(2m) parity
``ring + position`` is odd the block's Plane_L and Plane_R layouts are interchanged (the
paper's checkerboard), so that every DL(2m) link joins a cell of Plane_L to the cell at the
same place of a block of Plane_R holding the same cube address. With block strides
``Sr = D_r + r`` and ``Sc = D_c + c`` the shift rule is the block's hypercube rule plus:

``ring="paper"`` (Figure 6)
    2 x 2m blocks, block row = ring bit, block column = ring position:
    ``(±Sr, 0)`` ring-to-ring links, ``(0, ±Sc)`` ring neighbours and ``(0, ±(2m-1) Sc)``
    the wrap-around links. The wrap-around amount grows with m.
``ring="folded"``
    each ring on a racetrack of 3 block rows (positions 1..m-1 on top, 0 and m at the
    ends of the middle row, m+1..2m-1 underneath, back to front), ring 1 four block rows
    below ring 0: ``(0, ±Sc)``, ``(±Sr, ±Sc)`` and ``(±4 Sr, 0)``. No shift depends on m,
    so adding ring positions changes nothing in the optics; costs two more images and
    a larger plane.

Gaps (``gaps=``): ``"fit"`` (default) makes ``r``/``c`` the block's largest row/column
shift, the least that keeps every hypercube image of a block out of the other blocks;
``"paper"`` takes the paper's values (r, c) = (0, 1), (1, 1), (1, 3), (3, 3) for d = 2..5 and
``r = D_r(d) - D_r(d-3)``, ``c = D_c(d) - D_c(d-3)`` beyond (none given for d = 1: 0, 0).
The two agree for d <= 5. ``"formula"`` applies the paper's formula for every d >= 3 (it
disagrees with the paper's own table at d = 5).
"""

import numpy as np

from ..topology import DLH
from ..topology.base import check_int
from ..topology.dlh import johnson_code
from .hypercube import hypercube_layout, MAX_N
from .layout import EMPTY, Layout


__all__ = ["dlh_layout", "growth", "RINGS", "GAPS", "PAPER_GAPS", "MAX_M"]


#: Block arrangements accepted by :func:`dlh_layout`.
RINGS = ("paper", "folded")

#: Gap rules accepted by :func:`dlh_layout`.
GAPS = ("fit", "paper", "formula")

#: dlh.txt section V.B: (r, c) for a block of dimension n = 2..5.
PAPER_GAPS = {2: (0, 1), 3: (1, 1), 4: (1, 3), 5: (3, 3)}

#: Largest supported ring parameter.
MAX_M = 64

#: Largest DLH laid out (nodes).
MAX_NODES = 1 << 18


def _block_places(m, ring):
    """``places[ring_bit][position] = (block_row, block_col)`` and the block matrix size."""
    if ring == "paper":
        places = [[(i, p) for p in range(2 * m)] for i in (0, 1)]
        return places, (2, 2 * m)
    places = []
    for i in (0, 1):
        top = 4 * i
        row = []
        for p in range(2 * m):
            if p == 0:
                row.append((top + 1, 0))
            elif p < m:
                row.append((top, p))
            elif p == m:
                row.append((top + 1, m))
            else:
                row.append((top + 2, 2 * m - p))
        places.append(row)
    return places, (7, m + 1)


def dlh_layout(m, d, ring="paper", gaps="fit", block="cubefab"):
    """Plane_L/Plane_R layout and shift rule of DLH(m, d).

    Parameters
    ----------
    m : int
        Ring parameter, ``2 <= m <= MAX_M``.
    d : int
        Hypercube dimension, ``1 <= d``, ``d <= MAX_N`` of the hypercube layouts.
    ring : str
        Block arrangement, one of :data:`RINGS` (module documentation).
    gaps : str
        Gap rule, one of :data:`GAPS`.
    block : str
        Construction of the d-cube blocks (see :func:`hypercube_layout`).

    Returns
    -------
    Layout
        ``blocks`` holds ``ring * 2m + position`` for every cell of a block; ``info``
        the block size, gaps, strides, the DL(2m) shifts by kind (``ring_shifts``,
        ``neighbour_shifts``, ``wrap_shifts``, ``hypercube_shifts``) and the paper's
        expressions where they are defined.

    Raises
    ------
    TypeError, ValueError
        On a parameter out of range or an unknown option.
    """
    dlh, m, d = _check_dlh(m, d, ring, gaps)
    cube = hypercube_layout(d, block)
    br, bc = cube.plane_rows, cube.plane_cols
    fit = (max([abs(s[0]) for s in cube.shifts]), max([abs(s[1]) for s in cube.shifts]))
    dims = {k: hypercube_layout(k, block).plane_l.shape for k in range(1, d + 1)}
    dims[0] = (1, 1)
    r, c = _block_gaps(d, gaps, fit, (br, bc), dims)
    sr, sc = br + r, bc + c
    places, (nbr, nbc) = _block_places(m, ring)
    plane_l, plane_r, blocks = _place_blocks(m, d, cube, places,
                                             (nbr * sr - r, nbc * sc - c), (sr, sc))
    hyper = [s for s in cube.shifts if s != (0, 0)]
    dl = _dl_shifts(m, ring, sr, sc)
    shifts = {(0, 0)} | set(hyper) | {tuple(s) for v in dl.values() for s in v}
    info = {"m": m, "d": d, "ring": ring, "gaps": gaps, "block": block,
            "block_rows": br, "block_cols": bc, "r": r, "c": c,
            "fit_r": fit[0], "fit_c": fit[1], "row_stride": sr, "col_stride": sc,
            "block_matrix": [nbr, nbc],
            "block_places": [[list(places[i][p]) for p in range(2 * m)] for i in (0, 1)],
            "hypercube_shifts": [list(s) for s in sorted(hyper)], **dl}
    if d >= 3:
        info["paper_ring_shift"] = 2 * br - dims[d - 3][0]
        info["paper_neighbour_shift"] = 2 * bc - dims[d - 3][1]
        info["paper_wrap_shift"] = (2 * bc - dims[d - 3][1]) * (2 * m - 1)
    return Layout(dlh, plane_l, plane_r, tuple(shifts), f"{ring} ring, {gaps} gaps",
                  blocks=blocks, info=info)


def _check_dlh(m, d, ring, gaps):
    """``(DLH(m, d), m, d)`` for the parameters of :func:`dlh_layout`.

    Raises
    ------
    TypeError, ValueError
        On a parameter out of range (or a network over :data:`MAX_NODES` nodes) or a
        ``ring`` or ``gaps`` not of :data:`RINGS`, :data:`GAPS`.
    """
    dlh = DLH(m, d)
    m = check_int("DLH ring parameter m", m, 2, MAX_M)
    d = check_int("DLH hypercube dimension d", d, 1, MAX_N)
    if dlh.num_nodes > MAX_NODES:
        raise ValueError(f"{dlh.label} has {dlh.num_nodes} nodes; optical layouts are built "
                         f"for DLH networks of at most {MAX_NODES} nodes")
    for name, value, choices in (("ring", ring, RINGS), ("gaps", gaps, GAPS)):
        if value not in choices:
            raise ValueError(f"DLH layout {name} must be one of {', '.join(choices)}, "
                             f"not {value!r}")
    return dlh, m, d


def _block_gaps(d, gaps, fit, block_shape, dims):
    """``(r, c)``, the rows and columns between blocks of ``block_shape`` under the
    gap rule ``gaps``: ``fit`` (the largest shifts of the d-cube block), the paper's
    table (``paper``, where it has ``d``) or the paper's formula from ``dims`` (the
    plane shape of each k-cube layout); below ``d = 3`` the formula falls back on the
    paper's table (or none)."""
    if gaps == "fit":
        return fit
    if gaps == "paper" and d in PAPER_GAPS:
        return PAPER_GAPS[d]
    if d < 3:
        return PAPER_GAPS.get(d, (0, 0))
    return block_shape[0] - dims[d - 3][0], block_shape[1] - dims[d - 3][1]


def _place_blocks(m, d, cube, places, shape, strides):
    """``(plane_l, plane_r, blocks)`` of a plane pair of ``shape``: the d-cube layout
    ``cube`` copied at each block's place (``places``, in blocks of ``strides``
    cells) with the ring bit and the Johnson code of its position above the cube
    address, its planes swapped where ring bit plus position is odd; ``blocks`` holds
    ``ring * 2m + position`` on each block's cells, -1 elsewhere."""
    br, bc = cube.plane_rows, cube.plane_cols
    sr, sc = strides
    plane_l = np.full(shape, EMPTY, dtype=np.int64)
    plane_r = np.full(shape, EMPTY, dtype=np.int64)
    blocks = np.full(shape, -1, dtype=np.int64)
    for i in (0, 1):
        for p in range(2 * m):
            R, C = places[i][p]
            top, left = R * sr, C * sc
            base = (i << (m + d)) | (johnson_code(p, m) << d)
            swap = (i + p) % 2 == 1
            src_l, src_r = (cube.plane_r, cube.plane_l) if swap else (cube.plane_l,
                                                                       cube.plane_r)
            window = (slice(top, top + br), slice(left, left + bc))
            plane_l[window] = np.where(src_l == EMPTY, EMPTY, src_l | base)
            plane_r[window] = np.where(src_r == EMPTY, EMPTY, src_r | base)
            blocks[window] = i * 2 * m + p
    return plane_l, plane_r, blocks


def _dl_shifts(m, ring, sr, sc):
    """The DL(2m) shifts by kind (``ring_shifts``, ``neighbour_shifts``,
    ``wrap_shifts``, each a list of ``[rows, columns]``) of the block arrangement
    ``ring`` with block strides ``sr``, ``sc``."""
    if ring == "paper":
        return {"ring_shifts": [[sr, 0], [-sr, 0]],
                "neighbour_shifts": [[0, sc], [0, -sc]],
                "wrap_shifts": [[0, (2 * m - 1) * sc], [0, -(2 * m - 1) * sc]]}
    return {"ring_shifts": [[4 * sr, 0], [-4 * sr, 0]],
            "neighbour_shifts": [[0, sc], [0, -sc]] + [[a * sr, b * sc] for a in (1, -1)
                                                       for b in (1, -1)],
            "wrap_shifts": []}


def growth(d, m_values, ring="paper", gaps="fit"):
    """How the shift rule changes as ring positions are added.

    Returns
    -------
    dict
        ``{"images": [...], "common": shifts in every layout, "changing": {m: shifts of
        DLH(m, d) not in every layout}}``; the paper claims the optics stays unchanged
        when the DLH grows.
    """
    rules = {m: set(dlh_layout(m, d, ring=ring, gaps=gaps).shifts) for m in m_values}
    common = set.intersection(*rules.values())
    return {"images": [len(rules[m]) for m in m_values],
            "common": sorted(common),
            "changing": {m: sorted(rules[m] - common) for m in m_values}}
