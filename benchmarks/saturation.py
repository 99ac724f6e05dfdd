"""Saturation of the default sweep router against the channel-load bound: deterministic
beside adaptive routing.

    python benchmarks/saturation.py [--cycles N] [--warmup N] [--jobs N] [--plot-dir DIR]
                                    [--json FILE] [--only LABEL ...] [--traffic P ...]
                                    [--modes deterministic,adaptive] [--fractions F,...]
                                    [--adaptive-vcs N] [--save NAME]

For MC(1,3), MC(2,2), DLH(4,3), DLH(8,4) and Mcube(6) (issue 16's goal: adaptive routing
saturates at >= 90% of the bound, never below deterministic on bitcomp, transpose and
hotspot, and holds its accepted throughput past saturation at >= 95% of its peak) it runs
``cubefab sweep``'s engine (the self-checking fabric in Verilator, router settings
:data:`cubefab.hdl.config.SIMULATION_DEFAULTS`; adaptive: as many adaptive VCs as VCs per
class) at offered loads from 50% to 110% of the bound, and prints per network, traffic and
mode the bound, the largest accepted throughput (the saturation throughput when the curve
saturates in the range; "saturates at" says where, or "no"), its fraction of the bound,
the accepted throughput at the highest load as a fraction of that peak ("held"), the
packets delivered out of order (adaptive) and whether every check passed. The bound is the
deterministic routing's channel-load bound, the same for both modes; "any minimal <="
bounds every routing that takes only shortest paths, whatever it chooses
(:func:`cubefab.sim.channel_load.minimal_routing_bound`: the flows forced through one
channel). The Mcube runs Mroute adaptively (its only deadlock-free way) beside
deterministic e-cube. The points run on an embedded Dask cluster of ``--jobs`` workers;
builds are cached. ``--save NAME`` writes the figures to ``benchmarks/results/NAME.json``
(``benchmarks/saved_results.py``): per network, traffic and mode the bound, the largest
accepted throughput, its fraction of the bound, "held", the reordered packets and
whether every check passed.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cubefab.cli import format_table  # noqa: E402
from cubefab.cluster import open_client  # noqa: E402
from cubefab.sim.channel_load import channel_load_bound, minimal_routing_bound  # noqa: E402
from cubefab.hdl.config import SIMULATION_DEFAULTS  # noqa: E402
from cubefab import figures  # noqa: E402
from cubefab.sim.sweep import sweep_curves  # noqa: E402
from cubefab.topology import DLH, Mcube, Metacube  # noqa: E402
from saved_results import command_line, key_of as _key, save  # noqa: E402


#: (network, deterministic algorithm, adaptive algorithm)
NETWORKS = [(Metacube(1, 3), "minimal", "minimal"), (Metacube(2, 2), "minimal", "minimal"),
            (DLH(4, 3), "dimension-order", "dimension-order"),
            (DLH(8, 4), "dimension-order", "dimension-order"),
            (Mcube(6), "ecube", "mroute")]
FRACTIONS = (0.5, 0.7, 0.8, 0.85, 0.9, 0.95, 1.0, 1.1)
GOAL, HELD = 0.90, 0.95
ADAPTIVE_VCS = SIMULATION_DEFAULTS.vcs_per_class


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cycles", type=int, default=3000)
    ap.add_argument("--warmup", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--plot-dir", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--only", nargs="*", default=None, help="labels, e.g. 'DLH(4,3)'")
    ap.add_argument("--traffic", nargs="*", default=["uniform"],
                    help="patterns (default uniform; bitcomp transpose hotspot)")
    ap.add_argument("--modes", default="deterministic,adaptive")
    ap.add_argument("--adaptive-vcs", type=int, default=ADAPTIVE_VCS,
                    help=f"adaptive VCs per link (default {ADAPTIVE_VCS})")
    ap.add_argument("--seed", type=int, default=1,
                    help="the traffic's seed (default 1: the figures in the docs)")
    ap.add_argument("--fractions", default=",".join(map(str, FRACTIONS)),
                    help="offered loads as fractions of the bound (comma-separated)")
    ap.add_argument("--save", default=None, metavar="NAME",
                    help="write the figures to benchmarks/results/NAME.json")
    args = ap.parse_args()
    rows, docs = [], []
    headers = ["network", "traffic", "routing", "bound", "any minimal <=", "max accepted",
               "of bound", f">= {GOAL:.0%}", "saturates at", "held past sat.", "reordered",
               "no errors", "seconds"]
    with open_client(workers=args.jobs) as client:
        _run(args, client, rows, docs, headers)
    print(f"\nrouter: depth {SIMULATION_DEFAULTS.depth}, {SIMULATION_DEFAULTS.vcs_per_class} VCs per class (adaptive: + {args.adaptive_vcs} adaptive VCs), "
          f"{args.cycles} cycles after {args.warmup} warm-up, 1-flit packets, seed {args.seed}")
    print(format_table(headers, rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(docs, f, indent=1)
    if args.save:
        save(args.save, saved_figures(docs), command_line(__file__, sys.argv[1:]))


def saved_figures(docs):
    """``{network: {traffic: {mode: {...}}}}`` of the curves ``docs``, and the router
    (``router``: its depth and VCs per class, the adaptive VCs of the adaptive mode)."""
    figures = {"router": {"depth": SIMULATION_DEFAULTS.depth,
                          "vcs_per_class": SIMULATION_DEFAULTS.vcs_per_class,
                          "payload_width": SIMULATION_DEFAULTS.payload_width,
                          "adaptive_vcs": max((r["adaptive_vcs"] for r in docs), default=0)}}
    for r in docs:
        best = r["max_throughput"]
        bound = r["bound"]
        mode = "adaptive" if r["adaptive_vcs"] else "deterministic"
        figures.setdefault(_key(r["label"]), {}).setdefault(r["traffic"], {})[mode] = {
            "algorithm": r["algorithm"], "bound": round(bound, 4),
            "max_accepted": round(best, 4), "of_bound_pct": round(100 * best / bound, 1),
            "held_pct": round(100 * r["points"][-1]["throughput"] / best, 1),
            "reordered": sum(p["reordered"] for p in r["points"]), "ok": bool(r["ok"]),
            "latency_lowest_load": round(r["points"][0]["avg_latency"], 1)}
    return figures


def _run(args, client, rows, docs, headers):
    modes = args.modes.split(",")
    for topo, deterministic, adaptive in NETWORKS:
        if args.only and topo.label not in args.only:
            continue
        for traffic in args.traffic:
            try:
                bound = channel_load_bound(topo, traffic, deterministic)["saturation_bound"]
            except ValueError as exc:          # a pattern the network cannot take
                print(f"  {topo.label} {traffic}: {exc}")
                continue
            # (an injection-limited bound is 1 flit/node/cycle: no load beyond it)
            rates = sorted({min(1.0, round(float(f) * bound, 4))
                            for f in args.fractions.split(",")})
            routings = ([(deterministic, 0)] if "deterministic" in modes else []) + \
                ([(adaptive, args.adaptive_vcs)] if "adaptive" in modes else [])
            start = time.monotonic()
            results = sweep_curves(
                topo, rates, algorithms=routings, traffic=traffic, cycles=args.cycles,
                warmup=args.warmup, seed=args.seed, client=client,
                build_progress=lambda stage: print(f"  {topo.label}: build {stage}",
                                                   flush=True))
            seconds = time.monotonic() - start
            minimal = minimal_routing_bound(topo, traffic)["saturation_bound"]
            for r in results:
                r.update(minimal_routing_bound=minimal, bound=bound, label=topo.label,
                         traffic=traffic)
            docs.extend(results)
            if args.plot_dir:
                os.makedirs(args.plot_dir, exist_ok=True)
                figures.write({"curves": results}, os.path.join(
                    args.plot_dir, f"saturation_{topo.name}_"
                    + "_".join(str(v) for v in topo.params.values()) + f"_{traffic}.png"))
            for r in results:
                rows.append(_row(topo, traffic, r, bound, seconds / len(results)))
                print(format_table(headers, rows[-1:]), flush=True)


def _row(topo, traffic, result, bound, seconds):
    """A table row of one curve, against ``bound`` (the deterministic routing's: an
    adaptive curve's own bound is its adaptive algorithm's routes', Mroute's on the
    Mcube)."""
    best = result["max_throughput"]
    last = result["points"][-1]["throughput"]
    mode = "adaptive" if result["adaptive_vcs"] else "deterministic"
    return [topo.label, traffic, f"{result['algorithm']} {mode}", f"{bound:.4f}",
            f"{result['minimal_routing_bound']:.4f}", f"{best:.4f}", f"{best / bound:.1%}",
            "yes" if best / bound >= GOAL else "NO",
            result["saturation_rate"] or "no", f"{last / best:.1%}",
            sum(p["reordered"] for p in result["points"]),
            "yes" if result["ok"] else "NO", f"{seconds:.0f}"]


if __name__ == "__main__":
    main()
