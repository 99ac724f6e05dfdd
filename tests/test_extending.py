"""docs/extending.md's two recipes, followed by a test: a new family and new router
modes built in test-local code alone (no product file edited), then elaborated,
simulated self-checking in the Amaranth engine (and in Verilator, where the mode's
reference rule is its own) and proved deadlock-free."""

import gc
import warnings
from dataclasses import dataclass

import numpy as np
import pytest
from amaranth.hdl import C, Module, Signal, UnusedElaboratable

from cubefab.hdl.config import RouterConfig, deadlock_proof
from cubefab.hdl.modes import Deterministic, Routing
from cubefab.hdl.router import Router
from cubefab.hdl.route import RouteUnit
from cubefab.hdl.router.route_stage import DeterministicStage, LookaheadStage
from cubefab.hdl.selfcheck import SelfCheckConfig
from cubefab.sim.run_spec import Engine, Schedule, SelfCheckRun, Stimulus
from cubefab.sim.selfcheck_run import run_selfcheck
from cubefab.topology.base import Parameter, Topology, check_int
from cubefab.topology import catalog
from cubefab.topology.catalog import make_topology
from cubefab.topology.deadlock import flow_lane
from tests.sim.engine_helpers import needs_verilator, same_results


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


class HighestFirstUnit(RouteUnit):
    """The hardware of the recipe's mode with a rule of its own: on a hypercube, the
    highest dimension in which ``dest`` differs from ``here`` first (e-cube's
    reverse)."""

    def elaborate(self, platform):
        m = Module()
        topology = self.topology
        diff = self.dest ^ self.here_value()
        port = Signal(topology.port_width, init=topology.degree)
        for bit in range(topology.address_bits):   # (the last, the highest, wins)
            with m.If(diff[bit]):
                m.d.comb += port.eq(bit)
        m.d.comb += [self.port.eq(port), self.request.eq(C(1, topology.degree + 1) << port)]
        return m


class HighestFirstStage(DeterministicStage):
    """Its route stage: a deterministic stage of its own unit."""

    make_unit = HighestFirstUnit


#: The C++ of its rule (Verilator), a header the rule names: ``route_allowed`` from
#: fabric.h's tables (``ADDRESS``) and flit.h's ``flow_lane``.
HIGHEST_FIRST_CXX = """#pragma once
#include <cstdint>
#include "flit.h"
static bool route_allowed(int node, int port, const Flit& f) {
    const uint32_t diff = ADDRESS[node] ^ f.dest;
    if (!diff) return false;
    const int bit = HIGHEST_FIRST_LOWEST ? __builtin_ctz(diff) : 31 - __builtin_clz(diff);
    return port == bit && f.vc == flow_lane(f.src, f.dest);
}
"""


class HighestFirstRule:
    """Its reference rule: a flit may take only the highest differing dimension
    (``lowest``: a deliberately wrong rule, e-cube's lowest), on its flow's lane of
    VC class 0."""

    def __init__(self, vcs_per_class, cxx_rule, lowest=False):
        self.vcs_per_class, self.cxx_rule, self.lowest = vcs_per_class, cxx_rule, lowest

    def allows(self, here, port, flit):
        diff = here ^ flit.dest
        bit = (diff & -diff).bit_length() - 1 if self.lowest else diff.bit_length() - 1
        return bool(diff) and port == bit \
            and flit.vc == flow_lane(flit.src, flit.dest, self.vcs_per_class)

    def cxx_constants(self):
        return [("bool", "HIGHEST_FIRST_LOWEST", self.lowest)]


@dataclass(frozen=True)
class HighestFirst(Routing):
    """The recipe's mode whose legal hops are new: hypercube routers that route the
    highest differing dimension first, checked by a reference rule of its own
    (``header``: the path of its C++; ``lowest``: check it by the wrong rule)."""

    header: str = ""
    lowest: bool = False
    kind = "highest-first"

    @property
    def fields(self):
        return {"routing": self.kind, **({"rule": "lowest"} if self.lowest else {})}

    def route_stage(self, hop):
        return HighestFirstStage()

    def turns(self, topology, node, algorithm):
        return None   # (its turns are no e-cube turns)

    def reference(self, router, routings=None):
        return HighestFirstRule(router.vcs_per_class, self.header, self.lowest)


@pytest.fixture
def highest_first(tmp_path):
    """``highest_first(lowest=False)``: the mode, its C++ rule written in ``tmp_path``."""
    header = tmp_path / "highest_first_rule.h"
    header.write_text(HIGHEST_FIRST_CXX)
    return lambda lowest=False: HighestFirst(str(header), lowest)


def _short_run(config, engine="amaranth"):
    """A short self-checking run of a fabric of ``config`` routers, in ``engine``."""
    design = SelfCheckConfig(config, packet_flits=2)
    return run_selfcheck(SelfCheckRun(design, Schedule(40, drain=120),
                                      Stimulus(rate=0.2, seed=3), engine=Engine(engine)))


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


def _highest_first_config(routing):
    return RouterConfig.for_topology(make_topology("hypercube", n=2), routing=routing,
                                     payload_width=40, depth=4)


def test_a_mode_with_a_rule_of_its_own_passes_its_checks(highest_first):
    _assert_clean(_short_run(_highest_first_config(highest_first())))


def test_its_routes_are_new_so_the_wrong_rule_sees_them_misrouted(highest_first):
    # (checked by e-cube's rule, the deterministic routing's, its flits are misrouted
    # wherever the two orders differ: the rule is what the check follows)
    result = _short_run(_highest_first_config(highest_first(lowest=True)))
    assert result["misrouted"] > 0 and not result["ok"]


@pytest.mark.slow   # (two Verilator builds)
@needs_verilator
def test_verilator_checks_by_the_modes_own_cxx_rule(verilator_cache, highest_first):
    right = _highest_first_config(highest_first())
    left, theirs = same_results(_short_run(right), _short_run(right, "verilator"))
    assert left == theirs
    _assert_clean(theirs)
    wrong = _short_run(_highest_first_config(highest_first(lowest=True)), "verilator")
    assert wrong["misrouted"] > 0 and not wrong["ok"]
