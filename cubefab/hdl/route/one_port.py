"""One-port send order unit: which neighbour a node sends a broadcast to, and when.

In the one-port model (:func:`~cubefab.topology.broadcast_tree.one_port_tree`) a node
sends one copy per step, following the paper's schedule. :class:`OnePortSends` gives,
for one node (a constant address, or the ``here`` strap), the packet's ``source`` and
the number ``index`` of the copy (0 for the node's first send), the port of that copy
and the schedule step it belongs to; ``port == degree`` once the node has sent all its
copies. The entries are the model's schedules as constant logic (one ``Switch`` on
``Cat(index, source)``, on ``Cat(index, source, here)`` with straps): the papers'
sender choice depends on the source's class as well as on the relative address
(docs/broadcast.md), so it is tabulated, not re-derived.
"""

from amaranth.hdl import Cat, Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ...topology.broadcast_tree import one_port_sends
from .broadcast import check_unit


__all__ = ["OnePortSends"]


class OnePortSends(wiring.Component):
    """The one-port sends of one node.

    Parameters
    ----------
    topology : Topology
        At most :attr:`MAX_NODES` nodes.
    node : int or None
        This node's address, or ``None`` to read it from ``here`` (the schedules of
        every node, at most :attr:`MAX_ENTRIES` (node, source) pairs).

    Members
    -------
    source : In(topology.address_bits)
    here : In(topology.address_bits)
        This node's address; present only when ``node`` is ``None``.
    index : In(range(max_sends + 1))
        Which of the node's sends (0 first).
    port : Out(topology.port_width)
        Port of that send, ``degree`` when there is none.
    step : Out(range(num_steps + 1))
        Its step of the schedule (from 1; 0 when there is none).
    children : Out(topology.degree)
        A bit per port the node sends to for ``source`` (whatever ``index``): its
        children in the one-port tree.

    ``max_sends`` and ``num_steps`` (attributes) are the most sends of this node (of
    any node with straps) and the most steps of a schedule, over all sources. Outputs
    are defined for every ``source`` (and ``here``) that is a node.
    """

    MAX_NODES = 1024
    #: Most (here, source) pairs of a unit with straps.
    MAX_ENTRIES = 1 << 14

    def __init__(self, topology, node=None):
        self.check(topology, node)
        self.topology = topology
        self.node = None if node is None else topology.check_node(node, "node")
        nodes = topology.nodes().tolist()
        bits = topology.address_bits
        #: ``{key: the node's sends for the source}``, ``key`` the source (with straps
        #: ``source | here << address_bits``)
        self.sends = {s: list(one_port_sends(topology, s, self.node)) for s in nodes} \
            if self.node is not None else \
            {s | h << bits: list(one_port_sends(topology, s, h)) for h in nodes for s in nodes}
        self.max_sends = max(len(v) for v in self.sends.values())
        self.num_steps = max((step for v in self.sends.values() for step, _ in v), default=0)
        super().__init__({
            "source": In(bits),
            **({"here": In(bits)} if self.node is None else {}),
            "index": In(range(self.max_sends + 1)),
            "port": Out(topology.port_width),
            "step": Out(range(self.num_steps + 1)),
            "children": Out(topology.degree),
        })

    @classmethod
    def check(cls, topology, node=None):
        """Raise TypeError or ValueError if the unit cannot be built (call it first)."""
        check_unit(cls, topology, node, "tabulates every source's schedule")
        if node is None and topology.num_nodes ** 2 > cls.MAX_ENTRIES:
            raise ValueError(f"OnePortSends with a 'here' input holds "
                             f"{topology.num_nodes ** 2} (node, source) schedules, more "
                             f"than {cls.MAX_ENTRIES} (give a constant node)")

    def elaborate(self, platform):
        m = Module()
        degree = self.topology.degree
        width = len(self.index)
        source = self.source if self.node is not None else Cat(self.source, self.here)
        groups = {}
        for s, sends in self.sends.items():
            for i, (step, port) in enumerate(sends):
                groups.setdefault((port, step), []).append(i | (s << width))
        m.d.comb += [self.port.eq(degree), self.step.eq(0)]
        with m.Switch(Cat(self.index, source)):
            for (port, step), keys in sorted(groups.items()):
                with m.Case(*keys):
                    m.d.comb += [self.port.eq(port), self.step.eq(step)]
        masks = {}
        for s, sends in self.sends.items():
            masks.setdefault(sum(1 << port for _, port in sends), []).append(s)
        with m.Switch(source):
            for mask, keys in sorted(masks.items()):
                if mask:
                    with m.Case(*keys):
                        m.d.comb += self.children.eq(mask)
        return m
