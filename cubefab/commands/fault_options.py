"""The fault options every command that routes around faults shares: ``--faults A,B,...``
(faulty nodes) and ``--faulty-links U-V,...`` (faulty links), parsed and checked in one
place."""

import argparse

from ..cli import input_errors, parse_address


__all__ = ["address_list", "link_list", "add_fault_options", "check_fault_options"]


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
