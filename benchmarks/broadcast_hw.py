"""Broadcast in the RTL fabric: one broadcast against N - 1 unicasts, and mixed load.

    python benchmarks/broadcast_hw.py [--only LABEL] [--flits L] [--stress] [--json FILE]
        [--model all-port|one-port|both] [--no-unicasts]

1. One broadcast alone (:func:`cubefab.sim.broadcast_run.hardware_broadcast`, Amaranth's
   simulator up to 128 nodes, the Verilator engine above (MC(2,2), 1024 nodes; all-port
   only), source node 0, replicating routers with the proven broadcast VCs, 4-flit
   buffers): the cycle of the last copy's tail and the cycles the source's injection
   port is busy, against ``N - 1`` unicasts queued at the source in cycle 0; the link
   load (flits crossing links: ``(N - 1) * L`` along the tree against
   ``L * sum of the distances`` for the unicasts).
2. ``--stress``: mixed unicast and broadcast traffic at and past saturation (Verilator
   engine, uniform traffic, 10 % broadcasts, 2-flit packets), every copy checked.

``--model`` picks the routers' replication (``both``: all-port, then one-port, per
network); a one-port run also reports the sequential send steps measured from the
hardware and the schedule's. One-port stress runs on the Amaranth engine (one-port
routers need constant node addresses), 600 measured cycles.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from cubefab.cli import format_table  # noqa: E402
from cubefab.sim.broadcast_run import hardware_broadcast  # noqa: E402
from cubefab.sim.run_spec import SelfCheckRun
from cubefab.sim.selfcheck_run import CHECKS, run_selfcheck  # noqa: E402
from cubefab.topology import DLH, Hypercube, Metacube, bfs_distances  # noqa: E402
from cubefab.topology.broadcast_tree import one_port_tree  # noqa: E402


NETWORKS = [Metacube(1, 2), Hypercube(6), DLH(4, 3), Metacube(2, 2)]

#: Largest network the one-broadcast runs simulate with Amaranth (Verilator above).
AMARANTH_NODES = 128

STRESS = [Hypercube(3), Metacube(1, 2), DLH(2, 1)]


def one_broadcast(topology, flits, model="all-port", unicasts=True, engine="amaranth"):
    start = time.monotonic()
    doc = hardware_broadcast(topology, 0, packet_flits=flits, unicasts=unicasts,
                             model=model, engine=engine)
    if model == "one-port":
        doc["schedule_steps"] = one_port_tree(topology, 0).num_steps
    dist = bfs_distances(topology, 0)
    doc.update({"nodes": topology.num_nodes, "eccentricity": int(dist.max()),
                "tree_link_flits": len(doc["tree"]) * flits,
                "unicast_link_flits": int(dist.sum()) * flits,
                "seconds": round(time.monotonic() - start, 1)})
    return doc


def stress(topology, rate, model="all-port"):
    one_port = model == "one-port"
    r = run_selfcheck(SelfCheckRun.of(topology, engine="amaranth" if one_port else "verilator", rate=rate,
                                      cycles=600 if one_port else 3000, warmup=100 if one_port else 500,
                                      drain=20000, seed=11, packet_flits=2, broadcast_fraction=0.1,
                                      broadcast_model=model))
    return {k: r[k] for k in ("topology", "rate", "throughput", "broadcasts",
                              "copies_delivered", "delivered", "refused", "ok",
                              "broadcast_latency", "drain_cycles") + CHECKS}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=None, metavar="LABEL")
    parser.add_argument("--flits", type=int, default=4)
    parser.add_argument("--stress", action="store_true")
    parser.add_argument("--json", default=None, metavar="FILE")
    parser.add_argument("--model", choices=("all-port", "one-port", "both"),
                        default="all-port")
    parser.add_argument("--no-unicasts", action="store_true",
                        help="skip the N - 1 unicasts run")
    args = parser.parse_args()
    models = ("all-port", "one-port") if args.model == "both" else (args.model,)
    out = {"one_broadcast": [], "stress": []}
    rows = []
    for topo in NETWORKS:
        if args.only and topo.label != args.only:
            continue
        engine = "amaranth" if topo.num_nodes <= AMARANTH_NODES else "verilator"
        for model in models:
            if engine == "verilator" and model != "all-port":
                continue    # (one-port routers need constant addresses: Amaranth only)
            d = one_broadcast(topo, args.flits, model, not args.no_unicasts, engine)
            d.update({"model": model, "engine": engine})
            out["one_broadcast"].append(d)
            rows.append([topo.label, model, engine, d["nodes"], d["eccentricity"],
                         d["depth"],
                         d.get("steps", ""), d.get("schedule_steps", ""), d["latency"],
                         d.get("unicast_latency", ""),
                         f"{d['latency_ratio']:.1f}" if "latency_ratio" in d else "",
                         d["injection"], d.get("unicast_injection", ""),
                         d["tree_link_flits"], d["unicast_link_flits"], d["seconds"]])
            print(format_table(["network", "model", "engine", "N", "ecc", "depth", "steps",
                                "schedule steps", "bcast last", "unicasts last", "ratio",
                                "bcast inject", "unicasts inject", "link flits bcast",
                                "link flits unicasts", "s"], rows), flush=True)
    if args.stress:
        srows = []
        for topo in STRESS:
            for rate, model in [(x, m) for m in models for x in (0.3, 1.0)]:
                r = stress(topo, rate, model)
                r["model"] = model
                out["stress"].append(r)
                srows.append([r["topology"], model, rate, f"{r['throughput']:.3f}",
                              r["refused"],
                              r["broadcasts"], r["copies_delivered"], r["delivered"],
                              r["broadcast_latency"]["mean"] and
                              f"{r['broadcast_latency']['mean']:.1f}",
                              " ".join(f"{k}={r[k]}" for k in CHECKS), r["ok"]])
        print(format_table(["network", "model", "rate", "throughput", "refused",
                            "broadcasts",
                            "copies", "delivered", "bcast latency", "checks", "ok"], srows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
