"""Simulation speed of the self-checking fabric, every check on: Amaranth vs Verilator.

Usage: python benchmarks/sim_speed.py [--topology metacube:k=1,m=2 ...]
       [--amaranth-cycles N] [--verilator-cycles N] [--opt -O2] [--save NAME]

For each fabric (default MC(1,2), MC(2,2) and DLH(4,3); the default router of
``cubefab sim`` and ``cubefab sweep``; uniform traffic, offered 0.3 flits/node/cycle,
seed 1) it runs the same design in both engines with every check on (hardware
checkers; misrouted, reordered, duplicated and lost packets; the exact latency
histogram), checks that both give identical results over the Amaranth run's length,
and prints cycles per second and router-cycles per second of each (wall clock and per
CPU second) and the ratio (goal, issue 15: Verilator >= 1000x Amaranth), and the
fabric cycles per second of Verilator (goal on networks of 128 nodes or more: at least
BookSim2's 306-345 cycles/s on MC(2,2)).

``--save NAME`` writes the figures to ``benchmarks/results/NAME.json``
(``benchmarks/saved_results.py``): per fabric (``mc_1_2``) the ``amaranth`` and
``verilator`` runs' cycles, seconds and speeds, ``identical``, the ``ratio`` (wall) and
``cpu_ratio``, and the router simulated (``router``). The figures of
docs/simulation.md::

    python benchmarks/sim_speed.py --topology metacube:k=1,m=2 --save sim_speed
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cubefab.sim.run_spec import SelfCheckRun  # noqa: E402
from cubefab.sim.selfcheck_run import run_selfcheck  # noqa: E402
from cubefab.topology.catalog import make_topology  # noqa: E402
from saved_results import add_save_option, command_line, key_of, save  # noqa: E402


TIMING = ("engine", "seconds", "cpu_seconds", "build_seconds", "threads",
          "cycles_per_second", "router_cycles_per_second", "router_cycles_per_cpu_second")

#: Amaranth cycles per fabric by default (the Python simulator runs about 1000
#: router-cycles per second).
AMARANTH_CYCLES = {32: 300, 128: 60, 1024: 8}


def parse_topology(text):
    family, _, params = text.partition(":")
    kw = {k: int(v) for k, v in (p.split("=") for p in params.split(",") if p)}
    return make_topology(family, **kw)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topology", action="append", metavar="FAMILY:K=V,...",
                    help="fabric (repeat; default MC(1,2), MC(2,2), DLH(4,3))")
    ap.add_argument("--amaranth-cycles", type=int, default=None,
                    help="Amaranth cycles (default: by size, about a minute each)")
    ap.add_argument("--verilator-cycles", type=int, default=None,
                    help="Verilator cycles (default: 2,000,000 router-cycles)")
    ap.add_argument("--opt", default="-O2", help="C++ optimisation of the Verilator build")
    add_save_option(ap)
    args = ap.parse_args()
    fabrics = args.topology or ["metacube:k=1,m=2", "metacube:k=2,m=2", "dlh:m=4,d=3"]
    figures = {}
    for text in fabrics:
        topo = parse_topology(text)
        figures[key_of(topo.label)] = compare(topo, args)
    if args.save:
        save(args.save, figures, command_line(__file__, sys.argv[1:]))


#: The figures kept of each engine's run.
KEPT = ("cycles", "seconds", "cpu_seconds", "build_seconds", "threads", "cycles_per_second",
        "router_cycles_per_second", "router_cycles_per_cpu_second", "ok")


def compare(topo, args):
    n = topo.num_nodes
    common = dict(rate=0.3, warmup=0, drain=0, seed=1, opt=args.opt)
    print(f"{topo.label}: {n} routers, uniform 0.3, seed 1, every check on", flush=True)
    cycles = args.amaranth_cycles or AMARANTH_CYCLES.get(n, max(4, 10000 // n))
    spec = SelfCheckRun.of(topo, engine="amaranth", cycles=cycles, **common)
    a = run_selfcheck(spec)
    print(f"  amaranth : {cycles} cycles in {a['seconds']:.1f} s -> "
          f"{a['cycles_per_second']:.2f} cycles/s, "
          f"{a['router_cycles_per_second']:.0f} router-cycles/s "
          f"({a['router_cycles_per_cpu_second']:.0f} per CPU second)", flush=True)
    same = run_selfcheck(SelfCheckRun.of(topo, engine="verilator", cycles=cycles, **common))
    agree = {k: v for k, v in a.items() if k not in TIMING} == \
        {k: v for k, v in same.items() if k not in TIMING}
    print(f"  verilator: build {same['build_seconds']:.1f} s "
          f"({'cached' if same['build_seconds'] < 1 else 'fresh'}); results identical "
          f"to amaranth's over {cycles} cycles: {agree}", flush=True)
    long = args.verilator_cycles or max(1000, 2_000_000 // n)
    v = run_selfcheck(SelfCheckRun.of(topo, engine="verilator", cycles=long, **common))
    print(f"  verilator: {long} cycles in {v['seconds']:.2f} s on {v['threads']} "
          f"thread(s) -> {v['cycles_per_second']:.0f} cycles/s, "
          f"{v['router_cycles_per_second']:.0f} router-cycles/s "
          f"({v['router_cycles_per_cpu_second']:.0f} per CPU second); ok {v['ok']}, "
          f"accepted {v['throughput']:.4f}, misrouted {v['misrouted']}, "
          f"p99 latency {v['p99_latency']}", flush=True)
    ratio = v["router_cycles_per_second"] / a["router_cycles_per_second"]
    cpu_ratio = v["router_cycles_per_cpu_second"] / a["router_cycles_per_cpu_second"]
    print(f"  ratio verilator/amaranth: {ratio:.0f}x wall, {cpu_ratio:.0f}x CPU "
          f"(goal >= 1000x: {'met' if min(ratio, cpu_ratio) >= 1000 else 'NOT met'})")
    if n >= 128:
        per_cpu = v["router_cycles_per_cpu_second"] / n
        print(f"  fabric cycles/s: {v['cycles_per_second']:.0f} wall, {per_cpu:.0f} per CPU "
              f"second (goal: >= BookSim2's 306-345 on MC(2,2))", flush=True)
    return {"routers": n, "identical": agree, "ratio": round(ratio),
            "cpu_ratio": round(cpu_ratio), "router": spec.design.router.as_dict(),
            "amaranth": {k: a[k] for k in KEPT if k in a},
            "verilator": {k: v[k] for k in KEPT if k in v}}


if __name__ == "__main__":
    main()
