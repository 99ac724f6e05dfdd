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
    bits 2, 4, 6, ...; bit 0 is the parity (the direct image). Per axis, the j-th bit is
    added with (rotation, gap) = (0, 0), (1, 0), (2, 1) for j = 1, 2, 3, and for j >= 4 an
    unrotated copy after a gap of as many empty lines as the axis's largest shift so far.
    For n <= 5 this is exactly Figure 4 (no gaps). Axis lengths 1, 2, 4, 9, 25, 66, 173
    (j = 0..6 bits); new shifts 1, 3, 7, 16, 41, 107. No gap-free layout of this
    (row code x column code) kind is spurious-free beyond n = 5 (see docs/optical.md).
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


__all__ = ["hypercube_layout", "CONSTRUCTIONS", "MAX_N"]


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


def _cubefab(n):
    plane_l = np.zeros((1, 1), dtype=np.int64)
    plane_r = np.ones((1, 1), dtype=np.int64)
    steps = []
    for k in range(2, n + 1):
        axis = _axis_of(k)
        j = len(_bits_on_axis(k, axis))        # bits on this axis once bit k-1 is placed
        if j == 1:
            rotation, gap = 0, 0
        elif j == 2:
            rotation, gap = 1, 0
        elif j == 3:
            rotation, gap = 2, 1
        else:
            q = Hypercube(k - 1)
            rotation, gap = 0, max(_shift_amounts(derived_shifts(q, plane_l, plane_r), axis))
        plane_l, plane_r = _place(plane_l, plane_r, axis, rotation, gap, k - 1)
        steps.append({"n": k, "bit": k - 1, "axis": "columns" if axis else "rows",
                      "rotation": rotation, "gap": gap})
    shifts = derived_shifts(Hypercube(n), plane_l, plane_r)
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
