"""Broadcast in the RTL fabric: one broadcast against N - 1 unicasts, and mixed load.

    python benchmarks/broadcast_hw.py [--only LABEL] [--flits L] [--stress] [--json FILE]

1. One broadcast alone (:func:`cubefab.sim.broadcast_run.hardware_broadcast`, Amaranth's
   simulator, source node 0, replicating routers with the proven broadcast VCs, 4-flit
   buffers): the cycle of the last copy's tail and the cycles the source's injection
   port is busy, against ``N - 1`` unicasts queued at the source in cycle 0; the link
   load (flits crossing links: ``(N - 1) * L`` along the tree against
   ``L * sum of the distances`` for the unicasts).
2. ``--stress``: mixed unicast and broadcast traffic at and past saturation (Verilator
   engine, uniform traffic, 10 % broadcasts, 2-flit packets), every copy checked.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from cubefab.cli import format_table  # noqa: E402
from cubefab.sim.broadcast_run import hardware_broadcast  # noqa: E402
from cubefab.sim.selfcheck_run import CHECKS, run_selfcheck  # noqa: E402
from cubefab.topology import DLH, Hypercube, Metacube, bfs_distances  # noqa: E402


NETWORKS = [Metacube(1, 2), Hypercube(6), DLH(4, 3)]
STRESS = [Hypercube(3), Metacube(1, 2), DLH(2, 1)]


def one_broadcast(topology, flits):
    start = time.monotonic()
    doc = hardware_broadcast(topology, 0, packet_flits=flits, unicasts=True)
    dist = bfs_distances(topology, 0)
    doc.update({"nodes": topology.num_nodes, "eccentricity": int(dist.max()),
                "tree_link_flits": len(doc["tree"]) * flits,
                "unicast_link_flits": int(dist.sum()) * flits,
                "seconds": round(time.monotonic() - start, 1)})
    return doc


def stress(topology, rate):
    r = run_selfcheck(topology, engine="verilator", rate=rate, cycles=3000, warmup=500,
                      drain=20000, seed=11, packet_flits=2, broadcast_fraction=0.1)
    return {k: r[k] for k in ("topology", "rate", "throughput", "broadcasts",
                              "copies_delivered", "delivered", "refused", "ok",
                              "broadcast_latency", "drain_cycles") + CHECKS}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=None, metavar="LABEL")
    parser.add_argument("--flits", type=int, default=4)
    parser.add_argument("--stress", action="store_true")
    parser.add_argument("--json", default=None, metavar="FILE")
    args = parser.parse_args()
    out = {"one_broadcast": [], "stress": []}
    rows = []
    for topo in NETWORKS:
        if args.only and topo.label != args.only:
            continue
        d = one_broadcast(topo, args.flits)
        out["one_broadcast"].append(d)
        rows.append([topo.label, d["nodes"], d["eccentricity"], d["depth"], d["latency"],
                     d["unicast_latency"], f"{d['latency_ratio']:.1f}", d["injection"],
                     d["unicast_injection"], d["tree_link_flits"],
                     d["unicast_link_flits"], d["seconds"]])
        print(format_table(["network", "N", "ecc", "depth", "bcast last", "unicasts last",
                            "ratio", "bcast inject", "unicasts inject",
                            "link flits bcast", "link flits unicasts", "s"], rows),
              flush=True)
    if args.stress:
        srows = []
        for topo in STRESS:
            for rate in (0.3, 1.0):
                r = stress(topo, rate)
                out["stress"].append(r)
                srows.append([r["topology"], rate, f"{r['throughput']:.3f}", r["refused"],
                              r["broadcasts"], r["copies_delivered"], r["delivered"],
                              r["broadcast_latency"]["mean"] and
                              f"{r['broadcast_latency']['mean']:.1f}",
                              " ".join(f"{k}={r[k]}" for k in CHECKS), r["ok"]])
        print(format_table(["network", "rate", "throughput", "refused", "broadcasts",
                            "copies", "delivered", "bcast latency", "checks", "ok"], srows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
