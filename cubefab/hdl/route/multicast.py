"""Multicast children unit: the broadcast tree's child ports whose subtrees hold a member.

The multicast tree of :func:`~cubefab.topology.broadcast_tree.multicast_tree` keeps a
child port when the child's subtree meets the destination set. :class:`MulticastChildren`
makes that decision for one node (a constant address): the members are a bit vector
over the nodes (dense index order), given directly (``"vector"``) or as a subcube
``(value, mask)`` (``"subcube"``: one comparator per node, ``x & mask == value & mask``);
per source, the subtrees of this node's children are constant bit vectors taken from
the model's trees (:meth:`~cubefab.topology.broadcast_tree.BroadcastTree.subtrees`), and
a child bit is the OR of the members inside its subtree. Sized for small networks.
"""

from amaranth.hdl import Const, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ...topology.broadcast_tree import broadcast_tree, member_vector
from .broadcast import check_unit


__all__ = ["MulticastChildren", "MEMBER_MODES"]

#: How a :class:`MulticastChildren` receives the destination set.
MEMBER_MODES = ("subcube", "vector")


class MulticastChildren(wiring.Component):
    """Child ports of one node in the multicast tree of a packet.

    Parameters
    ----------
    topology : Topology
        At most :attr:`MAX_NODES` nodes.
    node : int
        This node's address.
    members : {"subcube", "vector"}
        How the destination set arrives.

    Members
    -------
    source : In(topology.address_bits)
    value, mask : In(topology.address_bits)
        The subcube of members (``"subcube"`` only).
    member_vector : In(topology.num_nodes)
        Bit ``i`` set when the node of dense index ``i`` is a member (``"vector"`` only).
    children : Out(topology.degree)
        Bit ``p`` set iff the neighbour through ``p`` is a child of this node in the
        broadcast tree of ``source`` and its subtree holds a member other than the source
        (:func:`~cubefab.topology.broadcast_tree.multicast_tree`).

    Outputs are defined for every ``source`` that is a node.
    """

    #: Largest network (MC(2,2): 1024 nodes, 312 LUT4 for a subcube unit).
    MAX_NODES = 1024

    def __init__(self, topology, node, members="subcube"):
        self.check(topology, node, members)
        self.topology = topology
        self.node = topology.check_node(node, "node")
        self.members = members
        bits = topology.address_bits
        ports = {"source": In(bits)}
        if members == "subcube":
            ports.update(value=In(bits), mask=In(bits))
        else:
            ports["member_vector"] = In(topology.num_nodes)
        ports["children"] = Out(topology.degree)
        super().__init__(ports)

    @classmethod
    def check(cls, topology, node, members="subcube"):
        """Raise TypeError or ValueError if the unit cannot be built (call it first)."""
        if members not in MEMBER_MODES:
            raise ValueError(f"Multicast members must be one of {', '.join(MEMBER_MODES)}, "
                             f"not {members!r}")
        if node is None:
            raise TypeError("MulticastChildren needs a constant node address, not None")
        check_unit(cls, topology, node, "holds a subtree vector per source and port")

    def elaborate(self, platform):
        m = Module()
        topo = self.topology
        n = topo.num_nodes
        nodes = topo.nodes().tolist()
        here = topo.index(self.node)
        if self.members == "subcube":
            member = Signal(n)
            for i, x in enumerate(nodes):
                m.d.comb += member[i].eq(((self.value ^ x) & self.mask) == 0)
        else:
            member = self.member_vector
        with m.Switch(self.source):
            for s in nodes:
                tree = broadcast_tree(topo, s)
                inside = tree.subtrees()
                kids = int(tree.children[here])
                if not kids:
                    continue
                with m.Case(s):
                    for p in range(topo.degree):
                        if kids >> p & 1:
                            w = topo.index(topo.neighbor(self.node, p))
                            # the source is never a member of its own multicast
                            row = inside[w].copy()
                            row[topo.index(s)] = False
                            vector = member_vector(topo, row)
                            m.d.comb += self.children[p].eq((member & Const(vector, n)) != 0)
        return m
