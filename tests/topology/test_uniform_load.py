"""Uniform-traffic channel loads from the structure against every route counted."""

from fractions import Fraction

import numpy as np
import pytest

from cubefab.topology import make_topology
from cubefab.topology.patterns import traffic_matrix
from cubefab.topology.uniform_load import class_walk_steps, uniform_channel_load

from tests.helpers import brute_force_loads


SMALL = [("hypercube", {"n": 1}), ("hypercube", {"n": 4}), ("metacube", {"k": 0, "m": 3}),
         ("metacube", {"k": 1, "m": 1}), ("metacube", {"k": 1, "m": 2}),
         ("metacube", {"k": 2, "m": 1}), ("dlh", {"m": 2, "d": 1}),
         ("dlh", {"m": 3, "d": 2}), ("dlh", {"m": 4, "d": 1})]


def _route_loads(topology):
    return brute_force_loads(topology, traffic_matrix(topology, "uniform"))


@pytest.mark.parametrize("family,params", SMALL)
def test_max_load_equals_every_route_counted(family, params):
    topology = make_topology(family, **params)
    loads = _route_loads(topology)
    result = uniform_channel_load(topology)
    assert result["max_channel_load"] == pytest.approx(loads.max(), rel=1e-12)
    assert result["network_bound"] == pytest.approx(1 / loads.max(), rel=1e-12)


@pytest.mark.parametrize("family,params", SMALL)
def test_each_kind_of_channel_carries_the_stated_load(family, params):
    """Every channel's counted load is one of the kinds' loads, and every kind occurs."""
    topology = make_topology(family, **params)
    counted = set(np.round(_route_loads(topology).ravel(), 9))
    stated = {round(c["load"], 9) for c in uniform_channel_load(topology)["channels"]}
    assert counted == stated


def test_exact_loads_are_fractions_of_the_pairs():
    q = uniform_channel_load(make_topology("hypercube", n=10))
    assert q["max_channel_load_exact"] == "512/1023"
    dual = uniform_channel_load(make_topology("dualcube", m=4))   # B = 16: (3B^2 - 2B)/(2B^2 - 1)
    assert dual["max_channel_load_exact"] == "736/511"


@pytest.mark.parametrize("k", [1, 2, 3])
def test_walks_to_class_0_stand_for_every_target_class(k):
    """Class translations carry the walks to class 0 onto those to any class."""
    every = class_walk_steps(k, every_target=True)
    assert every == tuple(tuple(Fraction(v) for v in row) for row in class_walk_steps(k))


def test_families_without_a_structural_form_give_none():
    assert uniform_channel_load(make_topology("mcube", k=4)) is None
    assert uniform_channel_load(make_topology("metacube", k=1, m=2), "paper") is None


def test_huge_networks_are_exact_at_once():
    mc = uniform_channel_load(make_topology("metacube", k=4, m=4))   # 2^68 nodes
    n = 2 ** 68
    assert mc["max_channel_load_exact"] == str(Fraction(n * 8, n - 1))
