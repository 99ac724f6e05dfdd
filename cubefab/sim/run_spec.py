"""A self-checking run as a value: what is simulated, for how long, under which stimulus,
with which faults, in which engine.

:class:`SelfCheckRun` holds five parts, each checked when it is made:

- the design, a :class:`~cubefab.hdl.selfcheck.SelfCheckConfig` (the routers' whole
  :class:`~cubefab.hdl.config.RouterConfig`, the generators and the packet format);
- the :class:`Schedule`: warm-up, measured and drain cycles;
- the :class:`Stimulus`: offered load, seed, hotspot and broadcast shares, and a
  deliberate defect for mutation tests;
- the :class:`Faults` of a fabric of fault-tolerant routers, and links that fail
  mid-run;
- the :class:`Engine` that runs it (Amaranth's simulator or Verilator) and its settings.

Whether the parts fit together (an engine that can run the design, faults for
fault-tolerant routers, broadcasts for replicating ones, a run short enough for its
timestamps) is checked once, by :class:`SelfCheckRun`;
:func:`~cubefab.sim.selfcheck_run.run_selfcheck` runs it. :meth:`SelfCheckRun.of`
builds a run from the flat keywords of scripts and tests.
"""

import dataclasses
from dataclasses import dataclass

from ..hdl.config import default_broadcast_vcs
from ..hdl.options import ALL_PORT
from ..hdl.router import check_strapped
from ..hdl.selfcheck import SelfCheckConfig
from ..hdl.selfcheck_node import defect_inputs
from ..hdl.traffic_gen import RATE_BITS, rate_threshold
from ..topology.base import check_int


__all__ = ["ENGINES", "Schedule", "Stimulus", "Faults", "Engine", "SelfCheckRun"]


#: The simulation engines.
ENGINES = ("amaranth", "verilator")


def _check_share(what, value, top_open=False):
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not (0 <= value < 1 if top_open else 0 <= value <= 1):
        raise ValueError(f"{what} must be a number in [0, {'1)' if top_open else '1]'}, "
                         f"not {value!r}")


@dataclass(frozen=True)
class Schedule:
    """How long a run lasts: ``warmup`` cycles, then ``cycles`` measured cycles, then at
    most ``drain`` cycles with injection off (the run ends as soon as every packet
    created has arrived)."""

    cycles: int = 1000
    warmup: int = 0
    drain: int = 0

    def __post_init__(self):
        check_int("Cycles", self.cycles, 1)
        check_int("Warm-up cycles", self.warmup, 0)
        check_int("Drain cycles", self.drain, 0)

    @property
    def total(self):
        """int: the most cycles the run can take."""
        return self.warmup + self.cycles + self.drain

    @property
    def marks(self):
        """list: the cycles at which the counters are read, the measurement window's
        ends."""
        return [self.warmup, self.warmup + self.cycles]


@dataclass(frozen=True)
class Stimulus:
    """What the generators are told: ``rate`` (offered flits per node per cycle; a node
    creates a packet with probability ``rate / packet_flits`` per cycle, quantised to
    1/65536), the 32-bit ``seed``, ``hotspot_fraction`` (``hotspot`` traffic: the share
    of packets sent to the hot node), ``broadcast_fraction`` (the share of packets
    that are broadcasts, with replicating routers) and ``defect`` (a deliberate defect
    of :func:`~cubefab.hdl.selfcheck_node.defect_inputs`, for mutation tests of the
    checks; the design must be built with ``defects``)."""

    rate: float = 0.1
    seed: int = 1
    hotspot_fraction: float = 0.1
    broadcast_fraction: float = 0
    defect: dict | None = None

    def __post_init__(self):
        _check_share("Broadcast fraction", self.broadcast_fraction)
        _check_share("Injection rate", self.rate)
        check_int("Seed", self.seed, 0, (1 << 32) - 1)
        _check_share("Hotspot fraction", self.hotspot_fraction, top_open=True)
        if self.defect is not None and not isinstance(self.defect, dict):
            raise TypeError(f"Defect must be a dict, not {self.defect!r}")

    def inputs(self, design):
        """The run-setting inputs of ``design``'s fabric (a
        :class:`~cubefab.hdl.selfcheck.SelfCheckConfig`) for this stimulus."""
        inputs = {"seed": self.seed,
                  "threshold": rate_threshold(self.rate / design.fmt.packet_flits),
                  "hot_threshold": min((1 << RATE_BITS) - 1,
                                       int(round(self.hotspot_fraction * (1 << RATE_BITS))))}
        if design.router.broadcast:
            inputs["broadcast_threshold"] = rate_threshold(self.broadcast_fraction)
        if design.defects:
            inputs.update(defect_inputs(self.defect, design.topology))
        return inputs


@dataclass(frozen=True)
class Faults:
    """The faults of a fabric of fault-tolerant routers: faulty ``nodes``, faulty
    ``links`` (pairs of adjacent nodes) and ``fail_links``, ``(u, v, cycle)`` links
    that fail while traffic runs (see
    :func:`~cubefab.sim.selfcheck_run.run_selfcheck`)."""

    nodes: tuple = ()
    links: tuple = ()
    fail_links: tuple = ()

    def __post_init__(self):
        for name in ("nodes", "links", "fail_links"):
            object.__setattr__(self, name, tuple(getattr(self, name)))

    def __bool__(self):
        return bool(self.nodes or self.links or self.fail_links)


@dataclass(frozen=True)
class Engine:
    """The engine that runs a design: ``name`` (``"amaranth"``, the reference, which
    can write a VCD waveform to ``vcd``; or ``"verilator"``), the C++ optimisation
    ``opt`` of a Verilator build and its ``threads`` (None: one per 256 nodes, at most
    the CPUs; results do not depend on it), and a ``netlist``
    (:class:`~cubefab.sim.verilator_netlist.Netlist`: Verilator simulates each node as
    its post-synthesis netlist for that device instead of its RTL; the result adds
    ``netlist``, the device); ``every``: Verilator evaluates every node in every cycle
    instead of leaving quiet nodes alone (the same results, slower: for checks and speed
    comparisons)."""

    name: str = "verilator"
    opt: str = "-O2"
    threads: int | None = None
    vcd: str | None = None
    netlist: object = None
    every: bool = False

    def __post_init__(self):
        if self.name not in ENGINES:
            raise ValueError(f"engine must be one of {', '.join(ENGINES)}, "
                             f"not {self.name!r}")
        if self.vcd is not None and self.name != "amaranth":
            raise ValueError("the verilator engine writes no VCD; use the amaranth engine")
        if self.threads is not None:
            check_int("Threads", self.threads, 1)
        if self.netlist is not None and self.name != "verilator":
            raise ValueError("netlists are simulated by the verilator engine")
        if self.every and self.name != "verilator":
            raise ValueError("the verilator engine leaves quiet nodes alone, not the "
                             "amaranth engine: every applies to the verilator engine")

    def refusal(self, design):
        """Why this engine cannot run ``design`` (a
        :class:`~cubefab.hdl.selfcheck.SelfCheckConfig`), or None when it can: Verilator
        runs address-strapped routers, whose one-port and multicast units tabulate every
        (node, source) pair (:func:`~cubefab.hdl.router.check_strapped`: up to 128
        nodes)."""
        if self.name == "amaranth":
            return None
        try:
            check_strapped(design.router)
        except ValueError as error:
            return f"the verilator engine runs address-strapped routers, and {error}"
        return None

    def check(self, design):
        """ValueError when this engine cannot run ``design`` (:meth:`refusal`)."""
        reason = self.refusal(design)
        if reason:
            raise ValueError(f"{reason}; use the amaranth engine")


@dataclass(frozen=True)
class SelfCheckRun:
    """One self-checking run, checked whole: ``design`` (a
    :class:`~cubefab.hdl.selfcheck.SelfCheckConfig`), ``schedule``, ``stimulus``,
    ``faults`` and ``engine``.

    Raises
    ------
    ValueError
        When the parts do not fit together: an engine that cannot run the design, a
        run as long as ``2**timestamp_bits`` cycles (a timestamp would wrap),
        broadcasts without replicating routers or a multicast group without
        broadcasts, a defect without a design that has them.
    """

    design: SelfCheckConfig
    schedule: Schedule = Schedule()
    stimulus: Stimulus = Stimulus()
    faults: Faults = Faults()
    engine: Engine = Engine()

    def __post_init__(self):
        for name, kind in (("design", SelfCheckConfig), ("schedule", Schedule),
                           ("stimulus", Stimulus), ("faults", Faults), ("engine", Engine)):
            if not isinstance(getattr(self, name), kind):
                raise TypeError(f"A run's {name} must be a {kind.__name__}, "
                                f"not {getattr(self, name)!r}")
        design, stimulus = self.design, self.stimulus
        self.engine.check(design)
        total, limit = self.schedule.total, 1 << design.fmt.timestamp_bits
        if total >= limit:
            raise ValueError(f"Runs must be shorter than 2**timestamp_bits = {limit} "
                             f"cycles (timestamps must not wrap), not {total}")
        if stimulus.broadcast_fraction and not design.router.broadcast:
            raise ValueError("Broadcasts need replicating routers (broadcast_vcs >= 1)")
        if design.multicast_group is not None and not stimulus.broadcast_fraction:
            raise ValueError("A multicast group takes broadcasts: give broadcast_fraction "
                             "above 0 or pattern='broadcast'")
        if stimulus.defect is not None and not design.defects:
            raise ValueError("A defect needs a design built with defects (defects=True)")

    @property
    def topology(self):
        """Topology: the network."""
        return self.design.topology

    def replace(self, **parts):
        """This run with some parts replaced (each a whole part)."""
        return dataclasses.replace(self, **parts)

    @classmethod
    def of(cls, topology, *, engine="verilator", opt="-O2", threads=None, vcd=None,
           rate=0.1, seed=1, hotspot_fraction=0.1, broadcast_fraction=0, defect=None,
           cycles=1000, warmup=0, drain=0, faults=(), faulty_links=(), fail_links=(),
           netlist=None, every=False, **design):
        """The run the flat keywords describe (for scripts and tests): those of the
        parts, and ``design``, the keywords of
        :meth:`~cubefab.hdl.selfcheck.SelfCheckConfig.of`. ``pattern="broadcast"`` is
        uniform traffic of broadcasts only (``broadcast_fraction`` 1); a run with
        broadcasts gets :func:`~cubefab.hdl.config.default_broadcast_vcs` (what the
        command line gives) unless ``broadcast_vcs`` is given; a ``defect`` builds the
        design with defects."""
        if design.get("pattern") == "broadcast":
            design["pattern"], broadcast_fraction = "uniform", 1.0
        _check_share("Broadcast fraction", broadcast_fraction)
        if broadcast_fraction > 0 and not design.get("broadcast_vcs"):
            design["broadcast_vcs"] = default_broadcast_vcs(
                topology, design.get("broadcast_model", ALL_PORT),
                design.get("fault_waypoints", 0))
        if defect is not None:
            design["defects"] = True
        return cls(SelfCheckConfig.of(topology, **design),
                   Schedule(cycles, warmup, drain),
                   Stimulus(rate, seed, hotspot_fraction, broadcast_fraction, defect),
                   Faults(faults, faulty_links, fail_links),
                   Engine(engine, opt, threads, vcd, netlist, every))
