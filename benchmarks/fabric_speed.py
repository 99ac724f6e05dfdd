"""The Verilator harnesses leaving quiet nodes alone, against evaluating every node.

    python benchmarks/fabric_speed.py [--topology hypercube:n=6 ...] [--rate 0.001]
        [--cycles 100000] [--traces example,shrtex,multiregion] [--save NAME]

Self-checking fabric: for each network (default Q(6)) ``run_selfcheck`` in the
Verilator engine, every check on, the default router, uniform traffic at ``--rate``
flits per node per cycle (default 0.001: 2-flit packets at 0.0005 packets per node per
cycle, about the injection rate of netrace's PARSEC traces), seed 1, ``--cycles``
cycles, twice: leaving quiet nodes alone (the default) and evaluating every node in
every cycle (``Engine.every``); it checks that both give identical results and prints
both speeds (cycles per wall-clock and per CPU second, the build excluded).

Traces: each netrace test trace (``tests/sim/data/netrace``) on Q(6), closed loop, in
the trace harness (``VerilatorTraceFabric``) both ways, with the same check, the trace's
injection rate (packets per node per trace cycle) and the share of node-cycles the
harness evaluated.

The load average of the machine (1 minute) is printed and kept with each network's
figures: on a shared machine the wall-clock figures depend on it.
``--save NAME`` writes the figures to ``benchmarks/results/NAME.json``
(``benchmarks/saved_results.py``); those of docs/simulation.md::

    python benchmarks/fabric_speed.py --save fabric_speed
"""

import argparse
import os
import resource
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cubefab.hdl.config import FabricConfig  # noqa: E402
from cubefab.sim.netrace import read_trace  # noqa: E402
from cubefab.sim.run_spec import SelfCheckRun  # noqa: E402
from cubefab.sim.selfcheck_run import run_selfcheck  # noqa: E402
from cubefab.sim.trace_plan import TracePlan  # noqa: E402
from cubefab.sim.trace_run import default_limit  # noqa: E402
from cubefab.sim.verilator_trace import VerilatorTraceFabric  # noqa: E402
from cubefab.topology.catalog import make_topology  # noqa: E402
from saved_results import REPO, add_save_option, command_line, key_of, save  # noqa: E402

TRACES = os.path.join(REPO, "tests", "sim", "data", "netrace")

#: Keys of a run's result that measure the machine, not the design.
TIMING = ("seconds", "cpu_seconds", "build_seconds", "threads", "cycles_per_second",
          "router_cycles_per_second", "router_cycles_per_cpu_second")


def parse_topology(text):
    family, _, params = text.partition(":")
    kw = {k: int(v) for k, v in (p.split("=") for p in params.split(",") if p)}
    return make_topology(family, **kw)


def load_average():
    """The machine's load average over the last minute."""
    return round(os.getloadavg()[0], 2)


def fabric(topo, args):
    """The self-checking fabric of ``topo`` both ways: its figures."""
    load = load_average()
    runs, specs = {}, {}
    for way, every in (("quiet", False), ("every", True)):
        specs[way] = SelfCheckRun.of(topo, rate=args.rate, cycles=args.cycles, seed=1,
                                     threads=1, every=every)
        runs[way] = run_selfcheck(specs[way])
    quiet, every = runs["quiet"], runs["every"]
    identical = ({k: v for k, v in quiet.items() if k not in TIMING}
                 == {k: v for k, v in every.items() if k not in TIMING})
    figures = {"label": topo.label, "nodes": topo.num_nodes, "rate": args.rate,
               "packet_flits": quiet["packet_flits"], "cycles": quiet["simulated_cycles"],
               "delivered": quiet["delivered"], "ok": quiet["ok"] and every["ok"],
               "identical": identical, "load_average": load,
               "router": specs["quiet"].design.router.as_dict(),
               "speedup": quiet["cycles_per_second"] / every["cycles_per_second"]}
    for way, run in runs.items():
        figures[way] = {"seconds": run["seconds"], "cpu_seconds": run["cpu_seconds"],
                        "cycles_per_second": run["cycles_per_second"],
                        "cycles_per_cpu_second": run["simulated_cycles"] / run["cpu_seconds"]
                        if run["cpu_seconds"] else None}
    print(f"{topo.label}: {topo.num_nodes} nodes, uniform {args.rate:g} flits/node/cycle "
          f"({args.rate / quiet['packet_flits']:g} packets), {figures['cycles']} cycles, "
          f"every check on, load average {load}: quiet nodes left alone "
          f"{quiet['cycles_per_second']:,.0f} cycles/s, every node "
          f"{every['cycles_per_second']:,.0f} cycles/s ({figures['speedup']:.1f}x); "
          f"identical {identical}, ok {figures['ok']}", flush=True)
    return figures


def _timed(harness, plan, every):
    """``(result, seconds, cpu_seconds)`` of a trace run in ``harness``."""
    start, cpu = time.monotonic(), _children_cpu()
    result = harness.run(plan, limit=default_limit(plan), every=every)
    return result, time.monotonic() - start, _children_cpu() - cpu


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def trace(name, config):
    """The netrace test trace ``name`` on ``config`` both ways: its figures."""
    plan = TracePlan(read_trace(os.path.join(TRACES, f"{name}.tra.bz2")), config.topology,
                     config.router.layout)
    harness = VerilatorTraceFabric(config)
    harness.build()
    load = load_average()
    nodes = config.topology.num_nodes
    figures = {"packets": len(plan.packets), "trace_cycles": plan.trace_cycles,
               "injection_rate": len(plan.packets) / (nodes * plan.trace_cycles),
               "load_average": load}
    results = {}
    for way, every in (("quiet", False), ("every", True)):
        results[way], seconds, cpu = _timed(harness, plan, every)
        figures[way] = {"seconds": seconds, "cpu_seconds": cpu,
                        "cycles_per_second": harness.cycles / seconds,
                        "cycles_per_cpu_second": harness.cycles / cpu if cpu else None,
                        "evaluated": harness.evaluations / (nodes * harness.cycles)}
    figures.update(cycles=harness.cycles, identical=results["quiet"] == results["every"],
                   speedup=figures["quiet"]["cycles_per_second"]
                   / figures["every"]["cycles_per_second"])
    print(f"  trace {name}: {figures['packets']} packets, "
          f"{figures['injection_rate']:.5f} packets/node/cycle, {figures['cycles']} cycles, "
          f"load average {load}: quiet nodes left alone "
          f"{figures['quiet']['cycles_per_second']:,.0f} cycles/s "
          f"({figures['quiet']['evaluated']:.1%} of node-cycles evaluated), every node "
          f"{figures['every']['cycles_per_second']:,.0f} cycles/s "
          f"({figures['speedup']:.1f}x); identical {figures['identical']}", flush=True)
    return figures


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topology", action="append", metavar="FAMILY:K=V,...",
                    help="self-checking fabric (repeat; default Q(6))")
    ap.add_argument("--rate", type=float, default=0.001,
                    help="offered load, flits/node/cycle (default 0.001)")
    ap.add_argument("--cycles", type=int, default=100_000, help="cycles of each run")
    ap.add_argument("--traces", default="example,shrtex,multiregion",
                    help="netrace test traces run on Q(6) (comma-separated; '' for none)")
    add_save_option(ap)
    args = ap.parse_args()
    figures = {}
    for text in args.topology or ["hypercube:n=6"]:
        topo = parse_topology(text)
        run_selfcheck(SelfCheckRun.of(topo, rate=args.rate, cycles=10))   # the build
        figures[key_of(topo.label)] = fabric(topo, args)
    names = [t for t in args.traces.split(",") if t]
    if names:
        config = FabricConfig.for_topology(make_topology("hypercube", n=6))
        figures["traces"] = {name: trace(name, config) for name in names}
    if args.save:
        save(args.save, figures, command_line(__file__, sys.argv[1:]))
    ok = all(f["ok"] and f["identical"] for k, f in figures.items() if k != "traces")
    ok = ok and all(f["identical"] for f in figures.get("traces", {}).values())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
