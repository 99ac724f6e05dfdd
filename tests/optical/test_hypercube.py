"""Hypercube optical layouts: Figure 4, the recursion, the text's recipe and its errata."""

import numpy as np
import pytest

from cubefab.optical import hypercube_layout, validate, Layout
from cubefab.optical.hypercube import axis_sequence, _axis_amounts, _figure4, _place
from cubefab.optical.layout import derived_shifts
from cubefab.topology import Hypercube


# dlh.txt Figure 4 (printed as a table): the five-cube on two planes
FIGURE4_L = [[0, 3, 10, 9], [5, 6, 15, 12], [20, 23, 30, 29], [17, 18, 27, 24]]
FIGURE4_R = [[1, 2, 11, 8], [4, 7, 14, 13], [21, 22, 31, 28], [16, 19, 26, 25]]


def test_figure4_exactly():
    lay = hypercube_layout(5)
    assert lay.plane_l.tolist() == FIGURE4_L
    assert lay.plane_r.tolist() == FIGURE4_R


def test_figure4_shift_rule_is_the_papers():
    # "nine images ... shifts of ±1d and ±3d in both horizontal and vertical directions"
    lay = hypercube_layout(5)
    assert lay.images == 9
    assert lay.row_shifts == [-3, -1, 1, 3] and lay.col_shifts == [-3, -1, 1, 3]
    assert all(dr == 0 or dc == 0 for dr, dc in lay.shifts)
    v = validate(lay)
    assert v.valid and v.reached_min == v.reached_max == 5


@pytest.mark.parametrize("construction", ["figure4", "paper"])
def test_small_cubes_agree_with_figure4(construction):
    for n in range(1, 6):
        a, b = hypercube_layout(n), hypercube_layout(n, construction)
        assert np.array_equal(a.plane_l, b.plane_l) and np.array_equal(a.plane_r, b.plane_r)
        assert a.shifts == b.shifts


def test_figure4_sub_layouts_are_prefixes():
    # each smaller cube is the top-left corner of Figure 4 (bits 0..n-1)
    for n, (rows, cols) in {1: (1, 1), 2: (1, 2), 3: (2, 2), 4: (2, 4)}.items():
        lay = hypercube_layout(n)
        assert lay.plane_l.tolist() == [r[:cols] for r in FIGURE4_L[:rows]]
        assert lay.plane_r.tolist() == [r[:cols] for r in FIGURE4_R[:rows]]


@pytest.mark.parametrize("n", range(1, 13))
def test_cubefab_layout_valid(n):
    lay = hypercube_layout(n)
    v = validate(lay)
    assert v.valid, v.summary()
    assert v.spurious == 0 and v.uncovered_links == 0 and v.same_plane_links == 0
    assert v.reached_min == v.reached_max == n
    assert lay.images == 2 * n - 1            # one direct image, two per other bit
    # Plane_L holds exactly the even addresses
    evens = lay.plane_l[lay.plane_l >= 0]
    assert sorted(evens.tolist()) == [a for a in range(2 ** n) if a.bit_count() % 2 == 0]


def test_axis_lengths_and_shifts():
    lengths = [len(axis_sequence(j)) for j in range(7)]
    assert lengths == [1, 2, 4, 9, 21, 50, 120]
    assert _axis_amounts(axis_sequence(6)) == [1, 3, 7, 17, 41, 99]


def test_step3_shift_formula_holds_for_cubefab():
    # new shift of Q(n) = D(n) - D(n-3) along the axis that grew (dlh.txt Step 3)
    dims = {k: hypercube_layout(k).plane_l.shape for k in range(1, 13)}
    dims[0] = (1, 1)
    for n in range(3, 13):
        axis = 1 if n % 2 == 0 else 0
        new = set(hypercube_layout(n).shifts) - set(hypercube_layout(n - 1).shifts)
        amounts = {abs(s[axis]) for s in new}
        assert amounts == {dims[n][axis] - dims[n - 3][axis]}, n


def test_paper_dimensions_need_gaps():
    # Step 2 says D(n) = 2 D(n-1); true up to n = 5 only
    for n in range(2, 13):
        prev, now = hypercube_layout(n - 1).plane_l.shape, hypercube_layout(n).plane_l.shape
        axis = 1 if n % 2 == 0 else 0
        assert (now[axis] == 2 * prev[axis]) == (n <= 5), n


def test_figure4_places_odd_bits_underneath():
    # Step 1 puts the copy of an odd n at the right; Figure 4 puts bit 4 (n = 5) underneath
    grid = np.array(FIGURE4_L + FIGURE4_R)
    assert np.all((grid[[0, 1, 4, 5]] >> 4) & 1 == 0)
    assert np.all((grid[[2, 3, 6, 7]] >> 4) & 1 == 1)
    cols = np.array(FIGURE4_L)
    assert np.all((cols[:, :2] >> 3) & 1 == 0) and np.all((cols[:, 2:] >> 3) & 1 == 1)


def test_text_rotation_for_n5_breaks_figure4():
    # R_c(5) = 2^((5-1)/2-1) = 2 lines: on the 2-line four-cube axis that is no rotation
    l4, r4, _, _ = _figure4(4)
    plane_l, plane_r = _place(l4, r4, 0, 2, 0, 4)
    assert plane_l.tolist() != FIGURE4_L
    lay = Layout(Hypercube(5), plane_l, plane_r, derived_shifts(Hypercube(5), plane_l, plane_r),
                 "text R(5)")
    assert validate(lay).spurious == 16


def test_paper_recipe_fails_from_six():
    v = validate(hypercube_layout(6, "paper"))
    assert (v.uncovered_links, v.spurious) == (16, 64)
    assert hypercube_layout(6, "paper").info["stated_row_shifts"] == [1, 3, 6]
    for n in range(7, 11):
        v = validate(hypercube_layout(n, "paper"))
        assert not v.valid and v.spurious > 0 and v.uncovered_links > 0


def test_gap_free_continuation_of_figure4_fails():
    counts = [validate(hypercube_layout(n, "figure4")).spurious for n in range(5, 9)]
    assert counts == [0, 128, 512, 1664]


def _axis_exists(bits, length):
    """Exhaustive search for one axis of ``length`` lines carrying ``bits`` bits whose
    shift set joins only codes one bit apart (see docs/optical.md)."""
    total = 1 << bits
    seq, used, state = [None] * length, [False] * total, {}

    def place(p, placed):
        if length - p < total - placed:
            return False
        if p == length:
            return placed == total
        for c in ([0] if p == 0 else [None] + [c for c in range(total) if not used[c]]):
            if c is None:
                if place(p + 1, placed):
                    return True
                continue
            changed, ok = [], True
            for q in range(p):
                if seq[q] is None:
                    continue
                adj = (seq[q] ^ c).bit_count() == 1
                known = state.get(p - q)
                if known is None:
                    state[p - q] = adj
                    changed.append(p - q)
                elif known != adj:
                    ok = False
                    break
            if ok:
                seq[p], used[c] = c, True
                if place(p + 1, placed + 1):
                    return True
                used[c] = False
            for d in changed:
                del state[d]
            seq[p] = None
        return False
    return place(0, 0)


def test_no_gap_free_three_bit_axis():
    # a full 8-line axis with 3 bits always has a spurious image, 9 lines suffice
    assert not _axis_exists(3, 8)
    assert _axis_exists(3, 9)


@pytest.mark.slow
def test_four_bit_axis_minimum_is_21():
    assert not _axis_exists(4, 20)
    assert _axis_exists(4, 21)


@pytest.mark.parametrize("bad, error", [(0, ValueError), (15, ValueError), ("3", TypeError),
                                        (2.0, TypeError), (True, TypeError)])
def test_bad_dimension(bad, error):
    with pytest.raises(error, match="Hypercube dimension n"):
        hypercube_layout(bad)


def test_bad_construction():
    with pytest.raises(ValueError, match="cubefab, figure4, paper"):
        hypercube_layout(3, "louri")
