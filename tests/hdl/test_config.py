"""RouterConfig and FabricConfig: checked when made, defaults from the topology."""

import dataclasses

import pytest

from cubefab.hdl.config import (AUTO_MEMORY_DEPTH, BLOCK_RAMS, BUFFERS, FabricConfig,
                                RouterConfig, block_rams_per_buffer)
from cubefab.hdl.fifo import memory_fifo_logic, memory_lut_ram_head_fifo_logic
from cubefab.topology import DLH, Hypercube, Metacube
from cubefab.topology.deadlock import DeadlockError, required_vcs


def test_the_defaults_come_from_the_topology():
    config = RouterConfig.for_topology(DLH(2, 1), vcs_per_class=2)
    assert config.algorithm == DLH(2, 1).algorithms[0]
    assert config.vcs == 2 * required_vcs(DLH(2, 1)) and config.vc_classes == 2
    assert (config.depth, config.payload_width, config.buffer, config.turns) == \
        (4, 16, "auto", "reference")


def test_a_config_is_frozen_and_compares_by_value():
    config = RouterConfig.for_topology(Hypercube(2), payload_width=8)
    assert config == RouterConfig(Hypercube(2), algorithm="ecube", vcs=1, payload_width=8)
    assert hash(config) == hash(RouterConfig.for_topology(Hypercube(2), payload_width=8))
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.depth = 2
    assert config.depth == 4 and config == RouterConfig.for_topology(Hypercube(2),
                                                                     payload_width=8)


def test_the_layout_follows_the_parameters():
    config = RouterConfig.for_topology(Metacube(1, 2), payload_width=12, vcs=3)
    assert config.layout.size == 1 + 1 + 2 + 5 + 5 + 12


def test_as_dict_lists_the_parameters():
    assert RouterConfig.for_topology(Hypercube(2)).as_dict() == {
        "algorithm": "ecube", "vcs": 1, "depth": 4, "payload_width": 16,
        "vcs_per_class": 1, "buffer": "memory", "turns": "reference", "adaptive_vcs": 0,
        "fault_waypoints": 0, "buffer_auto": True}


def test_as_dict_names_a_given_buffer_as_given():
    doc = RouterConfig.for_topology(Hypercube(2), buffer="registers").as_dict()
    assert (doc["buffer"], doc["buffer_auto"]) == ("registers", False)


@pytest.mark.parametrize("parameters, error, message", [
    ({"depth": 0}, ValueError, "Buffer depth"),
    ({"depth": 2.0}, TypeError, "Buffer depth must be an integer, not 2.0"),
    ({"payload_width": 0}, ValueError, "Payload width"),
    ({"buffer": "bram"}, ValueError, "Buffer must be one of 'auto', 'registers', "
                                     "'memory', 'distributed', not 'bram'"),
    ({"routers": 0}, ValueError, "Number of routers"),
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


# The "auto" buffer rule (RouterConfig.auto_buffer).

def test_auto_is_the_default_buffer_and_is_resolved_in_the_config():
    config = RouterConfig.for_topology(Hypercube(4), payload_width=6)
    assert config.buffer == "auto" and config.buffer_auto
    assert config.storage == "memory"     # 5 block RAMs, 4-flit buffers


def test_a_given_buffer_is_kept():
    for buffer in BUFFERS:
        config = RouterConfig.for_topology(Hypercube(4), buffer=buffer, depth=1)
        assert config.storage == buffer and not config.buffer_auto


def test_block_ram_buffers_keep_their_routes_in_lut_ram_where_the_part_has_it():
    config = RouterConfig.for_topology(Hypercube(4), buffer="memory")
    assert config.buffer_logic is memory_fifo_logic   # the iCE40: no LUT RAM
    assert dataclasses.replace(config, distributed_depth=3).buffer_logic \
        is memory_lut_ram_head_fifo_logic
    for buffer in ("registers", "distributed"):
        assert dataclasses.replace(config, buffer=buffer, distributed_depth=3) \
            .buffer_logic is BUFFERS[buffer]


def test_auto_keeps_shallow_buffers_in_registers():
    assert RouterConfig.for_topology(Hypercube(4), depth=AUTO_MEMORY_DEPTH - 1).storage \
        == "registers"
    assert RouterConfig.for_topology(Hypercube(4), depth=AUTO_MEMORY_DEPTH).storage \
        == "memory"


def test_auto_keeps_buffers_in_registers_when_the_block_rams_do_not_fit():
    config = RouterConfig.for_topology(Hypercube(4), payload_width=6)   # 5 each
    assert dataclasses.replace(config, routers=BLOCK_RAMS // 5).storage == "memory"
    assert dataclasses.replace(config, routers=BLOCK_RAMS // 5 + 1).storage == "registers"


def test_auto_sizes_for_the_block_ram_budget_it_is_given():
    config = RouterConfig.for_topology(Hypercube(4), payload_width=6)   # 5 each
    assert dataclasses.replace(config, routers=3, block_ram_budget=15).storage == "memory"
    assert dataclasses.replace(config, routers=3, block_ram_budget=14).storage \
        == "registers"
    assert config.block_ram_budget == BLOCK_RAMS == 32   # the iCE40 HX8K's SB_RAM40_4K
    assert "block_ram_budget" not in config.as_dict()
    assert dataclasses.replace(config, block_ram_budget=16).as_dict()["block_ram_budget"] \
        == 16


def test_a_negative_block_ram_budget_is_refused():
    with pytest.raises(ValueError, match="Block RAM budget"):
        RouterConfig.for_topology(Hypercube(2), block_ram_budget=-1)


def test_block_rams_count_a_memory_per_buffered_input_vc():
    # MC(1,2): 3 links x 2 VCs + the local port; 29-bit flits take two 256 x 16 RAMs
    config = RouterConfig.for_topology(Metacube(1, 2), payload_width=16)
    assert config.layout.size == 29 and config.block_rams == 7 * 2


@pytest.mark.parametrize("width, depth, rams", [
    (0, 4, 0), (16, 4, 1), (17, 4, 2), (16, 256, 1), (16, 257, 2), (8, 512, 1),
    (4, 1024, 1), (2, 2048, 1), (3, 1024, 1), (8, 1024, 2)])
def test_block_rams_per_buffer_takes_the_best_shape(width, depth, rams):
    assert block_rams_per_buffer(width, depth) == rams


def test_auto_chooses_again_when_a_parameter_changes():
    config = RouterConfig.for_topology(Hypercube(4))
    assert dataclasses.replace(config, depth=2).storage == "registers"
    assert dataclasses.replace(config, buffer="memory", depth=2).storage == "memory"


def test_a_fabric_counts_the_block_rams_of_every_router():
    # Q(2), 22-bit flits: 3 buffers x 2 RAMs x 4 routers = 24 <= 32
    small = FabricConfig.for_topology(Hypercube(2))
    assert small.router.routers == 4 and small.router.storage == "memory"
    # Q(3): 4 x 2 x 8 = 64 > 32
    assert FabricConfig.for_topology(Hypercube(3)).router.storage == "registers"


def test_a_fabric_keeps_a_given_buffer():
    assert FabricConfig.for_topology(Hypercube(3), buffer="memory").router.storage == \
        "memory"
