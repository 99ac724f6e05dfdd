"""Trace-driven runs: a netrace trace's packets through a fabric of routers, closed loop.

:func:`run_trace` injects the packets of a :class:`~cubefab.sim.trace_plan.TracePlan`
into a :class:`~cubefab.hdl.fabric.Fabric` in Amaranth's simulator, each no earlier
than its trace cycle and (closed loop) not before the packets it depends on have been
delivered, and checks every packet delivered (:class:`~cubefab.sim.trace_plan.ClosedLoop`).
:class:`TraceResult` holds each packet's injection and delivery cycles, and gives the
figures of a run (its cycles against the trace's, latencies per packet type) and its
per-packet log.
"""

import csv
import io
import time
from dataclasses import dataclass

import numpy as np
from amaranth.sim import Simulator

from ..hdl.config import FabricConfig
from ..hdl.fabric import Fabric
from ..topology.base import check_int
from .trace_plan import ClosedLoop, TraceCheckError, TracePlan


__all__ = ["ENGINES", "TRACE_LOG_COLUMNS", "TraceResult", "run_trace", "default_limit"]


#: The columns of a run's per-packet log (:meth:`TraceResult.log_csv`): ids, nodes and
#: type names as in the trace, cycles in the trace's numbering.
TRACE_LOG_COLUMNS = ("id", "src", "dst", "type", "flits", "trace_cycle", "inject_cycle",
                     "deliver_cycle")

#: The simulators :func:`run_trace` runs on.
ENGINES = ("amaranth", "verilator")

#: Latency percentiles a run reports per packet type.
PERCENTILES = (50, 90, 99)


def default_limit(plan):
    """Cycles a run of ``plan`` may take by default: ten times the trace's span plus
    10,000 (a fabric that needs more is far slower than the traced system)."""
    return 10 * plan.trace_cycles + 10_000


@dataclass(frozen=True)
class TraceResult:
    """A finished trace-driven run.

    Attributes
    ----------
    plan : TracePlan
    engine : str
    inject_cycle, deliver_cycle : tuple of int
        Per packet of the plan, the run cycle its head entered the fabric and its tail
        left it (run cycle 0 is the plan's ``start``).
    seconds : float or None
        Wall-clock seconds of the run (the Verilator model's build excluded), or
        ``None`` where not measured.
    """

    plan: TracePlan
    engine: str
    inject_cycle: tuple
    deliver_cycle: tuple
    seconds: float = None

    @property
    def cycles_per_second(self):
        """float or None: simulated cycles (to the last delivery) per second of
        :attr:`seconds`."""
        return self.cycles / self.seconds if self.seconds else None

    @property
    def cycles(self):
        """int: cycles to the last delivery."""
        return max(self.deliver_cycle, default=-1) + 1

    def latencies(self):
        """``{type name: array}``: per packet type, the cycles from the moment each
        packet could be injected at the earliest (its trace cycle) to its delivery,
        dependencies and queueing included."""
        out = {}
        for p, done in zip(self.plan.packets, self.deliver_cycle):
            out.setdefault(p.type_name, []).append(done - (p.cycle - self.plan.start))
        return {name: np.array(values) for name, values in sorted(out.items())}

    def doc(self):
        """The run as the ``trace`` of ``--json``: the trace, the packets delivered, the
        cycles to the last delivery against the trace's own and their ratio, and per
        packet type the latency's count, mean, percentiles, maximum and exact
        ``histogram`` (``[[latency, packets], ...]`` by latency); the run's
        ``seconds`` and ``cycles_per_second`` (build excluded)."""
        trace = self.plan.trace
        return {
            "benchmark": trace.benchmark, "region": self.plan.region,
            "dependencies": not self.plan.ignore_dependencies, "engine": self.engine,
            "packets": len(self.plan.packets), "cycles": self.cycles,
            "trace_cycles": self.plan.trace_cycles,
            "ratio": self.cycles / self.plan.trace_cycles if self.plan.trace_cycles
            else None,
            "latency": {name: _stats(values) for name, values in self.latencies().items()},
            "seconds": self.seconds, "cycles_per_second": self.cycles_per_second,
        }

    def log_rows(self):
        """One row per packet, :data:`TRACE_LOG_COLUMNS`, in the plan's order."""
        start = self.plan.start
        return [(p.id, p.trace_src, p.trace_dst, p.type_name, p.flits, p.cycle,
                 start + i, start + d)
                for p, i, d in zip(self.plan.packets, self.inject_cycle, self.deliver_cycle)]

    def log_csv(self):
        """The per-packet log as CSV text with a header row."""
        text = io.StringIO()
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow(TRACE_LOG_COLUMNS)
        writer.writerows(self.log_rows())
        return text.getvalue()


def _stats(values):
    return {"count": int(len(values)), "mean": float(values.mean()),
            **{f"p{q}": float(np.percentile(values, q)) for q in PERCENTILES},
            "max": int(values.max()),
            "histogram": [[int(v), int(c)] for v, c in zip(*np.unique(values,
                                                                     return_counts=True))]}


def _check_router(config):
    """The routers a trace can run on: unicast ones (no replication), without fault
    waypoints (their tables are planned per fault set)."""
    router = config.router
    if router.broadcast or router.fault_waypoints:
        raise ValueError("Trace runs carry unicast packets: routers must not replicate "
                         "or route by fault waypoints")


def run_trace(plan, config, *, engine="amaranth", limit=None, progress=None,
              build_progress=None):
    """Run ``plan`` in a fabric of ``config``.

    Parameters
    ----------
    plan : TracePlan
    config : FabricConfig
        The fabric; its topology and flit layout must be the plan's, its routers
        unicast ones without fault waypoints.
    engine : {"amaranth", "verilator"}
        Amaranth's simulator, or Verilator
        (:class:`~cubefab.sim.verilator_trace.VerilatorTraceFabric`): the same cycles.
    limit : int, optional
        Most cycles (default :func:`default_limit`).
    progress : callable, optional
        ``progress(delivered, total)``, called as packets are delivered (Amaranth's
        simulator only).
    build_progress : callable, optional
        ``build_progress(stage)``, called as each stage of the Verilator model's build
        starts (:meth:`~cubefab.tools.verilator.VerilatorModel.build`; not called when
        the model is found in the cache).

    Returns
    -------
    TraceResult

    Raises
    ------
    TraceCheckError
        When a delivered packet is not one the plan sent there, intact, or packets are
        still undelivered after ``limit`` cycles.
    """
    if not isinstance(plan, TracePlan):
        raise TypeError(f"Plan must be a TracePlan, not {plan!r}")
    if not isinstance(config, FabricConfig):
        raise TypeError(f"Fabric configuration must be a FabricConfig, not {config!r}")
    if config.topology != plan.topology or config.router.layout != plan.layout:
        raise ValueError("The fabric must be the plan's: same topology and flit layout")
    if engine not in ENGINES:
        raise ValueError(f"Engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    _check_router(config)
    limit = default_limit(plan) if limit is None else check_int("Cycle limit", limit, 1)
    if engine == "verilator":
        from .verilator_trace import VerilatorTraceFabric
        fabric = VerilatorTraceFabric(config)
        fabric.build(build_progress)
        start = time.perf_counter()
        inject, deliver = fabric.run(plan, limit=limit)
    else:
        start = time.perf_counter()
        inject, deliver = _run_amaranth(plan, config, limit, progress)
    seconds = time.perf_counter() - start
    lost = [p.id for p, d in zip(plan.packets, deliver) if d is None]
    if lost:
        raise TraceCheckError(f"{len(lost)} of {len(plan.packets)} trace packets were not "
                              f"delivered within {limit} cycles (ids {lost[:8]})")
    return TraceResult(plan, engine, tuple(inject), tuple(deliver), seconds)


def _run_amaranth(plan, config, limit, progress):
    loop = ClosedLoop(plan)
    fabric = Fabric(config)
    sim = Simulator(fabric)
    sim.add_clock(1e-6)
    sim.add_testbench(_bench(fabric, loop, limit, progress))
    sim.run()
    return loop.inject_cycle, loop.deliver_cycle


def _bench(fabric, loop, limit, progress):
    """The testbench: every cycle each node offers its flit, and the flits its ejection
    port delivers are checked (:class:`ClosedLoop`)."""
    nodes = [int(a) for a in fabric.topology.nodes()]
    slot = {node: i for i, node in enumerate(nodes)}

    async def bench(ctx):
        for port in fabric.local_out:
            ctx.set(port.ready, 1)
        reported = 0
        while not loop.done and loop.cycle < limit:
            offers = loop.offer()
            for node, i in slot.items():
                port = fabric.local_in[i]
                ctx.set(port.valid, node in offers)
                if node in offers:
                    ctx.set(port.payload.as_value(), offers[node])
            taken = [node for node in offers if ctx.get(fabric.local_in[slot[node]].ready)]
            out = [(node, ctx.get(fabric.local_out[i].payload.as_value()))
                   for node, i in slot.items() if ctx.get(fabric.local_out[i].valid)]
            await ctx.tick()
            for node in taken:
                loop.accepted(node)
            for node, raw in out:
                loop.ejected(node, raw)
            loop.advance()
            if progress is not None and loop.delivered != reported:
                reported = loop.delivered
                progress(reported, len(loop.plan.packets))

    return bench
