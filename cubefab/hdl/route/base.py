"""The route-unit interface and the table-driven unit every topology can use."""

from amaranth.hdl import Module, Const, Cat
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ...topology.base import Topology


__all__ = ["RouteUnit", "TableRoute"]


class RouteUnit(wiring.Component):
    """Base of the route units.

    Parameters
    ----------
    topology : Topology
        The network; its ``next_port`` is the reference this unit must equal.
    node : int or None
        Address of the node whose router this unit serves (a constant that synthesis
        folds), or ``None`` to take it from the ``here`` input (address straps).
    algorithm : str or None
        Routing algorithm (the topology's default when ``None``).

    Members
    -------
    dest : In(topology.address_bits)
        Destination address of the packet.
    src : In(topology.address_bits)
        Source address; present only when the algorithm reads it (metacube ``paper``).
    here : In(topology.address_bits)
        This node's address; present only when ``node`` is ``None``.
    port : Out(topology.port_width)
        Output port, numbered as in docs/conventions.md; ``degree`` means deliver locally.
    request : Out(topology.degree + 1)
        One-hot form of ``port`` (bit ``p`` set iff ``port == p``).

    The outputs are defined for every ``dest`` (and ``src``) that is a node of the
    topology; for other words they are unspecified but one-hot ``request`` stays
    consistent with ``port``.
    """

    #: The topology class a subclass is built for (any :class:`Topology` here).
    topology_class = Topology

    def __init__(self, topology, node=None, algorithm=None):
        self.node, self.algorithm = self.check(topology, node, algorithm)
        self.topology = topology
        self.needs_src = "src" in topology.header_fields.get(self.algorithm, ())
        bits = topology.address_bits
        members = {"dest": In(bits)}
        if self.needs_src:
            members["src"] = In(bits)
        if self.node is None:
            members["here"] = In(bits)
        members["port"] = Out(topology.port_width)
        members["request"] = Out(topology.degree + 1)
        super().__init__(members)

    def here_value(self):
        """This node's address as a value: the constant ``node`` or the ``here`` input."""
        if self.node is None:
            return self.here
        return Const(self.node, self.topology.address_bits)

    @classmethod
    def check(cls, topology, node=None, algorithm=None):
        """Check the parameters of a unit of this class before it is built: returns
        ``(node, algorithm)`` (the topology's default algorithm for ``None``), or
        raises TypeError or ValueError saying what is wrong."""
        if not isinstance(topology, cls.topology_class):
            raise TypeError(f"Topology must be a {cls.topology_class.__name__}, "
                            f"not {topology!r}")
        algorithm = topology.check_algorithm(algorithm)
        cls.check_parameters(topology, algorithm, node)
        return None if node is None else topology.check_node(node, "node"), algorithm

    @classmethod
    def check_parameters(cls, topology, algorithm, node):
        """Raise ValueError if a unit of this class cannot be built for ``topology``,
        ``algorithm`` and ``node``; subclasses with limits override it."""

    def elaborate_port(self, m):
        """Drive ``self.port`` (combinationally) in module ``m``; subclasses implement."""
        raise NotImplementedError

    def elaborate(self, platform):
        m = Module()
        self.elaborate_port(m)
        # the one-hot request vector is derived from the port number in one place
        for p in range(self.topology.degree + 1):
            m.d.comb += self.request[p].eq(self.port == p)
        return m


class TableRoute(RouteUnit):
    """A route unit that looks the port up in a table built from ``next_port``:
    one entry per destination (per (source, destination) pair when the algorithm
    reads the source, per (here, destination) pair when ``node`` is ``None``).

    This is how generic NoC generators route custom topologies; it serves any
    topology and is the baseline the logic units are measured against. Its size
    grows with the number of nodes, so it is meant for small networks.
    """

    def elaborate_port(self, m):
        topo = self.topology
        bits = topo.address_bits
        nodes = [int(a) for a in topo.nodes()]
        heres = nodes if self.node is None else [self.node]
        srcs = nodes if self.needs_src else [None]
        # the key is Cat(dest, src?, here?); entries are grouped by port, one Case each
        keys = [self.dest]
        if self.needs_src:
            keys.append(self.src)
        if self.node is None:
            keys.append(self.here)
        groups = {}
        for here in heres:
            for src in srcs:
                header = {"src": src} if self.needs_src else {}
                prefix = 0
                shift = bits
                if self.needs_src:
                    prefix |= src << shift
                    shift += bits
                if self.node is None:
                    prefix |= here << shift
                for dest in nodes:
                    port = topo.next_port(here, dest, self.algorithm, **header)
                    groups.setdefault(port, []).append(prefix | dest)
        with m.Switch(Cat(*keys)):
            for port, values in sorted(groups.items()):
                if port != topo.degree:
                    with m.Case(*values):
                        m.d.comb += self.port.eq(port)
            with m.Default():
                m.d.comb += self.port.eq(topo.degree)
