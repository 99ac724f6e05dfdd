"""Flood children unit: the ports a fault-tolerant router copies a broadcast to.

Under faults a broadcast floods one spanning tree of the healthy network
(:mod:`cubefab.topology.fault_broadcast`): a node sends a copy on each of its tree
ports but the one the copy came in on, whatever the source. The tree is the model's
(:func:`~cubefab.topology.fault_broadcast.healthy_tree`), written into the router at
run time as a mask of ``degree`` bits (``tree_ports``), so a fault set changes it
without rebuilding the design. A multicast prunes the flood: a copy leaves on tree port
``p`` only when a member lies beyond it; the nodes beyond each tree port
(:meth:`~cubefab.topology.fault_broadcast.HealthyTree.beyond`) are written too, a bit
vector over the nodes per port (``beyond``). :class:`FloodChildren` turns those
words into the copies of one input port: no topology math is done in hardware.
"""

from amaranth.hdl import Cat, Module
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from .multicast import SUBCUBE, VECTOR
from ...topology.base import Topology, check_int
from ...topology.broadcast_tree import member_vector
from .multicast import MEMBER_MODES


__all__ = ["FloodChildren", "flood_layout", "beyond_vector", "flood_value"]


def flood_layout(topology, multicast=False):
    """The ``lib.data`` layout of a router's flood configuration: ``tree_ports`` (a bit
    per network port) and, with ``multicast``, ``beyond`` (per port, a bit per node in
    dense index order)."""
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    fields = {"tree_ports": topology.degree}
    if multicast:
        fields["beyond"] = data.ArrayLayout(topology.num_nodes, topology.degree)
    return data.StructLayout(fields)


def beyond_vector(tree, node, port):
    """The ``beyond`` word of tree port ``port`` of ``node`` in ``tree`` (a
    :class:`~cubefab.topology.fault_broadcast.HealthyTree`): bit ``i`` set for the node
    of dense index ``i`` on the far side of that link; 0 for a port that is not a tree
    link."""
    topology = tree.topology
    if node not in tree.ports or not tree.ports[node] >> port & 1:
        return 0
    row = [False] * topology.num_nodes
    for v in tree.beyond(node, port):
        row[topology.index(v)] = True
    return int(member_vector(topology, row))


def flood_value(tree, node, multicast=False):
    """The flood configuration of ``node``'s router for ``tree`` (a
    :class:`~cubefab.topology.fault_broadcast.HealthyTree`), a constant of
    :func:`flood_layout`: its tree ports and, with ``multicast``, the nodes beyond
    each (all zero at a faulty node: it sends nothing)."""
    topology = tree.topology
    fields = {"tree_ports": tree.ports.get(node, 0)}
    if multicast:
        fields["beyond"] = [beyond_vector(tree, node, p) for p in range(topology.degree)]
    return flood_layout(topology, multicast).const(fields)


class FloodChildren(wiring.Component):
    """The network ports a copy arriving on ``in_port`` is sent on.

    Parameters
    ----------
    topology : Topology
    in_port : int
        The input port the copies arrive on: a network port, or ``degree`` for the
        injection port (the source sends on every tree port).
    members : None, "subcube" or "vector"
        How a multicast names its members (None: broadcast, no pruning).

    Members
    -------
    flood : In(flood_layout(topology, members is not None))
        The router's flood configuration.
    value, mask : In(topology.address_bits)
        The subcube of members (``"subcube"`` only).
    member_vector : In(topology.num_nodes)
        Bit ``i`` set when the node of dense index ``i`` is a member (``"vector"``
        only).
    children : Out(topology.degree)
        Bit ``p`` set iff ``p`` is a tree port other than ``in_port`` (and, for a
        multicast, a member lies beyond it):
        :meth:`~cubefab.topology.fault_broadcast.HealthyTree.flood_ports` and
        :meth:`~cubefab.topology.fault_broadcast.HealthyTree.multicast_ports`.
    """

    def __init__(self, topology, in_port, members=None):
        if not isinstance(topology, Topology):
            raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
        self.in_port = check_int("Input port", in_port, 0, topology.degree)
        if members is not None and members not in MEMBER_MODES:
            raise ValueError(f"Multicast members must be None or one of "
                             f"{', '.join(MEMBER_MODES)}, not {members!r}")
        self.topology = topology
        self.members = members
        bits = topology.address_bits
        ports = {"flood": In(flood_layout(topology, members is not None))}
        if members == SUBCUBE:
            ports.update(value=In(bits), mask=In(bits))
        elif members == VECTOR:
            ports["member_vector"] = In(topology.num_nodes)
        ports["children"] = Out(topology.degree)
        super().__init__(ports)

    def _member(self, m):
        """The members as a bit vector over the nodes (dense index order)."""
        if self.members == VECTOR:
            return self.member_vector
        nodes = self.topology.nodes().tolist()
        return Cat(((self.value ^ x) & self.mask) == 0 for x in nodes)

    def elaborate(self, platform):
        m = Module()
        degree = self.topology.degree
        ports = self.flood.tree_ports
        if self.in_port < degree:
            ports = ports & ~(1 << self.in_port)
        if self.members is None:
            m.d.comb += self.children.eq(ports)
            return m
        member = self._member(m)
        m.d.comb += self.children.eq(Cat(
            ports[p] & (member & self.flood.beyond[p]).any() for p in range(degree)))
        return m
