"""Round-robin arbitration: the starvation-free switch allocator of the router."""

from amaranth.hdl import Module, Signal, Cat
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..topology.base import check_int


__all__ = ["RoundRobinArbiter", "SwitchAllocator"]


class RoundRobinArbiter(wiring.Component):
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

    def __init__(self, count):
        self.count = check_int("Requester count", count, 1)
        super().__init__({
            "requests": In(count),
            "grant": Out(count),
            "commit": In(1),
        })

    def elaborate(self, platform):
        m = Module()
        round_robin(m, self.requests, self.grant, self.commit)
        return m


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
