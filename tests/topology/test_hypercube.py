"""Hypercube Q(n) with e-cube routing."""

import pytest

from cubefab.topology import Hypercube, properties
from tests.helpers import assert_is_walk, distance_matrix


def test_ports_flip_bits():
    q = Hypercube(4)
    assert q.neighbors(0b1010) == [0b1011, 0b1000, 0b1110, 0b0010]


def test_ecube_ascending_order():
    q = Hypercube(5)
    path = q.route(0b00000, 0b10110)
    assert path == [0b00000, 0b00010, 0b00110, 0b10110]


@pytest.mark.parametrize("n", [1, 3, 4, 6])
def test_properties_binomial(n):
    from math import comb
    p = properties(Hypercube(n))
    assert p["distance_distribution"] == [comb(n, i) for i in range(n + 1)]
    assert p["diameter"] == n and p["links"] == n * 2 ** (n - 1)
    assert p["average_distance_with_self"] == n / 2


def test_ecube_routes_all_pairs_shortest():
    q = Hypercube(5)
    D = distance_matrix(q)
    for s in range(32):
        for t in range(32):
            path = q.route(s, t)
            assert len(path) - 1 == D[s, t] == q.distance(s, t)
    assert_is_walk(q, q.route(3, 28), 3, 28)
