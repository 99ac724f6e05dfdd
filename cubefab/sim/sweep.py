"""Latency-throughput curves: the self-checking fabric at a range of offered loads.

:func:`sweep` runs :func:`~cubefab.sim.selfcheck_run.run_selfcheck` once per
offered load (in parallel processes; a Verilator model is built once, before the
runs, and shared through its cache), and sets the curve beside the channel-load
bound of the same topology, routing and traffic (:mod:`cubefab.sim.channel_load`).

Saturation throughput is the largest accepted throughput measured; the saturation
point is the first offered load whose accepted throughput falls below
``0.95 x`` offered or whose latency exceeds three times the zero-load latency
(the lowest load's).
"""

import concurrent.futures
import csv
import io

from .channel_load import channel_load_bound
from .selfcheck_run import run_selfcheck, selfcheck_config, verilator_model


__all__ = ["parse_rates", "sweep", "saturation", "sweep_csv", "plot_sweep"]


def parse_rates(text):
    """Offered loads from ``a:b:step`` (inclusive of ``b``) or ``r1,r2,...``."""
    try:
        if ":" in text:
            parts = [float(p) for p in text.split(":")]
            if len(parts) != 3:
                raise ValueError
            start, stop, step = parts
            if step <= 0 or stop < start:
                raise ValueError
            count = int(round((stop - start) / step)) + 1
            rates = [round(start + i * step, 10) for i in range(count)]
            rates = [r for r in rates if r <= stop + 1e-9]
        else:
            rates = [float(p) for p in text.split(",")]
    except ValueError:
        raise ValueError(f"rates must be a:b:step (0 < step, a <= b) or a comma list, "
                         f"not {text!r}") from None
    if not rates or any(not 0 < r <= 1 for r in rates):
        raise ValueError(f"rates must lie in (0, 1], not {text!r}")
    return rates


def saturation(points):
    """``(saturation_throughput, saturation_offered)`` of a curve (see module doc);
    ``saturation_offered`` is None when the curve never saturates."""
    done = [p for p in points if p["throughput"] is not None]
    if not done:
        return None, None
    best = max(p["throughput"] for p in done)
    zero_load = done[0]["avg_latency"]
    for p in sorted(done, key=lambda p: p["offered"]):
        if p["throughput"] < 0.95 * p["offered"] or (
                zero_load and p["avg_latency"] and p["avg_latency"] > 3 * zero_load):
            return best, p["rate"]
    return best, None


def _one(args):
    topology, rate, options = args
    return run_selfcheck(topology, rate=rate, **options)


def sweep(topology, rates, *, traffic="uniform", engine="verilator", algorithm=None,
          cycles=2000, warmup=500, seed=1, jobs=1, progress=None, build_progress=None,
          opt="-O2", **hardware):
    """Run one self-checking simulation per offered load.

    Parameters
    ----------
    topology : Topology
    rates : list of float
        Offered loads, flits per node per cycle.
    traffic, algorithm, **hardware
        Pattern, routing algorithm and :func:`selfcheck_config` keywords (the router
        defaults to :data:`~cubefab.sim.selfcheck_run.DEFAULT_ROUTER`, as every run's).
    engine : str
        ``"verilator"`` or ``"amaranth"``.
    cycles, warmup, seed : int
        Per run.
    jobs : int
        Parallel processes.
    progress : callable, optional
        ``progress(done, total)`` over runs.

    Returns
    -------
    dict
        ``topology``, ``traffic``, ``algorithm``, ``engine``, ``points`` (one
        :func:`run_selfcheck` result per rate, by rate), ``bound`` (the
        :func:`channel_load_bound` result), ``saturation_throughput``,
        ``saturation_rate``, ``fraction_of_bound`` and ``ok`` (no run found an error).
    """
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"Jobs must be a positive integer, not {jobs!r}")
    algorithm = topology.check_algorithm(algorithm)
    hotspot_fraction = hardware.pop("hotspot_fraction", 0.1)
    config = selfcheck_config(topology, pattern=traffic, algorithm=algorithm, **hardware)
    bound = channel_load_bound(topology, traffic, algorithm,
                               hotspot=config["hotspot"], hotspot_fraction=hotspot_fraction)
    options = dict(engine=engine, cycles=cycles, warmup=warmup, drain=0, seed=seed,
                   hotspot_fraction=hotspot_fraction, opt=opt, pattern=traffic,
                   algorithm=algorithm, **hardware)
    if engine == "verilator" and jobs > 1:
        options["threads"] = 1   # the processes share the cores already
    if engine == "verilator":
        verilator_model(topology, config, opt).build(progress=build_progress)
    tasks = [(topology, rate, options) for rate in rates]
    points = []
    if jobs == 1:
        for i, task in enumerate(tasks):
            points.append(_one(task))
            if progress:
                progress(i + 1, len(tasks))
    else:
        with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(_one, task) for task in tasks]
            for i, future in enumerate(concurrent.futures.as_completed(futures)):
                points.append(future.result())
                if progress:
                    progress(i + 1, len(tasks))
    points.sort(key=lambda p: p["rate"])
    best, sat_rate = saturation(points)
    limit = bound["saturation_bound"]
    return {
        "topology": topology.label, "traffic": traffic, "algorithm": algorithm,
        "engine": engine, "cycles": cycles, "warmup": warmup, "seed": seed,
        "points": points, "bound": bound, "saturation_throughput": best,
        "saturation_rate": sat_rate,
        "fraction_of_bound": (best / limit) if best is not None and limit else None,
        "ok": all(p["errors"] == 0 for p in points),
    }


_CSV_FIELDS = ("topology", "traffic", "algorithm", "rate", "offered", "injection_rate",
               "throughput", "avg_latency", "errors", "window_cycles", "seconds")


def sweep_csv(results):
    """CSV text of the points of one or more :func:`sweep` results."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(_CSV_FIELDS + ("channel_load_bound",))
    for result in results:
        for p in result["points"]:
            row = [result.get(k) if k in ("topology", "traffic", "algorithm") else p[k]
                   for k in _CSV_FIELDS]
            writer.writerow(row + [result["bound"]["saturation_bound"]])
    return out.getvalue()


def plot_sweep(results, path):
    """Latency and accepted throughput against offered load, with saturation and the
    channel-load bound marked; writes ``path`` (format from its extension)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax_lat, ax_thr) = plt.subplots(1, 2, figsize=(11, 4.2))
    for i, result in enumerate(results):
        color = f"C{i}"
        label = f"{result['topology']} {result['traffic']} {result['algorithm']}"
        pts = [p for p in result["points"] if p["avg_latency"] is not None]
        ax_lat.plot([p["offered"] for p in pts], [p["avg_latency"] for p in pts], "o-",
                    color=color, label=label)
        ax_thr.plot([p["offered"] for p in result["points"]],
                    [p["throughput"] for p in result["points"]], "o-", color=color,
                    label=label)
        bound = result["bound"]["saturation_bound"]
        for ax in (ax_lat, ax_thr):
            ax.axvline(bound, color=color, linestyle=":", linewidth=1)
        ax_thr.axhline(bound, color=color, linestyle=":", linewidth=1,
                       label=f"channel-load bound {bound:.3f}")
        if result["saturation_throughput"] is not None:
            what = "saturation" if result["saturation_rate"] is not None else "max accepted"
            ax_thr.axhline(result["saturation_throughput"], color=color, linestyle="--",
                           linewidth=1, label=f"{what} {result['saturation_throughput']:.3f}")
        if result["saturation_rate"] is not None:
            ax_lat.axvline(result["saturation_rate"], color=color, linestyle="--",
                           linewidth=1)
    top = max(max(p["offered"] for p in r["points"]) for r in results)
    ax_thr.plot([0, top], [0, top], color="0.7", linewidth=1)
    ax_lat.set(xlabel="offered load (flits/node/cycle)", ylabel="average latency (cycles)",
               title="latency")
    ax_thr.set(xlabel="offered load (flits/node/cycle)",
               ylabel="accepted throughput (flits/node/cycle)", title="throughput")
    ax_lat.set_yscale("log")
    for ax in (ax_lat, ax_thr):
        ax.grid(True, alpha=0.3)
    ax_thr.legend(fontsize=7)
    ax_lat.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
