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


__all__ = ["LinkInputs", "link_inputs"]


@dataclass(frozen=True)
class LinkInputs:
    """What a router's logic reads of its links, behind the link stages.

    Attributes
    ----------
    flits : tuple
        Per network port ``p``, the flit stream ``link_in[p].flit`` (its
        ``stream.Signature(layout, always_ready=True)``) behind the stages: the port's
        own when there are none.
    credits : tuple
        Per network port ``p``, the credits returned on ``link_out[p].credit`` (the
        port itself when there are no stages), a bit per VC.
    """
    flits: tuple
    credits: tuple


def link_inputs(m, router):
    """The link inputs of ``router`` (a :class:`~cubefab.hdl.router.Router`) behind
    ``router.config.link_stages`` registers each, added to ``m``
    (``link{stage}__p{port}__*``; they reset to no flit and no credit)."""
    flits, credits = [], []
    for p in range(router.config.topology.degree):
        flit, credit = router.link_in[p].flit, router.link_out[p].credit
        for stage in range(router.config.link_stages):
            registered = flit.signature.create(path=(f"link{stage}", f"p{p}", "flit"))
            returned = Signal(len(credit), name=f"link{stage}__p{p}__credit")
            m.d.sync += [registered.valid.eq(flit.valid),
                         registered.payload.eq(flit.payload), returned.eq(credit)]
            flit, credit = registered, returned
        flits.append(flit)
        credits.append(credit)
    return LinkInputs(tuple(flits), tuple(credits))
