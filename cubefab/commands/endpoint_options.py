"""The options that put AXI4-Stream endpoints around a fabric (``--interface``,
``--data-width``, ``--max-beats``, ``--window``, ``--packing``), one definition for every command that
takes them."""

from ..cli import CliError, int_range
from ..hdl.endpoint import EndpointInterface, packet_beats, packet_bits
from ..hdl.endpoint.message import MAX_DATA_WIDTH, MAX_WINDOW, PACKINGS


__all__ = ["INTERFACES", "DEFAULT_MAX_BEATS", "MAX_MAX_BEATS", "add_interface_options",
           "endpoint_parameters", "check_window", "endpoint_interface"]


#: What a fabric's nodes speak: the routers' flits, or AXI4-Stream (docs/endpoints.md).
INTERFACES = ("flits", "axi-stream")

#: The longest message by default, in beats.
DEFAULT_MAX_BEATS = 16

#: The largest ``--max-beats`` (each endpoint buffers twice that many beats).
MAX_MAX_BEATS = 4096


def add_interface_options(parser, default_max_beats=DEFAULT_MAX_BEATS):
    """Add ``--interface``, ``--data-width``, ``--max-beats`` (its default
    ``default_max_beats``; None: the beats of one of the command's packets),
    ``--window`` and ``--packing``."""
    default = (f"default {default_max_beats}" if default_max_beats is not None else
               "default: the beats of one generated packet, the least that holds it")
    parser.add_argument("--interface", choices=INTERFACES, default=INTERFACES[0],
                        help="what the nodes speak: flits (default; the routers' local "
                             "ports) or axi-stream (an AXI4-Stream slave and master per "
                             "node, docs/endpoints.md)")
    parser.add_argument("--data-width", type=int_range(8, MAX_DATA_WIDTH), default=None,
                        metavar="BITS", help="with --interface axi-stream: tdata bits, a "
                        f"whole number of bytes from 8 to {MAX_DATA_WIDTH} (required)")
    parser.add_argument("--max-beats", type=int_range(1, MAX_MAX_BEATS), default=None,
                        metavar="B", help="with --interface axi-stream: the longest "
                        "message in beats; longer ones are dropped at their source and "
                        f"counted ({default})")
    parser.add_argument("--window", type=int_range(1, MAX_WINDOW), default=None,
                        metavar="K", help="with --interface axi-stream and --adaptive: "
                        "messages a node may have unacknowledged to each destination, a "
                        "power of two (default 1; more keep one sender at full rate, "
                        "and every node gets a reorder buffer of K packets per source)")
    parser.add_argument("--packing", choices=PACKINGS, default=None,
                        help="with --interface axi-stream: how beats are cut into flits: "
                        "auto (default: packed tightly, a beat per flit where that "
                        "needs no count field), aligned (every flit one beat, or one "
                        "equal part of a beat: smaller endpoints, fewer data bits per "
                        "body flit) or header-flit (as aligned, but the head flit "
                        "carries no beat, so that narrow flits, as narrow as a body "
                        "flit of one beat, carry the beats: every buffer and link "
                        "narrower)")


def endpoint_parameters(args, default_max_beats=DEFAULT_MAX_BEATS):
    """The :class:`~cubefab.hdl.endpoint.MessageFormat` keywords (``data_width``,
    ``max_beats``, ``window``, ``packing``) for ``--interface axi-stream``, None for flits
    (CliError for an option that does not apply or is missing); ``max_beats`` is
    ``default_max_beats`` when ``--max-beats`` is not given. ``args`` is not changed."""
    if args.interface != "axi-stream":
        for option, value in (("--data-width", args.data_width),
                              ("--max-beats", args.max_beats), ("--window", args.window),
                              ("--packing", args.packing)):
            if value is not None:
                raise CliError(f"{option} applies only with --interface axi-stream")
        return None
    if args.data_width is None:
        raise CliError("--interface axi-stream needs --data-width BITS (tdata bits: 8, "
                       f"16, ..., {MAX_DATA_WIDTH})")
    if args.data_width % 8:
        raise CliError(f"--data-width must be a whole number of bytes (8, 16, ..., "
                       f"{MAX_DATA_WIDTH}), not {args.data_width}")
    window = 1 if args.window is None else args.window
    if window & (window - 1):
        raise CliError(f"--window must be a power of two (1, 2, 4, ..., {MAX_WINDOW}), "
                       f"not {window}")
    max_beats = default_max_beats if args.max_beats is None else args.max_beats
    return {"data_width": args.data_width, "max_beats": max_beats, "window": window,
            "packing": args.packing or "auto"}


def check_window(endpoints, config):
    """CliError if ``--window`` is over 1 for routers that are not adaptive (their
    messages keep their order without acknowledgements)."""
    if endpoints["window"] > 1 and not config.adaptive:
        raise CliError("--window applies only with --adaptive routers (deterministic "
                       "routing keeps every pair's messages in order without "
                       "acknowledgements)")


def endpoint_interface(endpoints, config, flits, packets):
    """The :class:`~cubefab.hdl.endpoint.EndpointInterface` of ``endpoints``
    (:func:`endpoint_parameters`' keywords; None for flits, which gives None) around
    routers of ``config`` whose generators send ``flits``-flit packets (``packets``
    names them in the error): CliError when ``--window`` does not apply
    (:func:`check_window`) or ``--max-beats`` cannot hold such a packet."""
    if endpoints is None:
        return None
    check_window(endpoints, config)
    width, max_beats = endpoints["data_width"], endpoints["max_beats"]
    beats = packet_beats(config.layout, flits, width)
    if max_beats is not None and max_beats < beats:
        raise CliError(f"--max-beats must be at least {beats} for {packets} "
                       f"({packet_bits(config.layout, flits)} data bits in {width}-bit "
                       f"beats), not {max_beats}")
    return EndpointInterface(**endpoints)
