"""Latency-throughput curves: the self-checking fabric at a range of offered loads.

:func:`sweep_runs` runs :func:`~cubefab.sim.selfcheck_run.run_selfcheck` once per
point - offered load x curve (a template run) x seed - as ``dask.distributed`` tasks when
given a client (:func:`cubefab.cluster.open_client`), else one after another in this
process; the results are the same either way. A Verilator model is built once on the
client before any task is submitted; workers find it in the on-disk cache (keyed by
the design), and a worker on another machine whose cache lacks it builds it once, under
a file lock (:meth:`~cubefab.tools.verilator.VerilatorModel.build`). Each curve is
set beside the channel-load bound of the same topology, routing and traffic
(:mod:`cubefab.sim.channel_load`). :func:`sweep_curves` describes the curves by flat
keywords, one per routing algorithm.

With ``seeds=N`` every point runs ``N`` seeds (:func:`derive_seeds`) and reports the
mean of each figure with a 95 % Student-t confidence interval (:func:`mean_ci95`).

A curve saturates at the first offered load whose accepted throughput falls below
``0.95 x`` offered or whose latency exceeds three times the zero-load latency (the
lowest load's); its saturation throughput is then the largest accepted throughput
measured. A curve that does neither has no saturation throughput (``None``): it is
reported as not saturated, with its highest accepted throughput.
"""

import csv
import dataclasses
import io
import math

from ..topology.base import check_int
from .channel_load import channel_load_bound, waypoint_channel_load_bound
from .run_spec import Engine, Faults, Schedule, SelfCheckRun
from .selfcheck_run import CHECKS, run_selfcheck


__all__ = ["TIMING_KEYS", "parse_rates", "derive_seeds", "t_quantile_975", "mean_ci95",
           "saturation", "sweep", "sweep_curves", "sweep_runs", "sweep_csv"]

#: Keys of a run's result that measure the host, not the network: they differ between
#: runs of the same point (everything else is identical for the same seed).
TIMING_KEYS = ("seconds", "cpu_seconds", "build_seconds", "threads", "cycles_per_second",
               "router_cycles_per_second", "router_cycles_per_cpu_second")

#: Figures of a point averaged over its seeds, each with a 95 % confidence interval.
SEED_FIGURES = ("offered", "injection_rate", "throughput", "avg_latency")

#: Times a task is run again after it raised (a task whose worker died is re-run by
#: Dask's scheduler without counting against this).
TASK_RETRIES = 2


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


def _splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return x ^ (x >> 31)


def derive_seeds(seed, count):
    """The ``count`` run seeds of a point for the base ``seed``: ``seed`` itself first
    (so one seed is the run ``cubefab sim --seed SEED`` makes), then 32-bit splitmix64
    hashes of ``(seed, i)``, which share no bit pattern with ``seed`` (neighbouring
    seeds would start the nodes' xorshift generators in correlated states)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 1 << 32:
        raise ValueError(f"Seed must be an integer in [0, 2**32), not {seed!r}")
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ValueError(f"Seed count must be a positive integer, not {count!r}")
    seeds = [seed]
    i = 0
    while len(seeds) < count:
        i += 1
        derived = _splitmix64((seed << 32) | i) & 0xFFFFFFFF
        if derived not in seeds:
            seeds.append(derived)
    return seeds


def _t_two_sided(t, df):
    """P(|T| < t) for Student's t with integer ``df`` degrees of freedom (exact finite
    series, Abramowitz and Stegun 26.7.3-4)."""
    theta = math.atan(t / math.sqrt(df))
    s, c2 = math.sin(theta), math.cos(theta) ** 2
    if df % 2:
        term, total = 1.0, 0.0
        if df > 1:
            term = math.cos(theta)
            total = term
            for j in range(3, df - 1, 2):
                term *= c2 * (j - 1) / j
                total += term
        return 2 / math.pi * (theta + s * total) if df > 1 else 2 / math.pi * theta
    term = total = 1.0
    for j in range(2, df - 1, 2):
        term *= c2 * (j - 1) / j
        total += term
    return s * total


def t_quantile_975(df):
    """The 97.5 % quantile of Student's t with ``df`` degrees of freedom (the factor
    of a two-sided 95 % confidence interval), by bisection of the exact CDF."""
    if isinstance(df, bool) or not isinstance(df, int) or df < 1:
        raise ValueError(f"Degrees of freedom must be a positive integer, not {df!r}")
    lo, hi = 0.0, 20.0
    while _t_two_sided(hi, df) < 0.95:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if _t_two_sided(mid, df) < 0.95:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12:
            break
    return (lo + hi) / 2


def mean_ci95(values):
    """``(mean, [low, high])`` of ``values`` with the 95 % Student-t confidence interval
    of the mean; the interval is None for fewer than two values, and both are None
    when ``values`` holds a None (a figure a run could not measure)."""
    values = list(values)
    if not values or any(v is None for v in values):
        return None, None
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, None
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = t_quantile_975(n - 1) * sd / math.sqrt(n)
    return mean, [mean - half, mean + half]


def saturation(points):
    """``(saturation_throughput, saturation_offered)`` of a curve (see module doc); both
    are None when the curve never saturates."""
    done = [p for p in points if p["throughput"] is not None]
    if not done:
        return None, None
    best = max(p["throughput"] for p in done)
    zero_load = done[0]["avg_latency"]
    for p in sorted(done, key=lambda p: p["offered"]):
        if p["throughput"] < 0.95 * p["offered"] or (
                zero_load and p["avg_latency"] and p["avg_latency"] > 3 * zero_load):
            return best, p["rate"]
    return None, None


def _run_point(run):
    """One task: a self-checking run (module level, so workers import it by name)."""
    return run_selfcheck(run)


def _point(runs):
    """A curve's point from the runs of its seeds: the run itself for one seed, else
    the mean of :data:`SEED_FIGURES` with 95 % intervals, the error counts summed, and
    the runs."""
    first = runs[0]
    if len(runs) == 1:
        return {**first, "seeds": [first["seed"]]}
    point = {"rate": first["rate"], "seeds": [r["seed"] for r in runs]}
    for key in SEED_FIGURES:
        point[key], point[key + "_ci95"] = mean_ci95(r[key] for r in runs)
    for key in ("errors", "checker_errors") + CHECKS:
        point[key] = sum(r[key] for r in runs)
    point["ok"] = all(r["ok"] for r in runs)
    point["window_cycles"] = first["window_cycles"]
    point["seconds"] = round(sum(r["seconds"] for r in runs), 3)
    point["runs"] = runs
    return point


def sweep(topology, rates, *, algorithm=None, **options):
    """One curve: :func:`sweep_curves` with one routing ``algorithm``."""
    return sweep_curves(topology, rates, algorithms=[algorithm], **options)[0]


def sweep_curves(topology, rates, *, algorithms=(None,), traffic="uniform",
                 engine="verilator", cycles=2000, warmup=500, seed=1, seeds=1, client=None,
                 progress=None, build_progress=None, opt="-O2", fault_counts=None,
                 **hardware):
    """:func:`sweep_runs` of runs described by flat keywords (for scripts and tests):
    one curve per routing algorithm.

    Parameters
    ----------
    topology : Topology
    rates : list of float
        Offered loads, flits per node per cycle (each run once).
    algorithms : sequence of str, None or (str or None, int)
        Routing algorithms, one curve each (None: the topology's first; each once); a
        pair ``(algorithm, adaptive_vcs)`` runs that algorithm with that
        ``adaptive_vcs`` (0: deterministic) instead of ``hardware``'s, so deterministic
        and adaptive curves can stand side by side.
    traffic, **hardware
        Pattern and :meth:`~cubefab.hdl.selfcheck.SelfCheckConfig.of` keywords (and
        ``hotspot_fraction``); the
        router defaults to :data:`~cubefab.hdl.config.SIMULATION_DEFAULTS`, as every
        run's.
    engine : str
        ``"verilator"`` or ``"amaranth"``.
    cycles, warmup : int
        Per run.
    seed : int
        Base seed (:func:`sweep_runs`).
    fault_counts : iterable of int, optional
        As :func:`sweep_runs`; the routers are fault-tolerant (``fault_waypoints`` in
        ``hardware``, default :data:`~cubefab.topology.fault_routing.DEFAULT_WAYPOINTS`).
    seeds, client, progress, build_progress
        As :func:`sweep_runs`.

    Returns
    -------
    list of dict
        :func:`sweep_runs`'s curves.
    """
    hotspot_fraction = hardware.pop("hotspot_fraction", 0.1)
    adaptive = hardware.pop("adaptive_vcs", 0)
    algorithms = list(dict.fromkeys(
        (topology.check_algorithm(a[0]), a[1]) if isinstance(a, tuple)
        else (topology.check_algorithm(a), adaptive) for a in algorithms))
    if fault_counts is not None:
        from ..topology.fault_routing import DEFAULT_WAYPOINTS
        hardware.setdefault("fault_waypoints", DEFAULT_WAYPOINTS)
    runs = [SelfCheckRun.of(topology, engine=engine, opt=opt, cycles=cycles, warmup=warmup,
                            seed=seed, hotspot_fraction=hotspot_fraction, pattern=traffic,
                            algorithm=a, adaptive_vcs=v, **hardware) for a, v in algorithms]
    return sweep_runs(runs, rates, seeds=seeds, fault_counts=fault_counts, client=client,
                      progress=progress, build_progress=build_progress)


def sweep_runs(runs, rates, *, seeds=1, fault_counts=None, client=None, progress=None,
               build_progress=None):
    """Run the self-checking fabric at every point: offered load x curve x seed.

    Parameters
    ----------
    runs : sequence of SelfCheckRun
        One curve each (:class:`~cubefab.sim.run_spec.SelfCheckRun`, a template: every
        point of its curve is this run at the point's offered load and seed), of one or
        more topologies (the points of all run as one set of tasks) and one base seed
        (the stimulus's ``seed``); the design is checked once per curve.
    rates : list of float
        Offered loads, flits per node per cycle (each run once).
    seeds : int
        Seeds per point, derived from the base seed (:func:`derive_seeds`).
    fault_counts : iterable of int, optional
        For runs of fault-tolerant routers (``fault_waypoints``): one curve per run and
        count, under a random fault set of that many faulty nodes and links
        (:func:`~cubefab.topology.fault_routing.random_fault_sets` of the run's
        topology, drawn from the base seed and the count; the same set at every point
        of the curve). The curve names
        its fault set (``faults``, ``faulty_nodes``, ``faulty_links``); its
        channel-load bound is that of the fault set's waypoint routes
        (:func:`~cubefab.sim.channel_load.waypoint_channel_load_bound`).
    client : dask.distributed.Client, optional
        Run the points as tasks on its cluster (Verilator runs on one thread each);
        None runs them here, one by one.
    progress : callable, optional
        ``progress(done, total)`` over points (runs).
    build_progress : callable, optional
        ``build_progress(stage)`` while a Verilator model is built.

    Returns
    -------
    list of dict
        One curve per run (and fault count), in the order of ``runs``: ``topology``,
        ``traffic``, ``packet_flits``, ``algorithm``, ``adaptive_vcs``, ``engine``,
        ``cycles``, ``warmup``, ``seed``, ``seeds``,
        ``points`` (by rate;
        :func:`_point` of its runs), ``bound`` (the :func:`channel_load_bound`
        result), ``saturated``, ``saturation_throughput`` and ``saturation_rate``
        (None when not saturated), ``max_throughput``, ``fraction_of_bound``
        (saturation throughput / bound, or None) and ``ok`` (no run found an error).

    Raises
    ------
    ValueError
        Runs of several base seeds, or fault counts for routers that are not
        fault-tolerant.
    """
    templates = [_sweep_template(run, client) for run in runs]
    if not templates:
        raise ValueError("A sweep needs at least one run")
    seed = templates[0].stimulus.seed
    if any(t.stimulus.seed != seed for t in templates):
        raise ValueError("The runs of a sweep must share their base seed")
    seed_list = derive_seeds(seed, seeds)
    rates = sorted(set(rates))
    by_topology = {}
    for t in templates:
        by_topology.setdefault(t.topology, []).append(t)
    faults_of = {topology: _fault_sets(group, fault_counts)
                 for topology, group in by_topology.items()}
    fault_sets = [faults_of[t.topology] for t in templates]   # per template
    curves = [(t, f) for t in range(len(templates)) for f in range(len(fault_sets[t]))]
    tasks = [(c, r, s) for c in curves for r in rates for s in seed_list]
    options = [templates[t].replace(
        stimulus=dataclasses.replace(templates[t].stimulus, rate=r, seed=s),
        faults=Faults(**fault_sets[t][f][1])) for (t, f), r, s in tasks]
    for template in templates:   # build each Verilator model here, before any task runs
        if template.engine.name == "verilator":
            run_selfcheck(template.replace(schedule=Schedule(1), engine=dataclasses.replace(
                template.engine, threads=1)), build_progress=build_progress)
    by_task = dict(zip(tasks, _run_points(options, client, progress)))
    return [dict(_curve(templates[t], seed, seed_list,
                        [_point([by_task[(t, f), r, s] for s in seed_list]) for r in rates],
                        Faults(**fault_sets[t][f][1]) if fault_sets[t][f][1] else None),
                 **fault_sets[t][f][0])
            for t, f in curves]


def _sweep_template(run, client):
    """``run`` as a sweep's template: on one thread when its Verilator tasks share a
    cluster's CPUs."""
    if not isinstance(run, SelfCheckRun):
        raise TypeError(f"A sweep's runs must be SelfCheckRuns, not {run!r}")
    if client is not None and run.engine.name == "verilator":
        return run.replace(engine=dataclasses.replace(run.engine, threads=1))
    return run


def _run_points(options, client, progress):
    """The results of the runs ``options``, in order: on ``client``'s cluster, else one
    after another here."""
    if client is not None:
        from ..cluster import gather_as_completed
        futures = [client.submit(_run_point, o, pure=False, retries=TASK_RETRIES)
                   for o in options]
        return gather_as_completed(client, futures, progress)
    runs = []
    for o in options:
        runs.append(_run_point(o))
        if progress:
            progress(len(runs), len(options))
    return runs


def _fault_sets(templates, counts):
    """``[(what the curve says, fault options)]`` of ``templates`` (runs of one
    topology): one entry without ``counts`` (no faults), else one random fault set per
    count (ValueError for routers that are not fault-tolerant)."""
    if counts is None:
        return [({}, {})]
    from ..topology.fault_routing import fault_elements, random_fault_sets
    for template in templates:
        if not template.design.router.fault_waypoints:
            raise ValueError("Fault counts need fault-tolerant routers (fault_waypoints "
                             "of at least 1)")
    topology, seed = templates[0].topology, templates[0].stimulus.seed
    out = []
    for count in counts:
        check_int("Fault count", count, 0, len(fault_elements(topology)))
        faults = next(random_fault_sets(topology, 1, count, seed=seed + 7919 * count))
        out.append(({"faults": count, "faulty_nodes": list(faults.nodes),
                     "faulty_links": [list(x) for x in faults.links]},
                    {"nodes": faults.nodes, "links": faults.links}))
    return out


def _curve(run, seed, seed_list, points, faults):
    """The curve of ``points``, the runs of ``run`` (its template) at each rate, under
    ``faults`` (a :class:`~cubefab.sim.run_spec.Faults`; None: fault-free routers)."""
    topology, router, traffic = run.topology, run.design.router, run.design.pattern
    algorithm, adaptive_vcs = router.algorithm, router.adaptive_vcs
    pattern = dict(hotspot=run.design.hotspot_given,
                   hotspot_fraction=run.stimulus.hotspot_fraction)
    if faults is not None:   # the waypoint routes of its fault set (even an empty one)
        from ..topology.fault_routing import FaultSet, plan_waypoints
        plan = plan_waypoints(topology, FaultSet(topology, faults.nodes, faults.links),
                              router.fault_waypoints, algorithm)
        bound = waypoint_channel_load_bound(plan, traffic, **pattern)
    else:
        bound = channel_load_bound(topology, traffic, algorithm, **pattern)
    sat, sat_rate = saturation(points)
    measured = [p["throughput"] for p in points if p["throughput"] is not None]
    limit = bound["saturation_bound"]
    return {
        "topology": topology.label, "traffic": traffic,
        "packet_flits": run.design.fmt.packet_flits, "algorithm": algorithm,
        "adaptive_vcs": adaptive_vcs, "engine": run.engine.name,
        "cycles": run.schedule.cycles, "warmup": run.schedule.warmup, "seed": seed,
        "seeds": seed_list, "points": points, "bound": bound,
        "saturated": sat_rate is not None, "saturation_throughput": sat,
        "saturation_rate": sat_rate, "max_throughput": max(measured) if measured else None,
        "fraction_of_bound": (sat / limit) if sat is not None and limit else None,
        "ok": all(p["errors"] == 0 for p in points),
        "router": router.as_dict(),
    }


_CSV_FIELDS = ("network", "topology", "traffic", "algorithm", "rate", "offered", "injection_rate",
               "throughput", "avg_latency", "errors", "window_cycles", "seconds")


def sweep_csv(results):
    """CSV text of the points of one or more curves: one row per point, with the number
    of seeds and the 95 % intervals of throughput and latency (empty for one seed). The
    ``network`` column is a curve's ``network`` (the name its caller gave it, e.g.
    ``hypercube:n=6``), else its topology's label."""
    out = io.StringIO()
    writer = csv.writer(out)
    faulty = any("faults" in r for r in results)   # (a column only for fault curves)
    writer.writerow(_CSV_FIELDS + ("seeds", "throughput_ci95_low", "throughput_ci95_high",
                                   "avg_latency_ci95_low", "avg_latency_ci95_high",
                                   "channel_load_bound", "adaptive_vcs")
                    + (("faults",) if faulty else ()))
    for result in results:
        for p in result["points"]:
            row = [result.get("network", result["topology"]) if k == "network"
                   else result.get(k) if k in ("topology", "traffic", "algorithm") else p[k]
                   for k in _CSV_FIELDS]
            row.append(len(p["seeds"]))
            for key in ("throughput_ci95", "avg_latency_ci95"):
                row += p.get(key) or ["", ""]
            writer.writerow(row + [result["bound"]["saturation_bound"],
                                   result.get("adaptive_vcs", 0)]
                            + ([result.get("faults", 0)] if faulty else []))
    return out.getvalue()
