"""Buffered broadcast replication under mixed unicast + broadcast load, in a packet-level
model (tests/topology/replication_model.py): the proven VC counts drain with zero lost,
duplicated or misdelivered copies; too few VCs deadlock."""

import pytest

from cubefab.topology import DLH, Hypercube, Mcube, Metacube
from cubefab.topology.broadcast_deadlock import required_broadcast_vcs
from cubefab.topology.deadlock import required_vcs
from tests.topology.replication_model import run_mixed_load


def algorithm_of(topology):
    return "ecube" if isinstance(topology, Mcube) else None


def proven(topology, **load):
    algorithm = algorithm_of(topology)
    return run_mixed_load(topology, required_vcs(topology, algorithm),
                          required_broadcast_vcs(topology), algorithm=algorithm, **load)


def assert_clean(result):
    assert not result["deadlock"], result
    assert result["lost"] == result["duplicated"] == result["misdelivered"] == 0, result


@pytest.mark.parametrize("topology", [Hypercube(4), Metacube(1, 2), DLH(2, 2), Mcube(4)],
                         ids=lambda t: t.label)
def test_proven_configuration_drains_mixed_load_intact(topology):
    result = proven(topology, rate=0.3, fraction=0.2, cycles=200)
    assert_clean(result)
    assert result["injected"] > 500 and result["copies"] > result["injected"]


@pytest.mark.slow
@pytest.mark.parametrize("topology", [Metacube(2, 1), DLH(3, 2), Mcube(6), Hypercube(6)],
                         ids=lambda t: t.label)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_proven_configuration_drains_heavy_mixed_load(topology, seed):
    assert_clean(proven(topology, rate=0.6, fraction=0.3, cycles=300, seed=seed))


@pytest.mark.parametrize("topology", [Metacube(1, 2), DLH(2, 2), Mcube(4)],
                         ids=lambda t: t.label)
def test_one_broadcast_vc_too_few_deadlocks_under_load(topology):
    # the witness cycles of test_broadcast_deadlock.py, met in traffic
    assert required_broadcast_vcs(topology) > 1
    algorithm = algorithm_of(topology)
    result = run_mixed_load(topology, required_vcs(topology, algorithm), 1,
                            algorithm=algorithm, rate=0.6, fraction=0.5, cycles=300, seed=0)
    assert result["deadlock"] and result["lost"] > 0


def test_the_guides_example_run():
    """docs/broadcast.md's example: MC(1,2) at 0.3 packets per node and cycle, 20 %
    broadcasts, 300 cycles, delivers its 2892 packets as 20832 copies, all intact."""
    result = proven(Metacube(1, 2), rate=0.3, fraction=0.2, cycles=300)
    assert_clean(result)
    assert (result["injected"], result["copies"]) == (2892, 20832)
