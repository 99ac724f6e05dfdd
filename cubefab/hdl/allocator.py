"""The starvation-free arbiter of the router's switch allocation: least recently
granted (a matrix arbiter, two LUT levels deep on iCE40)."""

from amaranth.hdl import Module, Signal, Cat
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..topology.base import check_int


__all__ = ["MatrixArbiter", "least_recently_granted"]


class MatrixArbiter(wiring.Component):
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

    Unlike a round-robin arbiter, whose grant is a carry chain through every
    requester, each grant bit here is an AND of ``count`` terms of two bits (its
    request against every other one's, given a priority flip-flop per pair): two
    LUT4 levels for up to five requesters.
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
        least_recently_granted(m, self.requests, self.grant, self.commit)
        return m


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
    the contenders are the requests, ``uncontested`` is 0). ``contenders`` may also
    be a list of one value per requester ``i`` (with ``uncontested`` None): bit ``j``
    of ``contenders[i]`` says whether ``j`` contends with ``i``; the grant is then the
    least recently granted requester when, in every cycle in which ``i`` requests,
    bit ``j`` of ``contenders[i]`` is request ``j`` for every ``j != i``.
    """
    n = len(requests)
    if contenders is None:
        contenders = requests
    if not isinstance(contenders, list):
        contenders = [contenders] * n
    elif uncontested is not None:
        raise ValueError("Per-requester contenders take no uncontested signal")
    if n == 1:
        m.d.comb += grant.eq(requests)
        return
    # before[i, j] (i < j): i has priority over j, i.e. j was granted after i.
    before = {(i, j): Signal(init=1, name=f"{name}_{i}_{j}")
              for i in range(n) for j in range(i + 1, n)}
    terms = []
    for i in range(n):
        wins = Cat(~contenders[i][j] | (before[i, j] if i < j else ~before[j, i])
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
