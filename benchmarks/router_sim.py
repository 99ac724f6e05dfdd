"""Speed of the Amaranth (Python) simulator on self-checking fabrics: router-cycles per second.

Prints, per fabric, the seconds to build and simulate, the simulated cycles per second
and router-cycles per second under uniform load (2-flit packets, every check on, the
default router of ``cubefab sim``), as ``cubefab sim --engine amaranth`` runs them. The
Verilator engine compares against these figures (``benchmarks/sim_speed.py``).

    python benchmarks/router_sim.py [--cycles N] [--rate R] [--quick]
"""

import argparse
import time

from cubefab.sim.run_spec import SelfCheckRun
from cubefab.sim.selfcheck_run import run_selfcheck
from cubefab.topology import DLH, Hypercube, Metacube


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=300)
    parser.add_argument("--rate", type=float, default=0.5)
    parser.add_argument("--quick", action="store_true", help="the two smallest fabrics only")
    args = parser.parse_args()
    fabrics = [Hypercube(3), Metacube(1, 1), DLH(2, 1), Metacube(1, 2)]
    if args.quick:
        fabrics = fabrics[:2]
    print(f"Amaranth simulator, uniform traffic at {args.rate} flits/node/cycle, 2-flit "
          f"packets, {args.cycles} cycles, every check on")
    print(f"{'fabric':>10} {'routers':>7} {'VCs':>3} {'total s':>7} {'cycles/s':>9} "
          f"{'router-cyc/s':>12} {'ok':>3}")
    for topo in fabrics:
        t0 = time.perf_counter()
        r = run_selfcheck(SelfCheckRun.of(topo, engine="amaranth", rate=args.rate, cycles=args.cycles,
                                          packet_flits=2, seed=1))
        total = time.perf_counter() - t0
        print(f"{topo.label:>10} {topo.num_nodes:>7} {r['vcs']:>3} {total:>7.1f} "
              f"{r['cycles_per_second']:>9.1f} {r['router_cycles_per_second']:>12.0f} "
              f"{'yes' if r['ok'] else 'NO':>3}")


if __name__ == "__main__":
    main()
