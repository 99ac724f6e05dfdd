"""The router FIFOs behave exactly like amaranth.lib.fifo.SyncFIFO."""

import random

import pytest
from amaranth.hdl import Module
from amaranth.lib.fifo import SyncFIFO

from cubefab.hdl.fifo import DistributedFIFO, MemoryFIFO, MemoryLutRamHeadFIFO, RegisterFIFO
from tests.helpers import refused, run_clocked

FIFOS = [RegisterFIFO, MemoryFIFO, MemoryLutRamHeadFIFO, DistributedFIFO]


@pytest.mark.parametrize("fifo_class", FIFOS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("head", [0, 3, 8])
@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5])
def test_fifo_equals_syncfifo_cycle_by_cycle(fifo_class, head, depth):
    m = Module()
    ours = m.submodules.ours = fifo_class(width=8, depth=depth, head=head)
    ref = m.submodules.ref = SyncFIFO(width=8, depth=depth)

    async def bench(ctx):
        rng = random.Random(depth)
        for _ in range(400):
            # random enables reach both full and empty
            w_en, r_en, data = rng.randrange(2), rng.randrange(2), rng.randrange(256)
            for f in (ours, ref):
                ctx.set(f.w_en, w_en)
                ctx.set(f.r_en, r_en)
                ctx.set(f.w_data, data)
            for name in ("w_rdy", "r_rdy", "w_level", "r_level"):
                assert ctx.get(getattr(ours, name)) == ctx.get(getattr(ref, name)), name
            if ctx.get(ref.r_rdy):
                assert ctx.get(ours.r_data) == ctx.get(ref.r_data)
            await ctx.tick()

    run_clocked(m, bench)


@pytest.mark.parametrize("fifo_class", FIFOS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("depth", [1, 4])
def test_head_bits_read_zero_while_empty(fifo_class, depth):
    dut = fifo_class(width=8, depth=depth, head=3)

    async def bench(ctx):
        ctx.set(dut.w_data, 0xA5)
        ctx.set(dut.w_en, 1)
        await ctx.tick()
        ctx.set(dut.w_en, 0)
        assert ctx.get(dut.r_rdy) and ctx.get(dut.r_data) == 0xA5
        ctx.set(dut.r_en, 1)
        await ctx.tick()
        assert not ctx.get(dut.r_rdy) and ctx.get(dut.r_data) & 0b111 == 0

    run_clocked(dut, bench)


@pytest.mark.parametrize("fifo_class", FIFOS, ids=lambda c: c.__name__)
def test_fifo_checks_parameters(fifo_class):
    with refused(ValueError, match="FIFO depth"):
        fifo_class(width=4, depth=0)
    with refused(ValueError, match="FIFO head width"):
        fifo_class(width=4, depth=2, head=5)
