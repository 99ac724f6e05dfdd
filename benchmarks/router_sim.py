"""Speed of the Amaranth (Python) simulator on router fabrics: router-cycles per second.

Prints, per fabric, the elaboration time and the simulated cycles per second and
router-cycles per second, idle and under uniform load (2-flit packets, every link
watched by the scoreboard, as the tests run it). The fast-simulation engines compare
against these figures.

    python benchmarks/router_sim.py [--cycles N] [--rate R] [--quick]
"""

import argparse
import time

from amaranth.sim import Simulator

from cubefab.sim.amaranth_engine import AmaranthEngine
from cubefab.sim.traffic import Traffic
from cubefab.topology import DLH, Hypercube, Metacube


def idle_speed(engine, cycles):
    fabric = engine.fabric
    sim = Simulator(fabric)
    sim.add_clock(1e-8)

    async def bench(ctx):
        for i in range(fabric.topology.num_nodes):
            ctx.set(fabric.local_out[i].ready, 1)
        await ctx.tick().repeat(cycles)

    sim.add_testbench(bench)
    t0 = time.perf_counter()
    sim.run()
    return cycles / (time.perf_counter() - t0)


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
          f"packets, {args.cycles} cycles")
    print(f"{'fabric':>10} {'routers':>7} {'VCs':>3} {'build s':>7} {'idle cyc/s':>10} "
          f"{'load cyc/s':>10} {'router-cyc/s':>12} {'ok':>3}")
    for topo in fabrics:
        t0 = time.perf_counter()
        engine = AmaranthEngine(topo)
        build = time.perf_counter() - t0
        idle = idle_speed(AmaranthEngine(topo), args.cycles)
        result = engine.run(Traffic(topo, "uniform", args.rate, 2, seed=1), args.cycles)
        load = result.simulated_cycles / result.seconds
        vcs = engine.fabric.config.router.vcs
        print(f"{topo.label:>10} {topo.num_nodes:>7} {vcs:>3} {build:>7.2f} "
              f"{idle:>10.0f} {load:>10.1f} {load * topo.num_nodes:>12.0f} "
              f"{'yes' if result.ok else 'NO':>3}")


if __name__ == "__main__":
    main()
