"""The router options of every command that builds routers, and the one path from a
command line to a :class:`~cubefab.hdl.config.RouterConfig`.

A command adds the options of the router parts it builds with
:func:`add_router_options` (defaults from one of the
:class:`~cubefab.hdl.config.RouterDefaults` of :mod:`cubefab.hdl.config`, stated in
``--help``), and turns the parsed arguments into a configuration with
:func:`router_config`, which reads ``args`` without changing it and reports a bad
combination as one :class:`~cubefab.cli.CliError` that names the options the user
typed. The cost of the hardware is checked on that configuration
(:func:`~cubefab.commands.limits.check_hardware`,
:func:`~cubefab.commands.limits.check_fabric`).
"""

import contextlib
import dataclasses

from ..cli import CliError, input_errors, int_range
from ..tools.devices import (ECP5_DISTRIBUTED_DEPTH, ECP5_MEMORY_DEPTH,
                             GOWIN_DISTRIBUTED_DEPTH)
from ..hdl.config import (AUTO_MEMORY_DEPTH, BLOCK_RAMS, ConfigConflict, HARDWARE_DEFAULTS,
                          OptionError, RouterConfig, default_broadcast_vcs)
from ..hdl.flit import payload_width_for
from ..hdl.modes import parts
from ..hdl.options import ALL_PORT, OPTIONS, SUBCUBE, option, option_of
from .fault_options import fault_waypoints
from .limits import MAX_FLIT_WIDTH, check_channel_graph


__all__ = ["PARTS", "OPTION_OF", "add_option", "add_algorithm_option", "add_vcs_option",
           "add_depth_option", "add_vcs_per_class_option", "add_adaptive_options",
           "add_waypoints_option", "add_router_options", "adaptive_vcs", "router_config",
           "conflict_message", "option_error_message", "router_errors"]


#: The option groups :func:`add_router_options` can add beside ``--vcs``, ``--depth``
#: and ``--payload-width``: ``algorithm`` (``--algorithm``; without it, each topology's
#: first), ``vcs-per-class``,
#: ``adaptive`` (``--adaptive``, ``--adaptive-vcs``), ``waypoints``, ``header``,
#: ``hop``, ``storage`` (``--buffer``, ``--turns``), ``replication``
#: (``--broadcast-vcs``, ``--broadcast-model``) and ``flit-width``; each option's
#: group is its declaration's ``part`` (:data:`cubefab.hdl.options.OPTIONS`).
PARTS = ("algorithm", "vcs-per-class", "adaptive", "waypoints", "header", "hop", "storage",
         "replication", "flit-width")

#: The command-line option of each :class:`~cubefab.hdl.config.RouterConfig` field:
#: what an error names (:func:`cubefab.hdl.options.option_of`).
OPTION_OF = {field: option_of(field) for field in OPTIONS}

#: Fields whose option takes a word: an error shows the word (``--hop lookahead``).
_WORD_OPTIONS = tuple(field for field, declared in OPTIONS.items()
                      if declared.choices and declared.flag)


def add_option(parser, field, defaults=HARDWARE_DEFAULTS, **settings):
    """Add the command-line option of the router option ``field`` as
    :mod:`cubefab.hdl.options` declares it: its flag, metavar, range (up to the command
    line's ceiling) or choices, its default for the kind of design of ``defaults``
    (None when the declaration leaves it to what the user types) and its help;
    ``settings`` override the ``add_argument`` keywords."""
    declared = option(field)
    keywords = {"default": None if declared.typed_only else declared.default_for(defaults),
                "help": declared.help_for(defaults, ecp5_depth=ECP5_MEMORY_DEPTH,
                                          ecp5_distributed=ECP5_DISTRIBUTED_DEPTH,
                                          gowin_distributed=GOWIN_DISTRIBUTED_DEPTH)}
    if declared.choices:
        keywords["choices"] = declared.choices
    elif declared.minimum is not None:
        keywords["type"] = int_range(declared.minimum, declared.cli_maximum)
    if declared.metavar:
        keywords["metavar"] = declared.metavar
    keywords.update(settings)
    parser.add_argument(declared.flag, **keywords)


def add_algorithm_option(parser, repeatable=False):
    """Add ``--algorithm NAME`` (``repeatable``: one curve per use)."""
    if repeatable:
        add_option(parser, "algorithm", action="append",
                   help="routing algorithm (repeat to compare several; default, or "
                        "the name 'default': each network's first)")
    else:
        add_option(parser, "algorithm")


def add_vcs_option(parser, help=None):
    """Add ``--vcs N`` (``help``: another help than the declaration's)."""
    add_option(parser, "vcs", **({"help": help} if help else {}))


def add_depth_option(parser, defaults=HARDWARE_DEFAULTS):
    """Add ``--depth N`` (default ``defaults.depth``)."""
    add_option(parser, "depth", defaults)


def add_vcs_per_class_option(parser, defaults=HARDWARE_DEFAULTS):
    """Add ``--vcs-per-class N`` (default ``defaults.vcs_per_class``)."""
    add_option(parser, "vcs_per_class", defaults)


def add_waypoints_option(parser):
    """Add ``--waypoints W`` (default: none given)."""
    add_option(parser, "fault_waypoints")


def add_adaptive_options(parser, repeatable=False):
    """Add ``--adaptive`` and ``--adaptive-vcs`` (``repeatable``: ``--adaptive [NAME]``
    adds an adaptive curve, as ``--algorithm NAME`` a deterministic one)."""
    if repeatable:
        parser.add_argument("--adaptive", action="append", nargs="?", const="",
                            metavar="NAME", help="an adaptive curve of routing NAME "
                            "(default: the topology's first); repeatable, beside "
                            "--algorithm")
    else:
        parser.add_argument("--adaptive", action="store_true",
                            help="adaptive minimal routing over escape VCs (Duato); the "
                                 "Mcube's mroute always runs so (default: deterministic)")
    add_option(parser, "adaptive_vcs")


#: The options of each group of :data:`PARTS` that come from a declaration alone.
_DECLARED = {part: [field for field, declared in OPTIONS.items()
                    if declared.part == part and declared.flag]
             for part in ("header", "hop", "storage", "waypoints", "replication")}


def add_router_options(parser, defaults=HARDWARE_DEFAULTS, parts=PARTS, *,
                       repeatable=False, payload_help="", min_payload=1):
    """Add the router options of ``parts`` (a subset of :data:`PARTS`) to ``parser``,
    their defaults those of ``defaults`` (a
    :class:`~cubefab.hdl.config.RouterDefaults`), said in ``--help``.

    ``repeatable``: ``--algorithm`` and ``--adaptive`` add curves (``cubefab sweep``);
    ``payload_help``: what the payload holds, after its default; ``min_payload``: the
    narrowest ``--payload-width`` the command's design takes.
    """
    unknown = set(parts) - set(PARTS)
    if unknown:
        raise ValueError(f"Parts must be among {', '.join(PARTS)}, not {sorted(unknown)}")
    if "algorithm" in parts:
        add_algorithm_option(parser, repeatable)
    add_vcs_option(parser)
    add_depth_option(parser, defaults)
    if "vcs-per-class" in parts:
        add_vcs_per_class_option(parser, defaults)
    else:
        parser.set_defaults(vcs_per_class=defaults.vcs_per_class)
    payload = option("payload_width")
    add_option(parser, "payload_width", defaults,
               type=int_range(min_payload, payload.cli_maximum),
               help=payload.help_for(defaults)[:-1]
               + (f": {payload_help})" if payload_help else ")"))
    parser.set_defaults(router_defaults=defaults)
    if "flit-width" in parts:
        parser.add_argument("--flit-width", type=int_range(1, MAX_FLIT_WIDTH),
                            default=None, metavar="BITS",
                            help="bits of a flit on a link, header included (head, tail, "
                                 "vc, dest, src): sets the payload to what is left; "
                                 "instead of --payload-width (default: none)")
    for part in ("header", "hop", "adaptive", "storage", "waypoints", "replication"):
        if part not in parts:
            continue
        if part == "adaptive":
            add_adaptive_options(parser, repeatable)
        for field in _DECLARED.get(part, ()):
            add_option(parser, field, defaults)


def adaptive_vcs(args, topology, algorithm=None, adaptive=None):
    """The ``adaptive_vcs`` the options ask for ``algorithm`` (default ``--algorithm``):
    0 for deterministic routing, else ``--adaptive-vcs`` (default ``--vcs-per-class``)
    with ``--adaptive`` (``adaptive``, when given) or where the library routes
    adaptively by default (:meth:`~cubefab.hdl.config.RouterConfig.default_routing`). The
    count is the library's to check (:class:`~cubefab.hdl.modes.Adaptive`);
    ``--adaptive-vcs`` without ``--adaptive``: CliError."""
    with input_errors():
        algorithm = topology.check_algorithm(getattr(args, "algorithm", None)
                                             if algorithm is None else algorithm)
        by_default = RouterConfig.default_routing(topology, algorithm).adaptive_vcs > 0
    if not hasattr(args, "adaptive_vcs"):      # a command without --adaptive
        return args.vcs_per_class if by_default else 0
    adaptive = args.adaptive if adaptive is None else adaptive
    count = args.vcs_per_class if args.adaptive_vcs is None else args.adaptive_vcs
    if adaptive or by_default:
        return count
    if args.adaptive_vcs is not None and not args.adaptive:
        raise CliError("--adaptive-vcs needs --adaptive")
    return 0


@contextlib.contextmanager
def router_errors(said=None):
    """Within the block, the library's refusal of router parameters becomes one
    :class:`~cubefab.cli.CliError` in the options the user typed: a
    :class:`~cubefab.hdl.config.ConfigConflict` by :func:`conflict_message` (``said``
    as there), an :class:`~cubefab.hdl.options.OptionError` by
    :func:`option_error_message`, any other TypeError or ValueError by its message.
    The command line checks nothing the library checks: it names the options."""
    try:
        yield
    except ConfigConflict as exc:
        raise CliError(conflict_message(exc, said)) from None
    except OptionError as exc:
        raise CliError(option_error_message(exc)) from None
    except (TypeError, ValueError) as exc:
        raise CliError(str(exc)) from None


def option_error_message(exc):
    """The one line that reports a :class:`~cubefab.hdl.options.OptionError` in the
    options the user typed (``--adaptive-vcs must be a power of two, not 3``)."""
    return exc.words(lambda field: option(field).flag if field in OPTIONS
                     and option(field).flag else option_of(field))


def _words(field, value, said):
    """A field of a conflict as the user gave it: ``said`` overrides the option."""
    if field in said:
        return said[field]
    option = OPTION_OF.get(field, field)
    return f"{option} {value}" if field in _WORD_OPTIONS else option


def conflict_message(exc, said=None):
    """The one line that reports a :class:`~cubefab.hdl.config.ConfigConflict` in the
    options the user typed (``said``: ``{field: words}`` for fields that another option
    implies, e.g. ``{"broadcast_vcs": "--traffic broadcast"}``)."""
    said = said or {}
    (field, value), *others = exc.values.items()
    reason = exc.reason[0].lower() + exc.reason[1:]
    missing = [f for f, v in others if not v]
    if missing:
        return (f"{_words(field, value, said)} needs "
                + " and ".join(OPTION_OF.get(f, f) for f in missing) + f" ({reason})")
    return (f"{_words(field, value, said)} cannot be combined with "
            + " or ".join(_words(f, v, said) for f, v in others) + f" ({reason})")


def _broadcast_vcs(args, topology, broadcasts, waypoints=0):
    """``--broadcast-vcs``, or when the traffic has ``broadcasts`` the library's
    default (:func:`~cubefab.hdl.config.default_broadcast_vcs`); 0 for unicast
    routers."""
    given = getattr(args, "broadcast_vcs", None)
    if given is not None:
        return given
    if not broadcasts:
        return 0
    with input_errors():
        return default_broadcast_vcs(topology, getattr(args, "broadcast_model", None)
                                     or ALL_PORT, waypoints)


def _flit_width(config, flit_width):
    """``config`` with the payload that makes its flits ``flit_width`` bits wide."""
    if config.fault_waypoints:       # the header holds the waypoints too
        header = config.layout.size - config.payload_width
        if flit_width <= header:
            raise CliError(f"--flit-width must be at least {header + 1} bits for a "
                           f"{header}-bit header with {config.fault_waypoints} "
                           f"waypoint(s), not {flit_width}")
        return dataclasses.replace(config, payload_width=flit_width - header)
    with input_errors("--flit-width: "):
        return dataclasses.replace(config, payload_width=payload_width_for(
            config.topology.address_bits, flit_width, config.link_vcs,
            config.class_width, config.broadcast, config.layout.lookahead_bits))


def _given(args, field):
    """The value of the router option ``field`` the command line gives: its option's,
    or the library's default when the command has no such option or it was not
    typed."""
    value = getattr(args, field, None)
    return option(field).default if value is None else value


def router_config(args, topology, *, routers=1, algorithm=None, adaptive=None,
                  broadcasts=False, multicast=False, fault_tolerant=False,
                  block_ram_budget=BLOCK_RAMS, memory_depth=AUTO_MEMORY_DEPTH,
                  distributed_depth=0, said=None, min_payload=0):
    """The :class:`~cubefab.hdl.config.RouterConfig` the router options of ``args``
    describe for ``topology``; bad input: :class:`~cubefab.cli.CliError` naming the
    options. ``args`` is read, never changed.

    Parameters
    ----------
    routers : int
        Routers of the design that share one device (the ``auto`` buffer rule).
    algorithm, adaptive
        A curve's routing instead of ``--algorithm`` and ``--adaptive``.
    broadcasts : bool
        The traffic has broadcasts: replicating routers even without
        ``--broadcast-vcs``.
    multicast : bool
        The broadcasts go to subcube groups (``Multicast(form="subcube")`` replication).
    fault_tolerant : bool
        The command needs fault-tolerant routers even without ``--waypoints``.
    block_ram_budget, memory_depth, distributed_depth : int
        Block RAMs of the device the design is sized for, the shortest buffer its
        family keeps in them, and in LUT RAM (0: none; ``Device.auto_settings``).
    said : dict, optional
        ``{field: words}``: how the user asked for a field another option implies,
        for the error of a conflict.
    min_payload : int
        Payload bits the command's traffic needs in a flit (``board``'s
        self-checking traffic); fewer are an error naming
        ``--payload-width`` or ``--flit-width``, as typed.

    The channel dependency graph that the default VCs and the turns come from is
    checked against the memory limit before it is built.
    """
    defaults = args.router_defaults
    flit_width = getattr(args, "flit_width", None)
    if flit_width is not None and args.payload_width is not None:
        raise CliError("give --flit-width or --payload-width, not both")
    with input_errors():
        algorithm = topology.check_algorithm(getattr(args, "algorithm", None)
                                             if algorithm is None else algorithm)
    turns = _given(args, "turns")
    if turns == "reference" or args.vcs is None:
        # the turns, and the VCs deadlock freedom needs, come from every route's hops
        check_channel_graph(topology, 1, f"the reference routes of {topology.label} "
                            f"({topology.num_nodes:,} nodes)")
    adaptive_count = adaptive_vcs(args, topology, algorithm, adaptive)
    waypoints = (fault_waypoints(args, topology, wanted=fault_tolerant,
                                 algorithm=algorithm)
                 if hasattr(args, "waypoints") else 0)
    settings = dict(
        algorithm=algorithm, vcs=args.vcs, depth=args.depth,
        vcs_per_class=args.vcs_per_class,
        payload_width=(defaults.payload_width if args.payload_width is None
                       else args.payload_width),
        header=_given(args, "header"), hop=_given(args, "hop"),
        link_stages=_given(args, "link_stages"),
        buffer=_given(args, "buffer"), turns=turns, routers=routers,
        block_ram_budget=block_ram_budget, memory_depth=memory_depth,
        distributed_depth=distributed_depth)
    with router_errors(said):
        config = RouterConfig.for_topology(topology, **settings, **parts(
            adaptive_vcs=adaptive_count, fault_waypoints=waypoints,
            broadcast_vcs=_broadcast_vcs(args, topology, broadcasts, waypoints),
            broadcast_model=_given(args, "broadcast_model"),
            multicast=SUBCUBE if multicast else False))
    if flit_width is not None:
        config = _flit_width(config, flit_width)
    if config.payload_width < min_payload:
        typed = ("--flit-width" if flit_width is not None else "--payload-width")
        raise CliError(f"{typed} leaves {config.payload_width} payload bits; the "
                       f"self-checking traffic needs at least {min_payload} (a "
                       f"timestamp and a sequence number in every head)")
    return config
