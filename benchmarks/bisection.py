"""How far the exact bisection (integer program) gets, and how long the bounds take.

Usage: python benchmarks/bisection.py [--time-limit S] [--families F,...] [--only LABEL ...]
                                      [--no-milp] [--no-bounds]

For each family, networks of increasing size go to ``bisection_exact`` with the time
limit (default 60 s) until one does not finish: the table lists each run's status, time,
value (or the proven interval) and the structural bounds beside it. ``--only`` runs the
named networks alone (e.g. ``--only "Q(7)" "MC(1,3)" --time-limit 600``). The bounds part
times ``bisection`` (structural lower bound + explicit cut, no enumeration) at 2^20 nodes,
the numerical spectral bound of Mcube(16) (2^16 nodes) and the edge-by-edge recount of
a cut at 2^20 nodes.
"""

import argparse
import time

from cubefab.topology import DLH, Hypercube, Mcube, Metacube
from cubefab.topology.bisection import (bisection, bisection_exact, bisection_upper_bound,
                                        spectral_lower_bound, _laplacian_lambda2)


#: family -> networks in increasing size
SERIES = {
    "hypercube": [Hypercube(n) for n in range(3, 9)],
    "dualcube": [Metacube(1, m) for m in range(1, 5)],
    "metacube": [Metacube(2, 1), Metacube(2, 2), Metacube(3, 1)],
    "dlh": [DLH(2, 1), DLH(3, 1), DLH(2, 2), DLH(4, 1), DLH(3, 2), DLH(2, 3), DLH(4, 2),
            DLH(5, 2), DLH(3, 3), DLH(6, 2), DLH(2, 4), DLH(4, 3)],
    "mcube": [Mcube(k) for k in range(3, 9)],
}


def _row(net, result):
    b = bisection(net, method="bounds")
    value = (str(result.value) if result.value is not None
             else f"[{result.lower}, {result.upper}]")
    return (f"{net.label:>10} {net.num_nodes:>6} {result.status:>11} {result.seconds:>8.2f} s "
            f"{value:>10}   bounds {b.lower}..{b.upper}")


def milp_frontier(families, time_limit):
    print(f"integer program, time limit {time_limit:g} s per network")
    for family in families:
        for net in SERIES[family]:
            result = bisection_exact(net, time_limit=time_limit)
            print(_row(net, result), flush=True)
            if result.value is None:
                break


def _network(label):
    """The network named by its label: Q(n), MC(k,m), DLH(m,d) or Mcube(k)."""
    name, _, args = label.rstrip(")").partition("(")
    family = {"Q": Hypercube, "MC": Metacube, "DLH": DLH, "Mcube": Mcube}[name]
    return family(*(int(a) for a in args.split(",")))


def only(labels, time_limit):
    for label in labels:
        net = _network(label)
        print(_row(net, bisection_exact(net, time_limit=time_limit)), flush=True)


def _timed(what, call):
    start = time.perf_counter()
    value = call()
    print(f"{what:>58}: {time.perf_counter() - start:9.4f} s  -> {value}", flush=True)


def bounds_timing():
    print("bounds (structure: no node enumerated)")
    for net in (Hypercube(20), Metacube(4, 1), DLH(4, 16), Metacube(1, 9), Metacube(2, 4),
                Metacube(4, 4), Hypercube(62)):
        _timed(f"bisection({net.label}), {net.num_nodes} nodes",
               lambda net=net: (lambda b: f"{b.value} ({b.method}, by {b.exact_by}, "
                                          f"lower: {b.lower_bound.method})")(bisection(net)))
    _timed("spectral bound Mcube(16) (structure, checks 2^20 links)",
           lambda: spectral_lower_bound(Mcube(16)).value)
    _timed("lambda_2 of Mcube(16) by Lanczos (2^16 nodes)",
           lambda: "%.9f" % _laplacian_lambda2(Mcube(16))[0])
    _timed("lambda_2 of MC(2,3) by Lanczos (2^14 nodes)",
           lambda: "%.9f" % _laplacian_lambda2(Metacube(2, 3))[0])
    _timed("cut of Q(20) recounted edge by edge (2^20 nodes)",
           lambda: bisection_upper_bound(Hypercube(20), partition_limit=1 << 20).value)
    _timed("cut of MC(4,1) recounted edge by edge (2^20 nodes)",
           lambda: bisection_upper_bound(Metacube(4, 1), partition_limit=1 << 20).value)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--families", default=",".join(SERIES))
    parser.add_argument("--only", nargs="+", default=None, metavar="LABEL")
    parser.add_argument("--no-milp", action="store_true")
    parser.add_argument("--no-bounds", action="store_true")
    args = parser.parse_args()
    if args.only:
        only(args.only, args.time_limit)
        return
    if not args.no_bounds:
        bounds_timing()
    if not args.no_milp:
        milp_frontier(args.families.split(","), args.time_limit)


if __name__ == "__main__":
    main()
