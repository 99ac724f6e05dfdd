"""3-D space-invariant layouts of the hypercube Q(n) (dlh.txt section V.A).

The n-cube is bipartitioned by address parity: even addresses on Plane_L, odd ones on
Plane_R. The layout of Q(n) is built from that of Q(n-1) as in the paper (after Louri and
Sung): take the (n-1)-cube layout, rotate it along one axis, place the rotated copy beside
the original along that axis, prefix the new address bit (0 on the original, 1 on the
copy; the copy of Plane_L goes to Plane_R and vice versa, since the prefix flips the
parity) and extend the shift rule.

Three recipes are provided (``construction=``):

``"cubefab"`` (default, valid for every n)
    Figure 4's recursion: bit ``n-1`` is placed along the columns when n is even and down
    the rows when n is odd, so the column axis carries bits 1, 3, 5, ... and the row axis
    bits 2, 4, 6, ...; bit 0 is the parity (the direct image). When an axis receives its
    j-th bit, the copy is the previous layout with the bits already on that axis
    complemented (for j = 2, 3 this is a rotation by half the axis, 1 and 2 lines: Figure
    4 for j = 2), placed after ``M // 2`` empty lines, ``M`` the largest shift along that
    axis so far (:func:`axis_sequence`). Axis lengths 1, 2, 4, 9, 21, 50, 120 (j = 0..6
    bits); the new shift is ``D(n) - D(n-3)`` exactly as the paper's Step 3 says:
    1, 3, 7, 17, 41, 99. n <= 5 gives Figure 4 (no gaps). No gap-free layout of this
    (row code x column code) kind is spurious-free beyond n = 5 (docs/optical.md).
``"figure4"``
    Figure 4's recursion continued without gaps: rotation by half the axis length. Equal
    to ``"cubefab"`` for n <= 5; for n >= 6 it has spurious images.
``"paper"``
    The three-step algorithm exactly as printed (Step 1's odd/even rule and rotation
    amounts R_c(n) = 2^((n-1)/2-1), R_r(n) = 2^((n-2)/2-1), Step 3's shift rule) applied
    from Figure 4's five-cube for n >= 6; Figure 4's sub-layouts for n <= 5. The layout's
    ``shifts`` is the rule the text states, not the one the links need.
"""

import numpy as np

from ..topology import Hypercube
from ..topology.base import check_int
from .layout import EMPTY, Layout, axis_shifts, derived_shifts


__all__ = ["hypercube_layout", "axis_sequence", "CONSTRUCTIONS", "MAX_N"]


#: Recipes accepted by :func:`hypercube_layout`.
CONSTRUCTIONS = ("cubefab", "figure4", "paper")

#: Largest supported dimension (the layouts are built and checked explicitly).
MAX_N = 14


def _axis_of(k):
    """Axis (0 rows, 1 columns) along which Figure 4 places bit ``k - 1`` of Q(k)."""
    return 1 if k % 2 == 0 else 0


def _bits_on_axis(k, axis):
    """Address bits carried by ``axis`` in Q(k) under Figure 4's rule."""
    return [b for b in range(1, k) if _axis_of(b + 1) == axis]


def _place(plane_l, plane_r, axis, rotation, gap, bit):
    """One recursion step: the original, ``gap`` empty lines, then the copy rotated by
    ``rotation`` (left or upward) with ``bit`` prefixed; the copy of each plane comes from
    the other plane, as the new bit flips the parity."""
    shape = list(plane_l.shape)
    shape[axis] = gap
    blank = np.full(shape, EMPTY, dtype=np.int64)

    def copy(grid):
        rolled = np.roll(grid, -rotation, axis=axis)
        return np.where(rolled == EMPTY, EMPTY, rolled | (1 << bit))

    new_l = np.concatenate([plane_l, blank, copy(plane_r)], axis=axis)
    new_r = np.concatenate([plane_r, blank, copy(plane_l)], axis=axis)
    return new_l, new_r


def _shift_amounts(shifts, axis):
    return sorted({abs(s[axis]) for s in shifts if s[axis] and not s[1 - axis]})


def axis_sequence(j):
    """The cells of one axis carrying ``j`` address bits, ``"cubefab"`` recipe.

    Returns
    -------
    list
        ``seq[i]`` is the ``j``-bit axis code of line ``i``, or None for an empty line.
        ``seq(0) = [0]``; ``seq(j)`` is ``seq(j-1)``, then ``M // 2`` empty lines (``M``
        the largest shift of ``seq(j-1)``), then ``seq(j-1)`` with every code complemented
        (XOR ``2**(j-1) - 1``) and bit ``j-1`` set. Lengths 1, 2, 4, 9, 21, 50, 120, ...;
        shifts 1, 3, 7, 17, 41, 99, ... (``a(j) = 2 a(j-1) + a(j-2)``).
    """
    j = check_int("axis bits j", j, 0, MAX_N)
    seq, largest = [0], 0
    for k in range(1, j + 1):
        flip, top = (1 << (k - 1)) - 1, 1 << (k - 1)
        seq = seq + [None] * (largest // 2) + [None if c is None else (c ^ flip) | top
                                               for c in seq]
        largest = max(_axis_amounts(seq))
    return seq


def _axis_amounts(seq):
    """Displacements between the lines of ``seq`` whose codes differ in one bit."""
    lines = [(i, c) for i, c in enumerate(seq) if c is not None]
    return sorted({q - p for p, a in lines for q, b in lines
                   if q > p and (a ^ b).bit_count() == 1})


def _spread(codes, bits):
    """Address bits ``bits`` set from the axis codes (None -> -1)."""
    out = np.zeros(len(codes), dtype=np.int64)
    empty = np.array([c is None for c in codes], dtype=bool)
    for i, b in enumerate(bits):
        out |= np.array([0 if c is None else (c >> i) & 1 for c in codes],
                        dtype=np.int64) << b
    return np.where(empty, -1, out)


def _cubefab(n):
    row_bits, col_bits = _bits_on_axis(n, 0), _bits_on_axis(n, 1)
    rows = _spread(axis_sequence(len(row_bits)), row_bits)
    cols = _spread(axis_sequence(len(col_bits)), col_bits)
    word = rows[:, None] | cols[None, :]
    empty = (rows[:, None] < 0) | (cols[None, :] < 0)
    parity = np.bitwise_count(np.where(empty, 0, word)).astype(np.int64) & 1
    plane_l = np.where(empty, EMPTY, word | parity)          # even addresses
    plane_r = np.where(empty, EMPTY, word | (parity ^ 1))    # odd addresses
    shifts = derived_shifts(Hypercube(n), plane_l, plane_r)
    steps = []
    for k in range(2, n + 1):
        axis = _axis_of(k)
        j = len(_bits_on_axis(k, axis))
        prev = axis_sequence(j - 1)
        steps.append({"n": k, "bit": k - 1, "axis": "columns" if axis else "rows",
                      "complemented_bits": _bits_on_axis(k - 1, axis),
                      "gap": max(_axis_amounts(prev), default=0) // 2})
    return plane_l, plane_r, shifts, {"steps": steps}


def _figure4(n):
    plane_l = np.zeros((1, 1), dtype=np.int64)
    plane_r = np.ones((1, 1), dtype=np.int64)
    steps = []
    for k in range(2, n + 1):
        axis = _axis_of(k)
        rotation = plane_l.shape[axis] // 2
        plane_l, plane_r = _place(plane_l, plane_r, axis, rotation, 0, k - 1)
        steps.append({"n": k, "bit": k - 1, "axis": "columns" if axis else "rows",
                      "rotation": rotation, "gap": 0})
    shifts = derived_shifts(Hypercube(n), plane_l, plane_r)
    return plane_l, plane_r, shifts, {"steps": steps}


def _paper(n):
    """dlh.txt section V.A, Steps 1-3 as printed, from Figure 4's five-cube."""
    plane_l, plane_r, shifts, info = _figure4(min(n, 5))
    dims = {k: _figure4(k)[0].shape for k in range(1, min(n, 5) + 1)}
    rows = set(_shift_amounts(shifts, 0))
    cols = set(_shift_amounts(shifts, 1))
    steps = info["steps"]
    for k in range(6, n + 1):
        if k % 2:                                # Step 1, n odd: left by R_c(n), to the right
            axis, rotation = 1, 2 ** ((k - 1) // 2 - 1)
        else:                                    # n even: upward by R_r(n), underneath
            axis, rotation = 0, 2 ** ((k - 2) // 2 - 1)
        plane_l, plane_r = _place(plane_l, plane_r, axis, rotation, 0, k - 1)
        dims[k] = plane_l.shape
        amount = dims[k][axis] - dims[k - 3][axis]     # Step 3: D(n) - D(n-3)
        (cols if axis else rows).add(amount)
        steps.append({"n": k, "bit": k - 1, "axis": "columns" if axis else "rows",
                      "rotation": rotation, "gap": 0, "new_shift": amount})
    info["stated_row_shifts"] = sorted(rows)
    info["stated_col_shifts"] = sorted(cols)
    return plane_l, plane_r, axis_shifts(rows, cols), info


def hypercube_layout(n, construction="cubefab"):
    """Plane_L/Plane_R layout and shift rule of the n-cube.

    Parameters
    ----------
    n : int
        Dimension, ``1 <= n <= MAX_N``.
    construction : str
        One of :data:`CONSTRUCTIONS` (see the module documentation). ``"cubefab"`` is
        valid (no spurious image) for every n and equals Figure 4 for n = 5.

    Returns
    -------
    Layout
        Plane_L holds the even addresses. ``info`` records the axis bits, each recursion
        step (axis, rotation, gap) and the per-axis shift amounts.

    Raises
    ------
    TypeError, ValueError
        If ``n`` is not an integer in ``[1, MAX_N]`` or ``construction`` is unknown.
    """
    n = check_int("Hypercube dimension n", n, 1, MAX_N)
    if construction not in CONSTRUCTIONS:
        raise ValueError(f"Hypercube layout construction must be one of "
                         f"{', '.join(CONSTRUCTIONS)}, not {construction!r}")
    builder = {"cubefab": _cubefab, "figure4": _figure4, "paper": _paper}[construction]
    plane_l, plane_r, shifts, info = builder(n)
    info = {"n": n, "row_bits": _bits_on_axis(n, 0), "col_bits": _bits_on_axis(n, 1),
            "parity_bit": 0, **info}
    if construction == "paper" and n >= 6:
        info["row_bits"] = info["col_bits"] = None    # the text's rule mixes the axes
    return Layout(Hypercube(n), plane_l, plane_r, shifts, construction, info=info)
