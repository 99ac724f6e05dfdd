"""Adaptive route units against the adaptive routing model, in the Amaranth simulator."""

import pytest
from amaranth.hdl import Elaboratable, Fragment, Module, Signal
from amaranth.sim import Simulator

from cubefab.hdl.route.adaptive import (DLHAdaptiveRoute, HypercubeAdaptiveRoute,
                                        McubeAdaptiveRoute, MetacubeAdaptiveRoute,
                                        adaptive_route_unit)
from cubefab.topology import DLH, Hypercube, Mcube, Metacube
from cubefab.topology.adaptive import adaptive_ports, ecube_as_short_masks, escape_port

from tests.helpers import never_elaborated, refused


SMALL = [(Hypercube(4), None), (Metacube(1, 1), None), (Metacube(1, 2), None),
         (Metacube(2, 1), None), (DLH(2, 1), None), (DLH(3, 2), None),
         (Mcube(4), "mroute"), (Mcube(5), "mroute"), (Mcube(5), "ecube")]


def _id(case):
    return getattr(case, "label", str(case))


class _Bank(Elaboratable):
    """Constant-address units of every node side by side on one ``dest``."""

    def __init__(self, topology, algorithm):
        self.units = [adaptive_route_unit(topology, int(a), algorithm)
                      for a in topology.nodes()]
        self.dest = Signal(topology.address_bits)

    def elaborate(self, platform):
        m = Module()
        for i, unit in enumerate(self.units):
            m.submodules[f"unit{i}"] = unit
            m.d.comb += unit.dest.eq(self.dest)
        return m


def _simulate(topology, algorithm, straps, members=("offered", "escape")):
    """``{(here, dest): (offered mask, escape port)}`` for every pair of nodes (the
    values of ``members``)."""
    nodes = [int(a) for a in topology.nodes()]
    out = {}
    top = adaptive_route_unit(topology, None, algorithm) if straps else _Bank(topology, algorithm)

    async def bench(ctx):
        for dest in nodes:
            ctx.set(top.dest, dest)
            if straps:
                for here in nodes:
                    ctx.set(top.here, here)
                    out[here, dest] = tuple(ctx.get(getattr(top, n)) for n in members)
            else:
                for here, unit in zip(nodes, top.units):
                    out[here, dest] = tuple(ctx.get(getattr(unit, n)) for n in members)

    sim = Simulator(top)
    sim.add_testbench(bench)
    sim.run()
    return out


def _assert_model(topology, algorithm, simulated):
    wrong = []
    for (here, dest), (offered, escape) in simulated.items():
        want = (sum(1 << p for p in adaptive_ports(topology, here, dest, algorithm)),
                escape_port(topology, here, dest, algorithm))
        if (offered, escape) != want:
            wrong.append(((here, dest), (offered, escape), want))
    assert not wrong, f"{len(wrong)} of {len(simulated)} differ: {wrong[:6]}"


@pytest.mark.parametrize("topology,algorithm", SMALL, ids=_id)
def test_straps_unit_equals_model_for_every_pair(topology, algorithm):
    simulated = _simulate(topology, algorithm, straps=True)
    assert len(simulated) == topology.num_nodes ** 2
    _assert_model(topology, algorithm, simulated)


@pytest.mark.parametrize("topology,algorithm", SMALL[1:6:2] + SMALL[7:8], ids=_id)
def test_constant_node_units_equal_model(topology, algorithm):
    _assert_model(topology, algorithm, _simulate(topology, algorithm, straps=False))


@pytest.mark.parametrize("topology,straps", [(Mcube(4), True), (Mcube(5), True),
                                             (Mcube(4), False)], ids=_id)
def test_mcube_mroute_units_flag_where_ecube_is_as_short_for_every_pair(topology, straps):
    short = ecube_as_short_masks(topology)
    simulated = _simulate(topology, "mroute", straps, members=("ecube_short",))
    wrong = [pair for pair, (got,) in simulated.items() if got != short[pair]]
    assert len(simulated) == topology.num_nodes ** 2 and short.any()
    assert not wrong, f"{len(wrong)} of {len(simulated)} differ: {wrong[:6]}"


@pytest.mark.parametrize("topology,unit_class", [
    (Hypercube(3), HypercubeAdaptiveRoute), (Metacube(1, 1), MetacubeAdaptiveRoute),
    (DLH(2, 1), DLHAdaptiveRoute), (Mcube(3), McubeAdaptiveRoute)], ids=_id)
def test_factory_picks_the_family_unit(topology, unit_class):
    unit = adaptive_route_unit(topology, 0)
    Fragment.get(unit, None)
    assert type(unit) is unit_class
    extra = {"ecube_short"} if unit_class is McubeAdaptiveRoute else set()  # (Mroute)
    assert set(unit.signature.members.keys()) == {"dest", "offered", "escape"} | extra
    with never_elaborated():
        assert "ecube_short" not in adaptive_route_unit(Mcube(3), 0, "ecube").signature.members


def test_unit_refuses_a_source_reading_escape_and_large_metacubes():
    with pytest.raises(ValueError, match="reads src"):
        adaptive_route_unit(Metacube(1, 2), 0, "paper")
    with pytest.raises(ValueError, match="k <= 3"):
        MetacubeAdaptiveRoute(Metacube(4, 1), 0)
    with refused(TypeError, match="Topology must be a DLH"):
        DLHAdaptiveRoute(Hypercube(3), 0)
