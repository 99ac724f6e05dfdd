"""``cubefab export booksim``: the network for other simulators."""

from ..cli import (_Parser, add_topology_command, emit, int_range, fraction,
                   add_force_option, input_errors)
from .. import files
from ..sim.booksim import BOOKSIM_TRAFFIC, booksim_config, write_booksim
from .limits import MAX_VCS, MAX_DEPTH, MAX_PACKET_FLITS, MAX_SEED, check_memory

#: Estimated bytes per link end of the exported text (written and held in memory).
_PER_LINK_END = 200


__all__ = ["register"]


def register(sub):
    parser = sub.add_parser("export", help="write a network for other tools (BookSim2)",
                            description="Write a network for other tools.")
    targets = parser.add_subparsers(dest="target", metavar="TARGET", parser_class=_Parser)
    targets.required = True
    add_topology_command(targets, "booksim",
                         "BookSim2 anynet network file, configuration and node map",
                         _booksim, _booksim_options)


def _booksim_options(parser):
    parser.add_argument("-o", "--output", required=True, metavar="DIR",
                        help="directory for anynet_file, booksim_config and nodes.txt")
    parser.add_argument("--traffic", default="uniform", choices=sorted(BOOKSIM_TRAFFIC))
    parser.add_argument("--rate", type=fraction, default=0.1,
                        help="injection rate, flits per node per cycle (default 0.1)")
    parser.add_argument("--packet-flits", type=int_range(1, MAX_PACKET_FLITS), default=1,
                        metavar="L")
    parser.add_argument("--vcs", type=int_range(1, MAX_VCS), default=2,
                        help="virtual channels (default 2)")
    parser.add_argument("--buffer", type=int_range(1, MAX_DEPTH), default=4,
                        help="flits per VC buffer (default 4)")
    parser.add_argument("--seed", type=int_range(0, MAX_SEED), default=1)
    parser.add_argument("--json", action="store_true")
    add_force_option(parser)


def _booksim(args, topology):
    check_memory(f"the BookSim2 files of {topology.label} ({topology.num_links:,} links)",
                 _PER_LINK_END * 2 * topology.num_links)
    files.check_directory(args.output, force=True)   # writable; files checked one by one
    with input_errors():
        booksim_config(topology, traffic=args.traffic, injection_rate=args.rate,
                       packet_size=args.packet_flits, num_vcs=args.vcs,
                       vc_buf_size=args.buffer, seed=args.seed)
    paths = write_booksim(topology, args.output, traffic=args.traffic,
                          injection_rate=args.rate, packet_size=args.packet_flits,
                          num_vcs=args.vcs, vc_buf_size=args.buffer, seed=args.seed)
    doc = dict(paths, routers=topology.num_nodes, links=topology.num_links,
               topology=topology.label)
    emit(args, doc, f"{topology.label}: {topology.num_nodes} routers, {topology.num_links} "
         f"links\n" + "\n".join(f"wrote {p}" for p in paths.values())
         + f"\nrun: booksim {paths['config_file']}")
