"""Router turn sets equal the turns of every reference route, walked hop by hop."""

import pytest

from cubefab.topology import DLH, Hypercube, Mcube, Metacube
from cubefab.topology.turns import inverse_ports, router_turns

CASES = [(Hypercube(3), None), (Hypercube(4), None), (Metacube(1, 1), "minimal"),
         (Metacube(1, 1), "paper"), (Metacube(2, 1), "paper"), (Metacube(1, 2), None),
         (DLH(2, 1), None), (DLH(3, 1), None), (Mcube(4), None)]


def walked_turns(topology, algorithm):
    """{node: set of (input port, output port)} from topology.route of every pair."""
    local = topology.degree
    turns = {int(a): {(local, local)} for a in topology.nodes()}
    for s in topology.nodes():
        for t in topology.nodes():
            path = topology.route(int(s), int(t), algorithm)
            inp = local
            for i, here in enumerate(path):
                out = topology.port(here, path[i + 1]) if i + 1 < len(path) else local
                turns[here].add((inp, out))
                if i + 1 < len(path):
                    inp = topology.port(path[i + 1], here)
    return turns


@pytest.mark.parametrize("topology,algorithm", CASES,
                         ids=lambda c: getattr(c, "label", str(c)))
def test_turns_equal_the_walked_routes(topology, algorithm):
    walked = walked_turns(topology, algorithm)
    for node, turns in walked.items():
        assert router_turns(topology, node, algorithm) == turns, node
    assert router_turns(topology, None, algorithm) == set().union(*walked.values())


def test_ecube_turns_go_up_the_dimensions():
    local = 4
    assert router_turns(Hypercube(4)) == (
        {(p, o) for p in range(4) for o in range(p + 1, 4)}
        | {(p, local) for p in range(5)} | {(local, o) for o in range(4)})


def test_inverse_ports_of_dlh_swap_successor_and_predecessor():
    topo = DLH(2, 1)
    assert inverse_ports(topo) == (0, 2, 1, 3)


def test_turns_check_their_arguments():
    with pytest.raises(TypeError, match="Topology"):
        router_turns("Q3")
    with pytest.raises(ValueError, match="not a node"):
        router_turns(DLH(3, 1), 0b101 << 1)
