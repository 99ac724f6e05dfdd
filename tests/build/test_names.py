"""The default names of generated top modules: one per design, so that designs coexist."""

import pytest

from cubefab.build.names import KINDS, default_top, topology_slug
from cubefab.hdl.emit import check_module_name
from cubefab.topology import DLH, Hypercube, Metacube
from cubefab.topology.catalog import CLASSES
from cubefab.topology.foldedcube import FoldedCube
from cubefab.topology.mcube import Mcube


def test_the_issue_names():
    assert default_top(Hypercube(4), "route", node=0) == "cubefab_q4_route_n0"
    assert default_top(Hypercube(4), "router", node=0) == "cubefab_q4_router_n0"
    assert default_top(Metacube(1, 2), "fabric") == "cubefab_mc12_fabric"
    assert default_top(Hypercube(2), "axis_fabric") == "cubefab_q2_axis_fabric"
    assert default_top(DLH(2, 1), "route", node=3) == "cubefab_dlh21_route_n3"


def test_the_algorithm_is_named_only_when_it_is_not_the_default():
    mc = Metacube(1, 2)
    assert default_top(mc, "route", 5, "minimal") == "cubefab_mc12_route_n5"
    assert default_top(mc, "route", 5, "paper") == "cubefab_mc12_route_n5_paper"
    assert default_top(Hypercube(3), "route", 1, "bfs-lowest") == \
        "cubefab_q3_route_n1_bfs_lowest"


def test_slugs_tell_networks_apart():
    assert topology_slug(Hypercube(10)) == "q10"
    assert topology_slug(DLH(2, 13)) == "dlh_2_13" != topology_slug(DLH(21, 3))
    assert topology_slug(FoldedCube(4)) == "fq4"
    assert topology_slug(Mcube(7)) == "mcube7"
    assert topology_slug(Mcube(7, "algorithmic")) == "mcube7_algorithmic"


def test_every_family_and_kind_gives_an_identifier():
    small = {"Hypercube": (2,), "Metacube": (1, 1), "DLH": (2, 1), "Mcube": (3,),
             "FoldedCube": (2,)}
    names = set()
    for cls in CLASSES:
        topology = cls(*small[cls.__name__])
        for kind in KINDS:
            node = 0 if kind in ("route", "router") else None
            names.add(check_module_name(default_top(topology, kind, node)))
    assert len(names) == len(CLASSES) * len(KINDS)


@pytest.mark.parametrize("kind, node, message", [
    ("widget", None, "Kind must be one of"),
    ("route", None, "needs a node address"),
    ("router", -1, "needs a node address"),
    ("fabric", 0, "takes no node"),
])
def test_bad_requests_are_refused(kind, node, message):
    with pytest.raises(ValueError, match=message):
        default_top(Hypercube(2), kind, node)


def test_only_topologies_have_slugs():
    with pytest.raises(TypeError, match="Topology"):
        topology_slug("Q(2)")
