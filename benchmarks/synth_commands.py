"""The ``cubefab synth`` runs whose figures the guides quote, in named suites.

    python benchmarks/synth_commands.py SUITE [--only RUN ...] [--save NAME]
                                              [--workdir DIR]

Each run is one command line of ``cubefab synth ... --json`` (the guides name the
command beside each table), run as a fresh process; the figures kept of each are its
report's ``lut4``, ``ff``, ``carry``, ``ram`` (block RAMs), ``logic_cells``,
``fmax_mhz``, the flit and payload widths, the buffer storage and the critical path's
logic levels and logic/routing nanoseconds. ``--save NAME`` writes them to
``benchmarks/results/NAME.json`` (see ``benchmarks/saved_results.py``) with each run's
command under ``commands``. Suites:

- ``devices``: the Q(2) router of node 0, default options, on one device of each
  family (docs/router.md, "Devices");
- ``ice40``: the 5-port goal router (Q(4) node 0, 16-bit flits) with each header,
  buffer and hop, its buffer depths, and the demo's router (MC(1,2) node 0, 16-bit
  payload), on the iCE40 HX8K (docs/measurements.md);
- ``ecp5``: the goal router's buffer depths with each storage on the LFE5U-85F, the
  measurement behind the ECP5 ``auto_memory_depth`` and ``auto_distributed_depth``
  (docs/measurements.md);
- ``gowin``: the goal router's buffer depths on the GW1NR-9 (docs/measurements.md);
- ``routings``: the goal router (16-bit payload) deterministic, adaptive and
  fault-tolerant, each with both hops, on the HX8K (docs/measurements.md);
- ``fabrics``: the Q(2) and Q(3) fabrics (16-bit payload) with each buffer storage on
  the HX8K (Q(3) synthesis only: it does not fit) (docs/measurements.md);
- ``families``: the default router (16-bit payload) of node 0 of Q(5), MC(1,2),
  DLH(2,2) and Mcube(5) on the HX8K (docs/compare.md);
- ``broadcast``: the goal router unicast, all-port and one-port replicating, on the
  HX8K (docs/measurements.md);
- ``waypoints``: the default Q(4) router (16-bit payload) fault-free with as many VCs
  (2) and every turn as the router with one waypoint has, on the HX8K (docs/faults.md,
  beside ``routings``' deterministic and waypoint routers).
"""

import argparse
import json
import os
import shlex
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from saved_results import (add_suite_arguments, chosen_runs, command_line,  # noqa: E402
                           run_cubefab_json, save)


GOAL = "router hypercube -n 4 --node 0 --flit-width 16"
DEMO = "router metacube -k 1 -m 2 --node 0 --payload-width 16"
Q4 = "router hypercube -n 4 --node 0"


def _depths(device, depths, storages=("registers", "memory")):
    return {f"depth{d}_{b}": f"{GOAL} --depth {d} --buffer {b} --device {device}"
            for d in depths for b in storages}


#: Every buffer storage (the ECP5 and Gowin parts have LUT RAM, ``distributed``).
STORAGES = ("registers", "memory", "distributed")


#: suite -> {run name: arguments of ``cubefab synth`` (seed 1 unless they say)}
SUITES = {
    "devices": {device.replace("-", "_"): f"router hypercube -n 2 --node 0 --device {device}"
                for device in ("hx8k", "lfe5u-85f", "gw1nr-9", "gw2a-18")},
    "ice40": {
        "goal": f"{GOAL}",
        "goal_every": f"{GOAL} --header every",
        "goal_registers": f"{GOAL} --buffer registers",
        "goal_every_registers": f"{GOAL} --header every --buffer registers",
        "goal_lookahead": f"{GOAL} --hop lookahead",
        "goal_every_lookahead": f"{GOAL} --header every --hop lookahead",
        "goal_registers_lookahead": f"{GOAL} --buffer registers --hop lookahead",
        **_depths("hx8k", (1, 2, 3, 8)),
        "demo": f"{DEMO}",
        "demo_registers": f"{DEMO} --buffer registers",
        "demo_every": f"{DEMO} --header every",
    },
    "ecp5": {
        **_depths("lfe5u-85f", (2, 3, 4, 8, 16), STORAGES),
        **_depths("lfe5u-85f", (32, 64), ("memory", "distributed")),
        "demo": f"{DEMO} --device lfe5u-85f",
    },
    "gowin": _depths("gw1nr-9", (4, 8)),
    "routings": {
        "deterministic_buffered": f"{Q4}",
        "deterministic_lookahead": f"{Q4} --hop lookahead",
        "adaptive_buffered": f"{Q4} --adaptive",
        "adaptive_lookahead": f"{Q4} --adaptive --hop lookahead",
        "waypoint_buffered": f"{Q4} --waypoints 1",
        "waypoint_lookahead": f"{Q4} --waypoints 1 --hop lookahead",
    },
    "fabrics": {
        "q2_registers": "fabric hypercube -n 2 --payload-width 16 --buffer registers",
        "q2_memory": "fabric hypercube -n 2 --payload-width 16 --buffer memory",
        "q3_registers": "fabric hypercube -n 3 --payload-width 16 --buffer registers --no-pnr",
        "q3_memory": "fabric hypercube -n 3 --payload-width 16 --buffer memory --no-pnr",
    },
    "families": {
        "q5": "router hypercube -n 5 --node 0",
        "mc1_2": "router metacube -k 1 -m 2 --node 0",
        "dlh2_2": "router dlh -m 2 -d 2 --node 0",
        "mcube5": "router mcube -k 5 --node 0",
    },
    "broadcast": {
        "unicast": f"{GOAL}",
        "all_port": f"{GOAL} --broadcast-vcs 1",
        "one_port": f"{GOAL} --broadcast-vcs 1 --broadcast-model one-port",
    },
    "waypoints": {"all_turns_2vcs": f"{Q4} --turns all --vcs 2"},
}

#: The report keys kept as figures.
KEYS = ("lut4", "ff", "carry", "ram", "dram", "logic_cells", "fmax_mhz", "flit_width",
        "payload_width", "buffer", "depth", "device")


def figures_of(report):
    kept = {key: report[key] for key in KEYS if key in report}
    path = report.get("critical_path") or {}
    for key in ("logic_levels", "logic_ns", "routing_ns", "total_ns"):
        if key in path:
            kept[key] = path[key]
    return kept


def run(name, arguments, workdir):
    start = time.monotonic()
    kept = figures_of(run_cubefab_json(["synth", *shlex.split(arguments), "--workdir",
                                        os.path.join(workdir, name), "--json", "--force"]))
    print(f"  {name}: {kept.get('lut4')} LUT4, {kept.get('ff')} FF, {kept.get('ram')} RAM, "
          f"{kept.get('fmax_mhz')} MHz ({time.monotonic() - start:.0f} s)", file=sys.stderr,
          flush=True)
    return kept


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_suite_arguments(parser, SUITES)
    parser.add_argument("--workdir", default="build/bench_synth", metavar="DIR")
    args = parser.parse_args(argv)
    runs = chosen_runs(parser, args, SUITES)
    figures = {}
    for name, arguments in runs.items():
        figures[name] = run(name, arguments, os.path.join(args.workdir, args.suite))
    print(json.dumps(figures, indent=1))
    if args.save:
        save(args.save, figures, command_line(__file__, sys.argv[1:] if argv is None else argv),
             extra={"commands": {name: f"cubefab synth {arguments}"
                                 for name, arguments in runs.items()}})
    return 0


if __name__ == "__main__":
    sys.exit(main())
