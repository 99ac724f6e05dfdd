"""Adaptive route units: every port an adaptive router may take, and the escape port.

An adaptive route unit is the combinational half of Duato's protocol
(:mod:`cubefab.topology.duato`): for a packet's destination it offers the set of ports
the adaptive VCs may take (:func:`cubefab.topology.adaptive.adaptive_ports`: the minimal
ports, or on the Mcube the ports that progress in the escape's order) as a bit vector,
and the escape port (:func:`cubefab.topology.adaptive.escape_port`) that the escape VCs
follow. The escape port comes from the family's deterministic route unit, built inside;
the offered set is address comparison, as in the deterministic units.
"""

from amaranth.hdl import Cat, Const, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ...topology.adaptive import (adaptive_ports, ecube_as_short_masks, escape_algorithm,
                                  mroute_offered_masks)
from ...topology.base import Topology
from ...topology.dlh import DLH
from ...topology.hypercube import Hypercube
from ...topology.mcube import Mcube
from ...topology.metacube import Metacube
from .dlh import ring_ahead
from .factory import family_unit, route_unit
from .mcube import McubeRoute
from .logic import table_function


__all__ = ["AdaptiveRoute", "HypercubeAdaptiveRoute", "MetacubeAdaptiveRoute",
           "DLHAdaptiveRoute", "McubeAdaptiveRoute", "adaptive_route_unit",
           "ADAPTIVE_UNITS"]


class AdaptiveRoute(wiring.Component):
    """Base of the adaptive route units.

    Parameters
    ----------
    topology : Topology
    node : int or None
        This node's address (a constant), or ``None`` to read it from ``here``.
    algorithm : str or None
        The routing run adaptively (the topology's default when ``None``); the escape
        follows :func:`~cubefab.topology.adaptive.escape_algorithm`.

    Members
    -------
    dest : In(topology.address_bits)
    here : In(topology.address_bits)
        Present only when ``node`` is ``None``.
    offered : Out(topology.degree)
        Bit ``p`` set iff port ``p`` is in :func:`~cubefab.topology.adaptive.adaptive_ports`
        (all clear when ``dest`` is this node).
    escape : Out(topology.port_width)
        The escape port; ``degree`` means deliver locally.

    Outputs are defined for every ``dest`` that is a node of the topology.
    """

    #: The topology class a subclass is built for.
    topology_class = Topology

    def __init__(self, topology, node=None, algorithm=None):
        if not isinstance(topology, self.topology_class):
            raise TypeError(f"Topology must be a {self.topology_class.__name__}, "
                            f"not {topology!r}")
        self.algorithm = topology.check_algorithm(algorithm)
        self.escape_algorithm = escape_algorithm(topology, self.algorithm)
        self.node = None if node is None else topology.check_node(node, "node")
        self.topology = topology
        self.escape_unit = route_unit(topology, self.node, self.escape_algorithm)
        members = {"dest": In(topology.address_bits)}
        if self.node is None:
            members["here"] = In(topology.address_bits)
        members["offered"] = Out(topology.degree)
        members["escape"] = Out(topology.port_width)
        members.update(self.extra_members())
        super().__init__(members)

    def extra_members(self):
        """Members a subclass adds to the signature (none here)."""
        return {}

    def here_value(self):
        """This node's address as a value: the constant ``node`` or the ``here`` input."""
        if self.node is None:
            return self.here
        return Const(self.node, self.topology.address_bits)

    def connect_unit(self, m, name, unit):
        """Add the deterministic route ``unit`` as submodule ``name``, fed our inputs."""
        m.submodules[name] = unit
        m.d.comb += unit.dest.eq(self.dest)
        if self.node is None:
            m.d.comb += unit.here.eq(self.here)

    def elaborate_offered(self, m):
        """Drive ``self.offered`` in ``m``; subclasses implement."""
        raise NotImplementedError

    def elaborate(self, platform):
        m = Module()
        self.connect_unit(m, "escape_route", self.escape_unit)
        m.d.comb += self.escape.eq(self.escape_unit.port)
        self.elaborate_offered(m)
        return m


class HypercubeAdaptiveRoute(AdaptiveRoute):
    """Q(n): every dimension in which ``dest`` differs; escape e-cube."""

    topology_class = Hypercube

    def elaborate_offered(self, m):
        m.d.comb += self.offered.eq(self.dest ^ self.here_value())


class DLHAdaptiveRoute(AdaptiveRoute):
    """DLH(m, d): the differing cube bits, the ring direction(s) that shorten the ring
    distance (both at the tie, ``m`` steps apart, where the codes differ in every bit),
    and the other ring when the ring bits differ; escape dimension-order."""

    topology_class = DLH

    def elaborate_offered(self, m):
        dm, d = self.topology.m, self.topology.d
        here = self.here_value()
        diff = self.dest ^ here
        code_diff = diff[d:d + dm]
        ahead = ring_ahead(here[d:d + dm], code_diff)
        behind = code_diff.any() & (~ahead | code_diff.all())
        m.d.comb += self.offered.eq(Cat(diff[:d], ahead, behind, diff[d + dm]))


class MetacubeAdaptiveRoute(AdaptiveRoute):
    """MC(k, m), ``k <= 3``: the differing bits of the current class's field (cube ports)
    and the cross ports of a function of the mask of differing fields and the destination
    class, one per current class, generated from the reference model's minimal ports."""

    topology_class = Metacube

    def __init__(self, topology, node=None, algorithm=None):
        if isinstance(topology, Metacube) and topology.k > 3:
            raise ValueError(f"MetacubeAdaptiveRoute is built for class dimension k <= 3, "
                             f"not k = {topology.k}")
        super().__init__(topology, node, algorithm)

    def _cross_table(self, c):
        """Cross-port mask by index ``Cat(D, t)`` (``D`` the differing-field mask, ``t``
        the destination class), read from the model at representative addresses."""
        topo = self.topology
        k, h = topo.k, topo.h
        here = topo.with_class(0, c)
        table = []
        for index in range(1 << (h + k)):
            mask, t = index & ((1 << h) - 1), index >> h
            dest = topo.with_class(sum(1 << (i * topo.m) for i in range(h) if mask >> i & 1), t)
            table.append(sum(1 << p for p in adaptive_ports(topo, here, dest, self.algorithm)
                             if p < k))
        return table

    def elaborate_offered(self, m):
        topo = self.topology
        k, mm, h = topo.k, topo.m, topo.h
        here = self.here_value()
        diff = self.dest ^ here
        fields = [diff[i * mm:(i + 1) * mm] for i in range(h)]
        cross = Signal(max(k, 1))
        if k == 0:
            m.d.comb += self.offered.eq(diff)
            return
        select = Cat(*(f.any() for f in fields), self.dest[mm * h:])
        here_class = here[mm * h:]
        field = Signal(mm)
        if self.node is not None:
            c = topo.class_of(self.node)
            table_function(m, cross, select, self._cross_table(c), h + k)
            m.d.comb += field.eq(fields[c])
        else:
            with m.Switch(here_class):
                for c in range(h):
                    with m.Case(c):
                        table_function(m, cross, select, self._cross_table(c), h + k)
            m.d.comb += field.eq(diff[:mm * h].word_select(here_class, mm))
        m.d.comb += self.offered.eq(Cat(cross[:k], field))


class McubeAdaptiveRoute(AdaptiveRoute):
    """k-Mcube: for ``mroute`` every port Mroute could equally take (the model's
    :func:`~cubefab.topology.adaptive.mroute_offered_masks` as a table of ``dest``, of
    ``Cat(dest, here)`` when ``node`` is ``None``; the limits of
    :class:`~cubefab.hdl.route.mcube.McubeRoute`), for ``ecube`` every link of a
    differing address bit; escape e-cube.

    Members
    -------
    ecube_short : Out(1)
        ``mroute`` only: e-cube's route from here to ``dest`` is as short as Mroute's
        (the model's :func:`~cubefab.topology.adaptive.ecube_as_short_masks`, a table
        as ``offered``'s; clear when ``dest`` is this node).
    """

    topology_class = Mcube

    def __init__(self, topology, node=None, algorithm=None):
        super().__init__(topology, node, algorithm)
        if self.algorithm == "mroute":
            McubeRoute.check_parameters(topology, self.algorithm, self.node)

    def extra_members(self):
        return {"ecube_short": Out(1)} if self.algorithm == "mroute" else {}

    def elaborate_offered(self, m):
        if self.algorithm == "ecube":
            m.d.comb += self.offered.eq(self.dest ^ self.here_value())
            return
        bits = self.topology.address_bits
        for target, table in ((self.offered, mroute_offered_masks(self.topology)),
                              (self.ecube_short, ecube_as_short_masks(self.topology))):
            table = table.astype(int)
            if self.node is not None:
                table_function(m, target, self.dest, table[self.node].tolist(), bits)
            else:   # index here << bits | dest: the table row by row
                table_function(m, target, Cat(self.dest, self.here),
                               table.ravel().tolist(), 2 * bits)


#: Adaptive route unit class by topology family name: the units of this module; a
#: family module's ``ADAPTIVE_ROUTE_UNIT`` serves the others
#: (:func:`~cubefab.hdl.route.factory.family_unit`).
ADAPTIVE_UNITS = {
    "hypercube": HypercubeAdaptiveRoute,
    "metacube": MetacubeAdaptiveRoute,
    "dlh": DLHAdaptiveRoute,
    "mcube": McubeAdaptiveRoute,
}


def adaptive_route_unit(topology, node=None, algorithm=None):
    """The adaptive route unit of ``topology``'s family (ValueError for others)."""
    unit_class = ADAPTIVE_UNITS.get(getattr(topology, "name", None))
    if unit_class is None:
        unit_class = family_unit(topology, "ADAPTIVE_ROUTE_UNIT")
    if unit_class is None:
        raise ValueError(f"no adaptive route unit for {topology!r}: no ADAPTIVE_ROUTE_UNIT "
                         f"in cubefab.hdl.route.{getattr(topology, 'name', None)} "
                         f"(docs/extending.md)")
    return unit_class(topology, node, algorithm)
