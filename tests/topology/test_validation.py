"""Bad parameters and addresses raise TypeError/ValueError naming the valid range."""

import pytest
from hypothesis import given, strategies as st

from cubefab.topology import Hypercube, Metacube, DLH, make_topology


@pytest.mark.parametrize("ctor,args,exc,match", [
    (Metacube, (-1, 2), ValueError, "k must be an integer >= 0"),
    (Metacube, (1, 0), ValueError, "m must be an integer >= 1"),
    (Metacube, (1.5, 2), TypeError, "must be an integer"),
    (Metacube, (True, 2), TypeError, "must be an integer"),
    (Metacube, (4, 64), ValueError, "at most 1024"),
    (DLH, (1, 2), ValueError, "m must be an integer >= 2"),
    (DLH, (4, 0), ValueError, "d must be an integer >= 1"),
    (DLH, ("4", 1), TypeError, "must be an integer"),
    (Hypercube, (0,), ValueError, r"n must be an integer in \[1, 62\]"),
])
def test_bad_parameters(ctor, args, exc, match):
    with pytest.raises(exc, match=match):
        ctor(*args)


def test_address_out_of_range_names_range():
    with pytest.raises(ValueError, match=r"must be in \[0, 31\] for MC\(1,2\)"):
        Metacube(1, 2).neighbors(32)


def test_dlh_non_node_word():
    with pytest.raises(ValueError, match="is not a node of DLH.*Johnson code"):
        DLH(4, 3).route(0, 0b0_0101_000)


def test_address_type():
    with pytest.raises(TypeError, match="integer node address"):
        Hypercube(3).neighbors("1")


def test_unknown_algorithm():
    with pytest.raises(ValueError, match="algorithm must be one of minimal, paper"):
        Metacube(1, 2).route(0, 1, algorithm="xy")


def test_paper_needs_src_header():
    mc = Metacube(1, 2)
    with pytest.raises(TypeError, match="needs header field 'src'"):
        mc.next_port(0, 5, "paper")
    with pytest.raises(TypeError, match="reads no header field src"):
        mc.next_port(0, 5, "minimal", src=0)


def test_unknown_family():
    with pytest.raises(ValueError, match="topology must be one of"):
        make_topology("torus", n=3)


@given(st.integers(min_value=-10, max_value=1 << 12))
def test_dlh_check_node_accepts_exactly_the_nodes(a):
    dlh = DLH(4, 3)
    valid = set(dlh.nodes().tolist())
    if a in valid:
        assert dlh.check_node(a) == a
    else:
        with pytest.raises(ValueError):
            dlh.check_node(a)


@given(st.integers(0, 3), st.integers(1, 3), st.integers(0, 1 << 20), st.integers(0, 1 << 20))
def test_metacube_next_port_in_range(k, m, a, b):
    mc = Metacube(k, m)
    a %= mc.num_nodes
    b %= mc.num_nodes
    p = mc.next_port(a, b)
    assert 0 <= p <= mc.degree and (p == mc.degree) == (a == b)


def _family_parameters():
    from cubefab.topology.catalog import FAMILIES
    return [(name, p) for name, (_, parameters) in FAMILIES.items() for p in parameters]


@pytest.mark.parametrize("family, parameter", _family_parameters(),
                         ids=lambda x: x if isinstance(x, str) else x.name)
def test_each_parameter_range_is_exactly_what_the_model_builds(family, parameter):
    """The range the command line states (and checks) for a parameter, the others at
    their lowest: both ends are networks, one past either end is refused."""
    from cubefab.topology.catalog import FAMILIES, make_topology
    lowest = {p.name: p.lo for p in FAMILIES[family][1]}
    for value in (parameter.lo, parameter.hi):
        make_topology(family, **dict(lowest, **{parameter.name: value}))
    for value in (parameter.lo - 1, parameter.hi + 1):
        with pytest.raises(ValueError):
            make_topology(family, **dict(lowest, **{parameter.name: value}))


def test_a_parameter_out_of_range_states_the_range_it_must_lie_in(cli):
    for value in ("-1", "0", "63"):
        r = cli("info", "hypercube", "-n", value)
        assert r.status == 2
        assert r.err == f"error: argument -n: must be an integer from 1 to 62, not '{value}'\n"
