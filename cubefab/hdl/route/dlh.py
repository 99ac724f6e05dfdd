"""Dimension-order route unit of the double-loop hypercube."""

from amaranth.hdl import Cat

from ...topology.dlh import DLH
from .base import RouteUnit
from .logic import first_true


__all__ = ["DLHRoute", "ring_ahead"]


def ring_ahead(code, code_diff):
    """Whether the destination lies 1..m ring steps ahead (the successor way; m is the
    tie), from this node's Johnson ``code`` and ``code_diff``, the XOR of the two codes.

    The Johnson code embeds the ring C_2m isometrically in the m-cube: the codes of two
    positions differ in a cyclic run of bits, one bit per ring step between them. A
    successor step flips exactly one code bit; the destination is ahead iff that bit is
    in the run, otherwise 1..m-1 steps behind (predecessor).
    """
    dm = len(code)
    successor_code = Cat(~code[dm - 1], code[:dm - 1])   # shift up, complement enters
    return (code_diff & (code ^ successor_code)).any()


class DLHRoute(RouteUnit):
    """Dimension-order routing of :class:`~cubefab.topology.dlh.DLH` as logic.

    Parameters
    ----------
    topology : DLH
    node : int or None
        This node's address, or ``None`` to read it from the ``here`` input.
    algorithm : str or None
        ``"dimension-order"`` (the only one).

    The port follows ``DLH.next_port``: the lowest differing hypercube bit, else the
    ring direction (successor when the destination's position is 1..m steps ahead,
    predecessor otherwise), else the other ring, else ``degree``. The ring direction
    is read straight from the Johnson codes, without decoding ring positions.
    """

    topology_class = DLH

    def elaborate_port(self, m):
        dm, d = self.topology.m, self.topology.d
        here = self.here_value()
        diff = self.dest ^ here
        cube_diff = diff[:d]
        code_diff = diff[d:d + dm]
        ring_diff = diff[d + dm]
        # the ring direction straight from the Johnson codes (see ring_ahead)
        ahead = ring_ahead(here[d:d + dm], code_diff)
        choices = [(cube_diff[j], j) for j in range(d)]
        choices += [(ahead, d), (code_diff.any(), d + 1), (ring_diff, d + 2)]
        m.d.comb += self.port.eq(first_true(choices, d + 3))


#: The route unit of the family (found by :func:`~cubefab.hdl.route.factory.route_unit`).
ROUTE_UNIT = DLHRoute
