"""Waypoint routing around faults (cubefab.topology.fault_routing): waypoints needed,
path stretch, refusals and the per-fault-set deadlock proof, over every fault set within
the guarantee (small networks) or random ones (large networks).

    python benchmarks/fault_routing.py                       # exhaustive Q(3) .. DLH(2,1)
    python benchmarks/fault_routing.py --random 100          # + MC(2,2), DLH(4,3), 100 sets
    python benchmarks/fault_routing.py --random 200 --faults 0:4 --networks large
    python benchmarks/fault_routing.py --synth              # WaypointRoute LUT4 (yosys)
    python benchmarks/fault_routing.py --networks small --shared   # why phase VC sets

Each row: fault sets checked, healthy ordered pairs, the most waypoints any pair needed,
pairs refused because the faults cut them off, pairs refused because they need more than
W waypoints (both 0 within the guarantee),
fault sets whose channel dependency graph has a cycle (0: proven), the largest extra
hops and route / shortest ratio against the shortest fault-free path, and the time.
With ``--faults A:B`` the random sets have A..B faults each (beyond the guarantee too).
``--shared`` adds a column: the fault sets whose graph has a cycle when all phases share
one VC set. ``--synth`` instead synthesises (yosys ``synth_ice40``) the constant-address route unit
and :class:`~cubefab.hdl.route.WaypointRoute` with 1 and 2 waypoints around it: LUT4 and
logic depth.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from cubefab.cli import format_table                                     # noqa: E402
from cubefab.topology import DLH, Hypercube, Metacube                    # noqa: E402
from cubefab.topology.fault_routing import (guarantee_bound, random_fault_sets,  # noqa: E402
                                            route_table, sweep_fault_sets)

SMALL = [Hypercube(3), Hypercube(4), Metacube(1, 1), Metacube(1, 2), DLH(2, 1)]
LARGE = [Metacube(2, 2), DLH(4, 3)]


def row(topology, sweep, what, shared):
    d = sweep.as_dict()
    return [topology.label, guarantee_bound(topology), what, d["fault_sets"], d["pairs"],
            d["waypoints_needed"], d["cut_off"], d["unroutable"], d["deadlocks"],
            len(d["problems"])] + ([d["shared_deadlocks"]] if shared else []) + [
            d["max_extra"], d["max_ratio"], d["seconds"]]


def synth_rows():
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
            print(*rows[-1], flush=True)
    print(format_table(["network", "unit (node 0)", "LUT4", "depth"], rows))


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
    args = parser.parse_args()
    if args.synth:
        synth_rows()
        return
    rows = []
    if args.networks in ("all", "small"):
        for topology in SMALL:
            sweep = sweep_fault_sets(topology, max_waypoints=args.waypoints,
                                     shared=args.shared)
            rows.append(row(topology, sweep, "every set", args.shared))
            print(*rows[-1], flush=True)
    if args.random and args.networks not in ("small",):
        for topology in LARGE:
            if args.networks not in ("all", "large", topology.label):
                continue
            start = time.monotonic()
            route_table(topology)
            print(f"{topology.label}: route table in {time.monotonic() - start:.1f} s",
                  flush=True)
            bound = guarantee_bound(topology)
            lo, hi = (bound, bound) if args.faults is None else \
                map(int, args.faults.split(":"))
            for size in range(lo, hi + 1):
                sets = random_fault_sets(topology, args.random, size, args.seed + size)
                sweep = sweep_fault_sets(topology, sets, args.waypoints,
                                         verify=args.verify, shared=args.shared)
                rows.append(row(topology, sweep, f"{args.random} x {size} faults",
                                args.shared))
                print(*rows[-1], flush=True)
    print(format_table(["network", "bound", "fault sets", "sets", "pairs", "waypoints",
                        "cut off", "> W", "deadlocks", "problems"]
                       + (["shared-VC deadlocks"] if args.shared else [])
                       + ["max extra", "max ratio", "seconds"], rows))


if __name__ == "__main__":
    main()
