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

import dataclasses

from ..cli import CliError, input_errors, int_range
from ..tools.devices import ECP5_MEMORY_DEPTH
from ..hdl.config import (AUTO_MEMORY_DEPTH, BLOCK_RAMS, BUFFER_CHOICES, HOPS, TURNS,
                          ConfigConflict, HARDWARE_DEFAULTS, RouterConfig)
from ..hdl.flit import DEFAULT_HEADER, HEADERS, payload_width_for
from ..hdl.modes import parts
from .fault_options import add_waypoints_option, fault_waypoints
from .limits import (MAX_DEPTH, MAX_FLIT_WIDTH, MAX_PAYLOAD_WIDTH, MAX_VCS,
                     check_channel_graph, check_vcs_per_class)


__all__ = ["PARTS", "OPTION_OF", "add_algorithm_option", "add_vcs_option",
           "add_depth_option", "add_vcs_per_class_option", "add_adaptive_options",
           "add_router_options", "adaptive_vcs", "router_config", "conflict_message"]


#: The option groups :func:`add_router_options` can add beside ``--vcs``, ``--depth``
#: and ``--payload-width``: ``algorithm`` (``--algorithm``; without it, each topology's
#: first), ``vcs-per-class``,
#: ``adaptive`` (``--adaptive``, ``--adaptive-vcs``), ``waypoints``, ``header``,
#: ``hop``, ``storage`` (``--buffer``, ``--turns``), ``replication``
#: (``--broadcast-vcs``, ``--broadcast-model``) and ``flit-width``.
PARTS = ("algorithm", "vcs-per-class", "adaptive", "waypoints", "header", "hop", "storage",
         "replication", "flit-width")

#: The command-line option of each :class:`~cubefab.hdl.config.RouterConfig` field:
#: what an error names.
OPTION_OF = {
    "algorithm": "--algorithm", "vcs": "--vcs", "depth": "--depth",
    "payload_width": "--payload-width", "vcs_per_class": "--vcs-per-class",
    "buffer": "--buffer", "turns": "--turns", "adaptive_vcs": "--adaptive",
    "fault_waypoints": "--waypoints", "broadcast_vcs": "--broadcast-vcs",
    "broadcast_model": "--broadcast-model", "multicast": "--multicast-group",
    "header": "--header", "hop": "--hop", "block_ram_budget": "--device",
}

#: Fields whose option takes a word: an error shows the word (``--hop lookahead``).
_WORD_OPTIONS = ("buffer", "turns", "broadcast_model", "header", "hop")


def add_algorithm_option(parser, repeatable=False):
    """Add ``--algorithm NAME`` (``repeatable``: one curve per use)."""
    if repeatable:
        parser.add_argument("--algorithm", action="append", metavar="NAME",
                            help="routing algorithm (repeat to compare several; default: "
                                 "the topology's first)")
    else:
        parser.add_argument("--algorithm", default=None, metavar="NAME",
                            help="routing algorithm (default: the topology's first)")


def add_vcs_option(parser, help="virtual channels per link (default: what deadlock "
                                "freedom needs)"):
    """Add ``--vcs N``."""
    parser.add_argument("--vcs", type=int_range(1, MAX_VCS), default=None, metavar="N",
                        help=help)


def add_depth_option(parser, defaults=HARDWARE_DEFAULTS):
    """Add ``--depth N`` (default ``defaults.depth``)."""
    parser.add_argument("--depth", type=int_range(1, MAX_DEPTH), default=defaults.depth,
                        metavar="N", help="buffer depth per input VC in flits "
                                          "(default %(default)s)")


def add_vcs_per_class_option(parser, defaults=HARDWARE_DEFAULTS):
    """Add ``--vcs-per-class N`` (default ``defaults.vcs_per_class``)."""
    parser.add_argument("--vcs-per-class", type=int_range(1, MAX_VCS),
                        default=defaults.vcs_per_class, metavar="N",
                        help="VCs per VC class, a power of two; a flow keeps one VC of "
                             "each class (default %(default)s)")


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
    parser.add_argument("--adaptive-vcs", type=int_range(1, MAX_VCS), default=None,
                        metavar="N", help="adaptive VCs per link beside the escape VCs, a "
                        "power of two (default: --vcs-per-class)")


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
    parser.add_argument("--payload-width", type=int_range(min_payload, MAX_PAYLOAD_WIDTH),
                        default=None, metavar="BITS",
                        help=f"payload bits per flit (default {defaults.payload_width}"
                             + (f": {payload_help})" if payload_help else ")"))
    parser.set_defaults(router_defaults=defaults)
    if "flit-width" in parts:
        parser.add_argument("--flit-width", type=int_range(1, MAX_FLIT_WIDTH),
                            default=None, metavar="BITS",
                            help="bits of a flit on a link, header included (head, tail, "
                                 "vc, dest, src): sets the payload to what is left; "
                                 "instead of --payload-width (default: none)")
    if "header" in parts:
        parser.add_argument("--header", default=DEFAULT_HEADER, choices=HEADERS,
                            help="where a packet's routing information (dest, src, "
                                 "class) travels: in the head flit only (default), body "
                                 "flits carrying payload in every bit but the flit type "
                                 "and VC, or in every flit")
    if "hop" in parts:
        parser.add_argument("--hop", default=HOPS[0], choices=HOPS,
                            help="how a flit crosses a router: buffered (default; 2 "
                                 "cycles a hop) or lookahead (next router's port in the "
                                 "head flit, adaptive routers' also its adaptive ports; "
                                 "empty buffers bypassed: 1 cycle a hop at zero load)")
    if "adaptive" in parts:
        add_adaptive_options(parser, repeatable)
    if "storage" in parts:
        parser.add_argument("--buffer", default="auto", choices=BUFFER_CHOICES,
                            help="flit storage of the input buffers: registers, memory "
                                 "(block RAM on FPGAs; same timing) or auto (default): "
                                 f"memory when buffers hold at least {AUTO_MEMORY_DEPTH} "
                                 f"flits ({ECP5_MEMORY_DEPTH} on ECP5 devices) and the "
                                 "design's block RAMs fit the device's (synth: --device; "
                                 f"otherwise the HX8K's {BLOCK_RAMS}), registers "
                                 "otherwise")
        parser.add_argument("--turns", default=TURNS[0], choices=TURNS,
                            help="reference (default): connect only the turns reference "
                                 "routes make at the node; all: any input to any output")
    if "waypoints" in parts:
        add_waypoints_option(parser)
    if "replication" in parts:
        parser.add_argument("--broadcast-vcs", type=int_range(1, MAX_VCS), default=None,
                            metavar="N", help="replicating routers (broadcast packets "
                            "copied along the trees) with N broadcast VCs per link "
                            "(default: none, or what deadlock freedom needs when the "
                            "traffic has broadcasts)")
        parser.add_argument("--broadcast-model", choices=("all-port", "one-port"),
                            default=None, help="replication of the routers: all-port "
                            "(default) or one-port (copies one at a time, in the "
                            "schedule's order)")


def adaptive_vcs(args, topology, algorithm=None, adaptive=None):
    """The ``adaptive_vcs`` the options ask for ``algorithm`` (default ``--algorithm``):
    0 for deterministic routing, else ``--adaptive-vcs`` (default ``--vcs-per-class``)
    with ``--adaptive`` (``adaptive``, when given) or an algorithm that is deadlock-free
    only adaptively (:func:`~cubefab.topology.adaptive.needs_adaptive`). Bad combinations:
    CliError."""
    from ..topology.adaptive import escape_algorithm, needs_adaptive
    with input_errors():
        algorithm = topology.check_algorithm(getattr(args, "algorithm", None)
                                             if algorithm is None else algorithm)
    if not hasattr(args, "adaptive_vcs"):      # a command without --adaptive
        return args.vcs_per_class if needs_adaptive(topology, algorithm) else 0
    adaptive = args.adaptive if adaptive is None else adaptive
    count = args.vcs_per_class if args.adaptive_vcs is None else args.adaptive_vcs
    if count & (count - 1):
        raise CliError(f"--adaptive-vcs must be a power of two, not {count}")
    if adaptive:
        with input_errors("--adaptive: "):
            escape_algorithm(topology, algorithm)
        return count
    if needs_adaptive(topology, algorithm):
        return count
    if args.adaptive_vcs is not None and not args.adaptive:
        raise CliError("--adaptive-vcs needs --adaptive")
    return 0


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
    """``--broadcast-vcs``, or what the broadcast trees need when the traffic has
    ``broadcasts`` (1 for fault-tolerant routers, ``waypoints``: they flood one tree);
    0 for unicast routers."""
    given = getattr(args, "broadcast_vcs", None)
    if given is not None:
        return given
    if not broadcasts:
        return 0
    if waypoints:
        return 1
    from ..topology.broadcast_deadlock import required_broadcast_vcs
    with input_errors():
        return required_broadcast_vcs(topology, getattr(args, "broadcast_model", None)
                                      or "all-port")


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


def router_config(args, topology, *, routers=1, algorithm=None, adaptive=None,
                  broadcasts=False, multicast=False, fault_tolerant=False,
                  block_ram_budget=BLOCK_RAMS, memory_depth=AUTO_MEMORY_DEPTH, said=None,
                  min_payload=0):
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
    block_ram_budget, memory_depth : int
        Block RAMs of the device the design is sized for, and the shortest buffer its
        family keeps in them (``Device.auto_settings``).
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
    check_vcs_per_class(args.vcs_per_class, args.vcs)
    turns = getattr(args, "turns", TURNS[0])
    if turns == "reference" or args.vcs is None:
        # the turns, and the VCs deadlock freedom needs, come from every route's hops
        check_channel_graph(topology, 1, f"the reference routes of {topology.label} "
                            f"({topology.num_nodes:,} nodes)")
    adaptive_count = adaptive_vcs(args, topology, algorithm, adaptive)
    waypoints = (fault_waypoints(args, topology, adaptive_count, wanted=fault_tolerant,
                                 algorithm=algorithm)
                 if hasattr(args, "waypoints") else 0)
    settings = dict(
        algorithm=algorithm, vcs=args.vcs, depth=args.depth,
        vcs_per_class=args.vcs_per_class,
        payload_width=(defaults.payload_width if args.payload_width is None
                       else args.payload_width),
        header=getattr(args, "header", DEFAULT_HEADER), hop=getattr(args, "hop", HOPS[0]),
        buffer=getattr(args, "buffer", "auto"), turns=turns, routers=routers,
        block_ram_budget=block_ram_budget, memory_depth=memory_depth)
    try:
        config = RouterConfig.for_topology(topology, **settings, **parts(
            adaptive_vcs=adaptive_count, fault_waypoints=waypoints,
            broadcast_vcs=_broadcast_vcs(args, topology, broadcasts, waypoints),
            broadcast_model=getattr(args, "broadcast_model", None) or "all-port",
            multicast="subcube" if multicast else False))
    except ConfigConflict as exc:
        raise CliError(conflict_message(exc, said)) from None
    except (TypeError, ValueError) as exc:
        raise CliError(str(exc)) from None
    if flit_width is not None:
        config = _flit_width(config, flit_width)
    if config.payload_width < min_payload:
        option = ("--flit-width" if flit_width is not None else "--payload-width")
        raise CliError(f"{option} leaves {config.payload_width} payload bits; the "
                       f"self-checking traffic needs at least {min_payload} (a "
                       f"timestamp and a sequence number in every head)")
    return config
