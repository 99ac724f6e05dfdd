"""Multicast children unit: the broadcast tree's child ports whose subtrees hold a member.

The multicast tree of :func:`~cubefab.topology.broadcast_tree.multicast_tree` keeps a
child port when the child's subtree meets the destination set. :class:`MulticastChildren`
makes that decision for one node (a constant address, or the ``here`` strap): the
members are a bit vector over the nodes (dense index order), given directly
(``"vector"``) or as a subcube ``(value, mask)`` (``"subcube"``: one comparator per
node, ``x & mask == value & mask``); per source (per (here, source) pair with straps),
the subtrees of this node's children are constant bit vectors taken from the model's
trees (:meth:`~cubefab.topology.broadcast_tree.BroadcastTree.subtrees`), and a child
bit is the OR of the members inside its subtree. Sized for small networks.
"""

from amaranth.hdl import Cat, Const, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ...topology.broadcast_tree import broadcast_tree, member_vector
from .broadcast import check_unit


__all__ = ["MulticastChildren", "MEMBER_MODES", "SUBCUBE", "VECTOR"]

#: How a :class:`MulticastChildren` receives the destination set.
SUBCUBE, VECTOR = "subcube", "vector"
MEMBER_MODES = (SUBCUBE, VECTOR)


class MulticastChildren(wiring.Component):
    """Child ports of one node in the multicast tree of a packet.

    Parameters
    ----------
    topology : Topology
        At most :attr:`MAX_NODES` nodes.
    node : int or None
        This node's address, or ``None`` to read it from ``here`` (at most
        :attr:`MAX_ENTRIES` (node, source) pairs).
    members : {"subcube", "vector"}
        How the destination set arrives.

    Members
    -------
    source : In(topology.address_bits)
    here : In(topology.address_bits)
        This node's address; present only when ``node`` is ``None``.
    value, mask : In(topology.address_bits)
        The subcube of members (``"subcube"`` only).
    member_vector : In(topology.num_nodes)
        Bit ``i`` set when the node of dense index ``i`` is a member (``"vector"`` only).
    children : Out(topology.degree)
        Bit ``p`` set iff the neighbour through ``p`` is a child of this node in the
        broadcast tree of ``source`` and its subtree holds a member other than the source
        (:func:`~cubefab.topology.broadcast_tree.multicast_tree`).
    is_member : Out(1)
        Whether ``here`` is a member (``"vector"`` with straps only: with a constant
        node the member bit is a constant index of ``member_vector``).

    Outputs are defined for every ``source`` (and ``here``) that is a node.
    """

    #: Largest network (MC(2,2): 1024 nodes, 312 LUT4 for a subcube unit).
    MAX_NODES = 1024
    #: Most (here, source) pairs of a unit with straps.
    MAX_ENTRIES = 1 << 14

    def __init__(self, topology, node=None, members=SUBCUBE):
        self.check(topology, node, members)
        self.topology = topology
        self.node = None if node is None else topology.check_node(node, "node")
        self.members = members
        bits = topology.address_bits
        ports = {"source": In(bits)}
        if self.node is None:
            ports["here"] = In(bits)
        if members == SUBCUBE:
            ports.update(value=In(bits), mask=In(bits))
        else:
            ports["member_vector"] = In(topology.num_nodes)
        ports["children"] = Out(topology.degree)
        if self.node is None and members == VECTOR:
            ports["is_member"] = Out(1)
        super().__init__(ports)

    @classmethod
    def check(cls, topology, node=None, members=SUBCUBE):
        """Raise TypeError or ValueError if the unit cannot be built (call it first)."""
        if members not in MEMBER_MODES:
            raise ValueError(f"Multicast members must be one of {', '.join(MEMBER_MODES)}, "
                             f"not {members!r}")
        check_unit(cls, topology, node, "holds a subtree vector per source and port")
        if node is None and topology.num_nodes ** 2 > cls.MAX_ENTRIES:
            raise ValueError(f"MulticastChildren with a 'here' input holds "
                             f"{topology.num_nodes ** 2} (node, source) entries, more "
                             f"than {cls.MAX_ENTRIES} (give a constant node)")

    def _member(self, m):
        """The members as a bit vector over the nodes (dense index order)."""
        if self.members == VECTOR:
            return self.member_vector
        nodes = self.topology.nodes().tolist()
        member = Signal(len(nodes))
        for i, x in enumerate(nodes):
            m.d.comb += member[i].eq(((self.value ^ x) & self.mask) == 0)
        return member

    def elaborate(self, platform):
        m = Module()
        member = self._member(m)
        if self.node is None:
            self._strapped(m, member)
            return m
        topo = self.topology
        n = topo.num_nodes
        nodes = topo.nodes().tolist()
        here = topo.index(self.node)
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

    def _strapped(self, m, member):
        """With straps: per port, the subtree vector of the child through it in the
        tree of ``source``, looked up by ``Cat(source, here)`` (the same model rows as a
        constant node's); a child bit is its subtree meeting the members."""
        topo = self.topology
        n, bits = topo.num_nodes, topo.address_bits
        nodes = topo.nodes().tolist()
        rows = [{} for _ in range(topo.degree)]     # per port: {vector: keys}
        for s in nodes:
            tree = broadcast_tree(topo, s)
            inside = tree.subtrees()
            for here, kids in zip(nodes, tree.children.tolist()):
                for p in range(topo.degree):
                    if int(kids) >> p & 1:
                        row = inside[topo.index(topo.neighbor(here, p))].copy()
                        row[topo.index(s)] = False
                        vector = int(member_vector(topo, row))
                        rows[p].setdefault(vector, []).append(s | here << bits)
        for p, groups in enumerate(rows):
            subtree = Signal(n, name=f"subtree{p}")
            with m.Switch(Cat(self.source, self.here)):
                for vector, keys in sorted(groups.items()):
                    if vector:
                        with m.Case(*keys):
                            m.d.comb += subtree.eq(vector)
            m.d.comb += self.children[p].eq((member & subtree) != 0)
        if self.members == VECTOR:
            with m.Switch(self.here):
                for i, x in enumerate(nodes):
                    with m.Case(x):
                        m.d.comb += self.is_member.eq(member[i])
