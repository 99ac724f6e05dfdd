"""Mcube figures beside mcube.txt: Mroute route lengths vs Theorem 1's F_k and section
5.2's AD(k), BFS distances, and the route unit's iCE40 cost beside the hypercube's.

Usage: python benchmarks/mcube.py [--kmax 10] [--construction hem|algorithmic]
                                  [--no-synth] [--synth-k 4 6 8 10]

Table 1, per k: the number of nodes at each Mroute distance (the same from every node,
checked), F_k(i) from the paper's recurrence, the BFS distance distribution (mean over all
sources: from k = 6 on it differs between nodes), the diameters, the averages including
the node itself (Mroute exact vs AD(k), BFS), the share of ordered pairs Mroute routes on
a shortest path, and the seconds taken. Table 2: LUT4 count and depth (yosys synth_ice40)
of the constant-address route unit of two nodes, McubeRoute mroute (tables + e-cube
default) and ecube, beside the hypercube e-cube unit of the same width.

``--save NAME`` writes Table 1 to ``benchmarks/results/NAME.json``
(``benchmarks/saved_results.py``), per k (``k6``): the distributions as comma-separated
counts (``mroute``, ``paper``, ``bfs``), the diameters, the averages and the percentage
of shortest pairs. The figures of docs/mcube.md::

    python benchmarks/mcube.py --no-synth --save mcube_routes
"""

import argparse
import os
import sys
import time
from fractions import Fraction

from cubefab.topology import Hypercube, Mcube
from cubefab.topology.mcube_analysis import distance_report

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from saved_results import add_save_option, command_line, save  # noqa: E402


def distance_table(kmax, construction, figures):
    print(f"Mroute route lengths vs mcube.txt (construction {construction})")
    print(f"{'k':>2} {'Mroute count per distance':<34} {'paper F_k':<34} {'F ok':>4} "
          f"{'BFS mean count per distance':<40} {'diam M/p/BFS':>12} {'avg M':>8} "
          f"{'AD(k)':>8} {'avg BFS':>8} {'shortest':>8} {'s':>6}")
    for k in range(3, kmax + 1):
        t0 = time.perf_counter()
        r = distance_report(Mcube(k, construction))
        secs = time.perf_counter() - t0
        bfs = " ".join(f"{float(Fraction(str(c))):.4g}" for c in r["bfs_distribution"])
        ok = "yes" if r["mroute_distribution"] == r["paper_distribution"] else "NO"
        figures[f"k{k}"] = {
            "mroute": ",".join(map(str, r["mroute_distribution"])),
            "paper": ",".join(map(str, r["paper_distribution"])),
            "bfs": ",".join(f"{float(Fraction(str(c))):.4g}" for c in r["bfs_distribution"]),
            "mroute_diameter": r["mroute_diameter"], "paper_diameter": r["paper_diameter"],
            "bfs_diameter": r["bfs_diameter"],
            "mroute_average": round(float(r["mroute_average_with_self"]), 4),
            "paper_ad": round(float(r["paper_ad"]), 4),
            "bfs_average": round(float(r["bfs_average_with_self"]), 4),
            "shortest_pct": round(100 * r["mroute_shortest_pairs"] / r["pairs"], 2)}
        print(f"{k:>2} {' '.join(map(str, r['mroute_distribution'])):<34} "
              f"{' '.join(map(str, r['paper_distribution'])):<34} {ok:>4} {bfs:<40} "
              f"{r['mroute_diameter']:>4}/{r['paper_diameter']}/{r['bfs_diameter']:<4} "
              f"{r['mroute_average_with_self']:>8.5f} {r['paper_ad']:>8.5f} "
              f"{r['bfs_average_with_self']:>8.5f} "
              f"{100 * r['mroute_shortest_pairs'] / r['pairs']:>7.2f}% {secs:>6.2f}")


def synth_table(ks):
    from cubefab.build.synth import route_unit_cost
    from cubefab.hdl.route import route_unit
    print()
    print("Route unit cost on iCE40 (LUT4 / depth), constant node address")
    print(f"{'k':>2} {'node':>5} {'Mcube mroute':>13} {'Mcube ecube':>12} {'hypercube':>10} "
          f"{'table entries':>13} {'ratio mroute/hypercube':>23}")
    for k in ks:
        mcube = Mcube(k)
        for node in (0, (1 << k) // 3):
            t0 = time.perf_counter()
            m = route_unit_cost(route_unit(mcube, node))
            e = route_unit_cost(route_unit(mcube, node, "ecube"))
            h = route_unit_cost(route_unit(Hypercube(k), node))
            rt1, rt2 = mcube.tables(node)
            print(f"{k:>2} {node:>5} {m.lut4:>8}/{m.depth:<4} {e.lut4:>7}/{e.depth:<4} "
                  f"{h.lut4:>5}/{h.depth:<4} {len(rt1) + len(rt2):>13} "
                  f"{m.lut4 / h.lut4:>22.2f}x  ({time.perf_counter() - t0:.0f} s)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kmax", type=int, default=10)
    ap.add_argument("--construction", default="hem", choices=["hem", "algorithmic"])
    ap.add_argument("--no-synth", action="store_true")
    ap.add_argument("--synth-k", type=int, nargs="*", default=[4, 6, 8, 10])
    add_save_option(ap)
    args = ap.parse_args()
    figures = {}
    distance_table(args.kmax, args.construction, figures)
    if args.save:
        save(args.save, figures, command_line(__file__, sys.argv[1:]))
    if not args.no_synth:
        synth_table(args.synth_k)


if __name__ == "__main__":
    main()
