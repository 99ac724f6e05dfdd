"""cubefab beside BookSim2 on the same networks: latency, saturation and speed.

Usage: BOOKSIM=/path/to/booksim python benchmarks/booksim_compare.py
       [--topology metacube:k=1,m=2 ...] [--loads 0.01,0.3,1.0] [--cycles 4000]
       [--warmup 1000] [--threads 1] [--hop buffered|lookahead] [--save NAME]

BOOKSIM is a BookSim2 binary built with cubefab_table_routing.patch applied (the patch
ships in cubefab/sim/booksim/; apply it in a BookSim2 checkout with `git apply` and
rebuild). Without BOOKSIM the benchmark says so and exits 0.

For each network (default MC(1,2), MC(2,2) and DLH(4,3)) both simulators model one
router: cubefab's default router (that of sim and sweep, printed with each network: the
VC classes deadlock freedom needs, one VC per class, 4-flit buffers per VC), uniform
traffic over the other nodes at the same offered flit rate: BookSim's packets are 1
flit, cubefab's self-checking packets the fewest flits that hold their check fields (2
with 16-bit payloads).
`cubefab export booksim` writes BookSim's side twice: with cubefab's routing and VCs
as a next-hop table (routing_function = cubefab_table, the same routes as cubefab)
and with BookSim's own `min` routing (other shortest paths, any VC), both on the
patch's uniform_other traffic, so the two BookSim columns differ in routing only; the
channel-load bound of BookSim's min routes (reproduced by cubefab.sim.booksim.minroute)
is printed beside cubefab's.

The first load is the zero-load point (BookSim: sim_type = latency; both simulators'
runs lengthened to measure at least 5000 packets there); the others run
BookSim with sim_type = throughput (accepted flit rate; the last, default offered 1.0,
gives the saturation throughput). cubefab runs the self-checking fabric in Verilator
(every check on, build time excluded) for --warmup + --cycles cycles per load.
Speed is simulated cycles per wall-clock second of each run (BookSim: "Time taken"
cycles over "Total run time"; BookSim is single-threaded, so compare with
--threads 1). The machine's load average (1 minute) before and after each network's
runs is printed: on a shared machine both simulators' speeds depend on it.

``--save NAME`` writes the figures to ``benchmarks/results/NAME.json``
(``benchmarks/saved_results.py``): per network (``dlh_4_3``) its nodes, router, the
latency and worst speed ratios, the check errors, the load averages and per load
(``offered_0_01``) both simulators' figures. Those of docs/simulation.md::

    BOOKSIM=... python benchmarks/booksim_compare.py --topology dlh:m=4,d=3 \
        --topology metacube:k=2,m=2 --save booksim_speed
"""

import argparse
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cubefab.sim.booksim import (booksim_router, min_channel_loads, run_booksim,
                                 write_booksim)
from cubefab.sim.channel_load import channel_load_bound
from cubefab.sim.run_spec import SelfCheckRun
from cubefab.sim.selfcheck_run import run_selfcheck
from cubefab.topology.catalog import make_topology
from saved_results import add_save_option, command_line, key_of, save


DEFAULT_TOPOLOGIES = ("metacube:k=1,m=2", "metacube:k=2,m=2", "dlh:m=4,d=3")

#: Packets the zero-load point measures at least (its runs are lengthened to get them).
ZERO_LOAD_PACKETS = 5000


def parse_topology(text):
    family, _, params = text.partition(":")
    kw = {k: int(v) for k, v in (p.split("=") for p in params.split(",") if p)}
    return make_topology(family, **kw)


def zero_load_cycles(topo, rate, cycles):
    """Cycles that give the zero-load point about ZERO_LOAD_PACKETS packets."""
    return max(cycles, math.ceil(ZERO_LOAD_PACKETS / (topo.num_nodes * rate)))


def cubefab_run(topo, router, rate, cycles, args):
    """The self-checking fabric's run of ``router`` at offered ``rate`` (flits per node
    per cycle) for ``cycles`` cycles after the warm-up."""
    return SelfCheckRun.of(topo, engine="verilator", rate=rate, cycles=cycles,
                           warmup=args.warmup, seed=1, threads=args.threads,
                           depth=router["depth"], vcs=router["vcs"],
                           vcs_per_class=router["vcs_per_class"], hop=args.hop)


def cubefab_runs(topo, router, loads, args):
    runs = []
    for i, rate in enumerate(loads):
        cycles = zero_load_cycles(topo, rate, args.cycles) if i == 0 else args.cycles
        runs.append(run_selfcheck(cubefab_run(topo, router, rate, cycles, args)))
    return runs


def booksim_runs(binary, topo, config_file, loads, args):
    runs = []
    for i, rate in enumerate(loads):
        mode = "latency" if i == 0 else "throughput"
        period = (zero_load_cycles(topo, rate, args.sample_period) if i == 0
                  else args.sample_period)
        try:
            runs.append(run_booksim(binary, config_file, timeout=args.timeout,
                                    injection_rate=rate, sim_type=mode,
                                    traffic="uniform_other", sample_period=period,
                                    warmup_periods=1, max_samples=args.max_samples))
        except RuntimeError as exc:
            if "ran longer" not in str(exc):
                raise
            runs.append({"timeout": True})
    return runs


def fmt(value, spec):
    return "-" if value is None else format(value, spec)


def cell(run, key, spec):
    """A BookSim figure, or why it is missing."""
    if run.get("timeout"):
        return "timeout"
    if run[key] is not None:
        return format(run[key], spec)
    return "deadlock" if run["deadlocked"] else "unstable" if run["unstable"] else "-"


def speed(run):
    if run.get("cycles") is not None and run.get("seconds"):
        return run["cycles"] / run["seconds"]
    return None


def load_figures(loads, ours, theirs):
    """Per load (``offered_0_3``) the figures both simulators gave."""
    figures = {}
    for i, rate in enumerate(loads):
        table = theirs["table"][i]
        figures["offered_" + format(rate, "g").replace(".", "_")] = {
            "offered": rate, "cubefab_cycles_per_second": ours[i]["cycles_per_second"],
            "booksim_cycles_per_second": speed(table),
            "speed_ratio": (ours[i]["cycles_per_second"] / speed(table)
                            if speed(table) else None),
            "cubefab_accepted": ours[i]["throughput"],
            "booksim_accepted": table.get("accepted_flit_rate"),
            "cubefab_cycles": ours[i]["simulated_cycles"],
            "cubefab_latency": ours[i]["avg_latency"],
            "booksim_latency": table.get("avg_latency")}
    return figures


def compare(binary, topo, loads, args):
    router = booksim_router(topo)
    load_before = round(os.getloadavg()[0], 2)
    bound = channel_load_bound(topo, "uniform", topo.algorithms[0])
    with tempfile.TemporaryDirectory() as tmp:
        table = write_booksim(topo, os.path.join(tmp, "table"), routing="table")
        shortest = write_booksim(topo, os.path.join(tmp, "min"), routing="min")
        theirs = {"table": booksim_runs(binary, topo, table["config_file"], loads, args),
                  "min": booksim_runs(binary, topo, shortest["config_file"], loads, args)}
    ours = cubefab_runs(topo, router, loads, args)
    load_after = round(os.getloadavg()[0], 2)
    flits = cubefab_run(topo, router, loads[0], args.cycles, args).design.fmt.packet_flits
    print(f"{topo.label}: {topo.num_nodes} nodes, uniform; packets of 1 flit (BookSim) and "
          f"{flits} (cubefab's self-checking packets) at the same offered flit rate; "
          f"router {router['label']}")
    print(f"  cubefab {topo.algorithms[0]} routing: average hops "
          f"{bound['average_hops']:.4f}, channel-load bound {bound['saturation_bound']:.4f}"
          f"; Verilator, every check on, {args.threads} thread(s), "
          f"{args.warmup}+{args.cycles} cycles per load (build "
          f"{ours[0]['build_seconds']:.0f} s, excluded); load average {load_before} "
          f"before, {load_after} after")
    header = f"  {'':30} {'cubefab':>10} {'BookSim table':>14} {'BookSim min':>12}"
    busiest = min_channel_loads(topo).max()
    print(f"  BookSim min routing: busiest channel {busiest / bound['max_channel_load']:.2f}x "
          f"cubefab's ({busiest:.4f} vs {bound['max_channel_load']:.4f}), channel-load "
          f"bound {1 / busiest:.4f}")
    print(header)
    z = loads[0]
    rows = [(f"latency @ {z:g} (cycles)", fmt(ours[0]["avg_latency"], ".2f"),
             *(cell(theirs[k][0], "avg_latency", ".2f") for k in theirs)),
            (f"routers per packet @ {z:g}", fmt(bound["average_hops"] + 1, ".3f"),
             *(cell(theirs[k][0], "avg_hops", ".3f") for k in theirs))]
    for i, rate in enumerate(loads[1:], 1):
        rows.append((f"accepted @ offered {rate:g}", fmt(ours[i]["throughput"], ".4f"),
                     *(cell(theirs[k][i], "accepted_flit_rate", ".4f") for k in theirs)))
    for i, rate in enumerate(loads):
        rows.append((f"cycles/s @ {rate:g}", fmt(ours[i]["cycles_per_second"], ".0f"),
                     *(fmt(speed(theirs[k][i]), ".0f") for k in theirs)))
    for label, a, b, c in rows:
        print(f"  {label:30} {a:>10} {b:>14} {c:>12}")
    errors = sum(r["errors"] for r in ours)
    unstable = [f"{kind}@{rate:g}" for kind, runs in theirs.items()
                for rate, r in zip(loads, runs)
                if r.get("unstable") and not r["deadlocked"]]
    ratio = (ours[0]["avg_latency"] / theirs["table"][0]["avg_latency"]
             if ours[0]["avg_latency"] and theirs["table"][0].get("avg_latency") else None)
    speeds = [(ours[i]["cycles_per_second"], speed(theirs["table"][i]))
              for i in range(len(loads))]
    slowest = min((a / b for a, b in speeds if a and b), default=None)
    print(f"  zero-load latency cubefab / BookSim (same routes): {fmt(ratio, '.3f')}; "
          f"speed cubefab / BookSim table, worst load: {fmt(slowest, '.2f')}x; "
          f"cubefab check errors: {errors}"
          + (f"; BookSim unstable: {', '.join(unstable)}" if unstable else ""))
    print()
    return {"topology": topo.label, "nodes": topo.num_nodes, "latency_ratio": ratio,
            "speed_ratio": slowest, "errors": errors, "router": router["label"],
            "load_average": {"before": load_before, "after": load_after},
            "loads": load_figures(loads, ours, theirs)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--topology", action="append", metavar="FAMILY:k=v,...",
                    help="network (repeat; default MC(1,2), MC(2,2), DLH(4,3))")
    ap.add_argument("--loads", default="0.01,0.3,1.0",
                    help="offered loads; the first is the zero-load point")
    ap.add_argument("--cycles", type=int, default=4000, help="cubefab measured cycles")
    ap.add_argument("--warmup", type=int, default=1000, help="cubefab warm-up cycles")
    ap.add_argument("--sample-period", type=int, default=1000,
                    help="BookSim sample_period (one warm-up period, then samples)")
    ap.add_argument("--max-samples", type=int, default=4, help="BookSim max_samples")
    ap.add_argument("--threads", type=int, default=1, help="cubefab Verilator threads")
    ap.add_argument("--hop", choices=("buffered", "lookahead"), default="buffered",
                    help="cubefab's router pipeline (RouterConfig.hop; default buffered)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per BookSim run")
    add_save_option(ap)
    args = ap.parse_args()
    binary = os.environ.get("BOOKSIM")
    if not binary:
        print("skipped: set BOOKSIM to the path of a BookSim2 binary built with "
              "cubefab_table_routing.patch to compare")
        return 0
    if not os.access(binary, os.X_OK):
        print(f"error: BOOKSIM={binary} is not an executable file", file=sys.stderr)
        return 2
    loads = [float(x) for x in args.loads.split(",")]
    results = [compare(binary, parse_topology(t), loads, args)
               for t in (args.topology or DEFAULT_TOPOLOGIES)]
    print("summary: zero-load latency cubefab/BookSim and speed cubefab/BookSim (worst load)")
    for r in results:
        goal = "" if r["nodes"] < 128 else (
            "  goal >= 1x: met" if r["speed_ratio"] and r["speed_ratio"] >= 1
            else "  goal >= 1x: NOT met")
        print(f"  {r['topology']:10} {r['nodes']:5} nodes  latency {fmt(r['latency_ratio'], '.3f')}"
              f"  speed {fmt(r['speed_ratio'], '.2f')}x{goal}")
    if args.save:
        save(args.save, {key_of(r["topology"]): r for r in results},
             command_line(__file__, sys.argv[1:]))
    return 1 if any(r["errors"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
