"""``cubefab export booksim``: the network, router and routing for BookSim2."""

from ..cli import CliError, _Parser, add_topology_command, emit
from ..sim.booksim import BOOKSIM_TRAFFIC, PATCH_NAME, ROUTINGS, booksim_router, write_booksim
from ..sim.selfcheck_run import DEFAULT_ROUTER


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
    parser.add_argument("--algorithm", default=None, metavar="NAME",
                        help="cubefab routing algorithm (default: the topology's first)")
    parser.add_argument("--traffic", default="uniform", choices=sorted(BOOKSIM_TRAFFIC))
    parser.add_argument("--rate", type=float, default=0.1,
                        help="injection rate, flits per node per cycle (default 0.1)")
    parser.add_argument("--packet-flits", type=int, default=1, metavar="L")
    parser.add_argument("--vcs", type=int, default=None, metavar="N",
                        help="virtual channels (default: the VC classes deadlock freedom "
                             "needs x --vcs-per-class, as cubefab sim and sweep)")
    parser.add_argument("--depth", type=int, default=DEFAULT_ROUTER["depth"], metavar="N",
                        help=f"flits per VC buffer (default {DEFAULT_ROUTER['depth']}, as "
                             "cubefab sweep)")
    parser.add_argument("--vcs-per-class", type=int, default=DEFAULT_ROUTER["vcs_per_class"],
                        metavar="N", help="VCs per VC class, a power of two (default "
                        f"{DEFAULT_ROUTER['vcs_per_class']}, as cubefab sim and sweep)")
    parser.add_argument("--seed", type=int, default=1, metavar="S",
                        help=f"BookSim's random seed, 0 to {MAX_SEED} (default 1)")
    parser.add_argument("--force", action="store_true",
                        help="replace files that exist in DIR")
    parser.add_argument("--json", action="store_true")


def _booksim(args, topology):
    if not 0 <= args.seed <= MAX_SEED:
        raise CliError(f"seed must be an integer from 0 to {MAX_SEED}, not {args.seed}")
    router = booksim_router(topology, args.algorithm, vcs=args.vcs, depth=args.depth,
                            vcs_per_class=args.vcs_per_class)
    algorithm = topology.check_algorithm(args.algorithm)
    try:
        paths = write_booksim(topology, args.output, force=args.force, routing=args.routing,
                              algorithm=algorithm, traffic=args.traffic,
                              injection_rate=args.rate, packet_size=args.packet_flits,
                              vcs=router["vcs"], depth=router["depth"],
                              vcs_per_class=router["vcs_per_class"], seed=args.seed)
    except FileExistsError as exc:
        raise CliError(f"{exc}; use --force to replace it") from None
    except OSError as exc:
        raise CliError(f"cannot write {args.output}: {exc.strerror}") from None
    doc = dict(paths, routers=topology.num_nodes, links=topology.num_links,
               topology=topology.label, routing=args.routing, algorithm=algorithm,
               router={k: v for k, v in router.items() if k != "label"})
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
