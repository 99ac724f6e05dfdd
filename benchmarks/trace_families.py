"""A netrace trace on every family with 64 nodes or more, side by side.

    python benchmarks/trace_families.py [--trace NAME] [--region R] [--save NAME]

Runs ``cubefab sim NETWORK --trace FILE --json`` (default routers, the Verilator engine)
on the 64-node hypercube, metacube, DLH, Mcube and folded hypercube and the 128-node
dual-cube (trace node i on the network's i-th node), and prints per network the cycles
the trace took against its own, the mean latency of each packet type and the simulation
speed. The traces are the netrace test traces shipped with the tests
(``tests/sim/data/netrace``). ``--save NAME`` keeps the figures in
``benchmarks/results/NAME.json`` for the docs.
"""

import argparse
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from benchmarks.saved_results import REPO, command_line, key_of, save   # noqa: E402
from cubefab.cli import format_table                           # noqa: E402

TRACES = os.path.join(REPO, "tests", "sim", "data", "netrace")

#: The networks, as ``(label, command-line arguments)``.
NETWORKS = (
    ("Q(6)", ["hypercube", "-n", "6"]),
    ("MC(2,1)", ["metacube", "-k", "2", "-m", "1"]),
    ("DLH(4,2)", ["dlh", "-m", "4", "-d", "2"]),
    ("Mcube(6)", ["mcube", "-k", "6"]),
    ("FQ(6)", ["foldedcube", "-n", "6"]),
    ("D(3)", ["dualcube", "-m", "3"]),
)


def run(network, trace, region):
    """``cubefab sim`` of ``network`` on ``trace``: its JSON document and seconds."""
    command = [sys.executable, "-m", "cubefab", "sim", *network, "--trace",
               os.path.join(TRACES, f"{trace}.tra.bz2"), "--engine", "verilator", "--json"]
    if region is not None:
        command += ["--trace-region", str(region)]
    start = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO)
    seconds = time.monotonic() - start
    if done.returncode:
        sys.exit(f"{' '.join(network)}: {done.stderr.strip()}")
    return json.loads(done.stdout), seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trace", default="example", help="test trace (default example)")
    parser.add_argument("--region", type=int, default=None, help="its region (default all)")
    parser.add_argument("--save", metavar="NAME", help="keep the figures for the docs")
    args = parser.parse_args(argv)
    figures, rows = {}, []
    for label, network in NETWORKS:
        run(network, args.trace, args.region)          # the model's build, not timed
        doc, seconds = run(network, args.trace, args.region)
        trace = doc["trace"]
        means = {name: round(s["mean"], 1) for name, s in trace["latency"].items()}
        figures[key_of(label)] = {"label": label, "cycles": trace["cycles"],
                                  "trace_cycles": trace["trace_cycles"],
                                  "ratio": round(trace["ratio"], 4),
                                  "packets": trace["packets"], "mean_latency": means,
                                  "seconds": round(seconds, 2), "router": doc["router"]}
        rows.append((label, trace["packets"], trace["cycles"], f"{trace['ratio']:.4f}",
                     *(means.get(t, "-") for t in ("ReadReq", "ReadResp", "UpgradeReq")),
                     f"{seconds:.1f}"))
    print(format_table(("network", "packets", "cycles", "x trace", "ReadReq", "ReadResp",
                        "UpgradeReq", "s"), rows))
    if args.save:
        save(args.save, figures, command_line(__file__, argv if argv is not None
                                              else sys.argv[1:]),
             extra={"trace": args.trace, "region": args.region})


if __name__ == "__main__":
    main()
