"""The figures behind ``cubefab sim --engine auto`` (:mod:`cubefab.sim.engine_choice`).

    python benchmarks/engine_choice.py [--cycles N]

For Q(3) and MC(1,2) it runs the self-checking fabric in the Amaranth simulator
(elaboration seconds per node, router-cycles per second) and builds it with Verilator
in an empty cache (build seconds), then prints them beside the constants of the rule
and the cycles from which a Verilator build pays for itself.
"""

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from cubefab.cli import format_table  # noqa: E402
from cubefab.sim import engine_choice  # noqa: E402
from cubefab.sim.run_spec import SelfCheckRun
from cubefab.sim.selfcheck_run import run_selfcheck  # noqa: E402
from cubefab.topology import Hypercube, Metacube  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cycles", type=int, default=300)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as cache:
        os.environ["CUBEFAB_CACHE"] = cache
        for topo in (Hypercube(3), Metacube(1, 2)):
            start = time.monotonic()
            r = run_selfcheck(SelfCheckRun.of(topo, engine="amaranth", rate=0.2, cycles=args.cycles))
            elaboration = (time.monotonic() - start - r["seconds"]) / topo.num_nodes
            speed = r["router_cycles_per_second"]
            build = run_selfcheck(SelfCheckRun.of(topo, engine="verilator", rate=0.2, cycles=1))
            build = build["build_seconds"]
            even = (build / topo.num_nodes - elaboration) * speed
            rows.append([topo.label, topo.num_nodes, f"{elaboration:.2f}", f"{speed:.0f}",
                         f"{build:.1f}", f"{max(0, even):.0f}"])
    print(format_table(["network", "nodes", "elaboration s/node", "router-cycles/s",
                        "Verilator build s", "break-even cycles"], rows))
    print(f"rule: {engine_choice.AMARANTH_ELABORATION_SECONDS} s/node, "
          f"{engine_choice.AMARANTH_ROUTER_CYCLES_PER_SECOND} router-cycles/s, "
          f"build {engine_choice.VERILATOR_BUILD_SECONDS} s")


if __name__ == "__main__":
    main()
