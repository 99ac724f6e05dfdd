"""E-cube route unit of the hypercube."""

from ...topology.hypercube import Hypercube
from .base import RouteUnit
from .logic import first_true


__all__ = ["HypercubeRoute"]


class HypercubeRoute(RouteUnit):
    """E-cube routing of :class:`~cubefab.topology.hypercube.Hypercube` as logic.

    Parameters
    ----------
    topology : Hypercube
    node : int or None
        This node's address, or ``None`` to read it from the ``here`` input.
    algorithm : str or None
        ``"ecube"`` (the only one).

    The port is the lowest dimension in which ``dest`` and this node differ, or
    ``degree`` when they are equal; see :class:`RouteUnit` for the members.
    """

    topology_class = Hypercube

    def elaborate_port(self, m):
        n = self.topology.n
        # the differing bits, in ascending dimension order, feed a priority encoder
        diff = self.dest ^ self.here_value()
        m.d.comb += self.port.eq(first_true([(diff[j], j) for j in range(n)], n))


#: The route unit of the family (found by :func:`~cubefab.hdl.route.factory.route_unit`).
ROUTE_UNIT = HypercubeRoute
