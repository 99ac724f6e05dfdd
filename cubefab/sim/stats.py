"""Statistics of a simulation run: latency distribution and accepted throughput."""

import numpy as np


__all__ = ["latency_stats", "throughput"]


def latency_stats(latencies, percentiles=(50, 90, 99)):
    """Mean, percentiles (nearest-rank, ``p50`` ...) and maximum of ``latencies``
    (cycles); None values when there are none."""
    a = np.asarray(list(latencies), dtype=np.float64)
    out = {"avg_latency": None, "max_latency": None}
    for p in percentiles:
        out[f"p{p}_latency"] = None
    if not len(a):
        return out
    out["avg_latency"] = float(a.mean())
    out["max_latency"] = int(a.max())
    s = np.sort(a)
    for p in percentiles:
        rank = max(1, int(np.ceil(p / 100 * len(s))))
        out[f"p{p}_latency"] = int(s[rank - 1])
    return out


def throughput(flits, nodes, cycles):
    """Accepted throughput: flits per node per cycle (0 for an empty window)."""
    if cycles <= 0 or nodes <= 0:
        return 0.0
    return flits / (nodes * cycles)
