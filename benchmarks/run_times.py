"""How long synthesis and place and route take: the measurements behind the time
estimates ``cubefab synth`` and ``cubefab board`` print (:mod:`cubefab.build.run_time`).

    python benchmarks/run_times.py [--only RUN ...] [--save NAME] [--workdir DIR]

Each run builds one design the way ``cubefab synth router|fabric`` (``synth`` runs) or
``cubefab board`` (``board`` runs) does, timing each stage on its own: the Verilog
(Amaranth's conversion; the board's files), yosys ``synth_<family>``, nextpnr, and the
board's bitstream packer. Kept of each run: the stage seconds, the Verilog's size in
bytes (what the yosys model reads), the synthesised netlist's cells (LUT4, flip-flops,
carry and block RAMs: what the nextpnr model reads), the device and the machine's
load average when it started.

The runs are the benchmark's designs, kept small (a shared two-core machine): routers
and fabrics of Q(1) .. Q(4) on the iCE40 HX8K, the LFE5U-25F and the LFE5U-85F, one
router and fabric on the GW1NR-9, and the smallest self-checking fabrics on a board of
each family. The model (:func:`fit`) is a least-squares fit, non-negative and weighted
to the relative error, of

- yosys: ``seconds = a[family] + b[family] * Verilog MB``;
- nextpnr: ``seconds = a[device] + b[family] * thousands of cells``;
- packing: ``seconds = a[device]``;

and each run's estimate against its measured seconds is kept beside it (``ratio``,
estimate / actual). ``--save NAME`` writes ``benchmarks/results/NAME.json``
(``benchmarks/saved_results.py``); the model the package uses is the one saved as
``run_times`` (``tests/test_run_time.py`` checks that they agree)::

    python benchmarks/run_times.py --save run_times
"""

import argparse
import json
import os
import shlex
import sys
import time

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, REPO)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from saved_results import add_save_option, command_line, save  # noqa: E402


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
    "router_q2_gw1nr9": ("synth", "router hypercube -n 2 --node 0 --device gw1nr-9"),
    "fabric_q2_gw1nr9": ("synth", "fabric hypercube -n 2 --device gw1nr-9"),
    "board_q1_icestick": ("board", "hypercube -n 1 --board icestick --payload-width 4"),
    "board_q1_icebreaker": ("board", "hypercube -n 1 --board icebreaker"),
    "board_q2_orangecrab": ("board", "hypercube -n 2 --board orangecrab"),
    "board_q2_ulx3s": ("board", "hypercube -n 2 --board ulx3s"),
    "board_q1_tangnano9k": ("board", "hypercube -n 1 --board tang-nano-9k"),
}


def load_average():
    """The machine's one-minute load average (None where it is not known)."""
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:
        return None


def measure(name, command, arguments, workdir):
    """The stage seconds and model inputs of one run (``cubefab COMMAND ARGUMENTS
    --json``, run in this process with its stages timed)."""
    from cubefab.cli import build_parser, topology_from_args
    from cubefab import files
    out = os.path.join(workdir, name)
    extra = ["--workdir", out] if command == "synth" else ["-o", out]
    args = build_parser().parse_args([command, *shlex.split(arguments), *extra, "--json",
                                      "--force"])
    load = load_average()
    with files.policy(force=True):
        topology = topology_from_args(args)
        from cubefab.build.run_time import measure_synth, measure_board
        kept = (measure_synth if command == "synth" else measure_board)(args, topology)
    kept.update(command=f"cubefab {command} {arguments}", load_average=load)
    print(f"  {name}: {json.dumps(kept['seconds'])} ({kept['cells']} cells, "
          f"{kept['verilog_bytes']} bytes, load {load})", file=sys.stderr, flush=True)
    return kept


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", metavar="RUN", choices=sorted(RUNS),
                        default=None)
    parser.add_argument("--workdir", default="build/bench_run_times", metavar="DIR")
    parser.add_argument("--measured", metavar="FILE", default=None,
                        help="fit the runs of this saved result instead of measuring")
    add_save_option(parser)
    args = parser.parse_args(argv)
    from cubefab.build.run_time import fit, estimate_runs
    if args.measured:
        with open(args.measured) as f:
            runs = json.load(f)["figures"]["runs"]
    else:
        runs = {}
        for name in args.only or RUNS:
            runs[name] = measure(name, *RUNS[name], args.workdir)
    model = fit(runs)
    estimate_runs(runs, model)
    figures = {"model": model, "runs": runs}
    print(json.dumps(figures, indent=1))
    if args.save:
        save(args.save, figures, command_line(__file__, sys.argv[1:] if argv is None
                                              else argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
