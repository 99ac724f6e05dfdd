"""The register FIFO behaves exactly like amaranth.lib.fifo.SyncFIFO."""

import random

import pytest
from amaranth.hdl import Module
from amaranth.lib.fifo import SyncFIFO
from amaranth.sim import Simulator

from cubefab.hdl.fifo import RegisterFIFO


@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5])
def test_register_fifo_equals_syncfifo_cycle_by_cycle(depth):
    m = Module()
    ours = m.submodules.ours = RegisterFIFO(width=8, depth=depth)
    ref = m.submodules.ref = SyncFIFO(width=8, depth=depth)

    async def bench(ctx):
        rng = random.Random(depth)
        for _ in range(400):
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

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()


def test_register_fifo_checks_parameters():
    with pytest.raises(ValueError, match="FIFO depth"):
        RegisterFIFO(width=4, depth=0)
