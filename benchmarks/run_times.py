"""How long synthesis and place and route take: the runs behind the time estimates
that ``cubefab synth`` and ``cubefab board`` print (:mod:`cubefab.build.run_time`).

    python benchmarks/run_times.py [--only RUN ...] [--save NAME] [--workdir DIR]
    python benchmarks/run_times.py --measured FILE [--only RUN ...] [--save NAME]

Each run is one ``cubefab synth router|fabric ... --json`` or ``cubefab board ...
--json`` (a fresh process), whose report's ``stages`` give each stage's seconds
(the Verilog or the board's RTLIL, yosys, nextpnr, the bitstream packer), the estimate
the command printed for it, and what that estimate was made from: the elaboration
estimate, the design's megabytes of Verilog (or RTLIL) and the synthesised netlist's
cells. Kept of each run: those, its device and the machine's load average when it
started.

The runs are the benchmark's designs: routers and fabrics of Q(1) .. Q(4) on the iCE40
HX8K, the LFE5U-25F and the LFE5U-85F, a router and a fabric on the GW1NR-9,
self-checking fabrics on a board of each family, and the large ones users build: the
Q(4) fabric placed and routed on the LFE5U-85F, the Q(4) and Q(5) fabrics with
AXI4-Stream endpoints synthesised for it (``--no-pnr``: 5 and 12 MB of Verilog) and
the demo's MC(1,2) on the ULX3S (53,000 cells, ten minutes of nextpnr). The whole
set takes about 40 minutes on a two-core machine; ``--only RUN ...`` measures some
of them. The model is fitted to them (:func:`cubefab.build.run_time.fit`: the
formulas are in that module), and each run's estimate by the fitted model against
its measured seconds is kept beside it (``estimate``, ``ratio`` = estimate /
measured), with the ``worst_ratio`` of them all (and of nextpnr's estimate before
synthesis, from the Verilog's size); a table of them goes to stderr. ``--measured
FILE`` fits the runs of a saved result again instead of measuring; with ``--only RUN
...`` it measures those runs again and fits them with the file's others. ``--save NAME`` writes
``benchmarks/results/NAME.json`` (``benchmarks/saved_results.py``); the package's
:data:`~cubefab.build.run_time.MODEL` is the model saved as ``run_times``
(``tests/tools/test_run_time.py`` checks that they agree)::

    python benchmarks/run_times.py --save run_times
"""

import argparse
import json
import os
import shlex
import sys

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from saved_results import (add_save_option, command_line, run_cubefab_json,  # noqa: E402
                           save, utc_now)


#: run -> (command, arguments): ``cubefab synth ...`` or ``cubefab board ...``.
RUNS = {
    "router_q2_hx8k": ("synth", "router hypercube -n 2 --node 0 --device hx8k"),
    "router_q4_hx8k": ("synth", "router hypercube -n 4 --node 0 --device hx8k"),
    "fabric_q1_hx8k": ("synth", "fabric hypercube -n 1 --device hx8k"),
    "fabric_q2_hx8k": ("synth", "fabric hypercube -n 2 --device hx8k"),
    "router_q2_25f": ("synth", "router hypercube -n 2 --node 0 --device lfe5u-25f"),
    "fabric_q2_25f": ("synth", "fabric hypercube -n 2 --device lfe5u-25f"),
    "fabric_q2_axis_25f": ("synth", "fabric hypercube -n 2 --device lfe5u-25f "
                                    "--interface axi-stream --data-width 16"),
    "router_q4_85f": ("synth", "router hypercube -n 4 --node 0 --device lfe5u-85f"),
    "fabric_q2_85f": ("synth", "fabric hypercube -n 2 --device lfe5u-85f"),
    "fabric_q3_85f": ("synth", "fabric hypercube -n 3 --device lfe5u-85f"),
    "fabric_q3_axis_25f": ("synth", "fabric hypercube -n 3 --device lfe5u-25f "
                                    "--interface axi-stream --data-width 16"),
    "router_q2_gw1nr9": ("synth", "router hypercube -n 2 --node 0 --device gw1nr-9"),
    "fabric_q2_gw1nr9": ("synth", "fabric hypercube -n 2 --device gw1nr-9"),
    "board_q1_icestick": ("board", "hypercube -n 1 --board icestick --payload-width 4"),
    "board_q1_icebreaker": ("board", "hypercube -n 1 --board icebreaker"),
    "board_q2_orangecrab": ("board", "hypercube -n 2 --board orangecrab"),
    "board_q2_ulx3s": ("board", "hypercube -n 2 --board ulx3s"),
    "board_q1_tangnano9k": ("board", "hypercube -n 1 --board tang-nano-9k"),
    "fabric_q4_axis_85f_yosys": ("synth", "fabric hypercube -n 4 --device lfe5u-85f "
                                          "--interface axi-stream --data-width 16 --no-pnr"),
    "fabric_q5_axis_85f_yosys": ("synth", "fabric hypercube -n 5 --device lfe5u-85f "
                                          "--interface axi-stream --data-width 16 --no-pnr"),
    "fabric_q4_85f": ("synth", "fabric hypercube -n 4 --device lfe5u-85f"),
    "board_metacube_ulx3s": ("board", "metacube -k 1 -m 2 --board ulx3s"),
}


def load_average():
    """The machine's one-minute load average (None where it is not known)."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def _cells(report):
    """The synthesised netlist's cells (LUT4, FF, carry, RAM) of a ``--json`` report."""
    placed = report["stages"].get("pnr", {}).get("from", {})
    if "cells" in placed:
        return placed["cells"]
    return sum(report["total_cells"][key] for key in ("lut4", "ff", "carry", "ram"))


def measure(name, command, arguments, workdir):
    """The stage seconds, the estimates printed and the model's inputs of one run of
    ``cubefab COMMAND ARGUMENTS --json`` (a fresh process)."""
    out = os.path.join(workdir, name)
    extra = ["--workdir", out] if command == "synth" else ["-o", out]
    load = load_average()
    report = run_cubefab_json([command, *shlex.split(arguments), *extra, "--json",
                               "--force"])
    after = load_average()
    stages = report["stages"]
    kept = {"command": f"cubefab {command} {arguments}", "device": report["device"],
            "seconds": {stage: v["seconds"] for stage, v in stages.items()},
            "printed": {stage: v["estimate"] for stage, v in stages.items()},
            "elaboration": stages["verilog"]["from"]["elaboration"],
            "megabytes": stages["synthesis"]["from"]["megabytes"],
            "rtlil": stages["synthesis"]["from"]["rtlil"],
            "cells": _cells(report), "cores": os.cpu_count(),
            "load_before": load, "load_after": after,
            "load_average": round((load + after) / 2, 2)}
    kept["printed_ratio"] = {stage: round(kept["printed"][stage] / seconds, 2)
                             for stage, seconds in kept["seconds"].items() if seconds}
    print(f"  {name}: {json.dumps(kept['seconds'])} (estimated "
          f"{json.dumps(kept['printed'])}; {kept['cells']} cells, {kept['megabytes']} MB, "
          f"load {load})", file=sys.stderr, flush=True)
    return kept


#: The stages of the ratio table, in the order they run.
STAGES = ["verilog", "synthesis", "pnr_before_synthesis", "pnr", "pack"]


def ratio_table(runs):
    """The text table of each run's estimate / measured seconds = ratio by stage."""
    from cubefab.cli import format_table
    from cubefab.build.run_time import measured_seconds
    rows = []
    for name, run in runs.items():
        cells = [f"{run['estimate'][stage]:g} / {measured_seconds(run, stage):g}"
                 f" = {run['ratio'][stage]:.2f}" if stage in run["ratio"] else "-"
                 for stage in STAGES]
        rows.append([name, f"{run['load_average']:g}", *cells])
    return format_table(["run", "load", *STAGES], rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", metavar="RUN", choices=sorted(RUNS),
                        default=None)
    parser.add_argument("--workdir", default="build/bench_run_times", metavar="DIR")
    parser.add_argument("--measured", metavar="FILE", default=None,
                        help="fit the runs of this saved result instead of measuring")
    add_save_option(parser)
    args = parser.parse_args(argv)
    from cubefab.build.run_time import fit, estimate_runs, worst_ratio
    command = command_line(__file__, sys.argv[1:] if argv is None else argv)
    extra = {}
    runs = {}
    if args.measured:
        with open(args.measured) as f:
            measured = json.load(f)
        runs = measured["figures"]["runs"]
        when = measured.get("measured", measured["date"])
        if args.only:       # some runs measured again, the others kept
            when = f"{when}; {', '.join(args.only)} again at {utc_now()}"
        # the runs' own command and date: this one fitted them again
        extra = {"fitted_by": command, "measured": when}
        command = measured["command"]
    if args.only or not args.measured:
        for name in args.only or RUNS:
            runs[name] = measure(name, *RUNS[name], args.workdir)
    for run in runs.values():     # measured on this machine, before cores were kept
        run.setdefault("cores", os.cpu_count())
    model = fit(runs)
    estimate_runs(runs, model)
    worst, early = worst_ratio(runs), worst_ratio(runs, ["pnr_before_synthesis"])
    figures = {"model": model,
               "synthesis_exponent": {family: values[2] for family, values
                                      in model["synthesis"].items()},
               "pnr_exponent": {family: values[3] for family, values
                                in model["pnr"].items()},
               "load_exponent": model["load"],
               "worst_ratio": dict(zip(("ratio", "run", "stage"), worst)),
               "worst_ratio_before_synthesis": dict(zip(("ratio", "run", "stage"), early)),
               "runs": runs}
    print(ratio_table(runs), file=sys.stderr)
    print(f"worst ratio: {worst[0]} ({worst[1]}, {worst[2]}); of nextpnr's estimate "
          f"before synthesis: {early[0]} ({early[1]})", file=sys.stderr)
    print(json.dumps(figures, indent=1))
    if args.save:
        save(args.save, figures, command, extra)
    return 0


if __name__ == "__main__":
    sys.exit(main())
