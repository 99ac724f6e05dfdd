"""Exact diameter and average distance of large metacubes by numpy BFS, beside networkx.

Usage: python benchmarks/properties.py [--big]   (--big adds MC(3,3), 2^27 nodes)

Prints, per network, the BFS wall and CPU time (one source; the networks are vertex-transitive, checked
from extra sources in the tests and by `cubefab info`), peak resident memory so far, the exact
diameter and averages, and, where networkx fits, its time on the same graph and the ratio.
Goals (issue 2): MC(2,3) < 1 s; MC(3,2) < 20 s; MC(3,3) < 15 min and 8 GB on 2 cores.
"""

import argparse
import resource
import time

import numpy as np

from cubefab.topology import Metacube, properties


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def networkx_seconds(topo):
    import networkx as nx
    t0 = time.perf_counter()
    g = nx.Graph()
    g.add_edges_from(topo.edges().tolist())
    lengths = nx.single_source_shortest_path_length(g, 0)
    diameter = max(lengths.values())
    avg = sum(lengths.values()) / (len(lengths) - 1)
    return time.perf_counter() - t0, diameter, avg


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--big", action="store_true", help="also MC(3,3) (2^27 nodes)")
    args = ap.parse_args()
    nets = [(Metacube(2, 2), True, None), (Metacube(2, 3), True, 1.0),
            (Metacube(3, 2), False, 20.0)]
    if args.big:
        nets.append((Metacube(3, 3), False, 900.0))
    print(f"{'network':>8} {'nodes':>11} {'diam':>5} {'avg (s!=t)':>12} {'avg w/ self':>12} "
          f"{'BFS s':>8} {'cpu s':>8} {'goal s':>7} {'peak MiB':>9} {'networkx s':>11} {'ratio':>7}")
    for topo, with_nx, goal in nets:
        t0, c0 = time.perf_counter(), time.process_time()
        p = properties(topo, sources=[0])
        secs, cpu = time.perf_counter() - t0, time.process_time() - c0
        nx_text, ratio = "-", "-"
        if with_nx:
            nx_secs, nx_diam, nx_avg = networkx_seconds(topo)
            assert nx_diam == p["diameter"] and abs(nx_avg - p["average_distance"]) < 1e-9
            nx_text, ratio = f"{nx_secs:.2f}", f"{nx_secs / secs:.0f}x"
        print(f"{topo.label:>8} {p['nodes']:>11} {p['diameter']:>5} "
              f"{p['average_distance']:>12.6f} {p['average_distance_with_self']:>12.6f} "
              f"{secs:>8.2f} {cpu:>8.2f} {goal if goal else '-':>7} {peak_rss_mib():>9.0f} "
              f"{nx_text:>11} {ratio:>7}", flush=True)


if __name__ == "__main__":
    main()
