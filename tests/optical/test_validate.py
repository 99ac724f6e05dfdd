"""The validator catches every way a layout or a shift rule can be wrong."""

import dataclasses

import pytest

from cubefab.optical import hypercube_layout, dlh_layout, validate, Layout
from cubefab.optical.layout import EMPTY, link_displacements


def _with(layout, **changes):
    return dataclasses.replace(layout, **changes)


def test_valid_layout_reports_sizes():
    lay = hypercube_layout(6)
    v = validate(lay)
    assert v.valid
    assert (v.plane_rows, v.plane_cols, v.images) == (4, 9, 11)
    assert v.fill_factor == pytest.approx(64 / 72)
    assert v.largest_shift == 7
    assert v.images_on_nodes == pytest.approx(6)       # every image on a node is a neighbour


def test_missing_shift_leaves_links_uncovered():
    lay = hypercube_layout(5)
    rule = tuple(s for s in lay.shifts if s not in ((0, 3), (0, -3)))
    v = validate(_with(lay, shifts=rule))
    assert not v.valid and v.uncovered_links == 4 * 2 and v.spurious == 0   # 2 per row
    assert v.reached_min == 4


def test_extra_shift_is_spurious():
    lay = hypercube_layout(5)
    v = validate(_with(lay, shifts=lay.shifts + ((0, 2), (0, -2))))
    assert not v.valid and v.uncovered_links == 0
    assert v.spurious == 2 * 4 * 4       # 2 planes x 4 rows x (2 columns each way)
    src, shift, dst = v.spurious_examples[0]
    assert (src ^ dst).bit_count() > 1


def test_asymmetric_rule_rejected():
    lay = hypercube_layout(4)
    v = validate(_with(lay, shifts=tuple(s for s in lay.shifts if s != (0, -3))))
    assert not v.symmetric and not v.valid


def test_swapped_nodes_detected():
    lay = hypercube_layout(5)
    plane_l = lay.plane_l.copy()
    plane_l[0, 0], plane_l[1, 1] = plane_l[1, 1], plane_l[0, 0]
    v = validate(_with(lay, plane_l=plane_l))
    assert not v.valid and (v.spurious > 0 or v.uncovered_links > 0)


def test_same_plane_link_detected():
    lay = hypercube_layout(3)
    plane_l, plane_r = lay.plane_l.copy(), lay.plane_r.copy()
    plane_l[0, 0], plane_r[0, 0] = plane_r[0, 0], plane_l[0, 0]     # 1 on L, 0 on R
    v = validate(_with(lay, plane_l=plane_l, plane_r=plane_r))
    assert not v.valid and v.same_plane_links > 0
    with pytest.raises(ValueError, match="same plane"):
        link_displacements(lay.topology, plane_l, plane_r)


def test_node_placed_twice_or_missing():
    lay = hypercube_layout(3)
    plane_l = lay.plane_l.copy()
    plane_l[0, 1] = plane_l[0, 0]
    v = validate(_with(lay, plane_l=plane_l))
    assert not v.valid and not v.placed_once and "placed 2 times" in v.error
    plane_l[0, 1] = EMPTY
    v = validate(_with(lay, plane_l=plane_l))
    assert not v.placed_once and "placed 0 times" in v.error


def test_non_node_in_dlh_plane():
    lay = dlh_layout(3, 1)
    plane_l = lay.plane_l.copy()
    plane_l[0, 0] = 0b0100    # Johnson code 010 is no ring position of DL(6)
    v = validate(_with(lay, plane_l=plane_l))
    assert not v.placed_once and "not a node" in v.error


def test_planes_must_match():
    lay = hypercube_layout(3)
    with pytest.raises(ValueError, match="same shape"):
        Layout(lay.topology, lay.plane_l, lay.plane_r[:1], lay.shifts, "x")


def test_dlh_links_in_rule():
    lay = dlh_layout(3, 2)
    d = link_displacements(lay.topology, lay.plane_l, lay.plane_r)
    assert {tuple(x) for x in d.tolist()} <= set(lay.shifts)
