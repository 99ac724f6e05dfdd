"""One-port send order unit: which neighbour a node sends a broadcast to, and when.

In the one-port model (:func:`~cubefab.topology.broadcast_tree.one_port_tree`) a node
sends one copy per step, following the paper's schedule. :class:`OnePortSends` gives,
for one node (a constant address), the packet's ``source`` and the number ``index`` of
the copy (0 for the node's first send), the port of that copy and the schedule step it
belongs to; ``port == degree`` once the node has sent all its copies. The entries are
the model's schedules as constant logic (one ``Switch`` on ``Cat(index, source)``):
the papers' sender choice depends on the source's class as well as on the relative
address (docs/broadcast.md), so it is tabulated, not re-derived.
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
    node : int
        This node's address.

    Members
    -------
    source : In(topology.address_bits)
    index : In(range(max_sends + 1))
        Which of the node's sends (0 first).
    port : Out(topology.port_width)
        Port of that send, ``degree`` when there is none.
    step : Out(range(num_steps + 1))
        Its step of the schedule (from 1; 0 when there is none).
    children : Out(topology.degree)
        A bit per port the node sends to for ``source`` (whatever ``index``): its
        children in the one-port tree.

    ``max_sends`` and ``num_steps`` (attributes) are the most sends of this node and the
    most steps of a schedule, over all sources. Outputs are defined for every
    ``source`` that is a node.
    """

    MAX_NODES = 1024

    def __init__(self, topology, node):
        self.check(topology, node)
        self.topology = topology
        self.node = topology.check_node(node, "node")
        self.sends = {s: list(one_port_sends(topology, s, self.node))
                      for s in topology.nodes().tolist()}
        self.max_sends = max(len(v) for v in self.sends.values())
        self.num_steps = max((step for v in self.sends.values() for step, _ in v), default=0)
        super().__init__({
            "source": In(topology.address_bits),
            "index": In(range(self.max_sends + 1)),
            "port": Out(topology.port_width),
            "step": Out(range(self.num_steps + 1)),
            "children": Out(topology.degree),
        })

    @classmethod
    def check(cls, topology, node):
        """Raise TypeError or ValueError if the unit cannot be built (call it first)."""
        if node is None:
            raise TypeError("OnePortSends needs a constant node address, not None")
        check_unit(cls, topology, node, "tabulates every source's schedule")

    def elaborate(self, platform):
        m = Module()
        degree = self.topology.degree
        width = len(self.index)
        groups = {}
        for s, sends in self.sends.items():
            for i, (step, port) in enumerate(sends):
                groups.setdefault((port, step), []).append(i | (s << width))
        m.d.comb += [self.port.eq(degree), self.step.eq(0)]
        with m.Switch(Cat(self.index, self.source)):
            for (port, step), keys in sorted(groups.items()):
                with m.Case(*keys):
                    m.d.comb += [self.port.eq(port), self.step.eq(step)]
        masks = {}
        for s, sends in self.sends.items():
            masks.setdefault(sum(1 << port for _, port in sends), []).append(s)
        with m.Switch(self.source):
            for mask, keys in sorted(masks.items()):
                if mask:
                    with m.Case(*keys):
                        m.d.comb += self.children.eq(mask)
        return m
