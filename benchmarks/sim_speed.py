"""Simulation speed of the self-checking fabric: Amaranth simulator vs Verilator.

Usage: python benchmarks/sim_speed.py [--topology metacube:k=1,m=2] [--amaranth-cycles N]
       [--verilator-cycles N] [--big | --big-only] [--opt -O1]

Runs the same SelfCheckingFabric (uniform traffic, offered 0.3 flits/node/cycle, seed 1)
in both engines, checks their counters agree over the Amaranth run's length, and prints
router-cycles per second of each and the ratio (goal, issue 7: >= 1000x). --big adds
MC(2,2) (1024 routers) for 100k cycles (then a 3000-cycle drain) in Verilator (goal:
minutes), reporting the build (Verilog generation + C++ compile, cached afterwards)
and run times separately.
"""

import argparse
import time

from cubefab.sim.selfcheck_run import run_selfcheck
from cubefab.topology.catalog import make_topology


SAME = ("created", "injected", "delivered", "errors", "latency_histogram", "window")


def parse_topology(text):
    family, _, params = text.partition(":")
    kw = {k: int(v) for k, v in (p.split("=") for p in params.split(",") if p)}
    return make_topology(family, **kw)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--topology", default="metacube:k=1,m=2")
    ap.add_argument("--amaranth-cycles", type=int, default=300)
    ap.add_argument("--verilator-cycles", type=int, default=200000)
    ap.add_argument("--big", action="store_true", help="also MC(2,2) for 100k cycles")
    ap.add_argument("--big-only", action="store_true", help="only MC(2,2) for 100k cycles")
    ap.add_argument("--opt", default="-O2", help="C++ optimisation of the Verilator build")
    args = ap.parse_args()
    topo = parse_topology(args.topology)
    common = dict(rate=0.3, warmup=0, drain=0, seed=1)
    if not args.big_only:
        compare(topo, args, common)
    if args.big or args.big_only:
        big_run(args, common)


def compare(topo, args, common):
    # Both Verilator runs below use one build: the cache key reads cubefab/hdl now.
    print(f"{topo.label}: {topo.num_nodes} routers, uniform 0.3, seed 1")

    t = time.perf_counter()
    a = run_selfcheck(topo, engine="amaranth", cycles=args.amaranth_cycles, **common)
    print(f"  amaranth : {args.amaranth_cycles} cycles in {a['seconds']:.2f} s "
          f"(+{time.perf_counter() - t - a['seconds']:.1f} s elaboration) -> "
          f"{a['router_cycles_per_second']:.0f} router-cycles/s "
          f"({a['router_cycles_per_cpu_second']:.0f} per CPU second)")

    t = time.perf_counter()
    same = run_selfcheck(topo, engine="verilator", cycles=args.amaranth_cycles,
                         opt=args.opt, **common)
    agree = all(a[k] == same[k] for k in SAME)
    print(f"  verilator: build {same['build_seconds']:.1f} s "
          f"({'cached' if same['build_seconds'] < 1 else 'fresh'}); counters equal to "
          f"amaranth's over {args.amaranth_cycles} cycles: {agree}")
    v = run_selfcheck(topo, engine="verilator", cycles=args.verilator_cycles, opt=args.opt,
                      **common)
    print(f"  verilator: {args.verilator_cycles} cycles in {v['seconds']:.2f} s -> "
          f"{v['router_cycles_per_second']:.0f} router-cycles/s "
          f"({v['router_cycles_per_cpu_second']:.0f} per CPU second; errors {v['errors']}, "
          f"accepted {v['throughput']:.4f})")
    ratio = v["router_cycles_per_second"] / a["router_cycles_per_second"]
    cpu_ratio = v["router_cycles_per_cpu_second"] / a["router_cycles_per_cpu_second"]
    print(f"  ratio verilator/amaranth: {ratio:.0f}x wall, {cpu_ratio:.0f}x CPU "
          f"(goal >= 1000x: {'met' if min(ratio, cpu_ratio) >= 1000 else 'NOT met'})")


def big_run(args, common):
    big = make_topology("metacube", k=2, m=2)
    t = time.perf_counter()
    # 100k measured cycles, then a drain: every packet created must arrive
    r = run_selfcheck(big, engine="verilator", cycles=100000, opt=args.opt,
                      build_progress=lambda s: print(f"  MC(2,2) build: {s} at "
                                                     f"{time.perf_counter() - t:.0f} s",
                                                     flush=True),
                      **{**common, "drain": 3000})
    total = time.perf_counter() - t
    print(f"  MC(2,2): build {r['build_seconds']:.1f} s, 100000 cycles + 3000 drain in "
          f"{r['seconds']:.1f} s on {r['threads']} thread(s) -> "
          f"{r['router_cycles_per_second']:.0f} router-cycles/s "
          f"({r['router_cycles_per_cpu_second']:.0f} per CPU second); "
          f"errors {r['errors']}, delivered {r['delivered']} of {r['created']} created, "
          f"accepted {r['throughput']:.4f}, avg latency {r['avg_latency']:.2f}")
    print(f"  MC(2,2) in all (build + run): {total / 60:.1f} min")


if __name__ == "__main__":
    main()
