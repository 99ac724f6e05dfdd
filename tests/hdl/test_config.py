"""RouterConfig and FabricConfig: checked when made, defaults from the topology."""

import dataclasses

import pytest

from cubefab.hdl.config import FabricConfig, RouterConfig
from cubefab.topology import DLH, Hypercube, Metacube
from cubefab.topology.deadlock import DeadlockError, required_vcs


def test_the_defaults_come_from_the_topology():
    config = RouterConfig.for_topology(DLH(2, 1), vcs_per_class=2)
    assert config.algorithm == DLH(2, 1).algorithms[0]
    assert config.vcs == 2 * required_vcs(DLH(2, 1)) and config.vc_classes == 2
    assert (config.depth, config.payload_width, config.buffer, config.turns) == \
        (4, 16, "registers", "reference")


def test_a_config_is_frozen_and_compares_by_value():
    config = RouterConfig.for_topology(Hypercube(2), payload_width=8)
    assert config == RouterConfig(Hypercube(2), algorithm="ecube", vcs=1, payload_width=8)
    assert hash(config) == hash(RouterConfig.for_topology(Hypercube(2), payload_width=8))
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.depth = 2


def test_the_layout_follows_the_parameters():
    config = RouterConfig.for_topology(Metacube(1, 2), payload_width=12, vcs=3)
    assert config.layout.size == 1 + 1 + 2 + 5 + 5 + 12


def test_as_dict_lists_the_parameters():
    assert RouterConfig.for_topology(Hypercube(2)).as_dict() == {
        "algorithm": "ecube", "vcs": 1, "depth": 4, "payload_width": 16,
        "vcs_per_class": 1, "buffer": "registers", "turns": "reference", "adaptive_vcs": 0,
        "fault_waypoints": 0}


@pytest.mark.parametrize("parameters, error, message", [
    ({"depth": 0}, ValueError, "Buffer depth"),
    ({"depth": 2.0}, TypeError, "Buffer depth must be an integer, not 2.0"),
    ({"payload_width": 0}, ValueError, "Payload width"),
    ({"buffer": "bram"}, ValueError, "Buffer must be one of 'registers', 'memory', "
                                     "not 'bram'"),
    ({"turns": "some"}, ValueError, "Turns must be one of 'reference', 'all'"),
    ({"vcs_per_class": 3}, ValueError, "per class must be a power of two, not 3"),
    ({"vcs": 3, "vcs_per_class": 2}, ValueError, "multiple of vcs_per_class = 2, not 3"),
    ({"vcs": 0}, ValueError, "Number of virtual channels"),
    ({"algorithm": "xy"}, ValueError, "algorithm must be one of ecube"),
])
def test_bad_parameters_are_refused(parameters, error, message):
    with pytest.raises(error, match=message):
        RouterConfig.for_topology(Hypercube(2), **parameters)


def test_a_config_needs_a_topology_and_an_algorithm():
    with pytest.raises(TypeError, match="Topology must be a cubefab Topology, not 'Q3'"):
        RouterConfig.for_topology("Q3")
    with pytest.raises(TypeError, match="Algorithm .* not None"):
        RouterConfig(Hypercube(2), algorithm=None, vcs=1)


def test_a_fabric_config_proves_deadlock_freedom():
    with pytest.raises(DeadlockError, match="dependency cycle"):
        FabricConfig.for_topology(Metacube(1, 1), vcs=1)
    unchecked = FabricConfig.for_topology(Metacube(1, 1), vcs=1, check_deadlock=False)
    assert unchecked.topology == Metacube(1, 1) and unchecked.router.vcs == 1


def test_a_fabric_config_holds_a_router_config():
    with pytest.raises(TypeError, match="must be a RouterConfig, not"):
        FabricConfig(Hypercube(2))
    with pytest.raises(TypeError, match="Deadlock check must be a bool, not 1"):
        FabricConfig(RouterConfig.for_topology(Hypercube(2)), check_deadlock=1)
