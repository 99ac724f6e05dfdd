"""The matrix arbiter (least recently granted): one-hot grants, rotation, no starvation."""

import random

import pytest
from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from cubefab.hdl.allocator import MatrixArbiter, least_recently_granted
from tests.helpers import refused, run_clocked


def test_all_requesting_rotates_in_order():
    dut = MatrixArbiter(4)

    async def bench(ctx):
        ctx.set(dut.requests, 0b1111)
        ctx.set(dut.commit, 1)
        order = []
        for _ in range(8):
            order.append(ctx.get(dut.grant).bit_length() - 1)
            await ctx.tick()
        assert order == [0, 1, 2, 3, 0, 1, 2, 3]
    run_clocked(dut, bench)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_persistent_requester_never_starves(seed):
    # requester 2 keeps requesting; the others come and go at random
    n = 6
    dut = MatrixArbiter(n)

    async def bench(ctx):
        rng = random.Random(seed)
        ctx.set(dut.commit, 1)
        waited = 0
        for _ in range(400):
            ctx.set(dut.requests, rng.randrange(1 << n) | 1 << 2)
            if ctx.get(dut.grant) == 1 << 2:
                waited = 0
            else:
                waited += 1
                assert waited < n, "requester 2 waited n grants"
            await ctx.tick()
    run_clocked(dut, bench)


def test_equal_share_under_full_load():
    n = 5
    dut = MatrixArbiter(n)

    async def bench(ctx):
        ctx.set(dut.requests, (1 << n) - 1)
        ctx.set(dut.commit, 1)
        counts = [0] * n
        for _ in range(10 * n):
            counts[ctx.get(dut.grant).bit_length() - 1] += 1
            await ctx.tick()
        assert counts == [10] * n
    run_clocked(dut, bench)


class LeastRecentlyGranted:
    """Reference model of a matrix arbiter that commits every grant."""

    def __init__(self, n):
        self.history = list(range(n))        # least recently granted first

    def grant(self, requests):
        """The expected grant (one-hot, 0 for none) of ``requests``; remembers it."""
        want = next((i for i in self.history if requests >> i & 1), None)
        if want is None:
            return 0
        self.history.remove(want)
        self.history.append(want)
        return 1 << want


def test_matrix_grant_is_the_least_recently_granted_requester_exhaustively():
    # every request pattern from every priority order reachable in 3 grants
    n = 4
    dut = MatrixArbiter(n)

    async def bench(ctx):
        rng = random.Random(7)
        model = LeastRecentlyGranted(n)
        for _ in range(600):
            req = rng.randrange(1 << n)
            ctx.set(dut.requests, req)
            ctx.set(dut.commit, 1)
            assert ctx.get(dut.grant) == model.grant(req), req
            await ctx.tick()
    run_clocked(dut, bench)


@pytest.mark.parametrize("n", [2, 3, 5])
def test_matrix_grant_is_one_hot_for_every_request_pattern(n):
    dut = MatrixArbiter(n)

    async def bench(ctx):
        ctx.set(dut.commit, 0)
        for req in range(1 << n):
            ctx.set(dut.requests, req)
            grant = ctx.get(dut.grant)
            assert grant & (grant - 1) == 0 and grant & req == grant
            assert bool(grant) == bool(req)
    run_clocked(dut, bench)


def test_matrix_priorities_hold_without_commit():
    dut = MatrixArbiter(3)

    async def bench(ctx):
        ctx.set(dut.requests, 0b110)
        for _ in range(3):
            assert ctx.get(dut.grant) == 0b010
            await ctx.tick()
    run_clocked(dut, bench)


def test_matrix_arbiter_checks_its_count():
    with refused(ValueError, match="Requester count"):
        MatrixArbiter(0)


class _EarlyContenders(wiring.Component):
    """least_recently_granted comparing contenders (given early) instead of requests."""

    def __init__(self, n):
        super().__init__({"requests": In(n), "contenders": In(n), "uncontested": In(1),
                          "grant": Out(n)})

    def elaborate(self, platform):
        m = Module()
        least_recently_granted(m, self.requests, self.grant, 1,
                               contenders=self.contenders, uncontested=self.uncontested)
        return m


def _grants_follow_the_model(dut, n, seed, drive):
    """600 cycles: ``drive(ctx, rng)`` sets the inputs and returns the requests; the
    grant must be the :class:`LeastRecentlyGranted` model's."""
    async def bench(ctx):
        rng = random.Random(seed)
        model = LeastRecentlyGranted(n)
        for _ in range(600):
            req = drive(ctx, rng)
            ctx.set(dut.requests, req)
            assert ctx.get(dut.grant) == model.grant(req), req
            await ctx.tick()
    run_clocked(dut, bench)


def test_matrix_grant_from_contenders_is_the_least_recently_granted_requester():
    # every cycle meets the contract: contenders = requests, or no request, or
    # uncontested with at most one request (contenders arbitrary otherwise)
    n = 4
    dut = _EarlyContenders(n)

    def drive(ctx, rng):
        case = rng.randrange(3)
        contenders = rng.randrange(1 << n)
        req = contenders if case == 0 else 0 if case == 1 else \
            rng.choice([0] + [1 << i for i in range(n)])
        ctx.set(dut.contenders, contenders)
        ctx.set(dut.uncontested, case == 2)
        return req
    _grants_follow_the_model(dut, n, 3, drive)


class _PairContenders(wiring.Component):
    """least_recently_granted with a contender value per requester."""

    def __init__(self, n):
        self.n = n
        super().__init__({"requests": In(n), "grant": Out(n),
                          **{f"contenders{i}": In(n) for i in range(n)}})

    def elaborate(self, platform):
        m = Module()
        least_recently_granted(m, self.requests, self.grant, 1,
                               contenders=[getattr(self, f"contenders{i}")
                                           for i in range(self.n)])
        return m


def test_matrix_grant_from_per_requester_contenders_is_the_least_recently_granted():
    # the contract: where requester i requests, contenders[i] has request j at bit j
    # (j != i); every other bit is arbitrary
    n = 4
    dut = _PairContenders(n)

    def drive(ctx, rng):
        req = rng.randrange(1 << n)
        for i in range(n):
            noise = rng.randrange(1 << n)
            value = (req & ~(1 << i)) | (noise & (1 << i)) if req >> i & 1 else noise
            ctx.set(getattr(dut, f"contenders{i}"), value)
        return req
    _grants_follow_the_model(dut, n, 5, drive)


def test_per_requester_contenders_take_no_uncontested_signal():
    from amaranth.hdl import Signal
    with refused(ValueError, match="Per-requester contenders take no uncontested"):
        least_recently_granted(Module(), Signal(2), Signal(2), 1,
                               contenders=[Signal(2), Signal(2)], uncontested=Signal())
