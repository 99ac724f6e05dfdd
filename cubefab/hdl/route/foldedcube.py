"""Fold-then-e-cube route unit of the folded hypercube."""

from amaranth.hdl import Cat, Const, Mux

from ...topology.foldedcube import FoldedCube
from .adaptive import AdaptiveRoute
from .base import RouteUnit
from .logic import first_true


__all__ = ["FoldedCubeRoute", "FoldedCubeAdaptiveRoute"]


def _differing(unit):
    """``(dest ^ here, its population count)`` of a route unit of FQ(n)."""
    diff = unit.dest ^ unit.here_value()
    return diff, sum(diff[j] for j in range(unit.topology.n))


class FoldedCubeRoute(RouteUnit):
    """``fold-ecube`` routing of :class:`~cubefab.topology.foldedcube.FoldedCube` as
    logic.

    Parameters
    ----------
    topology : FoldedCube
    node : int or None
        This node's address, or ``None`` to read it from the ``here`` input.
    algorithm : str or None
        ``"fold-ecube"`` (the only one).

    The port is the complement port ``n`` when ``dest`` and this node differ in at
    least the model's ``fold_distance`` bits (a population count of the XOR compared
    with that constant), else the lowest differing dimension, else ``degree``; see
    :class:`RouteUnit` for the members.
    """

    topology_class = FoldedCube

    def elaborate_port(self, m):
        n = self.topology.n
        diff, differing = _differing(self)
        fold = differing >= self.topology.fold_distance
        choices = [(fold, n)] + [(diff[j], j) for j in range(n)]
        m.d.comb += self.port.eq(first_true(choices, n + 1))


class FoldedCubeAdaptiveRoute(AdaptiveRoute):
    """FQ(n): the minimal ports (the differing dimensions when the cube way is shorter;
    the complement and the equal dimensions when the complement way is; every port at
    the model's ``equal_distance``); escape ``fold-ecube``."""

    topology_class = FoldedCube

    def elaborate_offered(self, m):
        topo = self.topology
        diff, differing = _differing(self)
        fold = differing >= topo.fold_distance
        equal = (Const(0, 1) if topo.equal_distance is None
                 else differing == topo.equal_distance)
        m.d.comb += self.offered.eq(Mux(equal, (1 << topo.degree) - 1,
                                        Mux(fold, Cat(~diff, Const(1, 1)),
                                            Cat(diff, Const(0, 1)))))


#: The route units of the family (found by :func:`~cubefab.hdl.route.factory.route_unit`
#: and :func:`~cubefab.hdl.route.adaptive.adaptive_route_unit`).
ROUTE_UNIT = FoldedCubeRoute
ADAPTIVE_ROUTE_UNIT = FoldedCubeAdaptiveRoute
