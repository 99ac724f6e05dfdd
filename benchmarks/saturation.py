"""Uniform-traffic saturation of the default sweep router against the channel-load bound.

    python benchmarks/saturation.py [--cycles N] [--warmup N] [--jobs N] [--plot-dir DIR]
                                    [--json FILE] [--only LABEL ...]

For MC(1,3), MC(2,2), DLH(4,3) and DLH(8,4) (issue 7's goal: saturation throughput at
least 70% of the bound) it runs ``cubefab sweep``'s engine (the self-checking fabric
in Verilator, router settings :data:`cubefab.sim.selfcheck_run.DEFAULT_ROUTER`) at offered loads
from 50% to 95% of the bound, and prints the bound, the largest accepted throughput (the saturation
throughput when the curve saturates in the range; "saturates at" says where, or "no"),
its fraction of the bound and the latency at the lowest load. The points run on an
embedded Dask cluster of ``--jobs`` workers. Builds are cached; a first run builds four
nodes (about 20 s each).
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from cubefab.cli import format_table  # noqa: E402
from cubefab.cluster import open_client  # noqa: E402
from cubefab.sim.channel_load import channel_load_bound  # noqa: E402
from cubefab.sim.selfcheck_run import DEFAULT_ROUTER  # noqa: E402
from cubefab.sim.sweep import plot_sweep, sweep  # noqa: E402
from cubefab.topology import DLH, Metacube  # noqa: E402


NETWORKS = [Metacube(1, 3), Metacube(2, 2), DLH(4, 3), DLH(8, 4)]
FRACTIONS = (0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)
GOAL = 0.70


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cycles", type=int, default=5000)
    ap.add_argument("--warmup", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--plot-dir", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--only", nargs="*", default=None, help="labels, e.g. 'DLH(4,3)'")
    ap.add_argument("--fractions", default=",".join(map(str, FRACTIONS)),
                    help="offered loads as fractions of the bound (comma-separated)")
    args = ap.parse_args()
    rows, docs = [], []
    headers = ["network", "nodes", "bound", "max accepted", "of bound", f">= {GOAL:.0%}",
               "saturates at", "latency, lowest load", "no errors", "seconds"]
    with open_client(workers=args.jobs) as client:
        _run(args, client, rows, docs, headers)
    print(f"\nrouter: {DEFAULT_ROUTER}, {args.cycles} cycles after {args.warmup} warm-up, "
          "uniform traffic, 1-flit packets")
    print(format_table(headers, rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(docs, f, indent=1)


def _run(args, client, rows, docs, headers):
    for topo in NETWORKS:
        if args.only and topo.label not in args.only:
            continue
        bound = channel_load_bound(topo, "uniform")["saturation_bound"]
        fractions = [float(f) for f in args.fractions.split(",")]
        rates = [round(f * bound, 4) for f in fractions]
        start = time.monotonic()
        result = sweep(topo, rates, cycles=args.cycles, warmup=args.warmup, client=client,
                       build_progress=lambda stage: print(f"  {topo.label}: build {stage}",
                                                          flush=True))
        seconds = time.monotonic() - start
        docs.append(result)
        if args.plot_dir:
            os.makedirs(args.plot_dir, exist_ok=True)
            plot_sweep([result], os.path.join(args.plot_dir, f"saturation_{topo.name}_"
                       + "_".join(str(v) for v in topo.params.values()) + ".png"))
        first = result["points"][0]
        best = result["max_throughput"]
        rows.append([topo.label, topo.num_nodes, f"{bound:.4f}", f"{best:.4f}",
                     f"{best / bound:.1%}", "yes" if best / bound >= GOAL else "NO",
                     result["saturation_rate"] or "no", f"{first['avg_latency']:.1f}",
                     "yes" if result["ok"] else "NO", f"{seconds:.0f}"])
        print(format_table(headers, rows[-1:]), flush=True)


if __name__ == "__main__":
    main()
