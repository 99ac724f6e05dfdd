"""How a replicating router copies a broadcast packet: the copy stage of its parts
(:meth:`~cubefab.hdl.modes.Routing.copy_stage`), which the replicating queues of
:mod:`~cubefab.hdl.router.replication` ask for a copy's children, its turns, the order
its copies leave in and their VC, instead of testing which replication it is.

- :class:`TreeCopies`: all-port broadcast along the tree of the packet's source;
- :class:`OnePortCopies`: the one-port tree, one copy after another in the schedule's
  order;
- :class:`MulticastCopies`: the tree pruned to the packet's members;
- :class:`FloodCopies`: the healthy network's spanning tree written at run time
  (fault-tolerant routers).

A new replication names a stage of its own (a :class:`CopyStage` subclass, in its
unit's module or here).
"""

from dataclasses import dataclass
from math import isqrt

from amaranth.hdl import C, Cat, Mux, Signal

from ..replicate import broadcast_turns, broadcast_wrap
from ..route.broadcast import broadcast_children_unit
from ..route.flood import FloodChildren
from ..route.multicast import MulticastChildren
from ..route.one_port import OnePortSends


__all__ = ["CopyStage", "TreeCopies", "OnePortCopies", "MulticastCopies", "FloodCopies"]


def _check_tabulated(config, unit, *forms):
    """:func:`check_strapped` of a copy stage whose strapped unit ``unit`` (a class)
    tabulates every (node, source) pair."""
    topology = config.topology
    if topology.num_nodes ** 2 > unit.MAX_ENTRIES:
        raise ValueError(f"{config.replication.kind} routers with address straps tabulate "
                         f"every (node, source) pair; they are built for at most "
                         f"{isqrt(unit.MAX_ENTRIES)} nodes, not {topology.num_nodes}")
    unit.check(topology, None, *forms)


class CopyStage:
    """How a replicating router copies a broadcast packet: the part of its replication
    (:meth:`~cubefab.hdl.modes.Replication.copy_stage`, or its routing's,
    :meth:`~cubefab.hdl.modes.Routing.copy_stage`) that :func:`replicating_queues` and
    :func:`replica_requests` ask. The defaults are the broadcast trees' on the VC rule
    of :func:`~cubefab.topology.broadcast_deadlock.broadcast_next_vc`; a router that
    copies nothing has this class itself (asked only :meth:`check_strapped`)."""

    def children(self, frame, p, flit):
        """The copies of a broadcast flit on input port ``p``: ``(unit, local)``, the
        unit naming the network children (its ``children``, a bit per port; added to
        the module as ``children_p{p}``) and whether this node takes a local copy."""
        raise NotImplementedError(f"{type(self).__name__} makes no copies")

    def turns(self, frame):
        """The (input port, output port) pairs copies take at this router: the
        trees' (:func:`~cubefab.hdl.replicate.broadcast_turns`)."""
        return broadcast_turns(frame.topology, frame.node, frame.config.broadcast_model)

    def order(self, frame, queue, outputs):
        """The only network port on which a copy of ``queue``'s oldest packet may
        start (its copies go to ``outputs``), or None: copies leave as their outputs
        are free (all-port)."""
        return None

    def vc(self, frame, p, v, o):
        """The output VC of a copy from input queue ``(p, v)`` through network port
        ``o``: the broadcast VC rule (``broadcast_next_vc``) offset by the unicast
        VCs."""
        config, degree = frame.config, frame.degree
        first = config.link_vcs - config.broadcast_vcs
        lane = v - first if p < degree else 0
        wrap = broadcast_wrap(frame.topology, frame.node, p, o, config.broadcast_model)
        up = min(lane + 1, config.broadcast_vcs - 1)
        width = frame.layout["vc"].shape.width
        if wrap is None:
            return Mux(frame.router.bwrap_mask[o], C(first + up, width),
                       C(first + lane, width))
        return C(first + (up if wrap else lane), width)

    def check_strapped(self, config):
        """Raise ValueError unless the stage can be built with address straps
        (:func:`check_strapped`; it can)."""


class TreeCopies(CopyStage):
    """All-port broadcast: the children of this node in the tree of the flit's ``src``
    (:func:`~cubefab.hdl.route.broadcast.broadcast_children_unit`)."""

    def children(self, frame, p, flit):
        unit = broadcast_children_unit(frame.topology, frame.node)
        return _source_unit(frame, p, flit, unit), flit.src != frame.here


class OnePortCopies(CopyStage):
    """One-port broadcast: every port the node sends to in the one-port tree, one copy
    after another in the schedule's order
    (:class:`~cubefab.hdl.route.one_port.OnePortSends`)."""

    def children(self, frame, p, flit):
        unit = OnePortSends(frame.topology, frame.node)
        return _source_unit(frame, p, flit, unit), flit.src != frame.here

    def order(self, frame, queue, outputs):
        return _one_port_order(frame, queue, outputs)

    def check_strapped(self, config):
        _check_tabulated(config, OnePortSends)


@dataclass(frozen=True)
class MulticastCopies(CopyStage):
    """Multicast: the tree pruned to the members, the subcube ``(dest, mmask)``
    (``form="subcube"``) or the nodes whose bit of ``members`` is set (``"vector"``)
    (:class:`~cubefab.hdl.route.multicast.MulticastChildren`)."""

    form: str

    def children(self, frame, p, flit):
        m, here = frame.m, frame.here
        local = flit.src != here
        unit = MulticastChildren(frame.topology, frame.node, self.form)
        if self.form == "subcube":
            m.d.comb += [unit.value.eq(flit.dest), unit.mask.eq(flit.mmask)]
            local = local & (((flit.dest ^ here) & flit.mmask) == 0)
        else:   # ... to the members named bit by bit
            m.d.comb += unit.member_vector.eq(flit.members)
            local = local & (unit.is_member if frame.node is None
                             else flit.members[frame.topology.index(frame.node)])
        return _source_unit(frame, p, flit, unit), local

    def check_strapped(self, config):
        _check_tabulated(config, MulticastChildren, self.form)


@dataclass(frozen=True)
class FloodCopies(CopyStage):
    """A fault-tolerant router's copies: the healthy network's spanning tree, written
    at run time into its ``flood`` input
    (:class:`~cubefab.hdl.route.flood.FloodChildren`: the tree ports but the arrival
    port, pruned to the members' side for a multicast of ``form``), on one broadcast
    VC whose lane a copy keeps; with the one-port ``model`` its copies leave in port
    order."""

    form: object = None
    model: str = "all-port"

    def children(self, frame, p, flit):
        m, here = frame.m, frame.here
        local = flit.src != here
        unit = FloodChildren(frame.topology, p, self.form)
        m.submodules[f"children_p{p}"] = unit
        m.d.comb += unit.flood.eq(frame.router.flood)
        if self.form == "subcube":
            m.d.comb += [unit.value.eq(flit.dest), unit.mask.eq(flit.mmask)]
            local = local & (((flit.dest ^ here) & flit.mmask) == 0)
        elif self.form == "vector":
            m.d.comb += unit.member_vector.eq(flit.members)
            local = local & _member_here(frame, flit.members, p)
        return unit, local

    def turns(self, frame):
        """Every turn (the tree is written at run time)."""
        degree = frame.degree
        return {(i, o) for i in range(degree + 1) for o in range(degree + 1)}

    def order(self, frame, queue, outputs):
        return _flood_order(frame, queue, outputs) if self.model == "one-port" else None

    def vc(self, frame, p, v, o):
        """The copy's own VC (a walk on a tree never closes a cycle: the lane is
        kept)."""
        config, degree = frame.config, frame.degree
        first = config.link_vcs - config.broadcast_vcs
        lane = v - first if p < degree else 0
        return C(first + lane, frame.layout["vc"].shape.width)


def _source_unit(frame, p, flit, unit):
    """``unit``, a children unit of input port ``p`` (submodule ``children_p{p}``),
    fed the flit's ``src`` and, strapped, ``here``."""
    m = frame.m
    m.submodules[f"children_p{p}"] = unit
    m.d.comb += unit.source.eq(flit.src)
    if frame.node is None:
        m.d.comb += unit.here.eq(frame.router.here)
    return unit


def _member_here(frame, members, p):
    """Whether this node's bit of a member vector is set (its dense index: a constant,
    or looked up from the ``here`` strap), for the flits of input port ``p``."""
    topology = frame.topology
    if frame.node is not None:
        return members[topology.index(frame.node)]
    m = frame.m
    member = Signal(name=f"member_here_p{p}")
    with m.Switch(frame.router.here):
        for i, x in enumerate(topology.nodes().tolist()):
            with m.Case(x):
                m.d.comb += member.eq(members[i])
    return member


def _one_port_order(frame, queue, outputs):
    """One-port order of a replicating queue whose copies go to ``outputs``: the only
    network port on which a copy of the oldest (broadcast) packet may start: the port
    of the node's send number ``index`` in its source's schedule, ``index`` counting
    the packet's network copies whose tail has left (back to 0 when the packet
    leaves)."""
    m, degree = frame.m, frame.degree
    sends = m.submodules[f"{queue.name}_order"] = OnePortSends(frame.topology, frame.node)
    if frame.node is None:
        m.d.comb += sends.here.eq(frame.router.here)
    index = Signal.like(sends.index, name=f"{queue.name}_index")
    tails = []
    for k, o in enumerate(outputs):
        if o < degree:
            flit = queue.copy(k)[2]
            tails.append(queue.sent[k] & flit.tail & flit.bcast)
    last = queue.pop & queue.head_flit.tail
    with m.If(last):
        m.d.sync += index.eq(0)
    with m.Elif(Cat(tails).any()):
        m.d.sync += index.eq(index + 1)
    m.d.comb += [sends.source.eq(queue.head_flit.src), sends.index.eq(index)]
    return sends.port


def _flood_order(frame, queue, outputs):
    """One-port order of a fault-tolerant router's replicating queue: its copies leave
    one at a time in port order, so the only network port on which a copy may start is
    the lowest one whose copy the oldest packet wants and has not finished."""
    m, degree = frame.m, frame.degree
    port = Signal(range(degree + 1), name=f"{queue.name}_next_port")
    m.d.comb += port.eq(degree)
    for k, o in reversed(list(enumerate(outputs))):
        if o < degree:
            with m.If(queue.unsent(k)):
                m.d.comb += port.eq(o)
    return port
