"""DLH optical layouts: Figure 6, the shift rule, the m x d grid, growth, gaps."""

import numpy as np
import pytest

from cubefab.optical import dlh_layout, hypercube_layout, validate
from cubefab.optical.dlh import growth
from cubefab.topology import DLH


# dlh.txt Figure 6 (DLH(4,3)): Plane_L blocks (i, j) hold the cube layout A when i + j is
# even and B when odd; Plane_R the other one.
A = [[0b000, 0b011], [0b101, 0b110]]
B = [[0b001, 0b010], [0b100, 0b111]]


def _block(layout, grid, ring, position):
    info = layout.info
    r, c = info["block_places"][ring][position]
    top, left = r * info["row_stride"], c * info["col_stride"]
    return grid[top:top + info["block_rows"], left:left + info["block_cols"]]


def test_figure6_blocks():
    lay = dlh_layout(4, 3)
    dlh = lay.topology
    for i in (0, 1):
        for j in range(8):
            for grid, first in ((lay.plane_l, A), (lay.plane_r, B)):
                block = _block(lay, grid, i, j)
                expect = first if (i + j) % 2 == 0 else (B if first is A else A)
                assert (block & 7).tolist() == expect, (i, j)
                assert {dlh.split(int(a))[:2] for a in block.ravel()} == {(i, j)}


def test_figure6_geometry_and_rule():
    lay = dlh_layout(4, 3)
    assert (lay.info["r"], lay.info["c"]) == (1, 1)                # paper: n = 3
    assert (lay.plane_rows, lay.plane_cols) == (2 * 2 + 1, 8 * 2 + 7)
    # ROW = ROW_HC, ±[2 D_r(3) - D_r(0)]; COL = COL_HC, ±[2 D_c(3) - D_c(0)], ±3 (2m - 1)
    assert lay.row_shifts == [-3, -1, 1, 3]
    assert lay.col_shifts == [-21, -3, -1, 1, 3, 21]
    assert lay.images == 11
    assert (lay.info["paper_ring_shift"], lay.info["paper_neighbour_shift"],
            lay.info["paper_wrap_shift"]) == (3, 3, 21)
    v = validate(lay)
    assert v.valid and v.reached_min == v.reached_max == 6


def test_blocks_are_hypercube_layouts():
    lay = dlh_layout(3, 4)
    cube = hypercube_layout(4)
    assert np.array_equal(_block(lay, lay.plane_l, 0, 0) & 15, cube.plane_l)
    assert np.array_equal(_block(lay, lay.plane_l, 0, 1) & 15, cube.plane_r)


def test_planes_are_address_parity():
    lay = dlh_layout(5, 2)
    nodes = lay.plane_l[lay.plane_l >= 0]
    assert all(int(a).bit_count() % 2 == 0 for a in nodes)
    assert len(nodes) == DLH(5, 2).num_nodes // 2


@pytest.mark.parametrize("ring", ["paper", "folded"])
def test_grid_m2_8_d1_6_valid(ring):
    for m in range(2, 9):
        for d in range(1, 7):
            lay = dlh_layout(m, d, ring=ring)
            v = validate(lay)
            assert v.valid, (m, d, v.summary())
            assert v.reached_min == v.reached_max == d + 3
            cube = hypercube_layout(d).images
            assert lay.images == cube + (6 if ring == "paper" else 8)


def test_paper_gaps_equal_fit_up_to_five():
    for d in range(1, 6):
        a, b = dlh_layout(4, d), dlh_layout(4, d, gaps="paper")
        assert (a.info["r"], a.info["c"]) == (b.info["r"], b.info["c"])
        assert np.array_equal(a.plane_l, b.plane_l)


def test_paper_gap_formula_fails():
    # d = 6: r = D_r(6) - D_r(3) = 2 < the block's row shift 3
    lay = dlh_layout(4, 6, gaps="paper")
    assert (lay.info["r"], lay.info["fit_r"]) == (2, 3)
    assert validate(lay).spurious == 256
    # the formula at d = 5 gives c = 2, not the paper's own table value 3
    lay = dlh_layout(4, 5, gaps="formula")
    assert (lay.info["r"], lay.info["c"]) == (3, 2)
    assert validate(lay).spurious == 224


def test_growth_paper_ring_changes_only_wrap():
    g = growth(3, range(2, 9))
    assert g["images"] == [11] * 7                          # number of images constant
    for m, extra in g["changing"].items():
        assert extra == [(0, -(2 * m - 1) * 3), (0, (2 * m - 1) * 3)]


def test_growth_folded_ring_changes_nothing():
    for d in (1, 3, 5):
        g = growth(d, range(2, 9), ring="folded")
        assert all(not extra for extra in g["changing"].values())
        assert len(set(g["images"])) == 1


@pytest.mark.parametrize("args, error, match", [
    ((1, 3), ValueError, "ring parameter m"),
    ((4, 0), ValueError, "hypercube dimension d"),
    ((4, "3"), TypeError, "hypercube dimension d"),
    ((40, 14), ValueError, "at most"),
])
def test_bad_parameters(args, error, match):
    with pytest.raises(error, match=match):
        dlh_layout(*args)


@pytest.mark.parametrize("option", [{"ring": "circle"}, {"gaps": "none"}])
def test_bad_options(option):
    with pytest.raises(ValueError, match="must be one of"):
        dlh_layout(4, 3, **option)
