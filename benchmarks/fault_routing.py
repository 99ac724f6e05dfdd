"""Waypoint routing around faults (cubefab.topology.fault_routing): waypoints needed,
path stretch, refusals and the per-fault-set deadlock proof, over every fault set within
the guarantee (small networks) or random ones (large networks).

    python benchmarks/fault_routing.py                       # exhaustive Q(3) .. DLH(2,1)
    python benchmarks/fault_routing.py --random 100          # + MC(2,2), DLH(4,3), 100 sets
    python benchmarks/fault_routing.py --random 200 --faults 0:4 --networks large
    python benchmarks/fault_routing.py --synth              # WaypointRoute LUT4 (yosys)
    python benchmarks/fault_routing.py --networks small --shared   # why phase VC sets
    python benchmarks/fault_routing.py --networks "DLH(4,3)" --random 50 --faults 6,25,100

The figures docs/faults.md states, each saved by one command (``--save NAME``:
``benchmarks/results/NAME.json``, see ``benchmarks/saved_results.py``)::

    python benchmarks/fault_routing.py --networks small --shared --save fault_routing_small
    python benchmarks/fault_routing.py --networks large --random 20 --save fault_routing_large
    python benchmarks/fault_routing.py --networks "DLH(4,3)" --random 50 \
        --faults 6,12,25,50,100 --save fault_routing_beyond
    python benchmarks/fault_routing.py --synth --save fault_routing_units
    python benchmarks/fault_routing.py --bounds --save fault_routing_bounds

``--bounds`` instead computes the channel-load bound of uniform traffic under a few
fault sets (W = 1, :func:`~cubefab.sim.channel_load.waypoint_channel_load_bound`),
saved by network and fault set (``q_4.node5.rate_bound``).

Each row: fault sets checked, healthy ordered pairs, the most waypoints any pair needed,
pairs refused because the faults cut them off, pairs refused because they need more than
W waypoints (both 0 within the guarantee),
fault sets whose channel dependency graph has a cycle (0: proven), the largest extra
hops and route / shortest ratio against the shortest fault-free path, and the time.
With ``--faults A:B`` (or a list, ``A,B,C``) the random sets have A..B faults each
(beyond the guarantee too). Saved figures: per network (``q_4``) and, for random sets,
fault count (``dlh_4_3.f25``) the row's values by name.
``--shared`` adds a column: the fault sets whose graph has a cycle when all phases share
one VC set. ``--synth`` instead synthesises (yosys ``synth_ice40``) the constant-address route unit
and :class:`~cubefab.hdl.route.WaypointRoute` with 1 and 2 waypoints around it: LUT4 and
logic depth.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cubefab.cli import format_table                                     # noqa: E402
from cubefab.topology import DLH, Hypercube, Metacube                    # noqa: E402
from cubefab.topology.fault_routing import (guarantee_bound, random_fault_sets,  # noqa: E402
                                            route_table, sweep_fault_sets)
from saved_results import add_save_option, command_line, key_of, save   # noqa: E402

SMALL = [Hypercube(3), Hypercube(4), Metacube(1, 1), Metacube(1, 2), DLH(2, 1)]
LARGE = [Metacube(2, 2), DLH(4, 3)]


#: The figures kept of a sweep (:meth:`FaultSweep.as_dict`).
SAVED = ("fault_sets", "pairs", "waypoints_needed", "cut_off", "unroutable", "deadlocks",
         "shared_deadlocks", "max_extra", "max_ratio", "seconds")


def saved_row(topology, sweep):
    """The saved figures of one sweep: the guarantee, the sweep's :data:`SAVED` and the
    count of problems found."""
    d = sweep.as_dict()
    return {"bound": guarantee_bound(topology), "problems": len(d["problems"]),
            **{key: d[key] for key in SAVED if d.get(key) is not None}}


def row(topology, sweep, what, shared):
    d = sweep.as_dict()
    return [topology.label, guarantee_bound(topology), what, d["fault_sets"], d["pairs"],
            d["waypoints_needed"], d["cut_off"], d["unroutable"], d["deadlocks"],
            len(d["problems"])] + ([d["shared_deadlocks"]] if shared else []) + [
            d["max_extra"], d["max_ratio"], d["seconds"]]


def synth_rows(figures):
    from cubefab.build.synth import synthesize_logic
    from cubefab.build.verilog import verilog_text
    from cubefab.hdl.route import WaypointRoute, route_unit
    rows = []
    for topology in [Metacube(1, 2), DLH(4, 3), Metacube(2, 2), Hypercube(6)]:
        units = [("route unit", route_unit(topology, 0))] + [
            (f"waypoints W={w}", WaypointRoute(topology, w, 0)) for w in (1, 2)]
        for name, unit in units:
            cost = synthesize_logic(verilog_text(unit, "top", omit=("request",)))
            rows.append([topology.label, name, cost.lut4, cost.depth])
            figures.setdefault(key_of(topology.label), {})[
                "route_unit" if name == "route unit" else f"w{name[-1]}"] = {
                "lut4": cost.lut4, "depth": cost.depth}
            print(*rows[-1], flush=True)
    print(format_table(["network", "unit (node 0)", "LUT4", "depth"], rows))


#: (network, fault set name, faulty nodes, faulty links) of ``--bounds``.
BOUND_CASES = [(Hypercube(4), "none", (), ()), (Hypercube(4), "node5", (5,), ()),
               (Hypercube(4), "nodes5_6_link0_8", (5, 6), ((0, 8),)),
               (Metacube(2, 2), "none", (), ()),
               (Metacube(2, 2), "nodes3_700_link0_1", (3, 700), ((0, 1),)),
               (DLH(4, 3), "node0", (0,), ())]


def bound_rows(figures):
    from cubefab.sim.channel_load import waypoint_channel_load_bound
    from cubefab.topology.fault_routing import FaultSet, plan_waypoints
    rows = []
    for topology, name, nodes, links in BOUND_CASES:
        routing = plan_waypoints(topology, FaultSet(topology, nodes, links), 1)
        bound = waypoint_channel_load_bound(routing, "uniform")
        kept = {key: round(bound[key], 4) for key in
                ("max_channel_load", "rate_bound", "routable_share", "saturation_bound")}
        figures.setdefault(key_of(topology.label), {})[name] = kept
        rows.append([topology.label, name, *kept.values()])
    print(format_table(["network", "faults", "max channel load", "rate bound",
                        "routable share", "bound"], rows))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--random", type=int, default=0, metavar="N",
                        help="also N random fault sets per large network")
    parser.add_argument("--faults", default=None, metavar="A:B",
                        help="random fault counts (default: the guarantee)")
    parser.add_argument("--networks", choices=["all", "small", "large", "MC(2,2)",
                                               "DLH(4,3)"], default="all")
    parser.add_argument("--waypoints", type=int, default=2)
    parser.add_argument("--verify", type=int, default=4, metavar="S",
                        help="sources walked hop by hop per random fault set")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--shared", action="store_true",
                        help="also count deadlocks with one VC set for every phase")
    parser.add_argument("--synth", action="store_true",
                        help="synthesise the waypoint unit instead")
    parser.add_argument("--bounds", action="store_true",
                        help="the channel-load bounds under a few fault sets instead")
    add_save_option(parser)
    args = parser.parse_args()
    figures = {}
    if args.synth:
        synth_rows(figures)
    elif args.bounds:
        bound_rows(figures)
    else:
        _sweeps(args, figures)
    if args.save:
        save(args.save, figures, command_line(__file__, sys.argv[1:]))


def _fault_counts(text, bound):
    """The fault counts of ``--faults``: ``A:B``, ``A,B,...`` or None (the bound)."""
    if text is None:
        return [bound]
    if ":" in text:
        lo, hi = map(int, text.split(":"))
        return list(range(lo, hi + 1))
    return [int(count) for count in text.split(",")]


def _sweeps(args, figures):
    rows = []
    if args.networks in ("all", "small"):
        for topology in SMALL:
            sweep = sweep_fault_sets(topology, max_waypoints=args.waypoints,
                                     shared=args.shared)
            rows.append(row(topology, sweep, "every set", args.shared))
            figures[key_of(topology.label)] = saved_row(topology, sweep)
            print(*rows[-1], flush=True)
    if args.random and args.networks not in ("small",):
        for topology in LARGE:
            if args.networks not in ("all", "large", topology.label):
                continue
            start = time.monotonic()
            route_table(topology)
            print(f"{topology.label}: route table in {time.monotonic() - start:.1f} s",
                  flush=True)
            for size in _fault_counts(args.faults, guarantee_bound(topology)):
                sets = random_fault_sets(topology, args.random, size, args.seed + size)
                sweep = sweep_fault_sets(topology, sets, args.waypoints,
                                         verify=args.verify, shared=args.shared)
                rows.append(row(topology, sweep, f"{args.random} x {size} faults",
                                args.shared))
                figures.setdefault(key_of(topology.label), {})[f"f{size}"] = \
                    saved_row(topology, sweep)
                print(*rows[-1], flush=True)
    print(format_table(["network", "bound", "fault sets", "sets", "pairs", "waypoints",
                        "cut off", "> W", "deadlocks", "problems"]
                       + (["shared-VC deadlocks"] if args.shared else [])
                       + ["max extra", "max ratio", "seconds"], rows))


if __name__ == "__main__":
    main()
