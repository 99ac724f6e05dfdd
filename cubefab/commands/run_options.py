"""The options of runs of the self-checking fabric (``sim``, ``sweep``, ``compare
--simulate``, ``export booksim``), defined once: traffic, run length, seeds, and the
Dask cluster the points of a sweep run on.

Each option states its default in ``--help``. The run length differs by design:
``sim`` checks one run from its first cycle (:data:`SIM_LENGTH`: no warm-up, every
packet counted), ``sweep`` and ``compare --simulate`` measure steady-state curves
(:data:`SWEEP_LENGTH`: 500 warm-up cycles before 2000 measured ones).
"""

import contextlib

from ..cli import CliError, float_range, int_range
from ..hdl.selfcheck import FIELD_BITS, SEQUENCE_BITS, TIMESTAMP_BITS, packet_flits_for
from .limits import MAX_CYCLES, MAX_JOBS, MAX_PACKET_FLITS, MAX_SEED


__all__ = ["SIM_LENGTH", "SWEEP_LENGTH", "add_traffic_option", "add_length_options",
           "add_packet_flits_option", "packet_flits", "add_seed_option", "add_hotspot_fraction_option",
           "add_cluster_options", "check_cluster_options", "cluster_client"]

#: ``(cycles, warmup)`` of ``sim``: every packet of the run is counted and checked.
SIM_LENGTH = (1000, 0)
#: ``(cycles, warmup)`` of ``sweep`` and ``compare --simulate``: steady-state figures.
SWEEP_LENGTH = (2000, 500)


def _prefixed(prefix, text):
    return f"{prefix}: {text}" if prefix else text


def add_traffic_option(parser, patterns, extra=""):
    """Add ``--traffic`` among ``patterns`` (default uniform); ``extra``: more help."""
    parser.add_argument("--traffic", default="uniform", choices=patterns,
                        help="traffic pattern (default %(default)s)"
                             + (f"; {extra}" if extra else ""))


def add_length_options(parser, length, prefix=""):
    """Add ``--cycles`` and ``--warmup``, their defaults ``length`` (:data:`SIM_LENGTH`
    or :data:`SWEEP_LENGTH`); ``prefix``: the option they set up (``--simulate``)."""
    cycles, warmup = length
    parser.add_argument("--cycles", type=int_range(1, MAX_CYCLES), default=cycles,
                        metavar="N", help=_prefixed(prefix, "measured cycles of a run, "
                                                    "during which packets are created "
                                                    "(default %(default)s)"))
    parser.add_argument("--warmup", type=int_range(0, MAX_CYCLES), default=warmup,
                        metavar="N", help=_prefixed(prefix, "cycles before the measured "
                                                    "ones, whose packets are not counted "
                                                    "(default %(default)s)"))


def add_packet_flits_option(parser, limit=MAX_PACKET_FLITS, *, fields=False):
    """Add ``--packet-flits L``: default 1, or with ``fields`` (the self-checking
    traffic) the fewest flits that hold its timestamp and sequence number
    (:func:`packet_flits`)."""
    default = (f"the fewest that hold the {FIELD_BITS} bits of a packet's "
               f"{TIMESTAMP_BITS}-bit timestamp and {SEQUENCE_BITS}-bit sequence number: "
               f"2 at 16-bit payloads, 1 from {FIELD_BITS}" if fields else "%(default)s")
    parser.add_argument("--packet-flits", type=int_range(1, limit),
                        default=None if fields else 1, metavar="L",
                        help=f"flits per packet (default {default})")


def packet_flits(args, layout):
    """The packet length of the self-checking traffic on flits of ``layout``:
    ``--packet-flits``, by default the fewest flits that hold the timestamp and
    sequence number (:func:`~cubefab.hdl.selfcheck.packet_flits_for`).

    Raises
    ------
    CliError
        If ``--packet-flits`` gives packets too short to hold them.
    """
    fewest = packet_flits_for(layout)
    if args.packet_flits is None:
        return fewest
    if args.packet_flits < fewest:
        raise CliError(f"--packet-flits {args.packet_flits} is too short for "
                       f"{layout.payload_width}-bit payloads: the self-checking traffic "
                       f"carries its {TIMESTAMP_BITS}-bit timestamp and {SEQUENCE_BITS}-bit "
                       f"sequence number in each packet's first {FIELD_BITS} data bits; "
                       f"give --packet-flits {fewest} or more, or a wider --payload-width "
                       f"({FIELD_BITS} or more for 1-flit packets)")
    return args.packet_flits


def add_seed_option(parser, help="seed of the traffic generators", limit=MAX_SEED):
    """Add ``--seed S`` from 0 to ``limit`` (default 1)."""
    parser.add_argument("--seed", type=int_range(0, limit), default=1, metavar="S",
                        help=f"{help}, 0 to {limit} (default %(default)s)")


#: What ``--hotspot-fraction`` takes: the generators' hot-node share is a 16-bit
#: threshold, so it stays below 1 (:class:`~cubefab.sim.run_spec.Stimulus`).
HOTSPOT_FRACTION = float_range(0.0, 1.0, hi_open=True)


def add_hotspot_fraction_option(parser):
    """Add ``--hotspot-fraction F`` (default 0.1)."""
    parser.add_argument("--hotspot-fraction", type=HOTSPOT_FRACTION, default=0.1,
                        metavar="F", help="share of --traffic hotspot's packets sent to "
                        "the hot node, 0 <= F < 1 (the generators draw it in 1/65536ths "
                        "below 1; default %(default)s)")


def add_cluster_options(parser, prefix=""):
    """Add ``--scheduler ADDRESS`` and ``--jobs N``: the Dask cluster the runs take,
    a running one or an embedded local one (see :func:`cluster_client`)."""
    parser.add_argument("--scheduler", metavar="ADDRESS", default=None,
                        help=_prefixed(prefix, "run on the running Dask cluster whose "
                                       "scheduler is at ADDRESS (tcp://host:8786; "
                                       "default: an embedded local cluster)"))
    parser.add_argument("--jobs", type=int_range(1, MAX_JOBS), default=None, metavar="N",
                        help=_prefixed(prefix, "worker processes of the embedded Dask "
                                       "cluster (default: one per core); 1 runs in this "
                                       "process"))


def check_cluster_options(args):
    """``--jobs`` and ``--scheduler`` against each other (CliError)."""
    if args.jobs is not None and args.scheduler is not None:
        raise CliError("--jobs sizes the embedded cluster; a --scheduler's cluster has "
                       "its own workers")


def cluster_client(args):
    """A context manager giving the Dask client the options ask for, or None for
    ``--jobs 1`` (this process); an address that does not answer is a
    :class:`~cubefab.cluster.ClusterError` within
    :data:`~cubefab.cluster.SCHEDULER_TIMEOUT` seconds."""
    from .. import cluster
    if args.jobs == 1 and args.scheduler is None:
        return contextlib.nullcontext()
    return cluster.open_client(args.scheduler, workers=args.jobs,
                               timeout=cluster.SCHEDULER_TIMEOUT)
