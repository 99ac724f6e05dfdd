"""A self-checking run is a value: its parts are checked when they are made, and how they
fit together is checked once, by the run."""

import dataclasses

import pytest

from cubefab.hdl.config import SIMULATION_DEFAULTS, RouterConfig
from cubefab.hdl.modes import Broadcast, Multicast
from cubefab.hdl.selfcheck import SelfCheckConfig
from cubefab.sim.run_spec import Engine, Faults, Schedule, SelfCheckRun, Stimulus
from cubefab.topology import Hypercube, Metacube


def design(topology=Hypercube(2), **keywords):
    return SelfCheckConfig.of(topology, **keywords)


@pytest.mark.parametrize("make,message", [
    (lambda: Schedule(0), "Cycles"),
    (lambda: Schedule(10, warmup=-1), "Warm-up cycles"),
    (lambda: Schedule(10, drain=-2), "Drain cycles"),
    (lambda: Stimulus(rate=1.5), "Injection rate"),
    (lambda: Stimulus(rate=True), "Injection rate"),
    (lambda: Stimulus(seed=1 << 32), "Seed"),
    (lambda: Stimulus(hotspot_fraction=1), "Hotspot fraction"),
    (lambda: Stimulus(broadcast_fraction=-0.1), "Broadcast fraction"),
    (lambda: Engine("icarus"), "engine must be one of"),
    (lambda: Engine("verilator", vcd="x.vcd"), "writes no VCD"),
    (lambda: Engine("amaranth", every=True), "every applies to the verilator engine"),
    (lambda: Engine("verilator", threads=0), "Threads")])
def test_each_part_checks_itself(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_a_schedule_knows_its_window_and_length():
    schedule = Schedule(100, warmup=20, drain=30)
    assert schedule.marks == [20, 120] and schedule.total == 150


def test_a_run_longer_than_its_timestamps_cannot_be_made():
    with pytest.raises(ValueError, match="shorter than 2\\*\\*timestamp_bits = 256"):
        SelfCheckRun(design(timestamp_bits=8), Schedule(200, drain=56))
    assert SelfCheckRun(design(timestamp_bits=8), Schedule(200, drain=55))


def test_broadcasts_need_replicating_routers():
    with pytest.raises(ValueError, match="Broadcasts need replicating routers"):
        SelfCheckRun(design(), stimulus=Stimulus(broadcast_fraction=0.5))


def test_a_multicast_group_needs_broadcasts():
    multicast = design(broadcast_vcs=1, multicast_group=1)
    with pytest.raises(ValueError, match="A multicast group takes broadcasts"):
        SelfCheckRun(multicast, engine=Engine("amaranth"))


def test_a_defect_needs_a_design_with_defects():
    with pytest.raises(ValueError, match="defects=True"):
        SelfCheckRun(design(), stimulus=Stimulus(defect={"kind": "drop", "node": 0}))


def test_a_part_of_the_wrong_kind_is_refused():
    with pytest.raises(TypeError, match="schedule must be a Schedule"):
        SelfCheckRun(design(), schedule=(100, 0, 0))


@pytest.mark.parametrize("keywords", [
    {"broadcast_vcs": 1, "broadcast_model": "one-port"},
    {"broadcast_vcs": 1, "multicast_group": 1}])
def test_verilator_runs_one_port_and_multicast_designs_with_straps(keywords):
    assert Engine("verilator").refusal(design(**keywords)) is None


@pytest.mark.parametrize("keywords", [
    {"broadcast_vcs": 1, "broadcast_model": "one-port"},
    {"broadcast_vcs": 1, "multicast_group": 1}])
def test_verilator_refuses_one_port_and_multicast_designs_over_128_nodes(keywords):
    large = design(topology=Hypercube(8), **keywords)
    assert "at most 128 nodes, not 256" in Engine("verilator").refusal(large)
    assert Engine("amaranth").refusal(large) is None
    with pytest.raises(ValueError, match="not 256; use the amaranth"):
        SelfCheckRun(large, stimulus=Stimulus(broadcast_fraction=0.5))


def test_verilator_runs_address_strapped_designs():
    assert Engine("verilator").refusal(design(broadcast_vcs=1)) is None


def test_the_keyword_form_makes_broadcast_traffic_a_broadcast_share_of_one():
    run = SelfCheckRun.of(Hypercube(2), engine="amaranth", pattern="broadcast")
    assert run.design.pattern == "uniform" and run.stimulus.broadcast_fraction == 1.0
    assert isinstance(run.design.router.replication, Broadcast)
    assert run.design.router.broadcast_vcs >= 1


def test_the_keyword_form_builds_a_defect_into_the_design():
    run = SelfCheckRun.of(Hypercube(2), defect={"kind": "drop", "node": 0, "port": 0})
    assert run.design.defects


def test_runs_are_values():
    a = SelfCheckRun.of(Hypercube(2), engine="amaranth", rate=0.2, seed=3, cycles=50)
    b = a.replace(stimulus=dataclasses.replace(a.stimulus, seed=4))
    assert b.stimulus.seed == 4 and a.stimulus.seed == 3
    assert (b.design, b.schedule, b.faults, b.engine) == (a.design, a.schedule,
                                                        a.faults, a.engine)
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.schedule.cycles = 10


def test_faults_are_a_value_that_says_whether_there_are_any():
    assert not Faults() and Faults(nodes=[1]) and Faults(fail_links=[(0, 1, 5)])
    assert Faults(nodes=[1, 2]).nodes == (1, 2)


def test_the_design_takes_the_router_whole():
    router = RouterConfig.for_topology(Metacube(1, 1), depth=6, vcs_per_class=2,
                                       payload_width=40, header="head")
    config = SelfCheckConfig(router, packet_flits=3)
    assert config.router.depth == 6 and config.router.header == "head"
    assert config.router.routers == Metacube(1, 1).num_nodes


def test_the_flat_form_defaults_to_the_simulation_router():
    router = design().router
    assert (router.depth, router.vcs_per_class, router.payload_width) == (
        SIMULATION_DEFAULTS.depth, SIMULATION_DEFAULTS.vcs_per_class,
        SIMULATION_DEFAULTS.payload_width)


@pytest.mark.parametrize("keywords", [
    {},
    {"pattern": "hotspot", "hotspot": 3, "packet_flits": 2},
    {"adaptive_vcs": 2, "header": "head"},
    {"fault_waypoints": 1},
    {"broadcast_vcs": 1, "broadcast_model": "one-port"},
    {"broadcast_vcs": 1, "multicast_group": 1},
    {"hop": "lookahead"},
    {"depth": 2, "buffer": "registers", "timestamp_bits": 12}])
def test_the_key_makes_the_same_design(keywords):
    config = design(**keywords)
    key = config.key()
    flat = {k: v for k, v in key.items() if k not in ("design", "family", "params")}
    again = SelfCheckConfig.of(Hypercube(2), **flat)
    assert again.key() == key and again.router == config.router


def test_a_multicast_group_needs_multicast_routers():
    with pytest.raises(ValueError, match="A multicast group needs multicast routers"):
        SelfCheckConfig(RouterConfig.for_topology(Hypercube(2), payload_width=40,
                                                 replication=Broadcast(1)),
                        multicast_group=1)


def test_multicast_routers_need_a_group():
    router = RouterConfig.for_topology(Hypercube(2), payload_width=40,
                                       replication=Multicast(1))
    with pytest.raises(ValueError, match="need the generators' multicast group"):
        SelfCheckConfig(router)
