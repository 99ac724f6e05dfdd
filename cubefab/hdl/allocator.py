"""Starvation-free arbiters for the router's switch allocation: round robin, and
least recently granted (a matrix arbiter, two LUT levels deep on iCE40)."""

from amaranth.hdl import Module, Signal, Cat
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..topology.base import check_int


__all__ = ["RoundRobinArbiter", "MatrixArbiter", "SwitchAllocator", "round_robin",
           "least_recently_granted"]


class _Arbiter(wiring.Component):
    """Base of the arbiters: ``count`` requesters, logic from :attr:`_logic`."""

    def __init__(self, count):
        self.count = check_int("Requester count", count, 1)
        super().__init__({
            "requests": In(count),
            "grant": Out(count),
            "commit": In(1),
        })

    def elaborate(self, platform):
        m = Module()
        type(self)._logic(m, self.requests, self.grant, self.commit)
        return m


class RoundRobinArbiter(_Arbiter):
    """Grant one of ``count`` requesters, rotating priority after every used grant.

    Parameters
    ----------
    count : int
        Number of requesters (positive).

    Members
    -------
    requests : In(count)
        Bit ``i`` set when requester ``i`` wants the resource this cycle.
    grant : Out(count)
        One-hot (or zero when nothing is requested), combinational: the first requester
        after the last one granted, cyclically.
    commit : In(1)
        Set in a cycle whose grant is used; the granted requester then becomes the
        one with the lowest priority. A requester that keeps requesting is granted
        within ``count`` committed grants: no starvation.
    """

    _logic = staticmethod(lambda m, *ports: round_robin(m, *ports))


def round_robin(m, requests, grant, commit, name="last"):
    """Build round-robin arbitration of ``requests`` into ``grant`` in module ``m``
    (the logic of :class:`RoundRobinArbiter`, for components that arbitrate many
    resources in one module)."""
    n = len(requests)
    if n == 1:
        m.d.comb += grant.eq(requests)
        return
    # `last` is one-hot: the requester granted last. Requests strictly above it win
    # first (the lowest set bit of `above`), else the lowest request overall.
    last = Signal(n, init=1 << (n - 1), name=name)
    above = requests & ~((last << 1) - 1)[:n]
    wide = Cat(above, requests)
    low = wide & (~wide + 1)[:2 * n]
    m.d.comb += grant.eq(low[:n] | low[n:])
    with m.If(commit & grant.any()):
        m.d.sync += last.eq(grant)


class MatrixArbiter(_Arbiter):
    """Grant one of ``count`` requesters, the one granted least recently.

    Parameters
    ----------
    count : int
        Number of requesters (positive).

    Members
    -------
    requests : In(count)
        Bit ``i`` set when requester ``i`` wants the resource this cycle.
    grant : Out(count)
        One-hot (or zero when nothing is requested), combinational: among the
        requesters, the one whose last committed grant is the oldest (before any
        grant, the lowest index).
    commit : In(1)
        Set in a cycle whose grant is used; the granted requester then has the lowest
        priority. A requester that keeps requesting is granted within ``count``
        committed grants: no starvation.

    Unlike :class:`RoundRobinArbiter`, whose grant is a carry chain through every
    requester, each grant bit here is an AND of ``count`` terms of two bits (its
    request against every other one's, given a priority flip-flop per pair): two
    LUT4 levels for up to five requesters.
    """

    _logic = staticmethod(lambda m, *ports: least_recently_granted(m, *ports))


def least_recently_granted(m, requests, grant, commit, name="prio", *, contenders=None,
                           uncontested=None):
    """Build matrix arbitration of ``requests`` into ``grant`` in module ``m`` (the
    logic of :class:`MatrixArbiter`, for components that arbitrate many resources
    in one module).

    ``contenders`` and ``uncontested`` let a caller start the priority comparison
    from earlier signals than the requests (fewer logic levels): requester ``i`` is
    granted when it requests and either ``uncontested`` is set or no contender
    ``j`` with priority over it exists. The grant is the least recently granted
    requester when, in every cycle, either the contenders are the requesters, or
    nobody requests, or ``uncontested`` is set and at most one requests (default:
    the contenders are the requests, ``uncontested`` is 0).
    """
    n = len(requests)
    if contenders is None:
        contenders = requests
    if n == 1:
        m.d.comb += grant.eq(requests)
        return
    # before[i, j] (i < j): i has priority over j, i.e. j was granted after i.
    before = {(i, j): Signal(init=1, name=f"{name}_{i}_{j}")
              for i in range(n) for j in range(i + 1, n)}
    terms = []
    for i in range(n):
        wins = Cat(~contenders[j] | (before[i, j] if i < j else ~before[j, i])
                   for j in range(n) if j != i).all()
        if uncontested is not None:
            wins = wins | uncontested
        terms.append(requests[i] & wins)
    m.d.comb += grant.eq(Cat(terms))
    with m.If(commit):
        for (i, j), flag in before.items():
            with m.If(grant[i]):
                m.d.sync += flag.eq(0)
            with m.Elif(grant[j]):
                m.d.sync += flag.eq(1)


class SwitchAllocator(wiring.Component):
    """One :class:`RoundRobinArbiter` per output: a separable output-first allocator for
    inputs that each request at most one output (wormhole routers).

    Parameters
    ----------
    inputs, outputs : int
        Numbers of input queues and output ports.

    Members
    -------
    requests : In(inputs).array(outputs)
        ``requests[o]`` bit ``i``: input ``i`` wants output ``o``.
    grants : Out(inputs).array(outputs)
        ``grants[o]``: the input granted output ``o`` (one-hot or zero); every grant
        is taken to be used.
    """

    def __init__(self, inputs, outputs):
        self.inputs = check_int("Input count", inputs, 1)
        self.outputs = check_int("Output count", outputs, 1)
        super().__init__({
            "requests": In(inputs).array(outputs),
            "grants": Out(inputs).array(outputs),
        })

    def elaborate(self, platform):
        m = Module()
        # the arbiters are built inline: one module simulates faster than many
        for o in range(self.outputs):
            round_robin(m, self.requests[o], self.grants[o], 1, name=f"last{o}")
        return m
