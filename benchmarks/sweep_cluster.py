"""Time of one ``cubefab sweep`` in this process against on an embedded Dask cluster.

    python benchmarks/sweep_cluster.py [--network MC(2,2)] [--rates 0.1:0.8:0.1]
                                       [--cycles N] [--warmup N] [--seeds N] [--jobs N]

Builds the Verilator model first (timed apart: both runs then find it cached), runs the
same sweep with ``client=None`` and on ``open_client(workers=--jobs)`` (cluster start
included), checks that every point is identical apart from host timings, and prints
both times and their ratio.
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from cubefab.cli import format_table  # noqa: E402
from cubefab.cluster import default_workers, open_client  # noqa: E402
from cubefab.sim.sweep import TIMING_KEYS, parse_rates, sweep  # noqa: E402
from cubefab.topology import DLH, Hypercube, Metacube  # noqa: E402


NETWORKS = {t.label: t for t in (Hypercube(4), Metacube(1, 2), Metacube(1, 3),
                                 Metacube(2, 2), DLH(4, 3))}


def _measured(point):
    point = {k: v for k, v in point.items() if k not in TIMING_KEYS}
    if "runs" in point:
        point["runs"] = [_measured(r) for r in point["runs"]]
    return point


def _sums(curve):
    """Wall and CPU seconds of the simulation binaries, summed over the runs."""
    runs = [r for p in curve["points"] for r in p.get("runs", [p])]
    return [f"{sum(r['seconds'] for r in runs):.1f}",
            f"{sum(r['cpu_seconds'] for r in runs):.1f}"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--network", default="MC(2,2)", choices=sorted(NETWORKS))
    ap.add_argument("--rates", default="0.1:0.8:0.1")
    ap.add_argument("--cycles", type=int, default=2000)
    ap.add_argument("--warmup", type=int, default=500)
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=default_workers())
    args = ap.parse_args()
    topo = NETWORKS[args.network]
    options = dict(cycles=args.cycles, warmup=args.warmup, seeds=args.seeds)
    rates = parse_rates(args.rates)
    start = time.monotonic()
    sweep(topo, rates[:1], cycles=1, warmup=0)     # the build, cached for both runs
    build = time.monotonic() - start
    start = time.monotonic()
    here = sweep(topo, rates, **options)
    in_process = time.monotonic() - start
    start = time.monotonic()
    with open_client(workers=args.jobs) as client:
        started = time.monotonic() - start
        spread = sweep(topo, rates, client=client, **options)
    on_cluster = time.monotonic() - start
    same = [_measured(p) for p in here["points"]] == [_measured(p) for p in spread["points"]]
    points = len(rates) * args.seeds
    print(f"{topo.label} ({topo.num_nodes} nodes), {points} points of {args.cycles} cycles "
          f"after {args.warmup} warm-up, verilator; build {build:.1f} s (then cached); "
          f"{os.cpu_count()} CPUs")
    print(format_table(["run", "seconds", "points/s", "simulation s (sum)",
                        "simulation CPU s (sum)"], [
        ["in this process", f"{in_process:.1f}", f"{points / in_process:.2f}",
         *_sums(here)],
        [f"embedded cluster, {args.jobs} workers (start {started:.1f} s)",
         f"{on_cluster:.1f}", f"{points / on_cluster:.2f}", *_sums(spread)]]))
    print(f"speed-up {in_process / on_cluster:.2f}x; results identical: "
          f"{'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
