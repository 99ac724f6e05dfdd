"""Lookahead route units: the output ports a packet takes at the next routers."""

from amaranth.hdl import Module
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from .adaptive import adaptive_route_unit
from .factory import route_unit
from .waypoint import WaypointRoute


__all__ = ["LookaheadRoute", "AdaptiveLookaheadRoute", "WaypointLookaheadRoute"]


class LookaheadRoute(wiring.Component):
    """Per network port ``o`` of a node, the output port a packet leaving through
    ``o`` takes at the router it reaches: the route unit of that neighbour
    (:func:`~cubefab.hdl.route.route_unit` of ``topology.neighbor(node, o)``), so
    ``port[o]`` equals ``topology.next_port(topology.neighbor(node, o), dest[o])``.

    Parameters
    ----------
    topology : Topology
    node : int or None
        This node's address (the neighbours' units are built for theirs), or ``None``
        to read the neighbours' addresses from the ``neighbors`` input (address
        straps).
    algorithm : str or None
        Routing algorithm (the topology's default when ``None``).

    Members
    -------
    dest : In(topology.address_bits).array(topology.degree)
        ``dest[o]``: the destination of the packet leaving through port ``o``.
    src : In(topology.address_bits).array(topology.degree)
        Its source; present only when the algorithm reads it.
    neighbors : In(topology.degree * topology.address_bits)
        Only when ``node`` is ``None``: bits ``o * address_bits`` up are
        ``topology.neighbor(node, o)`` (:meth:`strap_value`).
    port : Out(topology.port_width).array(topology.degree)
        ``port[o]``: its output port at ``topology.neighbor(node, o)`` (``degree``:
        delivered there).
    """

    def __init__(self, topology, node, algorithm=None):
        self.node = None if node is None else topology.check_node(node, "node")
        self.topology = topology
        degree = topology.degree
        self.units = [self.neighbor_unit(topology, None if node is None
                                         else topology.neighbor(self.node, o), algorithm)
                      for o in range(degree)]
        self.needs_src = any(getattr(unit, "needs_src", False) for unit in self.units)
        bits = topology.address_bits
        members = {"dest": In(bits).array(degree)}
        if self.needs_src:
            members["src"] = In(bits).array(degree)
        members.update(self.header_members(topology))
        if self.node is None:
            members["neighbors"] = In(degree * bits)
        members.update(self.output_members(topology))
        super().__init__(members)

    def neighbor_unit(self, topology, neighbor, algorithm):
        """The route unit of ``neighbor`` (None: its address from ``here``)."""
        return route_unit(topology, neighbor, algorithm)

    def header_members(self, topology):
        """The header inputs of the signature besides ``dest`` and ``src`` (none)."""
        return {}

    def feed(self, o, flit):
        """The assignments that give port ``o``'s inputs the header of ``flit`` (a
        view of a :class:`~cubefab.hdl.flit.FlitLayout`)."""
        feed = [self.dest[o].eq(flit.dest)]
        if self.needs_src:
            feed.append(self.src[o].eq(flit.src))
        return feed

    def connect_header(self, m, o, unit):
        """Feed ``unit`` the header inputs of port ``o`` besides ``dest`` and ``src``."""

    def output_members(self, topology):
        """The outputs of the signature (``port``)."""
        return {"port": Out(topology.port_width).array(topology.degree)}

    def connect_outputs(self, m, o, unit):
        """Drive the outputs of port ``o`` from its neighbour's ``unit``."""
        m.d.comb += self.port[o].eq(unit.port)

    @staticmethod
    def strap_value(topology, node):
        """The ``neighbors`` input that makes a strapped unit the unit of ``node``."""
        node = topology.check_node(node, "node")
        bits = topology.address_bits
        return sum(topology.neighbor(node, o) << (o * bits)
                   for o in range(topology.degree))

    def elaborate(self, platform):
        m = Module()
        bits = self.topology.address_bits
        for o, unit in enumerate(self.units):
            m.submodules[f"next_p{o}"] = unit
            m.d.comb += unit.dest.eq(self.dest[o])
            if getattr(unit, "needs_src", False):
                m.d.comb += unit.src.eq(self.src[o])
            if self.node is None:
                m.d.comb += unit.here.eq(self.neighbors[o * bits:(o + 1) * bits])
            self.connect_header(m, o, unit)
            self.connect_outputs(m, o, unit)
        return m


class AdaptiveLookaheadRoute(LookaheadRoute):
    """Per network port ``o`` of a node, what the adaptive route unit of the router a
    packet leaving through ``o`` reaches offers it there
    (:func:`~cubefab.hdl.route.adaptive.adaptive_route_unit` of
    ``topology.neighbor(node, o)``): ``port[o]`` its escape port
    (:func:`~cubefab.topology.adaptive.escape_port`) and ``offered[o]`` its adaptive
    ports (:func:`~cubefab.topology.adaptive.adaptive_ports`, a bit per port).

    Parameters and the members ``dest``, ``neighbors`` and ``port`` are
    :class:`LookaheadRoute`'s (an adaptive unit reads no ``src``).

    Members
    -------
    offered : Out(topology.degree).array(topology.degree)
        ``offered[o]``: the adaptive ports at ``topology.neighbor(node, o)``.
    """

    def neighbor_unit(self, topology, neighbor, algorithm):
        return adaptive_route_unit(topology, neighbor, algorithm)

    def output_members(self, topology):
        return {**super().output_members(topology),
                "offered": Out(topology.degree).array(topology.degree)}

    def connect_outputs(self, m, o, unit):
        m.d.comb += [self.port[o].eq(unit.escape), self.offered[o].eq(unit.offered)]


class WaypointLookaheadRoute(LookaheadRoute):
    """Per network port ``o`` of a node, the output port a packet of waypoint routing
    leaving through ``o`` takes at the router it reaches: the
    :class:`~cubefab.hdl.route.waypoint.WaypointRoute` of that neighbour, fed the
    header as it leaves (its phase the one after this node), so ``port[o]`` equals
    ``waypoint_step(topology, topology.neighbor(node, o), dest, waypoints, phase)[0]``
    (:func:`~cubefab.topology.fault_routing.waypoint_step`).

    Parameters
    ----------
    topology : Topology
    waypoints : int
        Waypoints a header holds, ``>= 1``.
    node : int or None
    algorithm : str or None
        As :class:`LookaheadRoute`'s (the reference routing of the legs).

    Members
    -------
    waypoint : In(ArrayLayout(address_bits, waypoints)).array(topology.degree)
    count : In(range(waypoints + 1)).array(topology.degree)
    phase : In(range(waypoints + 1)).array(topology.degree)
        The header fields of the packet leaving through each port, beside
        :class:`LookaheadRoute`'s ``dest``, ``neighbors`` and ``port``.
    """

    def __init__(self, topology, waypoints, node, algorithm=None):
        self.waypoints = WaypointRoute.check(topology, waypoints, node, algorithm)
        super().__init__(topology, node, algorithm)

    def neighbor_unit(self, topology, neighbor, algorithm):
        return WaypointRoute(topology, self.waypoints, neighbor, algorithm)

    def header_members(self, topology):
        phases = range(self.waypoints + 1)
        return {"waypoint": In(data.ArrayLayout(topology.address_bits, self.waypoints))
                .array(topology.degree),
                "count": In(phases).array(topology.degree),
                "phase": In(phases).array(topology.degree)}

    def feed(self, o, flit):
        return super().feed(o, flit) + [self.waypoint[o].eq(flit.waypoint),
                                        self.count[o].eq(flit.waypoint_count),
                                        self.phase[o].eq(flit.phase)]

    def connect_header(self, m, o, unit):
        m.d.comb += [unit.waypoint.eq(self.waypoint[o]), unit.count.eq(self.count[o]),
                     unit.phase.eq(self.phase[o])]
