"""``cubefab export booksim``: the network, router and routing for BookSim2."""

from ..cli import (add_json_option, _Parser, add_topology_command, emit, fraction,
                   add_force_option, input_errors)
from .. import files
from ..sim.booksim import BOOKSIM_TRAFFIC, PATCH_NAME, ROUTINGS, booksim_router, write_booksim
from ..hdl.config import HARDWARE_DEFAULTS, RouterConfig
from .limits import check_channel_graph, check_memory
from .run_options import add_packet_flits_option, add_seed_option, add_traffic_option
from .router_options import (add_algorithm_option, add_depth_option,
                             add_vcs_per_class_option, add_vcs_option)

#: Estimated bytes per link end of the exported text (written and held in memory).
_PER_LINK_END = 200


__all__ = ["register"]

#: Largest seed BookSim2 reads (its configuration integers are C ints).
MAX_SEED = (1 << 31) - 1


def register(sub):
    parser = sub.add_parser("export", help="write a network for other tools (BookSim2)",
                            description="Write a network for other tools.")
    targets = parser.add_subparsers(dest="target", metavar="TARGET", parser_class=_Parser)
    targets.required = True
    add_topology_command(targets, "booksim",
                         "BookSim2 anynet network, configuration of cubefab's default router, "
                         "cubefab's routing as a next-hop table, node map", _booksim,
                         _booksim_options)


def _booksim_options(parser):
    parser.add_argument("-o", "--output", required=True, metavar="DIR",
                        help="directory for anynet_file, booksim_config, nodes.txt (and "
                             f"cubefab_table, {PATCH_NAME})")
    parser.add_argument("--routing", default="table", choices=ROUTINGS,
                        help="table: cubefab's routing and VCs, read by the routing function "
                             f"of {PATCH_NAME} (default); min: BookSim's own shortest paths")
    add_algorithm_option(parser)
    add_traffic_option(parser, sorted(BOOKSIM_TRAFFIC))
    parser.add_argument("--rate", type=fraction, default=0.1,
                        help="injection rate, flits per node per cycle (default 0.1)")
    add_packet_flits_option(parser)
    add_vcs_option(parser, help="virtual channels (default: the VC classes deadlock "
                                "freedom needs x --vcs-per-class, as cubefab sim and sweep)")
    add_depth_option(parser, HARDWARE_DEFAULTS)
    add_vcs_per_class_option(parser, HARDWARE_DEFAULTS)
    add_seed_option(parser, "BookSim's random seed", MAX_SEED)
    add_json_option(parser)
    add_force_option(parser)


def _booksim(args, topology):
    check_memory(f"the BookSim2 files of {topology.label} ({topology.num_links:,} links)",
                 _PER_LINK_END * 2 * topology.num_links)
    # (the router's VCs come from the deadlock analysis, which enumerates every route)
    check_channel_graph(topology, 1, f"the reference routes of {topology.label}")
    files.check_directory(args.output, force=True)   # writable; files checked one by one
    with input_errors():
        algorithm = topology.check_algorithm(args.algorithm)
        router = booksim_router(topology, algorithm, vcs=args.vcs, depth=args.depth,
                                vcs_per_class=args.vcs_per_class)
        paths = write_booksim(topology, args.output, routing=args.routing,
                              algorithm=algorithm, traffic=args.traffic,
                              injection_rate=args.rate, packet_size=args.packet_flits,
                              vcs=router["vcs"], depth=router["depth"],
                              vcs_per_class=router["vcs_per_class"], seed=args.seed)
        modelled = RouterConfig.for_topology(topology, algorithm=algorithm,
                                             vcs=router["vcs"], depth=router["depth"],
                                             vcs_per_class=router["vcs_per_class"])
    # ("router": cubefab's router, as in every command's --json; "booksim": its VCs as
    # BookSim's configuration gives them)
    doc = dict(paths, routers=topology.num_nodes, links=topology.num_links,
               topology=topology.label, routing=args.routing, algorithm=algorithm,
               router=modelled.as_dict(),
               booksim={k: v for k, v in router.items() if k != "label"})
    if args.routing == "table":
        routing = (f"routing: cubefab's {algorithm} routing and VC classes as a next-hop "
                   f"table; BookSim2 needs {PATCH_NAME} (apply it in a BookSim2 checkout "
                   f"with git apply, then rebuild)")
    else:
        routing = (f"routing: BookSim's min (its own shortest paths, any VC), not cubefab's "
                   f"{algorithm} routing")
    emit(args, doc, f"{topology.label}: {topology.num_nodes} routers, {topology.num_links} "
         f"links\nrouter modelled: cubefab's default router (of sim and sweep), "
         f"{router['label']}\n{routing}\n"
         + "\n".join(f"wrote {p}" for p in paths.values())
         + f"\nrun: booksim {paths['config_file']}")
