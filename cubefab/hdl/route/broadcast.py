"""Broadcast children units: the output ports a router copies a broadcast packet to.

The broadcast tree of a source (:mod:`cubefab.topology.broadcast_tree`) hangs every node
on its next hop towards the source under the family's tree routing, so the children of
``here`` are the neighbours ``w`` whose route decision towards the source points back
at ``here``. :class:`BroadcastChildren` builds exactly that: one route unit of the tree
routing per network port, evaluated at the neighbour's address with the packet's source
as destination, and port ``p`` is a child when that unit requests the inverse port of
``p``. The units are the proven route units of :mod:`cubefab.hdl.route`; the neighbour
addresses are constants for a unit of one node, and with address straps
(``node=None``) the XOR of ``here`` with a small table of the model's neighbour offsets
(indexed by the address bits that are not translations). No topology math is re-derived.

:class:`TableBroadcastChildren` looks the children up per source (per (here, source)
pair with straps) in the model's trees; it serves any family and is the Mcube's unit,
whose tree routing (lowest minimal port by BFS distances) is a table itself.
"""

from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

import numpy as np

from ...topology.base import Topology
from ...topology.broadcast_tree import back_ports, broadcast_tree, tree_algorithm
from ...topology.deadlock import translation_mask
from .factory import route_unit
from .logic import table_function


__all__ = ["BroadcastChildren", "TableBroadcastChildren", "broadcast_children_unit",
           "check_unit"]


def check_unit(cls, topology, node, why):
    """The checks every broadcast, multicast and one-port unit class ``cls`` makes: a
    topology of a family with a tree routing and at most ``cls.MAX_NODES`` nodes (``why``
    says what the limit is for), ``node`` one of its nodes (or None)."""
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    tree_algorithm(topology)
    if topology.num_nodes > cls.MAX_NODES:
        raise ValueError(f"{cls.__name__} {why}; it is built for at most {cls.MAX_NODES} "
                         f"nodes, not {topology.num_nodes}")
    if node is not None:
        topology.check_node(node, "node")


class _ChildrenUnit(wiring.Component):
    """Members and checks shared by the children units.

    Parameters
    ----------
    topology : Topology
    node : int or None
        This node's address (a constant), or ``None`` to read it from ``here``.

    Members
    -------
    source : In(topology.address_bits)
        Source address of the broadcast packet.
    here : In(topology.address_bits)
        This node's address; present only when ``node`` is ``None``.
    children : Out(topology.degree)
        Bit ``p`` set iff the neighbour through port ``p`` is a child of this node in the
        broadcast tree of ``source`` (all clear at the leaves).

    Outputs are defined for every ``source`` (and ``here``) that is a node.
    """

    #: Most nodes of a network a unit of this class is built for.
    MAX_NODES = 1 << 20

    def __init__(self, topology, node=None):
        self.check(topology, node)
        self.algorithm = tree_algorithm(topology)
        self.topology = topology
        self.node = None if node is None else topology.check_node(node, "node")
        bits = topology.address_bits
        members = {"source": In(bits)}
        if self.node is None:
            members["here"] = In(bits)
        members["children"] = Out(topology.degree)
        super().__init__(members)

    @classmethod
    def check(cls, topology, node=None):
        """Raise TypeError or ValueError if a unit of this class cannot be built for
        ``topology`` and ``node`` (call it before building one)."""
        check_unit(cls, topology, node, "is built")


class BroadcastChildren(_ChildrenUnit):
    """The children of a node as route decisions of its neighbours (see the module text).

    For the families whose tree routing is one of their routing algorithms (hypercube
    ``ecube``, metacube ``minimal``, DLH ``dimension-order``); members as in
    :class:`TableBroadcastChildren`.
    """

    @classmethod
    def check(cls, topology, node=None):
        super().check(topology, node)
        algorithm = tree_algorithm(topology)
        if algorithm not in topology.algorithms:
            raise ValueError(f"{topology.label}'s tree routing {algorithm!r} has no route "
                             f"unit; use TableBroadcastChildren")

    def _neighbour_offsets(self, port):
        """(R bit positions, table of ``neighbour(u, port) ^ u`` indexed by u's R bits)."""
        topo = self.topology
        rest = ((1 << topo.address_bits) - 1) & ~translation_mask(topo)
        positions = [b for b in range(topo.address_bits) if rest >> b & 1]
        nodes = topo.nodes()
        offset = topo.neighbor_array(nodes, port) ^ nodes
        key = np.zeros(len(nodes), dtype=np.int64)
        for i, b in enumerate(positions):
            key |= ((nodes >> b) & 1) << i
        table = np.zeros(1 << len(positions), dtype=np.int64)
        table[key] = offset
        if not np.array_equal(table[key], offset):      # pragma: no cover - model check
            raise ValueError(f"{topo.label}: neighbour offsets are not translation-invariant")
        return positions, table.tolist()

    def elaborate(self, platform):
        m = Module()
        topo = self.topology
        bits = topo.address_bits
        back = back_ports(topo)
        for p in range(topo.degree):
            if self.node is not None:
                unit = route_unit(topo, topo.neighbor(self.node, p), self.algorithm)
            else:
                unit = route_unit(topo, None, self.algorithm)
                positions, table = self._neighbour_offsets(p)
                offset = Signal(bits, name=f"offset{p}")
                if positions:
                    select = Cat(*[self.here[b] for b in positions])
                    table_function(m, offset, select, table, len(positions))
                else:
                    m.d.comb += offset.eq(table[0])
                m.d.comb += unit.here.eq(self.here ^ offset)
            m.submodules[f"neighbour{p}"] = unit
            m.d.comb += [unit.dest.eq(self.source),
                         self.children[p].eq(unit.request[back[p]])]
        return m


class TableBroadcastChildren(_ChildrenUnit):
    """The children looked up in the model's broadcast trees: one ``Switch`` on
    ``source`` (on ``Cat(source, here)`` with straps) whose cases are the sources grouped
    by children mask. Serves any family; sized for small networks."""

    MAX_NODES = 1 << 12
    #: Most (here, source) entries of a unit with straps.
    MAX_ENTRIES = 1 << 14

    @classmethod
    def check(cls, topology, node=None):
        super().check(topology, node)
        if node is None and topology.num_nodes ** 2 > cls.MAX_ENTRIES:
            raise ValueError(f"TableBroadcastChildren with a 'here' input holds "
                             f"{topology.num_nodes ** 2} entries, more than "
                             f"{cls.MAX_ENTRIES} (give a constant node)")

    def elaborate(self, platform):
        m = Module()
        topo = self.topology
        bits = topo.address_bits
        nodes = topo.nodes().tolist()
        groups = {}
        for s in nodes:
            masks = broadcast_tree(topo, s).children
            heres = nodes if self.node is None else [self.node]
            for here in heres:
                mask = int(masks[topo.index(here)])
                key = s | (here << bits) if self.node is None else s
                groups.setdefault(mask, []).append(key)
        select = self.source if self.node is not None else Cat(self.source, self.here)
        with m.Switch(select):
            for mask, keys in sorted(groups.items()):
                if mask:
                    with m.Case(*keys):
                        m.d.comb += self.children.eq(mask)
        return m


def broadcast_children_unit(topology, node=None):
    """The children unit for ``topology``: :class:`BroadcastChildren` when the family's
    tree routing has a route unit, else :class:`TableBroadcastChildren`."""
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    cls = (BroadcastChildren if tree_algorithm(topology) in topology.algorithms
           else TableBroadcastChildren)
    cls.check(topology, node)           # before a unit is made and refused
    return cls(topology, node)
