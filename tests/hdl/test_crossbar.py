"""The crossbar's multiplexer passes the input its one-hot select names."""

import random

from amaranth.hdl import Module, Signal
from amaranth.sim import Simulator

from cubefab.hdl.crossbar import one_hot_mux


def test_one_hot_mux_passes_the_selected_input():
    inputs = [Signal(12, name=f"i{k}") for k in range(5)]
    select = Signal(5)
    out = Signal(12)
    m = Module()
    m.d.comb += out.eq(one_hot_mux(select, inputs))

    async def bench(ctx):
        rng = random.Random(2)
        for _ in range(200):
            values = [rng.randrange(1 << 12) for _ in range(5)]
            for signal, v in zip(inputs, values):
                ctx.set(signal, v)
            pick = rng.choice([None, 0, 1, 2, 3, 4])
            ctx.set(select, 0 if pick is None else 1 << pick)
            assert ctx.get(out) == (0 if pick is None else values[pick])
            await ctx.delay(1e-6)

    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()
