"""Route units of the metacube (and so of the dual-cube): ``minimal`` and ``paper``."""

from amaranth.hdl import Cat, Signal

from ...topology.classwalk import walk_successors
from ...topology.metacube import Metacube
from .base import RouteUnit
from .logic import first_true, table_function


__all__ = ["MetacubeRoute"]


class MetacubeRoute(RouteUnit):
    """Metacube routing of :class:`~cubefab.topology.metacube.Metacube` as logic.

    Parameters
    ----------
    topology : Metacube
        MC(k, m); ``minimal`` needs ``k <= 3``, ``paper`` ``k <= 4``.
    node : int or None
        This node's address, or ``None`` to read it from the ``here`` input.
    algorithm : str or None
        ``"minimal"`` (default) or ``"paper"`` (reads the ``src`` input).

    While the field ``M_c`` of this node's class ``c`` differs from the destination's,
    the port is the cube-edge of its lowest differing bit. Otherwise it is the
    cross-edge chosen by a class-walk function: for ``minimal`` a function of the mask
    of differing fields and the destination class, generated from
    ``Metacube.class_walk_table()``; for ``paper`` a function of the source and
    destination classes, generated from the successors on ``Metacube.walk``. The port
    is ``degree`` when ``dest`` is this node. See :class:`RouteUnit` for the members.
    """

    topology_class = Metacube

    @classmethod
    def check_parameters(cls, topology, algorithm, node):
        # the class-walk functions are tabulated: 2**(2**k - 1 + k) entries per class for
        # minimal, 2**(2k) for paper
        limit = 3 if algorithm == "minimal" else 4
        if topology.k > limit:
            raise ValueError(f"MetacubeRoute {algorithm} is built for class dimension "
                             f"k <= {limit}, not k = {topology.k}")

    # -- tables from the reference model ---------------------------------------------

    def _minimal_walk(self, c):
        """Cross port (or ``degree`` on arrival) by index ``Cat(D without bit c, t)``."""
        topo = self.topology
        k, h = topo.k, topo.h
        step = topo.class_walk_table()
        table = []
        for index in range(1 << (h - 1 + k)):
            rest = index & ((1 << (h - 1)) - 1)
            t = index >> (h - 1)
            low = rest & ((1 << c) - 1)
            mask = low | ((rest ^ low) << 1)              # re-insert bit c as 0
            entry = int(step[mask, c, t])
            table.append(topo.degree if entry == 255 else entry)
        return table

    def _paper_walk(self, c):
        """Cross port by index ``Cat(cs, ct)``, as ``Metacube._next_port`` takes it once
        field ``c`` is fixed (port 0 off the walk, as the reference does)."""
        topo = self.topology
        k = topo.k
        table = []
        for index in range(1 << (2 * k)):
            cs, ct = index & ((1 << k) - 1), index >> k
            successor = walk_successors(topo.walk(cs, ct))
            table.append((c ^ successor[c]).bit_length() - 1 if c in successor else 0)
        return table

    # -- logic -----------------------------------------------------------------------

    def elaborate_port(self, m):
        topo = self.topology
        k, mm, h = topo.k, topo.m, topo.h
        here = self.here_value()
        diff = self.dest ^ here
        fields = [diff[i * mm:(i + 1) * mm] for i in range(h)]
        dest_class = self.dest[mm * h:]
        here_class = here[mm * h:]

        constant_class = self.node is not None or k == 0
        if constant_class:
            c = 0 if self.node is None else topo.class_of(self.node)
            field = fields[c]
        else:
            field = diff[:mm * h].word_select(here_class, mm)

        # The class walk: a function of few bits (the fields' OR-reductions and classes),
        # one per current class c, generated from the reference model's tables.
        walk_port = Signal(topo.port_width)

        def emit_walk(c):
            if k == 0:
                m.d.comb += walk_port.eq(topo.degree)
            elif self.algorithm == "minimal":
                others = Cat(*(fields[i].any() for i in range(h) if i != c))
                table_function(m, walk_port, Cat(others, dest_class), self._minimal_walk(c),
                               h - 1 + k)
            else:
                table_function(m, walk_port, Cat(self.src[mm * h:], dest_class),
                               self._paper_walk(c), 2 * k)

        if constant_class:
            emit_walk(c)
        else:
            with m.Switch(here_class):
                for ci in range(h):
                    with m.Case(ci):
                        emit_walk(ci)

        choices = [(field[j], k + j) for j in range(mm)]
        if self.algorithm == "paper" and k > 0:
            # the paper walk table has no arrival entry: deliver when nothing differs
            choices.append((diff.any(), walk_port))
            m.d.comb += self.port.eq(first_true(choices, topo.degree))
        else:
            m.d.comb += self.port.eq(first_true(choices, walk_port))


#: The route unit of the family (found by :func:`~cubefab.hdl.route.factory.route_unit`).
ROUTE_UNIT = MetacubeRoute
