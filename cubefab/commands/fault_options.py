"""The fault options every command that routes around faults shares: ``--faults A,B,...``
(faulty nodes) and ``--faulty-links U-V,...`` (faulty links), parsed and checked in one
place."""

import argparse

from ..cli import input_errors, parse_address
from .limits import check_memory


__all__ = ["address_list", "link_list", "failing_link_list", "add_fault_options", "check_fault_options",
           "fault_waypoints", "check_route_table", "route_table_hops", "BYTES_PER_PAIR_HOP"]


def address_list(text):
    """An argparse ``type``: comma-separated node addresses (empty items skipped)."""
    return [parse_address(part) for part in text.split(",") if part.strip()]


def link_list(text):
    """An argparse ``type``: comma-separated links ``U-V`` (empty items skipped)."""
    links = []
    for part in text.split(","):
        if not part.strip():
            continue
        ends = part.split("-")
        if len(ends) != 2:
            raise argparse.ArgumentTypeError(f"invalid link {part!r} (write U-V)")
        links.append((parse_address(ends[0]), parse_address(ends[1])))
    return links


def failing_link_list(text):
    """An argparse ``type``: comma-separated links failing mid-run, ``U-V@CYCLE``
    (empty items skipped); a list of ``(u, v, cycle)``."""
    failing = []
    for part in text.split(","):
        if not part.strip():
            continue
        link, at, cycle = part.partition("@")
        if not at or not cycle.strip().isdigit():
            raise argparse.ArgumentTypeError(f"invalid failing link {part!r} (write "
                                             f"U-V@CYCLE)")
        (u, v), = link_list(link) or [(None, None)]
        if u is None:
            raise argparse.ArgumentTypeError(f"invalid failing link {part!r} (write "
                                             f"U-V@CYCLE)")
        failing.append((u, v, int(cycle)))
    return failing


def add_fault_options(parser, nodes_help="faulty nodes", links_help="faulty links (pairs "
                      "of adjacent nodes)"):
    """Add ``--faults`` and ``--faulty-links`` (defaults: none) to ``parser``."""
    parser.add_argument("--faults", type=address_list, default=[], metavar="A,B,...",
                        help=nodes_help)
    parser.add_argument("--faulty-links", type=link_list, default=[], metavar="U-V,...",
                        help=links_help)


def check_fault_options(topology, args):
    """Refuse (exit 2) a ``--faults`` entry that is not a node of ``topology`` or a
    ``--faulty-links`` entry that is not one of its links."""
    with input_errors():
        for node in args.faults:
            topology.check_node(node, "--faults node")
        for u, v in args.faulty_links:
            topology.check_node(u, "--faulty-links end")
            topology.check_node(v, "--faulty-links end")
            topology.port(u, v)


#: Measured (MC(2,2): 1 M ordered pairs, routes of up to 12 hops, 690 MB peak): about 56
#: bytes per (pair, hop) of the route table, and about 1 us per (pair, hop) per fault set.
BYTES_PER_PAIR_HOP = 56


def route_table_hops(topology):
    """At least the longest route: n in Q(n), m + d + 1 in the DLH, and the address bits
    plus the 2^(k+1) class moves of a metacube."""
    return topology.address_bits + 2 ** (getattr(topology, "k", 0) + 1)


def check_route_table(topology, algorithm):
    """Refuse (exit 2) a network whose all-pairs route table (the waypoint routing's
    model) would not fit in memory, or a routing it cannot use; build it (cached)."""
    from ..topology.fault_routing import route_table
    with input_errors():
        check_memory(f"the route table of {topology.label}",
                     topology.num_nodes ** 2 * route_table_hops(topology)
                     * BYTES_PER_PAIR_HOP)
        route_table(topology, algorithm)


def fault_waypoints(args, topology, wanted=False, algorithm=None):
    """The waypoints of the fault-tolerant routers a command with ``--waypoints`` (and
    ``--faults``, ``--faulty-links`` where it has them) builds: 0 when none is given
    (fault-free routers), else ``--waypoints`` (default
    :data:`~cubefab.topology.fault_routing.DEFAULT_WAYPOINTS`), after checking the
    faults (exit 2 for a non-node, a non-link, or a route table that would not fit);
    ``wanted``: the command asks for fault-tolerant routers anyway; ``algorithm``: the
    routing, when not ``--algorithm``. Whether the routers can route by waypoints
    (the family, the routing, no adaptive routing) is the library's to check
    (:class:`~cubefab.hdl.modes.Waypoints`)."""
    from ..topology.fault_routing import DEFAULT_WAYPOINTS
    nodes = getattr(args, "faults", None)   # (a list here; ``sweep --faults`` counts)
    faults = (nodes if isinstance(nodes, list) else []) or getattr(args, "faulty_links", [])
    if not (faults or wanted or args.waypoints is not None):
        return 0
    if faults:
        check_fault_options(topology, args)
        check_route_table(topology, args.algorithm if algorithm is None else algorithm)
    return DEFAULT_WAYPOINTS if args.waypoints is None else args.waypoints
