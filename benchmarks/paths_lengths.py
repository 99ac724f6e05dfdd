"""Measured longest disjoint path against Theorem 2's bound, per metacube, and the
share of pairs where Algorithm 4 as written needed no repair; then DLH paths and a
broadcast table (paper schedule steps beside the paper's count and the lower bounds).

    python benchmarks/paths_lengths.py            # exhaustive up to MC(3,1), samples above
    python benchmarks/paths_lengths.py --samples 0 --networks 2,3   # MC(2,3) exhaustively

For every source ``(c, 0, ..., 0)`` (one per class; vertex transitivity covers the
rest) and every target (or ``--samples`` random targets per class), it builds the
``k + m`` paths with :func:`cubefab.topology.paths.disjoint_paths`, checks them and
prints: the longest path seen, Theorem 2's bound ``H(s,t) + 2^k + m + 5`` at its
largest (``H = n``), the worst ``longest - bound`` over the pairs (<= 0 means the bound
holds everywhere), the pairs where Algorithm 4 alone was valid, and the time.
"""

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "topology"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from cubefab.cli import format_table                      # noqa: E402
from cubefab.topology import DLH, Metacube                # noqa: E402
from cubefab.topology import Hypercube                    # noqa: E402
from cubefab.topology.broadcast import (broadcast_schedule, lower_bounds,  # noqa: E402
                                        validate_schedule)
from cubefab.topology.paths import check_disjoint_paths, disjoint_paths  # noqa: E402
from paths_helpers import verify_metacube  # noqa: E402


EXHAUSTIVE = [(1, 1), (1, 2), (1, 3), (1, 4), (2, 1), (2, 2), (3, 1)]
SAMPLED = [(2, 3), (3, 2)]


def metacube_row(k, m, samples, seed):
    mc = Metacube(k, m)
    start = time.monotonic()
    if samples:
        rng = random.Random(seed)
        targets = rng.sample(range(mc.num_nodes), min(samples, mc.num_nodes))
        result = verify_metacube(mc, targets=targets)
    else:
        result = verify_metacube(mc)
    seconds = time.monotonic() - start
    n = mc.address_bits
    return [mc.label, result["pairs"], "all" if not samples else f"{samples}/class",
            result["longest"], n + mc.h + m + 5, result["worst_slack"],
            f"{100 * result['paper_valid'] / result['pairs']:.1f}%",
            len(result["failures"]), f"{seconds:.1f}"]


def dlh_row(m, d):
    dlh = DLH(m, d)
    nodes = [int(a) for a in dlh.nodes()]
    s = nodes[0]
    longest = extra = bad = 0
    start = time.monotonic()
    for t in nodes[1:]:
        paths = disjoint_paths(dlh, s, t)
        bad += bool(check_disjoint_paths(dlh, s, t, paths)) or len(paths) != d + 3
        lengths = [len(p) - 1 for p in paths]
        longest = max(longest, max(lengths))
        extra = max(extra, max(lengths) - dlh.distance(s, t))
    return [dlh.label, len(nodes) - 1, longest, extra, bad,
            f"{time.monotonic() - start:.1f}"]


BROADCAST = [Hypercube(6), Metacube(1, 2), Metacube(1, 3), Metacube(2, 1), Metacube(2, 2),
             Metacube(3, 1), Metacube(2, 3), DLH(2, 3), DLH(4, 3), DLH(6, 4)]


def broadcast_rows():
    """Paper schedule and all-port flood from source 0: steps, paper count, bounds."""
    rows = []
    for topology in BROADCAST:
        one = broadcast_schedule(topology, 0, "one-port")
        flood = broadcast_schedule(topology, 0, "all-port")
        ok = (validate_schedule(topology, 0, one.steps, "one-port").ok
              and validate_schedule(topology, 0, flood.steps, "all-port").ok)
        bounds = lower_bounds(topology, 0, "one-port")
        rows.append([topology.label, one.algorithm, one.num_steps, one.paper_steps,
                     bounds["log2_nodes"], bounds["eccentricity"], flood.num_steps,
                     "yes" if ok else "NO"])
    return format_table(["network", "one-port schedule", "steps", "paper", "ceil(log2 N)",
                         "eccentricity", "all-port flood", "valid"], rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=2000,
                        help="random targets per class for the larger networks "
                             "(0: every target)")
    parser.add_argument("--networks", default=None,
                        help="only MC(k,m) for these 'k,m' pairs, ';'-separated")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.networks:
        chosen = [tuple(int(x) for x in part.split(",")) for part in args.networks.split(";")]
        plan = [(k, m, args.samples if (k, m) in SAMPLED else 0) for k, m in chosen]
    else:
        plan = [(k, m, 0) for k, m in EXHAUSTIVE] + [(k, m, args.samples) for k, m in SAMPLED]
    rows = []
    for k, m, samples in plan:
        rows.append(metacube_row(k, m, samples, args.seed))
        print(f"  {rows[-1][0]} done in {rows[-1][-1]} s", file=sys.stderr, flush=True)
    print(format_table(["network", "pairs", "targets", "longest", "bound max",
                        "max(longest-bound)", "Alg.4 alone ok", "failures", "seconds"],
                       rows))
    if not args.networks:
        print()
        print(format_table(["network", "pairs", "longest", "max(longest-distance)",
                            "failures", "seconds"],
                           [dlh_row(m, d) for m, d in [(2, 1), (2, 2), (2, 3), (4, 3)]]))
        print()
        print(broadcast_rows())


if __name__ == "__main__":
    main()
