"""Run the self-checking fabric in an engine and turn its counters into statistics.

The same :class:`~cubefab.hdl.selfcheck.SelfCheckingFabric` runs in Amaranth's
simulator (``engine="amaranth"``) or compiled by Verilator (``"verilator"``,
:mod:`cubefab.sim.verilator_engine`), under the same schedule: ``warmup`` cycles,
then ``cycles`` measured cycles, then up to ``drain`` cycles with injection off
(ending as soon as every packet created has arrived). The
counters are read after the warm-up and after the measurement window (the window's
statistics are the differences) and at the end (every packet created must by then
have been delivered, when the drain is long enough). Both engines give identical
counters for the same configuration and seed.
"""

import os
import resource
import time

from ..hdl.selfcheck import COUNTERS, SelfCheckingFabric
from ..hdl.traffic_gen import RATE_BITS, rate_threshold
from ..topology.base import Topology, check_int
from ..topology.deadlock import required_vcs


__all__ = ["ENGINES", "selfcheck_config", "default_threads", "verilator_model",
           "run_selfcheck", "run_verilator", "statistics", "SelfCheckResult", "VerilatorEngine"]


ENGINES = ("amaranth", "verilator")

def selfcheck_config(topology, *, pattern="uniform", packet_flits=1, payload_width=32,
                     vcs=None, depth=4, algorithm=None, hotspot=None, queue_depth=16,
                     vcs_per_class=1):
    """The hardware configuration (a JSON-able dict; the Verilator cache key)."""
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    algorithm = topology.check_algorithm(algorithm)
    if vcs is None:
        vcs = required_vcs(topology, algorithm) * vcs_per_class
    return {"design": "SelfCheckingFabric", "family": topology.name,
            "params": dict(topology.params), "pattern": pattern,
            "packet_flits": packet_flits, "payload_width": payload_width, "vcs": vcs,
            "depth": depth, "algorithm": algorithm, "vcs_per_class": vcs_per_class,
            "hotspot": hotspot, "queue_depth": queue_depth}


def _design(topology, config):
    hw = {k: v for k, v in config.items() if k not in ("design", "family", "params")}
    return SelfCheckingFabric(topology, **hw)


def default_threads(topology):
    """Threads of a Verilator run of ``topology``'s fabric: one per 256 nodes, at most
    the CPUs this process may use."""
    cpus = (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
            else os.cpu_count() or 1)
    return max(1, min(cpus, topology.num_nodes // 256))


def verilator_model(topology, config, opt="-O2", threads=1):
    """The (cached) :class:`~cubefab.sim.verilator_fabric.VerilatorFabricModel` of a
    :func:`selfcheck_config`: one compiled address-strapped node, run once per node
    by a C++ netlist (on ``threads`` threads), so build time and code size do not grow
    with the fabric."""
    from .verilator_fabric import VerilatorFabricModel
    return VerilatorFabricModel(lambda: _design(topology, config), config, opt=opt,
                                threads=threads)


def statistics(topology, packet_flits, window, start, end, final, drain):
    """Statistics of a run from counter snapshots (after warm-up, after the window,
    at the end)."""
    n = topology.num_nodes
    d = {k: end[k] - start[k] for k in end}
    buckets = sorted((int(k[5:]), v) for k, v in d.items() if k.startswith("hist_"))
    hist = [v for _, v in buckets]
    per = n * window if window else 0

    def rate(flits):
        return flits / per if per else None

    def percentile(p):
        total = sum(hist)
        if not total:
            return None
        seen = 0
        for b, count in enumerate(hist):
            seen += count
            if seen * 100 >= p * total:
                return [0 if b == 0 else 1 << b, (1 << (b + 1)) - 1]
        return None  # pragma: no cover

    undelivered = final["created"] - final["delivered"]
    return {
        "nodes": n,
        "window_cycles": window,
        "offered": rate((d["created"] + d["refused"]) * packet_flits),
        "injection_rate": rate(d["injected_flits"]),
        "throughput": rate(d["delivered_flits"]),
        "avg_latency": d["latency_sum"] / d["delivered"] if d["delivered"] else None,
        "latency_p50_range": percentile(50),
        "latency_p99_range": percentile(99),
        "latency_histogram": hist,
        "window": {k: d[k] for k in COUNTERS if k != "cycles"},
        "created": final["created"],
        "refused": final["refused"],
        "injected": final["injected"],
        "delivered": final["delivered"],
        "errors": final["errors"],
        "undelivered": undelivered,
        "drained": drain > 0 and undelivered == 0,
        "ok": final["errors"] == 0 and (drain == 0 or undelivered == 0),
    }


def _check_run(rate, cycles, warmup, drain, seed, hotspot_fraction):
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
        raise ValueError(f"Injection rate must be a number in [0, 1], not {rate!r}")
    check_int("Cycles", cycles, 1)
    check_int("Warm-up cycles", warmup, 0)
    check_int("Drain cycles", drain, 0)
    check_int("Seed", seed, 0, (1 << 32) - 1)
    if isinstance(hotspot_fraction, bool) or not isinstance(hotspot_fraction, (int, float)) \
            or not 0 <= hotspot_fraction < 1:
        raise ValueError(f"Hotspot fraction must be a number in [0, 1), "
                         f"not {hotspot_fraction!r}")


def run_selfcheck(topology, *, engine="verilator", rate=0.1, cycles=1000, warmup=0,
                  drain=0, seed=1, hotspot_fraction=0.1, progress=None, build_progress=None,
                  opt="-O2", threads=None, **hardware):
    """Simulate the self-checking fabric and return its statistics.

    Parameters
    ----------
    topology : Topology
    engine : str
        ``"amaranth"`` or ``"verilator"``.
    rate : float
        Offered load, flits per node per cycle; each node creates a packet with
        probability ``rate / packet_flits`` per cycle (quantised to 1/65536).
    cycles, warmup, drain : int
        Measured cycles, cycles before them, and at most ``drain`` cycles after them
        with injection off (the run ends as soon as every packet created has arrived).
    seed : int
        32-bit run seed.
    hotspot_fraction : float
        For ``hotspot`` traffic: share of packets sent to the hot node.
    progress : callable, optional
        ``progress(cycle, total_cycles)`` as the run goes.
    build_progress : callable, optional
        ``build_progress(stage)`` while a Verilator build runs.
    opt : str
        C++ optimisation of a Verilator build.
    threads : int, optional
        Threads of a Verilator run (default :func:`default_threads`); results do not
        depend on it.
    **hardware
        :func:`selfcheck_config` keywords (pattern, packet_flits, payload_width, vcs,
        depth, algorithm, hotspot, queue_depth).

    Returns
    -------
    dict
        :func:`statistics` plus ``engine``, ``rate``, ``seed``, ``cycles``, ``warmup``,
        ``drain`` (the limit), ``drain_cycles`` (run: the drain ends once every packet
        created has arrived), ``simulated_cycles``, ``topology``, the configuration,
        ``seconds`` (simulation only),
        ``build_seconds``, ``cpu_seconds``, ``threads``, ``cycles_per_second``,
        ``router_cycles_per_second`` and ``router_cycles_per_cpu_second``.
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    _check_run(rate, cycles, warmup, drain, seed, hotspot_fraction)
    config = selfcheck_config(topology, **hardware)
    packet_flits = config["packet_flits"]
    inputs = {"seed": seed, "threshold": rate_threshold(rate / packet_flits),
              "hot_threshold": min((1 << RATE_BITS) - 1,
                                   int(round(hotspot_fraction * (1 << RATE_BITS))))}
    total = warmup + cycles + drain
    marks = [warmup, warmup + cycles]
    if engine == "amaranth":
        threads = 1
        run = _run_amaranth(topology, config, inputs, total, marks, progress)
    else:
        threads = default_threads(topology) if threads is None else threads
        run = _run_verilator(topology, config, inputs, total, marks, progress,
                             build_progress, opt, threads)
    snapshots, final, seconds, cpu_seconds, build_seconds = run
    result = {"topology": topology.label, "engine": engine, "rate": rate, "seed": seed,
              "cycles": cycles, "warmup": warmup, "drain": drain,
              "hotspot_fraction": hotspot_fraction}
    result.update({k: v for k, v in config.items() if k not in ("design",)})
    result.update(statistics(topology, packet_flits, cycles, snapshots[warmup],
                             snapshots[warmup + cycles], final, drain))
    result["seconds"] = round(seconds, 3)
    result["cpu_seconds"] = round(cpu_seconds, 3)
    result["build_seconds"] = round(build_seconds, 3)
    result["threads"] = threads
    ran = final["cycles"]   # the drain ends early once every packet has arrived
    result["simulated_cycles"] = ran
    result["drain_cycles"] = ran - warmup - cycles
    result["cycles_per_second"] = ran / seconds if seconds > 0 else None
    result["router_cycles_per_second"] = (ran * topology.num_nodes / seconds
                                          if seconds > 0 else None)
    result["router_cycles_per_cpu_second"] = (ran * topology.num_nodes / cpu_seconds
                                              if cpu_seconds > 0 else None)
    return result


def run_verilator(topology, **options):
    """:func:`run_selfcheck` with ``engine="verilator"``."""
    return run_selfcheck(topology, engine="verilator", **options)


def _run_verilator(topology, config, inputs, total, marks, progress, build_progress, opt,
                   threads):
    model = verilator_model(topology, config, opt, threads)
    start = time.monotonic()
    model.build(progress=build_progress)
    build_seconds = time.monotonic() - start
    snapshots = {}

    def report(cycle, values):
        if cycle in marks:
            snapshots[cycle] = values
        if progress:
            progress(cycle, total)

    start, cpu = time.monotonic(), _children_cpu()
    final = model.run(total, inputs=inputs, schedule=[(marks[1], {"threshold": 0})],
                      report_at=[c for c in marks if 0 < c < total], progress=report,
                      stop_when_drained=_drain_stop(marks, total))
    seconds, cpu = time.monotonic() - start, _children_cpu() - cpu
    for c in marks:
        if c == total:
            snapshots[c] = final
        elif c == 0:
            snapshots[c] = {k: 0 for k in final}
    return snapshots, final, seconds, cpu, build_seconds


def _drain_stop(marks, total):
    """First cycle at which a run may end early, once every packet has arrived (the
    drain is a limit): the cycle after injection stops, or None without a drain."""
    return marks[1] + 1 if marks[1] < total else None


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run_amaranth(topology, config, inputs, total, marks, progress):
    from amaranth.sim import Simulator
    dut = _design(topology, config)
    names = [name for name, member in dut.signature.members.items()
             if member.flow.name == "Out"]
    snapshots = {}
    state = {}

    def read(ctx):
        return {name: ctx.get(getattr(dut, name)) for name in names}

    async def bench(ctx):
        for name, value in inputs.items():
            ctx.set(getattr(dut, name), value)
        done = 0
        stops = sorted(set(marks + [total]))
        step = max(1, total // 100)
        for stop in stops:
            while done < stop:
                chunk = min(step, stop - done)
                await ctx.tick().repeat(chunk)
                done += chunk
                if progress:
                    progress(done, total)
            if stop in marks:
                snapshots[stop] = read(ctx)
            if stop == marks[1]:
                ctx.set(dut.threshold, 0)
                break
        # the drain, cycle by cycle: it ends once every packet created has arrived
        first = _drain_stop(marks, total)
        while done < total:
            await ctx.tick()
            done += 1
            if progress and (done % step == 0 or done == total):
                progress(done, total)
            if done >= first and ctx.get(dut.created) == ctx.get(dut.delivered):
                break
        state["final"] = read(ctx)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    start, cpu = time.monotonic(), time.process_time()
    sim.run()
    return (snapshots, state["final"], time.monotonic() - start, time.process_time() - cpu,
            0.0)


class SelfCheckResult:
    """A :func:`run_selfcheck` result in the shape ``cubefab sim`` prints
    (:class:`~cubefab.sim.result.SimResult`'s keys; what the hardware counters cannot
    tell apart, e.g. lost from duplicated packets, is None, and ``checker_errors``
    counts every packet a checker rejected)."""

    def __init__(self, stats):
        self.stats = stats
        self.stalled = stats["drain"] > 0 and stats["undelivered"] > 0
        self.ok = stats["ok"] and not self.stalled

    def as_dict(self):
        s = self.stats
        doc = {k: s[k] for k in ("topology", "engine", "pattern", "rate", "packet_flits",
                                 "seed", "algorithm", "vcs", "depth", "payload_width",
                                 "cycles", "created", "injected", "delivered")}
        doc["traffic"] = doc.pop("pattern")
        doc.update({
            "drain_cycles": s["drain_cycles"], "simulated_cycles": s["simulated_cycles"],
            "pending": s["undelivered"], "lost": 0 if s["undelivered"] == 0 else None,
            "duplicated": None, "corrupted": None, "misrouted": None, "reordered": None,
            "hop_mismatches": None, "vc_mismatches": None,
            "checker_errors": s["errors"],
            "avg_latency": s["avg_latency"], "p50_latency": None, "p99_latency": None,
            "max_latency": None, "latency_p50_range": s["latency_p50_range"],
            "latency_p99_range": s["latency_p99_range"],
            "latency_histogram": s["latency_histogram"],
            "avg_network_latency": None, "avg_hops": None,
            "offered": s["offered"], "injection_rate": s["injection_rate"],
            "throughput": s["throughput"], "stalled": self.stalled, "ok": self.ok,
            "errors": ([f"{s['errors']} packets failed the hardware checks"]
                       if s["errors"] else [])
                      + ([f"{s['undelivered']} packets undelivered after the drain"]
                         if self.stalled else []),
            "seconds": s["seconds"], "build_seconds": s["build_seconds"],
            "cycles_per_second": s["cycles_per_second"],
            "router_cycles_per_second": s["router_cycles_per_second"],
        })
        return doc


class VerilatorEngine:
    """``cubefab sim --engine verilator``: the self-checking fabric compiled by
    Verilator, driven by the traffic's settings (pattern, rate, packet length, seed,
    hotspot); its hardware generators draw their own random numbers, so the packets
    differ from the ``amaranth`` engine's Python traffic (compare engines with
    :func:`run_selfcheck`, which runs the same hardware in both)."""

    def __init__(self, topology, *, payload_width=32, vcs=None, depth=4, algorithm=None,
                 vcs_per_class=1, trace_hops=False, vcd=None):
        if vcd is not None:
            raise ValueError("the verilator engine writes no VCD; use --engine amaranth")
        self.topology = topology
        # The self-checking packet format needs 24 payload bits (timestamp, sequence).
        self.hardware = {"payload_width": max(32, payload_width), "vcs": vcs,
                         "depth": depth, "algorithm": algorithm,
                         "vcs_per_class": vcs_per_class}

    def run(self, traffic, cycles, *, drain=None, watchdog=None, stall=None, packets=None,
            progress=None):
        if packets is not None:
            raise ValueError("the verilator engine generates its packets in hardware")
        if traffic.pattern == "hotspot" and not hasattr(traffic, "hotspot_fraction"):
            raise ValueError("the verilator engine cannot read this traffic's hotspot "
                             "settings; use cubefab sweep --traffic hotspot")
        drain = 20 * self.topology.num_nodes + 2000 if drain is None else drain
        total = cycles + drain
        stats = run_selfcheck(
            self.topology, engine="verilator", rate=traffic.rate, cycles=cycles,
            warmup=0, drain=drain, seed=traffic.seed,
            hotspot_fraction=getattr(traffic, "hotspot_fraction", 0.1),
            pattern=traffic.pattern, packet_flits=traffic.packet_flits,
            hotspot=getattr(traffic, "hotspot", None),
            progress=(lambda done, _total: progress(done, total)) if progress else None,
            **self.hardware)
        return SelfCheckResult(stats)
