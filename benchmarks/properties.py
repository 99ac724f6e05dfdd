"""Exact distance distributions by structure vs numpy BFS vs networkx: time and peak memory.

Usage: python benchmarks/properties.py [--big] [--cluster]
    --big      adds MC(3,3) (2^27 nodes) to the BFS comparison
    --cluster  adds the BFS-only all-sources check of Mcube(12), Mcube(14) in-process vs on
               an embedded 2-worker Dask cluster

Every measurement runs in a fresh process, so its peak resident memory (ru_maxrss) is its
own; "baseline" is the peak of a process that only imports cubefab (subtract it to compare).
Each method computes the distance distribution from one node of every source class (the
metacube's 2^k classes; one node for the vertex-transitive hypercube and DLH), and the three
must agree exactly. networkx runs on networks up to 2^17 nodes (its graph needs ~1 KB per
link). Ratios are BFS / structure and networkx / structure.
"""

import argparse
import multiprocessing
import resource
import time


def _peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _sources(topo):
    from cubefab.topology import Metacube
    if isinstance(topo, Metacube) and topo.k:
        shift = topo.address_bits - topo.k
        return [c << shift for c in range(1 << topo.k)]
    return [0]


def _structure(topo):
    from cubefab.topology.structure import structural_classes
    classes, _ = structural_classes(topo)
    return [c.distribution for c in classes]


def _bfs(topo):
    from cubefab.topology.properties import distance_distribution
    return [distance_distribution(topo, s).tolist() for s in _sources(topo)]


def _networkx(topo):
    import networkx as nx
    g = nx.Graph()
    g.add_edges_from(topo.edges().tolist())
    out = []
    for s in _sources(topo):
        lengths = nx.single_source_shortest_path_length(g, s)
        counts = [0] * (max(lengths.values()) + 1)
        for d in lengths.values():
            counts[d] += 1
        out.append(counts)
    return out


def _all_sources(topo, distributed):
    from cubefab.topology.properties import properties
    p = properties(topo, "bfs", distributed=distributed, workers=2)
    return [p["pair_distance_distribution"], p["method_detail"]]


def _nothing(topo):
    return []


def _child(queue, kind, family, params):
    from cubefab.topology import make_topology
    topo = make_topology(family, **params)
    fn = {"structure": _structure, "bfs": _bfs, "networkx": _networkx,
          "baseline": _nothing, "in-process": lambda t: _all_sources(t, False),
          "dask-2": lambda t: _all_sources(t, True)}[kind]
    t0 = time.perf_counter()
    result = fn(topo)
    queue.put((time.perf_counter() - t0, _peak_mib(), result))


def measure(kind, family, **params):
    """(seconds, peak MiB, result) of one method in a fresh process."""
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child, args=(queue, kind, family, params))
    proc.start()
    out = queue.get()
    proc.join()
    return out


NETWORKS = [("hypercube", {"n": 16}), ("dualcube", {"m": 8}), ("metacube", {"k": 2, "m": 2}),
            ("metacube", {"k": 2, "m": 3}), ("metacube", {"k": 3, "m": 2}),
            ("metacube", {"k": 4, "m": 1}), ("metacube", {"k": 2, "m": 5}),
            ("dlh", {"m": 4, "d": 3}), ("dlh", {"m": 8, "d": 16})]
STRUCTURE_ONLY = [("metacube", {"k": 3, "m": 4}), ("metacube", {"k": 4, "m": 4}),
                  ("metacube", {"k": 4, "m": 8})]


def _label(family, params):
    from cubefab.topology import make_topology
    topo = make_topology(family, **params)
    return topo.label, topo.num_nodes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--big", action="store_true", help="also MC(3,3) (2^27 nodes)")
    ap.add_argument("--cluster", action="store_true",
                    help="also Mcube all-sources BFS, in-process vs 2 Dask workers")
    args = ap.parse_args()
    nets = NETWORKS + ([("metacube", {"k": 3, "m": 3})] if args.big else [])
    base_s, base_mib, _ = measure("baseline", "hypercube", n=1)
    print(f"baseline process (imports only): peak {base_mib:.0f} MiB")
    print(f"{'network':>9} {'nodes':>10} {'srcs':>4} | {'struct s':>8} {'MiB':>5} | "
          f"{'BFS s':>7} {'MiB':>5} {'x time':>7} | {'nx s':>7} {'MiB':>6} {'x time':>7}")
    for family, params in nets:
        label, nodes = _label(family, params)
        s_sec, s_mib, s_res = measure("structure", family, **params)
        b_sec, b_mib, b_res = measure("bfs", family, **params)
        assert b_res == s_res, label
        nx_text = f"{'-':>7} {'-':>6} {'-':>7}"
        if nodes <= 1 << 17:
            n_sec, n_mib, n_res = measure("networkx", family, **params)
            assert n_res == s_res, label
            nx_text = f"{n_sec:>7.3f} {n_mib:>6.0f} {n_sec / s_sec:>6.0f}x"
        print(f"{label:>9} {nodes:>10} {len(s_res):>4} | {s_sec:>8.4f} {s_mib:>5.0f} | "
              f"{b_sec:>7.3f} {b_mib:>5.0f} {b_sec / s_sec:>6.0f}x | {nx_text}", flush=True)
    for family, params in STRUCTURE_ONLY:
        label, nodes = _label(family, params)
        s_sec, s_mib, s_res = measure("structure", family, **params)
        print(f"{label:>9} {nodes:>10.3g} {len(s_res):>4} | {s_sec:>8.4f} {s_mib:>5.0f} | "
              f"BFS would need {nodes * 10 / 2 ** 30:.3g} GiB", flush=True)
    if args.cluster:
        print("\nall-sources BFS (no structure): in-process vs embedded 2-worker Dask cluster")
        for k in (12, 14):
            i_sec, i_mib, i_res = measure("in-process", "mcube", k=k)
            d_sec, d_mib, d_res = measure("dask-2", "mcube", k=k)
            assert i_res[0] == d_res[0]
            print(f"Mcube({k}): in-process {i_sec:.2f} s ({i_mib:.0f} MiB), Dask {d_sec:.2f} s "
                  f"(client {d_mib:.0f} MiB; {d_res[1]}), ratio {i_sec / d_sec:.2f}", flush=True)


if __name__ == "__main__":
    main()
