"""cubefab's latency-throughput curve beside BookSim2's on the same network.

Usage: BOOKSIM=/path/to/booksim python benchmarks/booksim_compare.py
       [--topology metacube:k=1,m=2] [--rates 0.05:0.6:0.05] [--engine verilator]

Without BOOKSIM (the path of a built booksim binary) it says so and exits 0. Otherwise it
exports the network (cubefab export booksim), runs BookSim2 once per offered load (BookSim
exits 255 after a normal run; its "Overall Traffic Statistics" are parsed) and the
self-checking fabric at the same loads, and prints both curves: offered load, accepted
throughput and average packet latency, with average hops and the channel-load bound.
Differences to expect: BookSim's input-queued router has a deeper pipeline than cubefab's
2-cycle hop, its `min` routing picks other shortest paths (same hop counts, other channel
loads), its uniform traffic includes self-traffic, and its VCs follow no deadlock-avoidance
discipline, so it can deadlock near saturation ("unstable").
"""

import argparse
import os
import sys
import tempfile

from cubefab.sim.booksim import run_booksim, write_booksim
from cubefab.sim.sweep import parse_rates, sweep
from cubefab.topology.deadlock import required_vcs

from sim_speed import parse_topology  # benchmarks/ is on sys.path when run as a script


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--topology", default="metacube:k=1,m=2")
    ap.add_argument("--rates", default="0.05:0.6:0.05")
    ap.add_argument("--engine", default="verilator", choices=("verilator", "amaranth"))
    ap.add_argument("--cycles", type=int, default=5000)
    ap.add_argument("--depth", type=int, default=4)
    args = ap.parse_args()
    booksim = os.environ.get("BOOKSIM")
    if not booksim:
        print("skipped: set BOOKSIM to the path of a booksim binary (BookSim2) to compare")
        return 0
    if not os.access(booksim, os.X_OK):
        print(f"error: BOOKSIM={booksim} is not an executable file", file=sys.stderr)
        return 2
    topo = parse_topology(args.topology)
    rates = parse_rates(args.rates)
    vcs = required_vcs(topo, topo.algorithms[0])
    ours = sweep(topo, rates, engine=args.engine, cycles=args.cycles, warmup=1000,
                 depth=args.depth)
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_booksim(topo, tmp, num_vcs=vcs, vc_buf_size=args.depth)
        theirs = [run_booksim(booksim, paths["config_file"], injection_rate=r)
                  for r in rates]
    b = ours["bound"]
    print(f"{topo.label} uniform: cubefab {ours['algorithm']} routing ({args.engine}, "
          f"{vcs} VCs x {args.depth} flits) vs BookSim2 anynet min routing "
          f"({vcs} VCs x {args.depth})")
    print(f"channel-load bound {b['saturation_bound']:.4f}; cubefab average hops "
          f"{b['average_hops']:.4f} (BookSim counts routers: hops + 1, self-traffic 0)")
    print(f"{'offered':>8} {'cubefab acc':>12} {'cubefab lat':>12} {'booksim acc':>12} "
          f"{'booksim lat':>12} {'booksim hops':>12}")
    for rate, p, q in zip(rates, ours["points"], theirs):
        def f(v, spec=".4f"):
            return "-" if v is None else format(v, spec)
        status = " unstable" if q["unstable"] else ""
        print(f"{rate:8.3f} {f(p['throughput']):>12} {f(p['avg_latency'], '.2f'):>12} "
              f"{f(q['accepted_flit_rate']):>12} {f(q['avg_latency'], '.2f'):>12} "
              f"{f(q['avg_hops'], '.3f'):>12}{status}")
    stable = [q["accepted_flit_rate"] for q in theirs if not q["unstable"]]
    print(f"saturation: cubefab {ours['saturation_throughput']:.4f} "
          f"({100 * ours['fraction_of_bound']:.1f}% of bound); BookSim max stable accepted "
          f"{max(stable) if stable else float('nan'):.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
