"""Board bitstreams with amaranth-boards: iCEBreaker (iCE40UP5K), iCEstick
(iCE40HX1K), ULX3S (ECP5 LFE5U-85F), OrangeCrab r0.2 (ECP5 LFE5U-25F) and Tang Nano 9K
(Gowin GW1NR-9).

A board top wraps a self-checking design (one that generates its own traffic and
counts what it delivers and the errors it detects) and shows its state on the
board's LEDs (:class:`StatusLeds`): a failure lamp that latches on the first error
or when deliveries stop, a pass lamp, and activity lamps that follow the delivery
count. iCE40 and ECP5 boards build with Amaranth's own flow (yosys, nextpnr-ice40 and
icepack; yosys, nextpnr-ecp5 and ecppack: Amaranth's ``Trellis`` toolchain) with the
tools :func:`cubefab.build.pnr.find_tool` finds (the YoWASP builds from pip by default,
passed in ``YOSYS``, ``NEXTPNR_ICE40``, ``NEXTPNR_ECP5`` ...). Amaranth 0.5's Gowin
flow runs ``nextpnr-gowin``, which nextpnr no longer has: a Gowin board's files
(RTLIL, yosys script, CST constraints) come from Amaranth, and :func:`build_bitstream`
runs yosys, nextpnr-himbaechel (Gowin) and apycula's ``gowin_pack`` on them itself.
"""

import contextlib
import json
import os
import time
from dataclasses import dataclass

from amaranth.hdl import Elaboratable, Module, Signal
from amaranth.lib import io, wiring
from amaranth.lib.wiring import In, Out

from ..topology.base import check_int
from ..tools.devices import DEVICES, Ice40, Ecp5, Gowin
from ..tools.process import TOOLS, NO_DEADLINE, run_process, says_it_does_not_fit
from .pnr import (find_tool, parse_nextpnr_report, parse_nextpnr_log, count_cells,
                  DoesNotFit, ToolFailed)
from ..progress import in_stage
from .run_time import board_stages, expect_synthesis, expect_pnr


__all__ = ["Board", "RgbBoard", "BOARDS", "BOARD_TOOLS", "StatusLeds", "BoardTop",
           "board_design", "BOARD_TRAFFIC", "selfcheck_board_top", "toolchain_env", "build_bitstream", "build_stages",
           "SYNTH_OPTIONS", "PRODUCTS"]


#: yosys ``synth_ice40`` options of board builds: the iCE40's options for a placeable
#: netlist (:attr:`~cubefab.tools.devices.Ice40.placement_options`): a board's
#: self-checking fabric fills its part.
SYNTH_OPTIONS = Ice40.placement_options.strip()


@dataclass(frozen=True)
class Board:
    """A supported board: its amaranth-boards platform and how its LEDs are used.

    ``fail_led`` and ``pass_led`` are indices of the platform's ``led`` resources;
    ``activity_leds`` show the delivery count's top bits (may be empty). ``device`` is
    a key of :data:`~cubefab.tools.devices.DEVICES`, ``clock_mhz`` the board clock;
    ``load`` the command line that loads the bitstream (``{bitstream}`` its path).
    """
    name: str
    platform_module: str
    platform_class: str
    device: str
    fail_led: int
    pass_led: int
    activity_leds: tuple
    clock_mhz: float = 12.0
    load: str = "iceprog {bitstream}"

    @property
    def bitstream_suffix(self):
        """The extension of the file the flow loads onto the board."""
        family = DEVICES[self.device].family
        return {Ice40: "bin", Ecp5: "bit", Gowin: "fs"}[type(family)]

    def lamp_ports(self, platform, indices):
        """The platform's output ports of lamps ``indices`` (index -> port)."""
        return {index: platform.request("led", index, dir="-") for index in indices}

    def platform(self):
        import importlib
        try:
            module = importlib.import_module(self.platform_module)
        except ImportError:
            raise RuntimeError("amaranth-boards is not installed: install it with "
                               "`pip install amaranth-boards`") from None
        return getattr(module, self.platform_class)()


class RgbBoard(Board):
    """A board whose lamp is one RGB LED (``rgb_led`` 0): lamp index 0 is its red,
    1 its green, 2 its blue component."""

    def lamp_ports(self, platform, indices):
        led = platform.request("rgb_led", 0, dir={"r": "-", "g": "-", "b": "-"})
        return {index: getattr(led, "rgb"[index]) for index in indices}


#: Supported boards. iCEBreaker: led 0 is red (fail), led 1 green (pass, blinks with
#: activity). iCEstick: led 0..3 red (0 = fail, 1..3 = activity), led 4 green (pass).
#: ULX3S: led 0..7 (0 = fail, 1 = pass, 2..4 = activity). OrangeCrab: its RGB LED (red =
#: fail, green = pass blinking with activity). Tang Nano 9K: led 0..5 (0 = fail, 1 =
#: pass, 2..4 = activity).
BOARDS = {
    "icebreaker": Board("icebreaker", "amaranth_boards.icebreaker", "ICEBreakerPlatform",
                        "up5k", fail_led=0, pass_led=1, activity_leds=()),
    "icestick": Board("icestick", "amaranth_boards.icestick", "ICEStickPlatform",
                      "hx1k", fail_led=0, pass_led=4, activity_leds=(1, 2, 3)),
    "ulx3s": Board("ulx3s", "amaranth_boards.ulx3s", "ULX3S_85F_Platform", "lfe5u-85f",
                   fail_led=0, pass_led=1, activity_leds=(2, 3, 4), clock_mhz=25.0,
                   load="openFPGALoader --board ulx3s {bitstream}"),
    "orangecrab": RgbBoard("orangecrab", "amaranth_boards.orangecrab_r0_2",
                           "OrangeCrabR0_2_25FPlatform", "lfe5u-25f", fail_led=0,
                           pass_led=1, activity_leds=(), clock_mhz=48.0,
                           load="dfu-util -a 0 -D {bitstream}"),
    "tang-nano-9k": Board("tang-nano-9k", "amaranth_boards.tang_nano_9k",
                          "TangNano9kPlatform", "gw1nr-9", fail_led=0, pass_led=1,
                          activity_leds=(2, 3, 4), clock_mhz=27.0,
                          load="openFPGALoader --board tangnano9k {bitstream}"),
}

#: The tools that build a bitstream of each family (keys of
#: :data:`cubefab.build.pnr.TOOLS`).
BOARD_TOOLS = {Ice40: ("yosys", "nextpnr-ice40", "icepack"),
               Ecp5: ("yosys", "nextpnr-ecp5", "ecppack"),
               Gowin: ("yosys", "nextpnr-himbaechel-gowin", "gowin_pack")}


class StatusLeds(wiring.Component):
    """Turn a self-checking design's counters into lamp states.

    Parameters
    ----------
    count_width : int
        Width of the ``delivered`` counter.
    activity_bit : int
        Bit of ``delivered`` whose toggling is shown (about 2^activity_bit
        deliveries per blink period half).
    watchdog_bits : int
        The design counts as stalled when ``delivered`` has not changed for
        2^watchdog_bits cycles.

    Members
    -------
    errors : In(1)
        Any error detected (need not be sticky: the failure latches here).
    delivered : In(count_width)
        Running count of delivered packets.
    fail : Out(1)
        Latched error, or deliveries stalled.
    passing : Out(1)
        No error, not stalled, at least one delivery seen; blinks with activity when
        ``blink`` is set.
    activity : Out(3)
        Three bits of the delivery count starting at ``activity_bit``.
    """

    def __init__(self, count_width=32, activity_bit=20, watchdog_bits=24, blink=False):
        self.count_width = check_int("Count width", count_width, 1)
        self.activity_bit = check_int("Activity bit", activity_bit, 0, count_width - 1)
        self.watchdog_bits = check_int("Watchdog bits", watchdog_bits, 1)
        self.blink = blink
        super().__init__({"errors": In(1), "delivered": In(count_width),
                          "fail": Out(1), "passing": Out(1), "activity": Out(3)})

    def elaborate(self, platform):
        m = Module()
        failed = Signal()
        seen = Signal()
        previous = Signal(self.count_width)
        idle = Signal(self.watchdog_bits + 1)
        stalled = Signal()
        m.d.sync += previous.eq(self.delivered)
        with m.If(self.delivered != previous):
            m.d.sync += [idle.eq(0), seen.eq(1)]
        with m.Elif(~idle[-1]):
            m.d.sync += idle.eq(idle + 1)
        m.d.comb += stalled.eq(idle[-1])
        with m.If(self.errors):
            m.d.sync += failed.eq(1)
        top = min(self.activity_bit + 3, self.count_width)
        m.d.comb += [
            self.fail.eq(failed | stalled),
            self.activity.eq(self.delivered[self.activity_bit:top]),
        ]
        ok = ~failed & ~stalled & seen
        if self.blink:
            m.d.comb += self.passing.eq(ok & ~self.delivered[self.activity_bit])
        else:
            m.d.comb += self.passing.eq(ok)
        return m


class BoardTop(Elaboratable):
    """A self-checking ``design`` with its state on the LEDs of ``board``.

    Parameters
    ----------
    design : Elaboratable
        The self-checking design, clocked by the board's default clock.
    board : str or Board
    status : callable
        ``status(design) -> (errors, delivered)``: the design's error indication
        (any bit set = error) and its running delivery count.
    activity_bit : int
        Delivery-count bit shown by the activity lamps.
    settings : dict, optional
        Constant values for input members of ``design`` (name -> int): run settings
        such as a seed or an injection threshold.
    """

    def __init__(self, design, board, status, activity_bit=20, settings=None):
        if isinstance(board, str):
            if board not in BOARDS:
                raise ValueError(f"Board must be one of {', '.join(BOARDS)}, not {board!r}")
            board = BOARDS[board]
        self.design = design
        self.board = board
        self.status = status
        self.settings = dict(settings or {})
        for name in self.settings:
            if not hasattr(design, name):
                raise ValueError(f"Setting must name a member of the design, not {name!r}")
        errors, delivered = status(design)
        self.leds = StatusLeds(count_width=len(delivered),
                               activity_bit=min(activity_bit, len(delivered) - 1),
                               blink=not board.activity_leds)

    def elaborate(self, platform):
        m = Module()
        m.submodules.design = self.design
        m.submodules.leds = leds = self.leds
        errors, delivered = self.status(self.design)
        m.d.comb += [leds.errors.eq(errors.any()), leds.delivered.eq(delivered)]
        for name, value in self.settings.items():
            m.d.comb += getattr(self.design, name).eq(value)
        if platform is not None:
            board = self.board
            lamps = [(board.fail_led, leds.fail), (board.pass_led, leds.passing)]
            lamps += [(index, leds.activity[i]) for i, index in enumerate(board.activity_leds)]
            ports = board.lamp_ports(platform, [index for index, _ in lamps])
            for index, value in lamps:
                buffer = io.Buffer("o", ports[index])
                m.submodules[f"led{index}"] = buffer
                m.d.comb += buffer.o.eq(value)
        return m


#: The self-checking traffic of a board's fabric by default: a 5-bit timestamp, a 3-bit
#: sequence number and 2-packet queues at the generators.
BOARD_TRAFFIC = {"timestamp_bits": 5, "sequence_bits": 3, "queue_depth": 2}


def board_design(topology, board, **params):
    """The :class:`~cubefab.hdl.selfcheck.SelfCheckConfig` of ``topology`` a board runs:
    by default the default router (:data:`~cubefab.hdl.config.BOARD_DEFAULTS`: 4-flit
    buffers, 16-bit payloads), buffers of at least
    :data:`~cubefab.hdl.config.AUTO_MEMORY_DEPTH` flits in block RAM when those of the
    whole fabric fit the board's device, and :data:`BOARD_TRAFFIC`; ``params``, the
    keywords of :meth:`SelfCheckConfig.of <cubefab.hdl.selfcheck.SelfCheckConfig.of>`,
    say otherwise (narrower flits and shallower buffers, ``payload_width=8, depth=2``,
    make the fabric smaller)."""
    from ..hdl.config import BOARD_DEFAULTS
    from ..hdl.selfcheck import SelfCheckConfig
    board = _check_board(board)
    return SelfCheckConfig.of(topology, **{**BOARD_TRAFFIC,
                                           **DEVICES[board.device].auto_settings, **params},
                              defaults=BOARD_DEFAULTS)


def selfcheck_board_top(design, board, *, rate=0.25, seed=1):
    """A :class:`BoardTop` running a
    :class:`~cubefab.hdl.selfcheck.SelfCheckingFabric` of ``design`` on ``board``.

    ``design`` is a :class:`~cubefab.hdl.selfcheck.SelfCheckConfig` (its router, traffic
    and, with an :class:`~cubefab.hdl.endpoint.EndpointInterface`, AXI4-Stream
    endpoints), or a topology, for :func:`board_design`'s. The run settings are
    constants of the bitstream: ``rate`` is the packet creation probability per node
    per cycle, ``seed`` the generators' run seed. The activity lamps toggle about twice
    a second at the board clock.
    """
    from ..hdl.selfcheck import SelfCheckConfig, SelfCheckingFabric
    from ..hdl.traffic_gen import rate_threshold
    board = _check_board(board)
    if not isinstance(design, SelfCheckConfig):
        design = board_design(design, board)
    threshold = rate_threshold(rate)
    if not isinstance(seed, int) or not 0 <= seed < 1 << 32:
        raise ValueError(f"Seed must be an integer in 0..2**32-1, not {seed!r}")
    topology = design.topology
    per_second = board.clock_mhz * 1e6 * topology.num_nodes * max(rate, 1e-6)
    activity_bit = max(0, min(22, int(per_second / 4).bit_length() - 1))
    # At most one error per node and cycle: the low bits of the error count cannot
    # all stay zero at its first step (the lamp latches it), and the rest of the
    # counter is not built.
    error_bits = topology.num_nodes.bit_length()
    return BoardTop(SelfCheckingFabric(design), board,
                    lambda d: (d.errors[:error_bits], d.delivered[:24]),
                    activity_bit=activity_bit,
                    settings={"seed": seed, "threshold": threshold})


def toolchain_env(family=Ice40()):
    """The environment for Amaranth's flow of ``family``: the variables Amaranth reads
    (``YOSYS``, ``NEXTPNR_ICE40``, ``ICEPACK``; ``NEXTPNR_ECP5``, ``ECPPACK`` ...) set
    to the tools found (raises ToolMissing naming the install command when one is
    absent)."""
    from .pnr import TOOLS
    env = dict(os.environ)
    for tool in BOARD_TOOLS[type(family)]:
        env[TOOLS[tool][0]] = find_tool(tool)
    return env


def _check_board(board):
    if isinstance(board, str):
        if board not in BOARDS:
            raise ValueError(f"Board must be one of {', '.join(BOARDS)}, not {board!r}")
        board = BOARDS[board]
    return board


def _gowin_script(board, platform, name):
    """The commands that build a Gowin bitstream from Amaranth's files (its yosys
    script, which writes ``{name}.syn.json``, and its ``{name}.cst``)."""
    device = DEVICES[board.device]
    chipdb = platform._chipdb_device
    return [
        [find_tool("yosys"), "-q", "-l", f"{name}.rpt", f"{name}.ys"],
        [find_tool("nextpnr-himbaechel-gowin"), "--quiet", "--log", f"{name}.tim",
         "--device", device.part, "--vopt", f"family={chipdb}", "--vopt",
         f"cst={name}.cst", "--json", f"{name}.syn.json", "--write", f"{name}.pnr.json",
         "--report", f"{name}.report.json", "--timing-allow-fail"],
        [find_tool("gowin_pack"), "-d", chipdb, "-o", f"{name}.fs", f"{name}.pnr.json"],
    ]


#: What a board build makes (``{name}`` its design's name): removed before it starts
#: and when a step fails or runs past its deadline, so that a bitstream in the build
#: directory is always one that a build completed.
PRODUCTS = ("{name}.json", "{name}.syn.json", "{name}.asc", "{name}.config",
            "{name}.pnr.json", "{name}.report.json", "{name}.bin", "{name}.bit",
            "{name}.svf", "{name}.fs")


def _commands(board, platform, plan, name, env):
    """The build's steps, ``(tool, arguments)`` each: Amaranth's (iCE40, ECP5: its
    ``build_{name}.json``, each tool the one ``env`` names) or :func:`_gowin_script`."""
    family = DEVICES[board.device].family
    if isinstance(family, Gowin):
        return list(zip(BOARD_TOOLS[Gowin], _gowin_script(board, platform, name)))
    variables = {TOOLS[key][1]: TOOLS[key][0] for key in BOARD_TOOLS[type(family)]}
    variables["dfu-suffix"] = "DFU_SUFFIX"
    commands = json.loads(plan.files[f"{plan.script}.json"])["commands"]
    return [(tool, [env[variables[tool]], *args]) for tool, *args in commands]


def _failure(board, name, out_dir, build_dir, output):
    """The DoesNotFit or ToolFailed of a step that failed with ``output``."""
    text = output
    log = os.path.join(build_dir, f"{name}.tim")
    if not text.strip() and os.path.exists(log):
        with open(log, errors="replace") as f:
            text = f.read()
    errors = [line[len("ERROR:"):].strip() for line in text.splitlines()
              if line.startswith("ERROR:")]
    reason = errors[0] if errors else "\n".join(text.splitlines()[-10:])
    cls = DoesNotFit if says_it_does_not_fit(reason) else ToolFailed
    what = "does not fit the device" if cls is DoesNotFit else "build failed"
    return cls(f"{board.name}: {what}: {reason} (logs {name}.rpt, {name}.tim in "
               f"{out_dir})")


def _steps(commands, name):
    """``commands`` (:func:`_commands`) by stage: ``(stage, log, commands)``, yosys
    first, nextpnr second, the packer (and the OrangeCrab's ``dfu-suffix``) last."""
    return [("synthesis", f"{name}.rpt", commands[:1]),
            ("pnr", f"{name}.tim", commands[1:2]), ("pack", None, commands[2:])]


def _run_build(board, platform, plan, out_dir, name, deadline, stages):
    """Run the build of ``plan`` in ``out_dir`` step by step (:func:`_commands`), each
    in its stage of ``stages`` (:class:`~cubefab.progress.Stages`, or None) and within
    ``deadline``: a failure raises DoesNotFit or ToolFailed, a step past the deadline
    ToolTimeout; either removes the :data:`PRODUCTS`."""
    family = DEVICES[board.device].family
    build_dir = plan.extract(out_dir)
    products = [product.format(name=name) for product in PRODUCTS]
    for product in products:
        with contextlib.suppress(FileNotFoundError):
            os.remove(os.path.join(build_dir, product))
    env = toolchain_env(family)
    if "dfu-suffix" in platform.required_tools:     # the OrangeCrab's bootloader format
        env["DFU_SUFFIX"] = _dfu_suffix_command(build_dir)
    netlist = f"{name}.syn.json" if isinstance(family, Gowin) else f"{name}.json"
    for stage, log, commands in _steps(_commands(board, platform, plan, name, env), name):
        with in_stage(stages, stage):
            for tool, command in commands:
                # the tools' chatter stays out of the terminal; a failure is one exception
                status, output = run_process(command, build_dir, tool, deadline, products,
                                             log and os.path.join(build_dir, log), env)
                if status != 0:
                    raise _failure(board, name, out_dir, build_dir, output)
            if stage == "synthesis" and stages is not None:
                expect_pnr(stages, count_cells(os.path.join(build_dir, netlist), name,
                                               family), board.device)


def _dfu_suffix_command(build_dir):
    """A ``dfu-suffix`` command in ``build_dir`` that runs :mod:`cubefab.build.dfu` (the
    Amaranth script calls the tool by one path)."""
    import sys
    path = os.path.join(build_dir, "dfu-suffix")
    with open(path, "w") as f:
        f.write(f'#!/bin/sh\nexec "{sys.executable}" -m cubefab.build.dfu "$@"\n')
    os.chmod(path, 0o755)
    return os.path.abspath(path)


def _build_options(board, name):
    """Amaranth build overrides of ``board``'s family."""
    family = DEVICES[board.device].family
    report = f"--timing-allow-fail --report {name}.pnr.json"
    if isinstance(family, Ice40):
        return {"synth_opts": SYNTH_OPTIONS, "nextpnr_opts": report}
    if isinstance(family, Ecp5):
        return {"nextpnr_opts": report}
    return {"synth_opts": f"-family {DEVICES[board.device].yosys_family}"}


def build_stages(board, elaboration=0.0):
    """The :class:`~cubefab.progress.Stage`\\ s of :func:`build_bitstream` on ``board``
    (:func:`~cubefab.build.run_time.board_stages`; ``elaboration``: the estimated
    seconds of the design's elaboration)."""
    board = _check_board(board)
    packer = BOARD_TOOLS[type(DEVICES[board.device].family)][-1]
    return board_stages(board.device, elaboration, packer)


def build_bitstream(top, board, out_dir, name="top", deadline=NO_DEADLINE, stages=None):
    """Build the bitstream of ``top`` (an Elaboratable) for ``board`` into
    ``out_dir``.

    ``stages``: a :class:`~cubefab.progress.Stages` of :func:`build_stages`, each stage
    reported as it runs; ``deadline``: the time the build may take (none by default;
    past it :class:`~cubefab.tools.process.ToolTimeout`, the tool stopped and no
    bitstream left).

    Returns a dict: ``bitstream`` (path of ``{name}.bin``, ``.bit`` (ECP5) or ``.fs``
    (Gowin)), ``board``, ``device``, ``family``, ``logic_cells``/
    ``logic_cells_available``, ``ram``, ``io``, ``fmax_mhz`` (the board clock's
    achieved frequency), ``clock_mhz`` (the board clock), ``load`` (the command that
    loads it) and ``seconds``. Logs: ``{name}.rpt`` (yosys) and ``{name}.tim``
    (nextpnr).
    """
    board = _check_board(board)
    family = DEVICES[board.device].family
    toolchain_env(family)          # every tool there before anything is built
    platform = board.platform()
    start = time.monotonic()
    with in_stage(stages, "verilog"):
        plan = platform.build(top, name=name, build_dir=out_dir, do_build=False,
                              **_build_options(board, name))
        if stages is not None:
            expect_synthesis(stages, len(plan.files[f"{name}.il"]), board.device,
                             rtlil=True)
    _run_build(board, platform, plan, out_dir, name, deadline, stages)
    routed = _routed_report(out_dir, name, isinstance(family, Gowin))
    util = routed["utilization"]
    lc = util.get(family.logic_cell, (None, DEVICES[board.device].luts))
    ram = {Ice40: "ICESTORM_RAM", Ecp5: "DP16KD", Gowin: "BSRAM"}[type(family)]
    fmax = routed["fmax_mhz"]
    bitstream = os.path.join(out_dir, f"{name}.{board.bitstream_suffix}")
    return {
        "board": board.name,
        "device": board.device,
        "family": family.name,
        "bitstream": bitstream,
        "logic_cells": lc[0],
        "logic_cells_available": lc[1],
        "ram": util.get(ram, (0, 0))[0],
        "io": util.get(family.io_cell, (0, 0))[0],
        "fmax_mhz": round(min(fmax.values()), 2) if fmax else None,
        "clock_mhz": platform.default_clk_frequency / 1e6,
        "load": board.load.format(bitstream=bitstream),
        "seconds": round(time.monotonic() - start, 1),
    }


def _routed_report(out_dir, name, gowin):
    """The place-and-route report of a board build (its log's Fmax when the report
    has none)."""
    report_path = os.path.join(out_dir, f"{name}.{'report' if gowin else 'pnr'}.json")
    routed = None
    if os.path.exists(report_path):
        routed = parse_nextpnr_report(report_path)
    if routed is None or not routed["fmax_mhz"]:
        with open(os.path.join(out_dir, f"{name}.tim"), errors="replace") as f:
            logged = parse_nextpnr_log(f.read())
        routed = dict(routed or logged, fmax_mhz=logged["fmax_mhz"])
    return routed
