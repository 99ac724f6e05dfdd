"""The crossbar connects each output to the input its one-hot select names."""

import random

from amaranth.sim import Simulator

from cubefab.hdl.crossbar import Crossbar


def test_crossbar_routes_selected_inputs():
    dut = Crossbar(12, 5, 3)

    async def bench(ctx):
        rng = random.Random(2)
        for _ in range(200):
            values = [rng.randrange(1 << 12) for _ in range(5)]
            for i, v in enumerate(values):
                ctx.set(dut.i[i], v)
            picks = [rng.choice([None, 0, 1, 2, 3, 4]) for _ in range(3)]
            for o, pick in enumerate(picks):
                ctx.set(dut.select[o], 0 if pick is None else 1 << pick)
            for o, pick in enumerate(picks):
                assert ctx.get(dut.o[o]) == (0 if pick is None else values[pick])
            await ctx.delay(1e-6)

    sim = Simulator(dut)
    sim.add_testbench(bench)
    sim.run()
