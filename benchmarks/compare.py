"""How long ``cubefab compare`` takes, and how far the exact bisection gets per family.

Usage: python benchmarks/compare.py [--nodes N ...] [--exact-budget S] [--families F,...]
                                    [--no-compare] [--no-exact]

Part 1 runs ``cubefab compare --nodes N --json`` as a fresh process (interpreter start and
imports included) for each N (default 2^20 = 1048576; goal: under a minute) and prints
its wall time, then each row's own seconds (``compare_row`` in this process, after a
warm-up that builds the shared class-walk tables, timed apart).

Part 2 gives each network of ``benchmarks/bisection.py``'s series to the integer program
(``bisection_exact``) with ``--exact-budget`` seconds (default 60) until one does not
finish, and prints the largest that did, per family. The issue asks for 10 minutes
(``--exact-budget 600``): hours on a 2-core machine; ``--families`` and ``bisection.py
--only`` run parts of it.

``--save NAME`` writes part 1's figures to ``benchmarks/results/NAME.json``
(``benchmarks/saved_results.py``): per node count (``n1048576``) the command's
``wall_seconds``, the class walks' ``class_walk_seconds`` (``k4``), and each row's
``seconds`` (``rows.mcube_16``). The figures of docs/compare.md::

    python benchmarks/compare.py --no-exact --save compare_timing
"""

import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bisection as bisection_benchmark                      # noqa: E402
from saved_results import add_save_option, command_line, key_of, save  # noqa: E402

from cubefab.sim.compare import compare_row, nearest_networks      # noqa: E402
from cubefab.topology.bisection import bisection_exact         # noqa: E402
from cubefab.topology.uniform_load import class_walk_steps    # noqa: E402


def time_compare(nodes):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
        + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "cubefab", "compare", "--nodes",
                             str(nodes), "--json"], capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    status = "ok" if result.returncode == 0 else f"exit {result.returncode}: {result.stderr}"
    print(f"cubefab compare --nodes {nodes}: {seconds:.1f} s wall ({status})", flush=True)
    figures = {"wall_seconds": round(seconds, 1), "ok": result.returncode == 0,
               "class_walk_seconds": {}, "rows": {}}
    for k in (1, 2, 3, 4):
        start = time.perf_counter()
        class_walk_steps(k)
        figures["class_walk_seconds"][f"k{k}"] = round(time.perf_counter() - start, 2)
        print(f"  class walks of MC({k}, m) (once per process): "
              f"{figures['class_walk_seconds'][f'k{k}']:.2f} s", flush=True)
    for series, params in nearest_networks(nodes):
        start = time.perf_counter()
        row = compare_row(series.family, params, series=series.name)
        b = row["bisection"]
        figures["rows"][key_of(row["label"])] = {
            "seconds": round(time.perf_counter() - start, 3), "bisection": b["method"]}
        print(f"  {row['label']:>10} {row['nodes']:>14} nodes: "
              f"{time.perf_counter() - start:7.2f} s  (properties: "
              f"{row['properties_method']}, bisection {b['method']}, load by "
              f"{row['channel_load']['method']})", flush=True)
    return figures


def exact_frontier(families, budget):
    print(f"exact bisection (integer program), {budget:g} s per network")
    for family in families:
        largest = None
        for net in bisection_benchmark.SERIES[family]:
            result = bisection_exact(net, time_limit=budget)
            print(f"  {net.label:>10} {net.num_nodes:>6} nodes: {result.status:>10} "
                  f"{result.seconds:8.2f} s  "
                  + (f"{result.value}" if result.value is not None
                     else f"[{result.lower}, {result.upper}]"), flush=True)
            if result.value is None:
                break
            largest = net
        print(f"{family}: largest exact within {budget:g} s: "
              + (f"{largest.label}, {largest.num_nodes} nodes" if largest else "none"),
              flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[1 << 20])
    parser.add_argument("--exact-budget", type=float, default=60.0)
    parser.add_argument("--families", default=",".join(bisection_benchmark.SERIES))
    parser.add_argument("--no-compare", action="store_true")
    parser.add_argument("--no-exact", action="store_true")
    add_save_option(parser)
    args = parser.parse_args()
    figures = {}
    if not args.no_compare:
        for nodes in args.nodes:
            figures[f"n{nodes}"] = time_compare(nodes)
    if args.save:
        save(args.save, figures, command_line(__file__, sys.argv[1:]))
    if not args.no_exact:
        exact_frontier(args.families.split(","), args.exact_budget)


if __name__ == "__main__":
    main()
