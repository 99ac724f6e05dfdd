"""The router options, each declared once: the field, its range or choices, its default
for each kind of design, its command-line option and help, its JSON name.

A :class:`RouterOption` is the one statement of a router parameter: a field of
:class:`~cubefab.hdl.config.RouterConfig`, or one of the flat fields its routing and
replication parts stand for (:func:`~cubefab.hdl.modes.parts`). From :data:`OPTIONS`
come

- the checks of :class:`~cubefab.hdl.config.RouterConfig` and of the parts of
  :mod:`~cubefab.hdl.modes` (:meth:`RouterOption.check`, :func:`check_option`), whose
  error, :class:`OptionError`, names the field so that a front end can name the
  option its user typed (:meth:`OptionError.words`);
- the one serialisation, :func:`router_dict` (``RouterConfig.as_dict``: the ``router``
  of every ``--json``);
- the command-line options of :mod:`cubefab.commands.router_options` (flag, metavar,
  range or choices, default per kind of design, help), and which flag an error names
  (:func:`option_of`);
- the router in words (:func:`describe`).

The words a router option takes are named here once (:data:`ALL_PORT`, :data:`BUFFERED`,
...); those of the broadcast models and multicast forms are the topology's and the
multicast unit's.
"""

from dataclasses import dataclass

import numpy as np

from ..topology.broadcast import ALL_PORT, ONE_PORT
from .flit import DEFAULT_HEADER, HEADERS
from .route.multicast import MEMBER_MODES, SUBCUBE, VECTOR


__all__ = ["RouterOption", "OptionError", "OPTIONS", "option", "check_option",
           "option_of", "router_dict", "describe", "hardware_words", "MAX_VCS", "MAX_DEPTH",
           "MAX_PAYLOAD_WIDTH", "MAX_FLIT_WIDTH", "MAX_FAULT_WAYPOINTS", "MAX_LINK_STAGES",
           "REGISTERS",
           "MEMORY", "DISTRIBUTED", "AUTO", "BUFFER_CHOICES", "TURNS", "BUFFERED", "LOOKAHEAD", "HOPS",
           "ALL_PORT", "ONE_PORT", "SUBCUBE", "VECTOR", "BLOCK_RAMS", "AUTO_MEMORY_DEPTH"]


#: Ceilings of the command line (the numbers a user may type; the library takes more).
MAX_VCS = 64
MAX_DEPTH = 4096
MAX_PAYLOAD_WIDTH = 1024
MAX_FLIT_WIDTH = 1024 + 256

#: Most waypoints a fault-tolerant router's header holds.
MAX_FAULT_WAYPOINTS = 8

#: Most registers a router puts on each of its incoming links (``RouterConfig.link_stages``).
MAX_LINK_STAGES = 4

#: The flit storages of input buffers, and ``"auto"``, the rule that picks one.
REGISTERS, MEMORY, DISTRIBUTED, AUTO = "registers", "memory", "distributed", "auto"
BUFFER_CHOICES = (AUTO, REGISTERS, MEMORY, DISTRIBUTED)

#: Which turns (input port to output port) a router can make.
TURNS = ("reference", "all")

#: How a flit crosses a router: ``"buffered"`` (through its input buffer, two cycles
#: a hop) or ``"lookahead"`` (lookahead routing and a bypass of empty buffers, one
#: cycle a hop at zero load).
BUFFERED, LOOKAHEAD = "buffered", "lookahead"
HOPS = (BUFFERED, LOOKAHEAD)

#: Block RAMs (``SB_RAM40_4K``, 4 kbit each) the ``"auto"`` buffer rule sizes designs
#: for unless told otherwise (``RouterConfig.block_ram_budget``): those of the iCE40
#: HX8K, the default device of ``cubefab synth`` (the UP5K has 30, the HX1K 16).
BLOCK_RAMS = 32

#: Shortest buffer (flits per input VC) that the ``"auto"`` rule keeps in block RAM.
#: A block RAM replaces the flip-flops and the read multiplexer of a buffer at the
#: cost of a bypass register and a 2-input multiplexer per flit bit; measured on the
#: HX8K (Q(4) node 0, 16-bit flits, docs/router.md "Which buffer"): at depth 2 the
#: flip-flop router is smaller (492 against 519 LUT4), at depths 3, 4 and 8 the
#: block-RAM router is (527 against 619, 589 against 747, 739 against 1104 LUT4).
AUTO_MEMORY_DEPTH = 3

#: ``RouterOption.default`` of an option whose default is derived from the others
#: (the VCs deadlock freedom needs, the topology's first algorithm).
DERIVED = None


class OptionError(ValueError):
    """A router parameter out of its range or choices.

    Parameters
    ----------
    field : str
        The parameter (a key of :data:`OPTIONS`).
    value
        What was given.
    requirement : str
        What it must be, in words (``"an integer >= 1"``); ``{name}`` stands for the
        parameter ``name`` (``"a multiple of {vcs_per_class} = 2"``).
    """

    def __init__(self, field, value, requirement):
        self.field, self.value, self.requirement = field, value, requirement
        super().__init__(f"{OPTIONS[field].label} must be "
                         f"{requirement.format_map(_Names(lambda name: name))}, "
                         f"not {value!r}")

    def words(self, name_of):
        """The message with each parameter called ``name_of(field)`` (a command
        line's option: ``"--vcs must be a multiple of --vcs-per-class = 2, not 3"``)."""
        return (f"{name_of(self.field)} must be "
                f"{self.requirement.format_map(_Names(name_of))}, not {self.value!r}")


class _Names(dict):
    def __init__(self, name_of):
        super().__init__()
        self.name_of = name_of

    def __missing__(self, field):
        return self.name_of(field)


@dataclass(frozen=True)
class RouterOption:
    """One router parameter, declared once.

    Parameters
    ----------
    field : str
        Its :class:`~cubefab.hdl.config.RouterConfig` field, or the flat field of a
        routing or replication part; also its JSON name in :func:`router_dict`.
    label : str
        Its name in the library's messages (``"Buffer depth"``).
    flag : str or None
        The command-line option that sets it (None: no option sets it).
    part : str or None
        The group of options of :mod:`cubefab.commands.router_options` that holds it
        (None: every command that builds routers has it).
    minimum, maximum : int, optional
        An integer's range (``maximum`` None: no upper bound in the library).
    ceiling : int, optional
        The largest number a command line takes, when below ``maximum`` (a cost
        ceiling, not a rule of the router).
    power_of_two : bool
        An integer must be a power of two.
    choices : tuple of str
        The words a word-valued parameter takes (empty for integers).
    default
        The library's default (:data:`DERIVED`: computed from the others).
    per_kind : str, optional
        The attribute of :class:`~cubefab.hdl.config.RouterDefaults` that holds its
        default for each kind of design (then ``default`` is the hardware's).
    reported : bool
        :func:`router_dict` always holds it; otherwise only when not ``default``, so
        that the reports of other routers stay unchanged.
    typed_only : bool
        The command line leaves it None unless typed (another option, or the command,
        may decide it).
    metavar, help : str
        Its command-line metavar and help (``{default}``: the default of the kind).
    switch : str, optional
        The option that turns its part on, which a conflict names (``--adaptive``).
    """

    field: str
    label: str
    flag: str | None
    part: str | None = None
    minimum: int | None = None
    maximum: int | None = None
    ceiling: int | None = None
    power_of_two: bool = False
    choices: tuple = ()
    default: object = DERIVED
    per_kind: str | None = None
    reported: bool = True
    typed_only: bool = False
    metavar: str | None = None
    help: str = ""
    switch: str | None = None

    @property
    def checked(self):
        """bool: whether :meth:`check` has a range or choices to check (the algorithm
        is the topology's to check)."""
        return bool(self.choices) or self.minimum is not None

    def check(self, value):
        """``value`` if it is in range (or one of the choices); TypeError for a value
        of the wrong type, :class:`OptionError` otherwise."""
        if self.choices:
            if value not in self.choices:
                raise OptionError(self.field, value,
                                  "one of " + ", ".join(map(repr, self.choices)))
            return value
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{self.label} must be an integer, not {value!r}")
        value = int(value)
        if value < self.minimum or (self.maximum is not None and value > self.maximum):
            raise OptionError(self.field, value, self.range_words())
        if self.power_of_two and value & (value - 1):
            raise OptionError(self.field, value, "a power of two")
        return value

    def range_words(self):
        """str: the range of an integer, in words."""
        if self.maximum is None:
            return f"an integer >= {self.minimum}"
        return f"an integer in [{self.minimum}, {self.maximum}]"

    @property
    def cli_maximum(self):
        """int or None: the largest number the command line takes."""
        return self.ceiling if self.ceiling is not None else self.maximum

    def default_for(self, defaults):
        """The default for the kind of design of ``defaults`` (a
        :class:`~cubefab.hdl.config.RouterDefaults`)."""
        return getattr(defaults, self.per_kind) if self.per_kind else self.default

    def help_for(self, defaults, **words):
        """The ``--help`` text for the kind of design of ``defaults`` (``words``: what
        else its placeholders stand for)."""
        return self.help.format(default=self.default_for(defaults),
                                memory_depth=AUTO_MEMORY_DEPTH, block_rams=BLOCK_RAMS,
                                **words)


_OPTIONS = (
    RouterOption("algorithm", "Algorithm", "--algorithm", "algorithm", metavar="NAME",
                 help="routing algorithm (default: the topology's first)"),
    RouterOption("vcs", "Number of virtual channels", "--vcs", minimum=1, ceiling=MAX_VCS,
                 typed_only=True, metavar="N",
                 help="virtual channels per link (default: what deadlock freedom needs)"),
    RouterOption("depth", "Buffer depth", "--depth", minimum=1, ceiling=MAX_DEPTH,
                 default=4, per_kind="depth", metavar="N",
                 help="buffer depth per input VC in flits (default {default})"),
    RouterOption("payload_width", "Payload width", "--payload-width", minimum=1,
                 ceiling=MAX_PAYLOAD_WIDTH, default=16, per_kind="payload_width",
                 typed_only=True, metavar="BITS",
                 help="payload bits per flit (default {default})"),
    RouterOption("vcs_per_class", "Virtual channels per class", "--vcs-per-class",
                 "vcs-per-class", minimum=1, ceiling=MAX_VCS, power_of_two=True,
                 default=1, per_kind="vcs_per_class", metavar="N",
                 help="VCs per VC class, a power of two; a flow keeps one VC of each "
                      "class (default {default})"),
    RouterOption("buffer", "Buffer", "--buffer", "storage", choices=BUFFER_CHOICES,
                 default=AUTO,
                 help="flit storage of the input buffers: registers, memory (block RAM "
                      "on FPGAs), distributed (LUT RAM on ECP5 and Gowin FPGAs; all "
                      "three the same timing) or auto (default): memory when buffers "
                      "hold at least {memory_depth} flits ({ecp5_depth} on ECP5 "
                      "devices) and the design's block RAMs (its routers' and endpoints') fit "
                      "the device's (--device of synth and verilog; otherwise the HX8K's "
                      "{block_rams}), else distributed "
                      "on ECP5 and Gowin devices from {ecp5_distributed} and "
                      "{gowin_distributed} flits on, registers otherwise"),
    RouterOption("routers", "Number of routers", None, minimum=1, default=1,
                 reported=False),
    RouterOption("block_ram_budget", "Block RAM budget", "--device", minimum=0,
                 default=BLOCK_RAMS, reported=False),
    RouterOption("memory_depth", "Block RAM buffer depth", "--device", minimum=1,
                 default=AUTO_MEMORY_DEPTH, reported=False),
    RouterOption("distributed_depth", "Distributed RAM buffer depth", "--device",
                 minimum=0, default=0, reported=False),
    RouterOption("turns", "Turns", "--turns", "storage", choices=TURNS, default=TURNS[0],
                 help="reference (default): connect only the turns reference routes "
                      "make at the node; all: any input to any output"),
    RouterOption("adaptive_vcs", "Number of adaptive virtual channels", "--adaptive-vcs",
                 "adaptive", minimum=1, ceiling=MAX_VCS, power_of_two=True, default=0,
                 typed_only=True, metavar="N", switch="--adaptive",
                 help="adaptive VCs per link beside the escape VCs, a power of two "
                      "(default: --vcs-per-class)"),
    RouterOption("fault_waypoints", "Number of fault waypoints", "--waypoints",
                 "waypoints", minimum=1, maximum=MAX_FAULT_WAYPOINTS, default=0,
                 typed_only=True, metavar="W",
                 help="waypoints a header holds (default 2; implies the fault-tolerant "
                      "waypoint routing)"),
    RouterOption("broadcast_vcs", "Number of broadcast virtual channels", "--broadcast-vcs",
                 "replication", minimum=1, ceiling=MAX_VCS, default=0, reported=False,
                 typed_only=True, metavar="N",
                 help="replicating routers (broadcast packets copied along the trees) "
                      "with N broadcast VCs per link (default: none, or what deadlock "
                      "freedom needs when the traffic has broadcasts)"),
    RouterOption("multicast", "Multicast form", None, choices=MEMBER_MODES,
                 default=False, reported=False, switch="--multicast-group"),
    RouterOption("broadcast_model", "Broadcast model", "--broadcast-model", "replication",
                 choices=(ALL_PORT, ONE_PORT), default=ALL_PORT, reported=False,
                 typed_only=True,
                 help="replication of the routers: all-port (default) or one-port "
                      "(copies one at a time, in the schedule's order)"),
    RouterOption("header", "Header", "--header", "header", choices=HEADERS,
                 default=DEFAULT_HEADER, reported=False,
                 help="where a packet's routing information (dest, src, class) travels: "
                      "in the head flit only (default), body flits carrying payload in "
                      "every bit but the flit type and VC, or in every flit"),
    RouterOption("hop", "Hop", "--hop", "hop", choices=HOPS, default=BUFFERED,
                 reported=False,
                 help="how a flit crosses a router: buffered (default; 2 cycles a hop) or "
                      "lookahead (next router's port in the head flit, adaptive routers' "
                      "also its adaptive ports; empty buffers bypassed: 1 cycle a hop at "
                      "zero load)"),
    RouterOption("link_stages", "Link stages", "--link-stages", "hop", minimum=0,
                 maximum=MAX_LINK_STAGES, default=0, reported=False, metavar="N",
                 help="registers on every link into a router, for flits and for credits "
                      "alike (default {default}): each adds a cycle to a hop and two to "
                      "a credit's round trip (--depth 4 + 2N keeps one VC at full "
                      "rate), and lets a long link between distant routers of a large "
                      "fabric meet a faster clock"),
)

#: Every router option by field, in the order of :func:`router_dict`.
OPTIONS = {o.field: o for o in _OPTIONS}


def option(field):
    """The :class:`RouterOption` of ``field``."""
    return OPTIONS[field]


def check_option(field, value):
    """``value`` checked as the router option ``field`` (:meth:`RouterOption.check`)."""
    return OPTIONS[field].check(value)


def option_of(field):
    """The command-line option that names ``field`` in an error: the switch that turns
    its part on (``--adaptive``), else its flag (the field itself when no option sets
    it)."""
    declared = OPTIONS.get(field)
    if declared is None:
        return field
    return declared.switch or declared.flag or field


def router_dict(config):
    """``config`` (a :class:`~cubefab.hdl.config.RouterConfig`) as a JSON-able dict:
    every option of :data:`OPTIONS` by its field (the routing and replication parts as
    flat fields), those not ``reported`` only when not their default; ``buffer`` the
    storage built (``RouterConfig.storage``), ``buffer_auto`` whether the ``"auto"``
    rule chose it."""
    out = {}
    for declared in _OPTIONS:
        value = getattr(config, declared.field)
        if declared.reported or value != declared.default:
            out[declared.field] = value
    out.update(buffer=config.storage, buffer_auto=config.buffer_auto)
    return out


def _plural(count, noun):
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _vc_words(config):
    """The VCs of a router configuration, in words."""
    if config.adaptive:
        return f"{config.vcs} escape + {_plural(config.adaptive_vcs, 'adaptive VC')}"
    if config.fault_waypoints:
        return (f"{_plural(config.link_vcs, 'VC')}: {config.phases} waypoint phases x "
                f"{config.vcs}, {_plural(config.fault_waypoints, 'waypoint')}")
    if config.broadcast:
        model = "" if config.broadcast_model == ALL_PORT else f", {config.broadcast_model}"
        return f"{config.vcs} + {_plural(config.broadcast_vcs, 'broadcast VC')}{model}"
    return _plural(config.vcs, "VC")


#: The input buffers' storage (``RouterConfig.storage``), in words.
STORAGE_WORDS = {REGISTERS: "buffers in registers", MEMORY: "buffers in memory",
                 DISTRIBUTED: "buffers in distributed RAM"}


def buffer_words(config):
    """The input buffers of a router configuration, in words: their depth and storage,
    and whether the ``auto`` rule chose it (``"4-flit buffers in memory (auto)"``)."""
    return (f"{config.depth}-flit " + STORAGE_WORDS[config.storage]
            + (" (auto)" if config.buffer_auto else ""))


def hardware_words(config):
    """The buffers of a router configuration in words (:func:`buffer_words`), and its
    link stages when it has any (``"4-flit buffers in memory (auto), 1 link stage"``):
    what a synthesis report names of the router beside the design."""
    words = buffer_words(config)
    if config.link_stages:
        words += f", {config.link_stages} link stage" + ("s" if config.link_stages > 1 else "")
    return words


def describe(config):
    """A router configuration in words, the one renderer of the printed reports: its
    VCs (escape and adaptive, waypoint phases, broadcast VCs and model), its buffers
    and, when not the default, its multicast form, turns and hops (``"1 VC, 4-flit
    buffers in memory (auto)"``)."""
    words = [_vc_words(config), hardware_words(config)]
    if config.multicast:
        words.append(f"{config.multicast} multicast")
    if config.turns != TURNS[0]:
        words.append(f"{config.turns} turns")
    if config.hop != BUFFERED:
        words.append(f"{config.hop} hops")
    return ", ".join(words)
