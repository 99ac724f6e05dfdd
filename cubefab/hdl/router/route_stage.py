"""Route stage of the router, one class per routing and hop: each input port's route
unit, turning the flit arriving there into ``enter``, the route it is buffered with
(its output port or ports, and the VC of the next link, :func:`choose_vc`), and the
header fields a departing flit gets (:meth:`RouteStage.depart`, :meth:`RouteStage.ahead`).

:func:`route_stage` picks the stage of a configuration:

- :class:`DeterministicStage`: the topology's route unit
  (:func:`~cubefab.hdl.route.route_unit`), one output port (``port``, one-hot);
- :class:`LookaheadStage` (``hop="lookahead"``, docs/router.md "One cycle per hop"):
  a head flit arriving on a network port carries its output port here in
  ``next_port`` (the router before computed it; ``local_in``'s is ignored, the
  injection queue's route unit computes it), and a departing head gets ``next_port``
  for the router it travels to (:meth:`LookaheadStage.ahead`,
  :class:`~cubefab.hdl.route.lookahead.LookaheadRoute`);
- :class:`AdaptiveStage` (``Adaptive`` routing): the adaptive route unit, the offered
  ports and the escape port, chosen from by :mod:`cubefab.hdl.router.adaptive`;
- :class:`AdaptiveLookaheadStage` (``Adaptive`` routing, ``hop="lookahead"``): a head
  arriving on a network port carries them (``next_offered``, ``next_port``), computed
  by the router before it, and a departing head gets those of the router it travels to
  (:class:`~cubefab.hdl.route.lookahead.AdaptiveLookaheadRoute`);
- :class:`WaypointStage` (``Waypoints`` routing, docs/faults.md): a
  :class:`~cubefab.hdl.route.waypoint.WaypointRoute` per input port, a flit leaving on
  VC ``phase_out * C + class`` (the class restarting at 0 on a new leg) with
  ``phase_out`` written into its header;
- :class:`WaypointLookaheadStage` (``Waypoints`` routing, ``hop="lookahead"``): a head
  arriving on a network port carries its output port in ``next_port`` (its phase
  and VC class are still decided here), and a departing head gets the one of the
  router it travels to (:class:`~cubefab.hdl.route.lookahead.WaypointLookaheadRoute`).
"""

from amaranth.hdl import C, Cat, Mux, Signal, unsigned
from amaranth.lib import data

from ...topology.deadlock import lane_bits
from ..route import route_unit
from ..route.adaptive import adaptive_route_unit
from ..route.lookahead import AdaptiveLookaheadRoute, LookaheadRoute, WaypointLookaheadRoute
from ..route.waypoint import WaypointRoute
from .adaptive import AdaptiveSelection
from .frame import flow_lane
from .vc_choice import choose_vc


__all__ = ["RouteStage", "DeterministicStage", "LookaheadStage", "AdaptiveStage",
           "AdaptiveLookaheadStage", "WaypointStage", "WaypointLookaheadStage",
           "route_stage"]


def _route_unit(frame, p, flit, make):
    """The route unit ``make(topology, node, algorithm)`` of input port ``p``
    (submodule ``route_p{p}``), fed ``flit``'s ``dest`` and, strapped, ``here``."""
    m = frame.m
    unit = m.submodules[f"route_p{p}"] = make(frame.topology, frame.node,
                                              frame.config.algorithm)
    m.d.comb += unit.dest.eq(flit.dest)
    if frame.node is None:
        m.d.comb += unit.here.eq(frame.router.here)
    return unit


def _enter(frame, p, **fields):
    """The signal ``enter_p{p}``: ``port`` (one-hot) and ``vc``, then ``fields``."""
    return Signal(data.StructLayout({
        "port": unsigned(frame.degree + 1),
        "vc": unsigned(frame.layout["vc"].shape.width),
        **fields,
    }), name=f"enter_p{p}")


class RouteStage:
    """A route stage: called with ``(frame, p, flit)``, it builds the route of input
    port ``p`` for ``flit`` arriving and returns ``enter``; :meth:`ahead` is what it
    does to the flits leaving."""

    def __call__(self, frame, p, flit):
        raise NotImplementedError

    def ahead(self, frame, switched):
        """The flits of the output registers (``switched``, a flit per output):
        unchanged."""
        return switched

    def selection(self, frame, out):
        """The selection among a queue's offered outputs and VCs (None: a queue's route
        is one output; :class:`~cubefab.hdl.router.adaptive.AdaptiveSelection`), built
        by switch allocation over ``out``, the output VCs."""
        return None

    def depart(self, frame, vc, out_vc, cls):
        """The flit of input VC ``vc`` (an :class:`~.input_unit.InputVC`) as it leaves
        for a network output on its output VC ``out_vc`` (``cls``: its class, from an
        adaptive choice, or None)."""
        flit, layout = vc.flit.as_value(), frame.layout
        vc_at, vc_bits = layout["vc"].offset, layout["vc"].shape.width
        return Cat(flit[:vc_at], out_vc, flit[vc_at + vc_bits:])


class DeterministicStage(RouteStage):
    """The route unit of each input port; ``enter``: ``port``, one-hot, and ``vc``.
    The unit is :attr:`make_unit`'s: a routing whose decision is a unit of its own
    (a :class:`~cubefab.hdl.route.RouteUnit`) names it there."""

    #: ``make_unit(topology, node, algorithm)``: the route unit of an input port (the
    #: topology's, :func:`~cubefab.hdl.route.route_unit`)
    make_unit = staticmethod(route_unit)

    def __call__(self, frame, p, flit):
        enter, port = self.route(frame, p, flit)
        choose_vc(frame, p, flit, port, enter, flit.vc[frame.lanes():])
        return enter

    def route(self, frame, p, flit):
        """``enter`` with its ``port`` driven, and the output port number."""
        # (expressions rather than named signals where possible: every named signal
        # costs the Python simulator an update per evaluation)
        m = frame.m
        ru = _route_unit(frame, p, flit, self.make_unit)
        if hasattr(ru, "src") and "src" in ru.signature.members:
            m.d.comb += ru.src.eq(flit.src)
        enter = _enter(frame, p)
        m.d.comb += enter.port.eq(ru.request)
        return enter, ru.port


class LookaheadStage(DeterministicStage):
    """Deterministic routing one cycle per hop: a network input's route is the
    ``next_port`` its head carries; each departing head gets the next one."""

    def route(self, frame, p, flit):
        if p == frame.degree:   # injection: the router's own route unit
            return super().route(frame, p, flit)
        enter = _enter(frame, p)
        frame.m.d.comb += enter.port.eq(C(1, frame.degree + 1) << flit.next_port)
        return enter, flit.next_port

    def ahead(self, frame, switched):
        """Each network output's flit, a head getting ``next_port``, its output port at
        the router it travels to (``switched[degree]``, the local output's,
        unchanged)."""
        unit = LookaheadRoute(frame.topology, frame.node, frame.config.algorithm)
        return _ahead(frame, switched, unit, next_port=unit.port)


def _ahead(frame, switched, unit, **fields):
    """The flits of the output registers (``switched``) with each network output's
    head getting ``fields`` (field name: an array of a value per output) from the
    lookahead route ``unit``, fed the outputs' headers."""
    m, degree = frame.m, frame.degree
    m.submodules["lookahead"] = unit
    if frame.node is None:
        m.d.comb += unit.neighbors.eq(frame.router.neighbors)
    ahead = []
    for o in range(degree):
        flit = Signal(frame.layout, name=f"ahead_p{o}")
        m.d.comb += [*unit.feed(o, switched[o]), flit.eq(switched[o])]
        for name, values in fields.items():
            m.d.comb += flit[name].eq(frame.in_heads(switched[o].head, values[o],
                                                     switched[o][name]))
        ahead.append(flit)
    return ahead + [switched[degree]]


class AdaptiveStage(RouteStage):
    """The adaptive route unit of each input port. ``enter``: ``offered`` (the
    adaptive ports, a bit per port), ``escape`` (the escape port, one-hot), ``vc``
    (the escape VC: the class the packet carries, one up on a wrap link, and the
    flow's VC within the class), ``lane`` (the flow's adaptive VC, from the first)
    and, on the local input where the unit has it, ``short`` (its ``ecube_short``,
    :class:`~cubefab.hdl.route.mcube.McubeEscape`)."""

    def __call__(self, frame, p, flit):
        m, degree, config = frame.m, frame.degree, frame.config
        offered, escape, short_value = self.route(frame, p, flit)
        fields = {
            "offered": unsigned(degree + 1),
            "escape": unsigned(degree + 1),
            "vc": unsigned(frame.layout["vc"].shape.width),
            "lane": unsigned(lane_bits(config.adaptive_vcs)),
        }
        if short_value is not None:
            fields["short"] = unsigned(1)
        enter = Signal(data.StructLayout(fields), name=f"enter_p{p}")
        if short_value is not None:
            m.d.comb += enter.short.eq(short_value)
        m.d.comb += [enter.offered.eq(offered),
                     enter.escape.eq(C(1, degree + 1) << escape),
                     enter.lane.eq(flow_lane(flit, len(enter.lane)))]
        choose_vc(frame, p, flit, escape, enter, frame.class_of(flit))
        return enter

    def route(self, frame, p, flit):
        """The adaptive route unit of input port ``p``: its offered ports, its escape
        port (a number) and, on the local input where the unit has it, its
        ``ecube_short`` (else None)."""
        ru = _route_unit(frame, p, flit, adaptive_route_unit)
        short = p == frame.degree and "ecube_short" in ru.signature.members
        return ru.offered, ru.escape, ru.ecube_short if short else None

    def selection(self, frame, out):
        """The adaptive selection (:class:`~cubefab.hdl.router.adaptive.AdaptiveSelection`)."""
        return AdaptiveSelection(frame, out)

    def depart(self, frame, vc, out_vc, cls):
        """The flit on its output VC with its class ``cls`` (in heads only with
        ``header="head"``)."""
        head, layout = vc.flit, frame.layout
        vc_at, vc_bits = layout["vc"].offset, layout["vc"].shape.width
        flit = head.as_value()   # vc, and cls if there is one, then dest
        cls = frame.in_heads(head.head, cls, flit[vc_at + vc_bits:][:len(cls)])
        return Cat(flit[:vc_at], out_vc, cls, flit[layout["dest"].offset:])


class AdaptiveLookaheadStage(AdaptiveStage):
    """Adaptive routing one cycle per hop: a network input's offered ports and escape
    port are the ``next_offered`` and ``next_port`` its head carries; each departing
    head gets those of the router it travels to."""

    def route(self, frame, p, flit):
        if p == frame.degree:   # injection: the router's own adaptive route unit
            return super().route(frame, p, flit)
        return flit.next_offered, flit.next_port, None

    def ahead(self, frame, switched):
        """Each network output's flit, a head getting ``next_port`` and
        ``next_offered``, the escape port and the adaptive ports at the router it
        travels to (the local output's unchanged)."""
        unit = AdaptiveLookaheadRoute(frame.topology, frame.node, frame.config.algorithm)
        return _ahead(frame, switched, unit, next_port=unit.port,
                      next_offered=unit.offered)


class WaypointStage(RouteStage):
    """The waypoint stage of each input port
    (:class:`~cubefab.hdl.route.waypoint.WaypointRoute`, equal to
    :func:`~cubefab.topology.fault_routing.waypoint_step`). ``enter``: ``port``
    (one-hot), ``vc`` (``phase_out * C + class``: the class of the arriving flit
    within its phase's set, or 0 on a new leg, one up on a wrap link) and ``phase``
    (``phase_out``, written into the departing flit)."""

    def __call__(self, frame, p, flit):
        m, config = frame.m, frame.config
        wr = m.submodules[f"route_p{p}"] = WaypointRoute(
            frame.topology, config.fault_waypoints, frame.node, config.algorithm)
        m.d.comb += [wr.dest.eq(flit.dest), wr.waypoint.eq(flit.waypoint),
                     wr.count.eq(flit.waypoint_count), wr.phase.eq(flit.phase)]
        if frame.node is None:
            m.d.comb += wr.here.eq(frame.router.here)
        enter = _enter(frame, p, phase=unsigned(len(wr.phase_out)))
        request, port = self.port(frame, p, flit, wr)
        m.d.comb += [enter.port.eq(request), enter.phase.eq(wr.phase_out)]
        classes = config.vc_classes
        width = max(1, (classes - 1).bit_length())
        # the arriving class within its phase's set (injected flits: vc 0, phase 0)
        arriving_class = (flit.vc[frame.lanes():] - flit.phase * classes)[:width]
        vc_class = Mux(wr.advanced, 0, arriving_class) if classes > 1 else C(0, 0)
        choose_vc(frame, p, flit, port, enter, vc_class, phase=wr.phase_out)
        return enter

    def port(self, frame, p, flit, wr):
        """The output port of input port ``p``'s flit, one-hot and as a number: its
        waypoint route unit's (``wr``)."""
        return wr.request, wr.port

    def depart(self, frame, vc, out_vc, cls):
        """The flit on its output VC with the phase after this node (the buffered
        route's; in heads only with ``header="head"``)."""
        head, layout = vc.flit, frame.layout
        vc_at, vc_bits = layout["vc"].offset, layout["vc"].shape.width
        flit = head.as_value()
        phase_at, phase_bits = layout["phase"].offset, len(vc.route.phase)
        phase = frame.in_heads(head.head, vc.route.phase,
                               flit[phase_at:phase_at + phase_bits])
        return Cat(flit[:vc_at], out_vc, flit[vc_at + vc_bits:phase_at], phase,
                   flit[phase_at + phase_bits:])


class WaypointLookaheadStage(WaypointStage):
    """Waypoint routing one cycle per hop: a network input's output port is the
    ``next_port`` its head carries (its waypoint unit still gives the phase after
    this node and whether a new leg starts); each departing head gets the next one."""

    def port(self, frame, p, flit, wr):
        if p == frame.degree:   # injection: the router's own unit
            return super().port(frame, p, flit, wr)
        return C(1, frame.degree + 1) << flit.next_port, flit.next_port

    def ahead(self, frame, switched):
        """Each network output's flit, a head getting ``next_port``, its output port at
        the router it travels to (the local output's unchanged)."""
        config = frame.config
        unit = WaypointLookaheadRoute(frame.topology, config.fault_waypoints, frame.node,
                                      config.algorithm)
        return _ahead(frame, switched, unit, next_port=unit.port)


def route_stage(config):
    """The route stage of routers of ``config`` (a RouterConfig): the one its routing
    part builds for its hop (:meth:`~cubefab.hdl.modes.Routing.route_stage`)."""
    return config.routing.route_stage(config.hop)
