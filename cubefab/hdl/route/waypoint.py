"""The waypoint stage of fault-tolerant routing: target selection and phase advance in
front of a route unit (:mod:`cubefab.topology.fault_routing`)."""

from amaranth.hdl import Const, Module, Mux
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out

from ...topology.base import check_int
from ...topology.fault_routing import leg_algorithm
from .factory import route_unit


__all__ = ["WaypointRoute"]


class WaypointRoute(wiring.Component):
    """Waypoint routing's per-node decision as logic, equal to
    :func:`~cubefab.topology.fault_routing.waypoint_step`.

    While ``phase < count`` and this node is waypoint ``phase``, the phase advances
    (unrolled ``waypoints`` times); the target is then waypoint ``phase_out``, or
    ``dest`` once ``phase_out == count``, and the family's route unit
    (:func:`~cubefab.hdl.route.route_unit`) picks the port toward the target.

    Parameters
    ----------
    topology : Topology
        A hypercube, metacube or DLH whose routing reads only the destination.
    waypoints : int
        Waypoints a header holds, ``>= 1``.
    node : int or None
        This node's address, or ``None`` to read it from the ``here`` input.
    algorithm : str or None
        The reference routing of the legs.

    Members
    -------
    dest : In(address_bits)
    waypoint : In(ArrayLayout(address_bits, waypoints))
        The header's waypoints; entries at ``count`` and above are ignored.
    count : In(range(waypoints + 1))
        Waypoints the header names.
    phase : In(range(waypoints + 1))
        Waypoints already passed (0 at the source).
    here : In(address_bits)
        Present only when ``node`` is None.
    phase_out : Out(range(waypoints + 1))
        The phase after this node: written back into the header and selecting the VC
        class set ``phase_out * C``.
    advanced : Out(1)
        ``phase_out != phase``: the VC class restarts at 0 on the new leg.
    target : Out(address_bits)
    port : Out(port_width)
        Output port (``degree``: deliver here, only when ``phase_out == count``).
    request : Out(degree + 1)
        One-hot ``port``.
    """

    def __init__(self, topology, waypoints, node=None, algorithm=None):
        self.waypoints = self.check(topology, waypoints, node, algorithm)
        self.topology = topology
        self._route = route_unit(topology, node, algorithm)
        self.node = self._route.node
        bits = topology.address_bits
        members = {"dest": In(bits),
                   "waypoint": In(data.ArrayLayout(bits, self.waypoints)),
                   "count": In(range(self.waypoints + 1)),
                   "phase": In(range(self.waypoints + 1))}
        if self.node is None:
            members["here"] = In(bits)
        members.update({"phase_out": Out(range(self.waypoints + 1)), "advanced": Out(1),
                        "target": Out(bits), "port": Out(topology.port_width),
                        "request": Out(topology.degree + 1)})
        super().__init__(members)

    @property
    def algorithm(self):
        """str: the reference routing of the legs (the route unit's)."""
        return self._route.algorithm

    @classmethod
    def check(cls, topology, waypoints, node=None, algorithm=None):
        """Check the parameters before a unit is built: returns ``waypoints`` as an
        int, or raises TypeError or ValueError saying what is wrong."""
        waypoints = check_int("Number of waypoints", waypoints, 1)
        leg_algorithm(topology, algorithm)
        if node is not None:
            topology.check_node(node, "node")
        return waypoints

    def _select(self, index):
        """Waypoint ``index`` (an expression) of the header; waypoint 0 out of range."""
        chosen = self.waypoint[0]
        for i in range(1, self.waypoints):
            chosen = Mux(index == i, self.waypoint[i], chosen)
        return chosen

    def elaborate(self, platform):
        m = Module()
        m.submodules.route = route = self._route
        bits = self.topology.address_bits
        here = self.here if self.node is None else Const(self.node, bits)
        # the phase advances past every waypoint this node is, in header order
        phase = self.phase
        for _ in range(self.waypoints):
            at = (phase < self.count) & (self._select(phase) == here)
            phase = (phase + at)[:len(self.phase)]
        last = phase < self.count
        m.d.comb += [
            self.phase_out.eq(phase),
            self.advanced.eq(phase != self.phase),
            self.target.eq(Mux(last, self._select(phase), self.dest)),
        ]
        if self.node is None:
            m.d.comb += route.here.eq(here)
        m.d.comb += [route.dest.eq(self.target), self.port.eq(route.port),
                     self.request.eq(route.request)]
        return m
