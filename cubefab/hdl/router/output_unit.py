"""Output unit of the router: per output VC, whether a packet holds it and its
credits; the output registers; with fault waypoints, the link-down drop."""

from dataclasses import dataclass

from amaranth.hdl import Cat, Signal


__all__ = ["OutputVCs", "output_vcs", "output_registers"]


@dataclass(frozen=True)
class OutputVCs:
    """The state of the output VCs (:func:`output_vcs`).

    Attributes
    ----------
    busy : list of list of Signal
        Per output, a bit per VC: a packet holds it (from its head to its tail).
    credits : list of list of Signal
        Per network output, a credit counter per VC.
    has_credit : list of list of Signal
        Per network output, a registered "has a credit" flag per VC.
    can_send : list of Value
        Per output, the flags of its VCs (with fault waypoints, all ones while its
        link is down); the local output's: its output register is free.
    """

    busy: list
    credits: list
    has_credit: list
    can_send: list

    def state(self, o, vc):
        """``(busy, has a credit)`` of VC ``vc`` (an int or a value) of output
        ``o``."""
        degree = len(self.credits)
        if o < degree and isinstance(vc, int):
            return self.busy[o][vc], self.can_send[o][vc]
        if o < degree:
            return Cat(self.busy[o]).bit_select(vc, 1), self.can_send[o].bit_select(vc, 1)
        return self.busy[o][0], self.can_send[o]


def output_vcs(frame):
    """The :class:`OutputVCs` of the router. The local output has one VC and uses its
    output register's handshake instead of credits."""
    m, router = frame.m, frame.router
    degree, vcs, depth = frame.degree, frame.config.link_vcs, frame.config.depth
    out_vcs = [vcs] * degree + [1]
    busy = [[Signal(name=f"busy_p{o}_vc{w}") for w in range(out_vcs[o])]
            for o in range(degree + 1)]
    credits = [[Signal(range(depth + 1), init=depth, name=f"credit_p{o}_vc{w}")
                for w in range(vcs)] for o in range(degree)]
    has_credit = [[Signal(init=1, name=f"has_credit_p{o}_vc{w}") for w in range(vcs)]
                  for o in range(degree)]
    can_send = [Cat(flags) for flags in has_credit]
    if frame.config.fault_waypoints:   # a dead link takes every flit (and drops it)
        can_send = [flags | (~router.link_up[o]).replicate(vcs)
                    for o, flags in enumerate(can_send)]
    local_free = Signal()
    m.d.comb += local_free.eq(~router.local_out.valid | router.local_out.ready)
    can_send.append(local_free)
    return OutputVCs(busy, credits, has_credit, can_send)


def output_registers(frame, grants, switched, out):
    """The switched flits (``switched``, per output) into the output registers, per
    the grants; per network output VC a credit counter counts what left and what
    came back, and an output VC is busy from a packet's head until its tail has left
    (``out``, the :class:`OutputVCs`). A flit granted to a dead link is dropped (no
    credit used) and reported on ``lost_to_fault`` and ``lost_heads``."""
    m, router = frame.m, frame.router
    degree = local = frame.degree
    busy, credits, has_credit = out.busy, out.credits, out.has_credit
    for o in range(degree):
        link = router.link_out[o]
        sent = grants[o].any()
        m.d.sync += [link.flit.valid.eq(sent), link.flit.payload.eq(switched[o])]
        moved = sent   # (a flit granted to a dead link is dropped: no credit used)
        if frame.config.fault_waypoints:
            up = router.link_up[o]
            m.d.sync += link.flit.valid.eq(sent & up)
            m.d.comb += [router.lost_to_fault[o].eq(sent & ~up),
                         router.lost_heads[o].eq(sent & ~up & switched[o].head)]
            moved = sent & up
        for w in range(frame.config.link_vcs):
            used = moved & (switched[o].vc == w)
            count = credits[o][w]
            returned = frame.credits_in(o)[w]
            m.d.sync += [count.eq(count + returned - used),
                         has_credit[o][w].eq(returned | (count > 1)
                                             | ((count == 1) & ~used))]
            with m.If(sent & (switched[o].vc == w)):
                m.d.sync += busy[o][w].eq(~switched[o].tail)
    with m.If(out.can_send[degree]):
        m.d.sync += [router.local_out.valid.eq(grants[local].any()),
                     router.local_out.payload.eq(switched[local])]
    with m.If(grants[local].any()):
        m.d.sync += busy[local][0].eq(~switched[local].tail)
