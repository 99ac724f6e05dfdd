"""Link stages: registers on every link into a router, before any of its logic.

A router's network inputs are the flits its neighbours send (``link_in[p].flit``) and
the credits they return (``link_out[p].credit``). Both leave the neighbour from a
register, so a link is a wire from a register in one router to logic in another; in
a large fabric the wire spans the part, and that wire plus the logic behind it
(the route unit of an arriving head, a credit counter) limits the clock.
``RouterConfig.link_stages`` registers each of them that many times as it enters the
router: between a neighbour's register and the first stage there is only wire, which
a placer can split by putting the stage halfway.

A stage delays a flit and a credit by a cycle each: the round trip of a credit grows
by two cycles, which the sender's credit counters cover (it sends only on a credit,
so no buffer overflows whatever the delay). Nothing else changes: the logic behind
the stages sees the same flits and credits, later.
"""

from dataclasses import dataclass

from amaranth.hdl import Signal


__all__ = ["Arrival", "LinkInputs", "link_inputs"]


@dataclass(frozen=True)
class Arrival:
    """A flit as a router's logic sees it arrive: ``valid`` and ``payload`` (a view of
    the link's :class:`~cubefab.hdl.flit.FlitLayout`), as on ``link_in[p].flit``."""
    valid: object
    payload: object


@dataclass(frozen=True)
class LinkInputs:
    """What a router's logic reads of its links, behind the link stages.

    Attributes
    ----------
    flits : tuple
        Per network port ``p``, the :class:`Arrival` of ``link_in[p].flit`` (the
        port's own stream when there are no stages).
    credits : tuple
        Per network port ``p``, the credits returned on ``link_out[p].credit`` (the
        port itself when there are no stages), a bit per VC.
    """
    flits: tuple
    credits: tuple


def link_inputs(m, router):
    """The link inputs of ``router`` (a :class:`~cubefab.hdl.router.Router`) behind
    ``router.config.link_stages`` registers each, added to ``m``
    (``link{stage}_p{port}_*``; they reset to no flit and no credit)."""
    stages, layout = router.config.link_stages, router.layout
    flits, credits = [], []
    for p in range(router.config.topology.degree):
        flit = router.link_in[p].flit
        arrival, credit = Arrival(flit.valid, flit.payload), router.link_out[p].credit
        for stage in range(stages):
            valid = Signal(name=f"link{stage}_p{p}_valid")
            payload = Signal(layout, name=f"link{stage}_p{p}_flit")
            returned = Signal(len(credit), name=f"link{stage}_p{p}_credit")
            m.d.sync += [valid.eq(arrival.valid), payload.eq(arrival.payload),
                         returned.eq(credit)]
            arrival, credit = Arrival(valid, payload), returned
        flits.append(arrival)
        credits.append(credit)
    return LinkInputs(tuple(flits), tuple(credits))
