"""Fold-then-e-cube route unit of the folded hypercube."""

from ...topology.foldedcube import FoldedCube
from .base import RouteUnit
from .logic import first_true


__all__ = ["FoldedCubeRoute"]


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
        diff = self.dest ^ self.here_value()
        differing = sum(diff[j] for j in range(n))     # population count
        fold = differing >= self.topology.fold_distance
        choices = [(fold, n)] + [(diff[j], j) for j in range(n)]
        m.d.comb += self.port.eq(first_true(choices, n + 1))


#: The route unit of the family (found by :func:`~cubefab.hdl.route.factory.route_unit`).
ROUTE_UNIT = FoldedCubeRoute
