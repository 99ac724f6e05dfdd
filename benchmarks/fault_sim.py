"""Fabrics of fault-tolerant routers under random fault sets: accepted throughput and
latency with 0, 1, ..., c - 1 faults (c - 1 the guarantee), every flit checked.

    python benchmarks/fault_sim.py                                  # Q(4), 4 sets a count
    python benchmarks/fault_sim.py --network "MC(1,2)" --sets 3 --rates 0.1,0.6
    python benchmarks/fault_sim.py --engine amaranth --cycles 300   # no Verilator
    python benchmarks/fault_sim.py --network "DLH(4,3)" --counts 5 --sets 4 --rates 0.4

Each fault set is drawn uniformly from the network's nodes and links
(:func:`~cubefab.topology.fault_routing.random_fault_sets`), its waypoint routing loaded
into the fabric's source tables at run time (one Verilator build for all of them), and
run at each rate (uniform traffic, the default router's packets) after a warm-up, with a drain. Each
row: faults, rate, offered load and accepted throughput (flits per node per cycle, mean
over the sets), mean and worst p99 latency, packets refused as unroutable (packets to
faulty nodes; none of the others within the guarantee), the mean path stretch of the
sets' routings (route hops over shortest fault-free hops, over routed pairs) and the
most extra hops, and the errors found (lost + duplicated + corrupted + misrouted +
checker errors, summed: 0 expected). Offered load and throughput are per node of the
network, faulty ones included (they create nothing); "bound" is the mean over the sets
of their waypoint routes' channel-load bound in the same unit
(:func:`~cubefab.sim.channel_load.waypoint_channel_load_bound`).

``--save NAME`` writes the rows to ``benchmarks/results/NAME.json``
(``benchmarks/saved_results.py``), keyed by fault count and rate in hundredths
(``f1.r95.accepted``), and the router the runs simulated (``router.depth``:
:meth:`RouterConfig.as_dict <cubefab.hdl.config.RouterConfig.as_dict>`). The figures of
docs/faults.md::

    python benchmarks/fault_sim.py --network "Q(4)" --sets 4 --save fault_sim_q4
"""

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cubefab.cli import format_table                                     # noqa: E402
from cubefab.sim.channel_load import waypoint_channel_load_bound         # noqa: E402
from cubefab.sim.run_spec import SelfCheckRun                            # noqa: E402
from cubefab.sim.selfcheck_run import run_selfcheck                      # noqa: E402
from cubefab.topology import DLH, Hypercube, Metacube                    # noqa: E402
from cubefab.topology.fault_routing import (FaultSet, guarantee_bound,  # noqa: E402
                                            plan_waypoints, random_fault_sets)
from saved_results import add_save_option, command_line, save           # noqa: E402

NETWORKS = {"Q(3)": Hypercube(3), "Q(4)": Hypercube(4), "MC(1,2)": Metacube(1, 2),
            "DLH(2,1)": DLH(2, 1), "DLH(4,3)": DLH(4, 3), "MC(2,2)": Metacube(2, 2)}
ERRORS = ("lost", "duplicated", "corrupted", "misrouted", "checker_errors")
#: The saved name of each column of a row.
COLUMNS = ("faults", "rate", "offered", "accepted", "avg_latency", "worst_p99",
           "unroutable", "bound", "stretch", "max_extra", "errors")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--network", default="Q(4)", choices=sorted(NETWORKS))
    parser.add_argument("--sets", type=int, default=4, help="fault sets per count")
    parser.add_argument("--rates", default="0.1,0.5,0.8,0.95")
    parser.add_argument("--waypoints", type=int, default=1)
    parser.add_argument("--cycles", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument("--engine", default="verilator", choices=("verilator", "amaranth"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--counts", default=None,
                        help="fault counts, comma-separated (default 0 .. the guarantee)")
    add_save_option(parser)
    args = parser.parse_args()
    topo = NETWORKS[args.network]
    rates = [float(r) for r in args.rates.split(",")]
    rows, router = [], None
    counts = (range(guarantee_bound(topo) + 1) if args.counts is None
              else [int(c) for c in args.counts.split(",")])
    for count in counts:
        sets = ([FaultSet(topo)] if count == 0 else
                list(random_fault_sets(topo, args.sets, count, seed=args.seed + count)))
        plans = [plan_waypoints(topo, f, args.waypoints) for f in sets]
        figures = [plan.stretch() for plan in plans]
        bound = statistics.mean(waypoint_channel_load_bound(plan)["saturation_bound"]
                                for plan in plans)
        stretch = statistics.mean(f["mean_ratio"] for f in figures)
        extra = max(f["max_extra"] for f in figures)
        for rate in rates:
            specs = [SelfCheckRun.of(topo, engine=args.engine, rate=rate, cycles=args.cycles,
                                     warmup=args.warmup, drain=20 * topo.num_nodes + 2000,
                                     seed=args.seed, fault_waypoints=args.waypoints,
                                     faults=f.nodes, faulty_links=f.links) for f in sets]
            router = specs[0].design.router.as_dict()
            runs = [run_selfcheck(spec) for spec in specs]
            rows.append([count, rate, round(statistics.mean(r["offered"] for r in runs), 4),
                         round(statistics.mean(r["throughput"] for r in runs), 4),
                         round(statistics.mean(r["avg_latency"] for r in runs), 2),
                         max(r["p99_latency"] for r in runs),
                         sum(r["unroutable"] for r in runs), round(bound, 4),
                         round(stretch, 4), extra,
                         sum(r[k] for r in runs for k in ERRORS)])
            print(*rows[-1], flush=True)
    print(f"\n{topo.label}, {args.waypoints} waypoint(s), {args.engine}, "
          f"{args.sets} random fault set(s) per count, {args.cycles} cycles after "
          f"{args.warmup}, seed {args.seed}")
    print(format_table(["faults", "rate", "offered", "throughput", "avg latency",
                        "worst p99", "unroutable", "bound", "stretch", "max extra hops",
                        "errors"], rows))
    if args.save:
        figures = {"router": router}
        for values in rows:
            figures.setdefault(f"f{values[0]}", {})[f"r{round(values[1] * 100)}"] = dict(
                zip(COLUMNS, values))
        save(args.save, figures, command_line(__file__, sys.argv[1:]))


if __name__ == "__main__":
    main()
