"""The FPGA devices cubefab implements designs on, by family: iCE40, ECP5 and Gowin.

A :class:`Family` says how its designs are synthesised (the yosys script), placed and
routed (the nextpnr build and its options) and counted (which netlist cells are LUT4s,
flip-flops, carry cells and block RAMs); a :class:`Device` is one part of a family,
with its package and its capacity. :data:`DEVICES` lists the supported parts by the
name ``--device`` takes.

Every family reports the same quantities (:func:`Family.count`): ``lut4`` (4-input
LUTs: iCE40 ``SB_LUT4``, ECP5 ``LUT4``, Gowin ``LUT1`` .. ``LUT4``), ``ff``, ``carry``
(iCE40 ``SB_CARRY``, ECP5 ``CCU2C`` (two bits each), Gowin ``ALU``) and ``ram`` (the
family's block RAMs: ``SB_RAM40_4K``, ``DP16KD``/``PDPW16KD``, Gowin BSRAM ``SP``,
``SDPB``, ``DPB`` ...); the cells of every type are listed beside them.
"""

from dataclasses import dataclass

from ..hdl.config import AUTO_MEMORY_DEPTH


__all__ = ["CELL_KINDS", "Family", "Ice40", "Ecp5", "Gowin", "Device", "DEVICES", "FAMILIES",
           "check_device", "ECP5_MEMORY_DEPTH", "ECP5_DISTRIBUTED_DEPTH",
           "GOWIN_DISTRIBUTED_DEPTH"]

#: The shortest buffer the ``"auto"`` rule keeps in an ECP5's block RAM (``DP16KD``):
#: shorter ones in LUT RAM, which keeps a faster clock in fewer logic cells
#: (:class:`Ecp5`).
ECP5_MEMORY_DEPTH = 64

#: The shortest buffer the ``"auto"`` rule keeps in an ECP5's LUT RAM
#: (``TRELLIS_DPR16X4``) when not in block RAM: shorter ones in flip-flops
#: (:class:`Ecp5`).
ECP5_DISTRIBUTED_DEPTH = 3

#: The shortest buffer the ``"auto"`` rule keeps in a Gowin part's LUT RAM
#: (``RAM16SDP4``, shadow SRAM) when not in block RAM (:class:`Gowin`).
GOWIN_DISTRIBUTED_DEPTH = 4


#: What :meth:`Family.count` counts of a netlist, in this order: LUT4s, flip-flops,
#: carry cells, block RAMs and LUT RAM cells.
CELL_KINDS = ("lut4", "ff", "carry", "ram", "dram")


class Family:
    """A device family: how designs are synthesised, placed, routed and counted.

    Subclasses set the class attributes below; a family holds no state.
    """

    #: Name shown in reports.
    name = ""
    #: The yosys synthesis command.
    synth = ""
    #: The key of :data:`cubefab.build.pnr.TOOLS` that places and routes.
    nextpnr = ""
    #: nextpnr's utilisation entries of logic cells and of I/O.
    logic_cell = ""
    io_cell = ""
    #: Whether nextpnr's count of :attr:`logic_cell` once it has packed the design
    #: (``--pack-only``) is the count after place and route, so that a design larger
    #: than the part can be given its logic cells without placing it.
    packed_logic_cells = True
    #: yosys' cell simulation models of the family (relative to its share directory).
    cells_sim = ()
    #: The shortest buffer the ``"auto"`` rule keeps in the family's block RAM
    #: (``RouterConfig.memory_depth``): measured on the iCE40 (where a block RAM takes
    #: fewer LUTs than a flip-flop buffer from 3 flits on, at the same clock), and on
    #: the Gowin GW1NR-9 (block RAM 15-37 % fewer LUT4s than flip-flops at depths 4
    #: and 8, at a clock as fast or faster over seeds 1-3: docs/router.md).
    auto_memory_depth = AUTO_MEMORY_DEPTH
    #: The shortest buffer the ``"auto"`` rule keeps in the family's LUT RAM when not in
    #: block RAM (``RouterConfig.distributed_depth``; 0: never, the iCE40, which has no
    #: LUT RAM: yosys builds an asynchronously read memory from flip-flops there).
    auto_distributed_depth = 0
    #: The family's LUT RAM cells (none: the iCE40 has no LUT RAM).
    distributed_rams = ()
    #: LUT4 sites a LUT RAM cell takes when placed (what the fit check counts for it
    #: beside the netlist's LUT4s).
    lut_ram_luts = 0
    #: LUT4 sites a carry cell takes when placed (0: it shares a logic cell with a LUT).
    carry_luts = 0
    #: LUT4s of a part per LUT RAM cell it can hold (0: none).
    luts_per_lut_ram = 0

    #: Options of :attr:`synth` beyond the top module's name (a leading space).
    synth_options = ""
    #: Options of :attr:`synth` for a netlist that nextpnr can place where the plain
    #: one packs into the part but has no legal placement (a leading space; "": none).
    placement_options = ""

    def synth_command(self, device, top, placeable=False):
        """The yosys command that maps module ``top`` to ``device``'s cells, with no I/O
        buffers (a netlist to simulate); with ``placeable``, and
        :attr:`placement_options`."""
        return (f"{self.synth} -top {top}{self.synth_options}"
                f"{self.placement_options if placeable else ''}")

    def synth_script(self, device, top, extra="", placeable=False):
        """The yosys commands that synthesise module ``top`` for ``device`` (with
        ``placeable``, :attr:`placement_options` too), run ``extra`` (``; cmd ...``:
        measurements of the mapped logic) and write ``{top}.json``."""
        return f"{self.synth_command(device, top, placeable)} -json {top}.json{extra}"

    def pnr_args(self, device, package):
        """nextpnr's options that select ``device`` in ``package``."""
        raise NotImplementedError

    def pnr_files(self, device, ports, package=None):
        """Constraint files the family's nextpnr needs for a design whose top module has
        the 1-bit ports ``ports``, placed in ``package`` (default: the device's):
        ``{file name: text}`` (none by default)."""
        return {}

    def count(self, types):
        """The :data:`CELL_KINDS` of the cell counts ``types`` (cell type -> count):
        ``lut4``, ``ff``, ``carry``, ``ram`` (block RAMs) and ``dram`` (LUT RAM cells)."""
        return {"lut4": sum(types.get(t, 0) for t in self.luts),
                "ff": sum(n for t, n in types.items() if t.startswith(self.ff_prefix)),
                "carry": sum(types.get(t, 0) for t in self.carries),
                "ram": sum(n for t, n in types.items() if t in self.block_rams),
                "dram": sum(types.get(t, 0) for t in self.distributed_rams)}

    def __repr__(self):
        return f"{type(self).__name__}()"


class Ice40(Family):
    """Lattice iCE40: yosys ``synth_ice40``, nextpnr-ice40."""
    name = "iCE40"
    synth = "synth_ice40"
    nextpnr = "nextpnr-ice40"
    logic_cell = "ICESTORM_LC"
    io_cell = "SB_IO"
    cells_sim = ("ice40/cells_sim.v",)
    luts = ("SB_LUT4",)
    ff_prefix = "SB_DFF"
    carries = ("SB_CARRY",)
    block_rams = ("SB_RAM40_4K", "SB_RAM40_4KNR", "SB_RAM40_4KNW", "SB_RAM40_4KNRNW")
    #: A flip-flop enable that would drive fewer than 8 flip-flops becomes LUT logic.
    #: Each iCE40 logic block of 8 cells has one enable (and one set/reset): a design
    #: with many small enable groups (a fabric's counters, a self-checking fabric's
    #: sequence-number table entry per flow) leaves blocks part empty, and a part
    #: nearly full has no legal placement (the Q(2) fabric with 16-bit AXI4-Stream
    #: endpoints on the UP5K: none at 4,207 of 5,280 logic cells; with this option
    #: 4,223, placed; boards' MC(1,1) with narrow flits on the UP5K: none at 89 %,
    #: placed at 93 %).
    placement_options = " -dffe_min_ce_use 8"

    def pnr_args(self, device, package):
        return [device.option, "--package", package]


class Ecp5(Family):
    """Lattice ECP5: yosys ``synth_ecp5``, nextpnr-ecp5 (``--25k`` ... with
    ``--package`` and ``--speed``)."""
    name = "ECP5"
    synth = "synth_ecp5"
    nextpnr = "nextpnr-ecp5"
    logic_cell = "TRELLIS_COMB"
    io_cell = "TRELLIS_IO"
    cells_sim = ("ecp5/cells_sim.v",)
    luts = ("LUT4", "LUT3", "LUT2", "LUT1")
    ff_prefix = "TRELLIS_FF"
    carries = ("CCU2C",)
    #: No LUT wider than 4 inputs (``PFUMX``, ``L6MUX21``): yosys' ABC maps for
    #: depth, and builds a 3-input one-hot crossbar multiplexer from a 6-input LUT (4
    #: LUT4s, 2 ``PFUMX`` and an ``L6MUX21`` a bit) where two LUT4s do. The Q(4)
    #: router with 16-bit payloads on the LFE5U-85F, seed 1, in its timing harness:
    #: 790 ``TRELLIS_COMB`` at 154.1 MHz against 1,212 at 151.8 MHz with wide LUTs.
    synth_options = " -nowidelut"
    block_rams = ("DP16KD", "PDPW16KD")
    distributed_rams = ("TRELLIS_DPR16X4",)
    #: A ``TRELLIS_DPR16X4`` fills slices 0 and 1 of a PFU and its write port slice
    #: 2: nextpnr-ecp5 counts 6 ``TRELLIS_COMB`` for it, and one ``TRELLIS_RAMW`` of
    #: a PFU's (8 LUT4s: 10,455 on the 85F).
    lut_ram_luts = 6
    luts_per_lut_ram = 8
    #: A ``CCU2C`` is a slice of two LUT4s and their carry logic: nextpnr-ecp5 counts
    #: its netlist's LUT4s, twice its ``CCU2C`` and 6 per LUT RAM within 2 % (the Q(3)
    #: AXI4-Stream fabrics on the LFE5U-25F: 12,532 of 12,726 and 19,247 of 19,569
    #: ``TRELLIS_COMB``).
    carry_luts = 2
    #: A ``DP16KD``'s clock-to-output delay at speed 6 sits on the router's critical
    #: path, and LUT RAM, read like flip-flops, takes fewer logic cells from 3 flits
    #: on: block RAM from 64 flits, where a buffer's LUT RAMs (28 and more) would
    #: crowd a part's few (the figures: docs/router-design.md, "Which buffer per
    #: family", from the saved result ``fpga_ecp5``).
    auto_memory_depth = ECP5_MEMORY_DEPTH
    #: LUT RAM (``TRELLIS_DPR16X4``, 16 x 4 bits) against flip-flops: fewer logic
    #: cells from 3 flits on, more at 2 (the same figures).
    auto_distributed_depth = ECP5_DISTRIBUTED_DEPTH

    #: The constraint file :meth:`pnr_files` writes.
    constraints = "top.lpf"

    def pnr_args(self, device, package):
        # the ports beyond the device's pins are left to nextpnr
        return [device.option, "--package", package, "--speed", device.speed,
                "--lpf", self.constraints, "--lpf-allow-unconstrained"]

    def pnr_files(self, device, ports, package=None):
        """An LPF that puts the first ports (the clock first) on the device's
        :attr:`Device.pins` (pins of its own package: in another package, on none), a
        primary clock input for the clock: nextpnr-ecp5 would
        otherwise put the clock on any pin and route it to the clock tree through the
        general routing, which its ``router2`` cannot do and which left ``router1``
        congested for most of an hour (the Q(4) fabric with 32-bit AXI4-Stream
        endpoints, aligned packing, on the LFE5U-25F, seed 3: not routed after 45
        minutes; routed in 156 s at 107.3 MHz with the clock on G2)."""
        pins = device.pins if package in (None, device.package) else ()
        return {self.constraints: "".join(
            f'LOCATE COMP "{port}" SITE "{pin}";\nIOBUF PORT "{port}" IO_TYPE=LVCMOS33;\n'
            for port, pin in zip(ports, pins))}


class Gowin(Family):
    """Gowin GW1N and GW2A: yosys ``synth_gowin``, nextpnr-himbaechel's Gowin
    architecture (``--device PART --vopt family=F``), which needs every top-level port
    on a pin (a CST file of the device's :attr:`Device.pins`).

    The I/O buffers go on the top module's ports only (yosys' ``synth_gowin`` would
    also buffer the ports of a submodule kept apart for counting).
    """
    name = "Gowin"
    synth = "synth_gowin"
    nextpnr = "nextpnr-himbaechel-gowin"
    logic_cell = "LUT4"
    io_cell = "IOB"
    # nextpnr-himbaechel's packer counts more LUT4s than remain placed (a Q(3) fabric
    # on the GW1NR-9, LUT RAM buffers: 4,836 packed, 4,225 placed)
    packed_logic_cells = False
    #: LUT RAM (``RAM16SDP4``) where block RAM does not fit: the Q(4) 16-bit router on
    #: the GW1NR-9 takes 955 LUT4 and 810 flip-flops (nextpnr, with the timing
    #: harness) at 4 flits against 1,068 and 1,120 in flip-flops, but 871 LUT4
    #: against 692 at 2 flits.
    auto_distributed_depth = GOWIN_DISTRIBUTED_DEPTH
    cells_sim = ("gowin/cells_sim.v",)
    luts = ("LUT1", "LUT2", "LUT3", "LUT4")
    ff_prefix = "DFF"
    carries = ("ALU",)
    block_rams = ("SP", "SPX9", "SDP", "SDPB", "SDPX9B", "DP", "DPB", "DPX9B", "pROM",
                  "pROMX9")
    distributed_rams = ("RAM16S1", "RAM16S2", "RAM16S4", "RAM16SDP1", "RAM16SDP2",
                        "RAM16SDP4")
    #: nextpnr-himbaechel counts 8 LUT4s for a ``RAM16SDP4`` and one for an ``ALU``
    #: (the Q(4) 16-bit router on the GW1NR-9 in its timing harness, 2 flits: 692
    #: LUT4 for 692 in flip-flops, 871 for 596 and 35 LUT RAMs; 4 flits in block RAM:
    #: 843 for 768 and 80 ``ALU``), and has one LUT RAM site per 32 LUT4s (270 on the
    #: GW1NR-9, 648 on the GW2A-18).
    lut_ram_luts = 8
    carry_luts = 1
    luts_per_lut_ram = 32

    #: No wide LUTs (``MUX2_LUT5`` ...), as on ECP5: the Q(4) 16-bit router on the
    #: GW1NR-9, seed 1: 954 LUT4 at 102.2 MHz against 1,013 at 90.3 MHz.
    synth_options = " -nowidelut"

    def synth_command(self, device, top, placeable=False):
        return (f"{self.synth} -family {device.yosys_family} -top {top} -noiopads"
                f"{self.synth_options}{self.placement_options if placeable else ''}")

    def synth_script(self, device, top, extra="", placeable=False):
        # the measurements before the I/O buffers, which are no logic
        return (f"{self.synth_command(device, top, placeable)}{extra}; "
                f"iopadmap -bits -inpad IBUF O:I -outpad OBUF I:O {top}; "
                f"write_json {top}.json")

    def pnr_args(self, device, package):
        return ["--device", device.part, "--vopt", f"family={device.option}",
                "--vopt", "cst=top.cst"]

    def pnr_files(self, device, ports, package=None):
        if len(ports) > len(device.pins):
            raise ValueError(f"{device.name} has {len(device.pins)} pins for the design's "
                             f"ports, not {len(ports)}")
        return {"top.cst": "".join(f'IO_LOC "{port}" {pin};\n'
                                   for port, pin in zip(ports, device.pins))}


#: The families by name.
FAMILIES = {"ice40": Ice40(), "ecp5": Ecp5(), "gowin": Gowin()}


@dataclass(frozen=True)
class Device:
    """One part: its family, how nextpnr names it, its package and capacity.

    ``luts`` and ``ffs`` are the part's LUT4s and flip-flops (on iCE40 and ECP5 as
    many as its logic cells), ``block_rams`` its block RAMs (of the family's kind),
    ``option`` nextpnr's device option (iCE40 and ECP5) or the Gowin device family
    (``--vopt family=``), ``pins`` package pins that a timing harness's first ports
    take, the clock first (Gowin's nextpnr places no unconstrained port; on ECP5 the
    clock goes on a primary clock input, the other ports where nextpnr puts them).
    """
    name: str
    family: Family
    part: str
    package: str
    luts: int
    ffs: int
    block_rams: int
    option: str
    speed: str = ""
    yosys_family: str = ""
    pins: tuple = ()

    @property
    def lut_rams(self):
        """int: LUT RAM cells the part holds (0 on the iCE40)."""
        per = self.family.luts_per_lut_ram
        return self.luts // per if per else 0

    def shortfall(self, cells):
        """What a netlist of ``cells`` (:meth:`Family.count`) needs more of than the
        part has: a list of ``"lut4"`` (its LUT4s and the LUT4 sites of its carry cells
        and LUT RAMs: :attr:`Family.carry_luts`, :attr:`Family.lut_ram_luts`),
        ``"ff"``, ``"ram"`` (block RAMs) and ``"dram"`` (LUT RAMs); empty when it
        fits."""
        dram = cells.get("dram", 0)
        sites = (cells["lut4"] + cells.get("carry", 0) * self.family.carry_luts
                 + dram * self.family.lut_ram_luts)
        needs = {"lut4": (sites, self.luts),
                 "ff": (cells["ff"], self.ffs), "ram": (cells["ram"], self.block_rams),
                 "dram": (dram, self.lut_rams)}
        return [what for what, (used, have) in needs.items() if used > have]

    def fits(self, cells):
        """Whether a netlist of ``cells`` fits the part (:meth:`shortfall`)."""
        return not self.shortfall(cells)

    @property
    def auto_settings(self):
        """The ``RouterConfig`` fields the ``"auto"`` buffer rule sizes for on this
        part: ``block_ram_budget``, ``memory_depth`` and ``distributed_depth``."""
        return {"block_ram_budget": self.block_rams,
                "memory_depth": self.family.auto_memory_depth,
                "distributed_depth": self.family.auto_distributed_depth}

    @property
    def label(self):
        """The part as its vendor writes it, with package and speed grade."""
        if isinstance(self.family, Ecp5):
            return f"{self.part}-{self.speed}{self.package}"
        if isinstance(self.family, Gowin):
            return self.part
        return f"{self.part} {self.package}"


_ICE40, _ECP5, _GOWIN = FAMILIES["ice40"], FAMILIES["ecp5"], FAMILIES["gowin"]

#: The ECP5 parts' clock pin in their CABGA381 package: G2, the primary clock input
#: PCLKT6_0, where the ULX3S has its 25 MHz clock.
_ECP5_CLOCK_PINS = ("G2",)

#: Supported devices by ``--device`` name. ECP5 capacities from Lattice's ECP5 family
#: data sheet (FPGA-DS-02012, table 1.1: LUTs and 18 kbit EBR blocks); Gowin's from the
#: GW1NR and GW2A data sheets (DS117, DS102: LUT4, flip-flops, 18 kbit BSRAM blocks).
DEVICES = {
    "hx1k": Device("hx1k", _ICE40, "iCE40HX1K", "tq144", 1280, 1280, 16, "--hx1k"),
    "hx8k": Device("hx8k", _ICE40, "iCE40HX8K", "ct256", 7680, 7680, 32, "--hx8k"),
    "up5k": Device("up5k", _ICE40, "iCE40UP5K", "sg48", 5280, 5280, 30, "--up5k"),
    "lfe5u-25f": Device("lfe5u-25f", _ECP5, "LFE5U-25F", "CABGA381", 24288, 24288, 56,
                        "--25k", speed="6", pins=_ECP5_CLOCK_PINS),
    "lfe5u-45f": Device("lfe5u-45f", _ECP5, "LFE5U-45F", "CABGA381", 43848, 43848, 108,
                        "--45k", speed="6", pins=_ECP5_CLOCK_PINS),
    "lfe5u-85f": Device("lfe5u-85f", _ECP5, "LFE5U-85F", "CABGA381", 83640, 83640, 208,
                        "--85k", speed="6", pins=_ECP5_CLOCK_PINS),
    # Tang Nano 9K: clock 52, buttons 3 and 4, LED 10
    "gw1nr-9": Device("gw1nr-9", _GOWIN, "GW1NR-LV9QN88PC6/I5", "QN88", 8640, 6480, 26,
                      "GW1N-9C", yosys_family="gw1n", pins=("52", "4", "3", "10")),
    # Tang Primer 20K: clock H11, SD card pins
    "gw2a-18": Device("gw2a-18", _GOWIN, "GW2A-LV18PG256C8/I7", "PG256", 20736, 15552, 46,
                      "GW2A-18C", yosys_family="gw2a", pins=("H11", "N10", "R14", "D15")),
}


def check_device(device):
    """The :class:`Device` named ``device`` (ValueError naming the choices)."""
    if device not in DEVICES:
        raise ValueError(f"Device must be one of {', '.join(DEVICES)}, not {device!r}")
    return DEVICES[device]
