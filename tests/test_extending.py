"""docs/extending.md's two recipes, followed by a test: a new family and a new router
mode built in test-local code alone (no product file edited), then elaborated,
simulated self-checking in the Amaranth engine and proved deadlock-free."""

import gc
import warnings
from dataclasses import dataclass

import numpy as np
import pytest
from amaranth.hdl import UnusedElaboratable

from cubefab.hdl.config import RouterConfig, deadlock_proof
from cubefab.hdl.modes import Deterministic, Routing
from cubefab.hdl.router import Router
from cubefab.hdl.router.route_stage import DeterministicStage, LookaheadStage
from cubefab.hdl.selfcheck import SelfCheckConfig
from cubefab.sim.run_spec import Engine, Schedule, SelfCheckRun, Stimulus
from cubefab.sim.selfcheck_run import run_selfcheck
from cubefab.topology.base import Parameter, Topology, check_int
from cubefab.topology import catalog
from cubefab.topology.catalog import make_topology


class Complete(Topology):
    """The recipe's family: the complete graph K(2^k), port ``p`` of node ``x`` to
    ``x ^ (p + 1)``; every route is one hop (one VC class)."""

    name = "complete"
    title = "the complete graph"
    parameters = [Parameter("k", "k", "address bits", 1, 4)]
    algorithms = ("direct",)

    def __init__(self, k):
        self.k = check_int("Complete graph address bits k", k, 1, 4)
        self.address_bits = self.k
        self.num_nodes = 1 << self.k
        self.degree = self.num_nodes - 1

    @property
    def params(self):
        return {"k": self.k}

    @property
    def label(self):
        return f"K({self.num_nodes})"

    def neighbor_array(self, addresses, port):
        return np.asarray(addresses, dtype=np.int64) ^ (port + 1)

    def _next_port(self, here, dest, algorithm):
        return (here ^ dest) - 1

    def paper_values(self):
        return {}


@dataclass(frozen=True)
class EveryTurn(Routing):
    """The recipe's mode: deterministic routing whose routers connect every turn (the
    route stages, deadlock proof and checks of deterministic routing, asked of the
    part)."""

    kind = "every-turn"

    @property
    def fields(self):
        return {"routing": self.kind}   # (tells its designs apart in keys and caches)

    def route_stage(self, hop):
        return LookaheadStage() if hop == "lookahead" else DeterministicStage()

    def turns(self, topology, node, algorithm):
        return None   # every turn


def _short_run(config):
    """A short self-checking run of a fabric of ``config`` routers, in Amaranth."""
    design = SelfCheckConfig(config, packet_flits=2)
    return run_selfcheck(SelfCheckRun(design, Schedule(40, drain=120),
                                      Stimulus(rate=0.2, seed=3), engine=Engine("amaranth")))


def _assert_clean(result):
    assert result["ok"], result
    assert result["delivered"] > 0
    for check in ("misrouted", "lost", "duplicated", "reordered", "errors", "corrupted"):
        assert result[check] == 0, (check, result)


@pytest.fixture
def complete(monkeypatch):
    """K(4), its family in the catalog for the test (the recipe's catalog line)."""
    monkeypatch.setitem(catalog.FAMILIES, Complete.name, (Complete, Complete.parameters))
    return make_topology("complete", k=2)


def test_a_new_family_builds_simulates_and_is_proved(complete):
    config = RouterConfig.for_topology(complete, payload_width=40, depth=4)
    assert deadlock_proof(config).deadlock_free
    _assert_clean(_short_run(config))


def test_a_new_mode_builds_simulates_and_is_proved():
    config = RouterConfig.for_topology(make_topology("hypercube", n=2), routing=EveryTurn(),
                                       hop="lookahead", payload_width=40, depth=4)
    assert deadlock_proof(config).deadlock_free
    _assert_clean(_short_run(config))


def test_the_new_mode_has_its_own_key():
    # (the Verilator engine caches its builds by the key)
    q2 = make_topology("hypercube", n=2)
    ours, theirs = (SelfCheckConfig(RouterConfig.for_topology(q2, routing=routing,
                                                              payload_width=40)).key()
                    for routing in (EveryTurn(), Deterministic()))
    assert ours == {**theirs, "routing": "every-turn"}


def _connected_turns(routing):
    """The turns the router of node 0 of Q(2) connects with ``routing`` (the router
    is made and dropped unelaborated)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnusedElaboratable)
        router = Router(RouterConfig.for_topology(make_topology("hypercube", n=2),
                                                  routing=routing), 0)
        turns = sum(map(len, router._outputs()))
        del router
        gc.collect()
    return turns


def test_the_new_mode_changes_the_router():
    # every turn connected: more crossbar inputs than a deterministic router's, so
    # the test mode is not the existing one renamed
    assert _connected_turns(EveryTurn()) > _connected_turns(Deterministic())
