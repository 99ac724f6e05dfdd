"""The parts of a router configuration and which combinations the router builds
(cubefab.hdl.modes)."""

import itertools

import pytest

from cubefab.hdl.config import HOPS, RouterConfig
from cubefab.hdl.modes import (REPLICATIONS, ROUTINGS, Adaptive, Broadcast, ConfigConflict,
                               Deterministic, Multicast, Unicast, Waypoints, combinations,
                               parts)
from cubefab.topology import Hypercube

#: The combinations the router builds (routing, hop, replication kinds): every one.
BUILT = {(routing.kind, hop, r.kind) for routing in ROUTINGS for hop in HOPS
         for r in REPLICATIONS}

CELLS = list(itertools.product(ROUTINGS, HOPS, REPLICATIONS))


def cell_id(cell):
    routing, hop, replication = cell
    return f"{routing.kind}-{hop}-{replication.kind}"


def test_the_table_has_every_combination_once():
    rows = combinations()
    assert len(rows) == 3 * 2 * 5
    assert len({(r["routing"], r["hop"], r["replication"]) for r in rows}) == 30


def test_the_table_says_which_are_built():
    built = {(r["routing"], r["hop"], r["replication"]) for r in combinations() if r["built"]}
    assert built == BUILT


def test_every_refused_combination_has_a_reason():
    assert all(r["reason"] for r in combinations() if not r["built"])


@pytest.mark.parametrize("replication", [Broadcast(2), Multicast(2, "vector")])
def test_a_fault_tolerant_router_is_refused_broadcast_vcs_it_would_not_use(replication):
    with pytest.raises(ConfigConflict, match="floods the healthy network's spanning tree "
                                             "on one broadcast VC"):
        RouterConfig.for_topology(Hypercube(3), routing=Waypoints(1),
                                  replication=replication)


@pytest.mark.parametrize("cell", CELLS, ids=cell_id)
def test_a_configuration_is_made_exactly_when_the_table_builds_it(cell):
    routing, hop, replication = cell
    make = lambda: RouterConfig.for_topology(Hypercube(3), routing=routing, hop=hop,
                                             replication=replication)
    if (routing.kind, hop, replication.kind) in BUILT:
        config = make()
        assert (config.routing, config.hop, config.replication) == cell
    else:
        with pytest.raises(ConfigConflict):
            make()


@pytest.mark.parametrize("part", ROUTINGS + REPLICATIONS + (Adaptive(4), Waypoints(3),
                                                           Broadcast(2, "one-port"),
                                                           Multicast(3, "vector")),
                         ids=repr)
def test_parts_are_read_back_from_their_report_fields(part):
    modes = parts(**part.fields)
    assert part in modes.values()


def test_a_config_reports_its_parts_as_flat_fields():
    config = RouterConfig.for_topology(Hypercube(3), replication=Multicast(2, "vector"))
    assert (config.broadcast_vcs, config.multicast, config.broadcast_model) == (
        2, "vector", "all-port")
    assert config.routing == Deterministic() and config.adaptive_vcs == 0


@pytest.mark.parametrize("field, value", [("routing", Unicast()), ("replication", 2)])
def test_a_part_of_the_wrong_kind_is_refused(field, value):
    with pytest.raises(TypeError, match=f"{field.capitalize()} must be"):
        RouterConfig.for_topology(Hypercube(2), **{field: value})


def test_the_modes_command_prints_the_table(cli):
    r = cli("modes")
    assert r.status == 0 and r.out.rstrip().endswith("30 of 30 combinations built")
    doc = cli("modes", "--json").json()
    assert (doc["built"], doc["total"]) == (30, 30)
    assert doc["combinations"] == combinations()


def test_the_router_guide_shows_the_table_the_command_prints(cli):
    from pathlib import Path
    guide = (Path(__file__).parents[2] / "docs" / "router.md").read_text()
    assert cli("modes").out in guide
