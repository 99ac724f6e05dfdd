"""Run the self-checking fabric in an engine and turn its counters into statistics.

The same :class:`~cubefab.hdl.selfcheck.SelfCheckingFabric` runs in Amaranth's
simulator (``engine="amaranth"``) or compiled by Verilator (``"verilator"``,
:mod:`cubefab.tools.verilator`), under the same schedule: ``warmup`` cycles,
then ``cycles`` measured cycles, then up to ``drain`` cycles with injection off
(ending as soon as every packet created has arrived); a run is a value,
:class:`~cubefab.sim.run_spec.SelfCheckRun`. The
counters are read after the warm-up and after the measurement window (the window's
statistics are the differences) and at the end (every packet created must by then
have been delivered, when the drain is long enough). Both engines give identical
counters for the same configuration and seed.
"""

import os
import resource
import time

from amaranth.hdl import Cat, Elaboratable, Module, Signal

from ..hdl.selfcheck import SelfCheckingFabric
from ..hdl.selfcheck_node import CONFIG_INPUTS, FLOOD_INPUT, LOST_EVENTS
from ..topology.base import check_int
from .checks import BroadcastLatency, FlitFields, Ledger, PacketStamps, references
from .run_spec import ENGINES, SelfCheckRun


__all__ = ["ENGINES", "CHECKS", "default_threads",
           "verilator_model", "run_selfcheck", "statistics",
           "latency_statistics",
           "FaultConfiguration", "fault_configuration"]

#: The checks every run reports, as integers: packets lost, duplicated, corrupted
#: (hardware checkers), reordered, and flits misrouted (:mod:`cubefab.sim.checks`).
CHECKS = ("lost", "duplicated", "corrupted", "reordered", "misrouted")


def default_threads(topology):
    """Threads of a Verilator run of ``topology``'s fabric: one per 256 nodes, at most
    the CPUs this process may use."""
    cpus = (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
            else os.cpu_count() or 1)
    return max(1, min(cpus, topology.num_nodes // 256))


def verilator_model(design, opt="-O2", threads=1, netlist=None):
    """The (cached) :class:`~cubefab.sim.verilator_fabric.VerilatorFabricModel` of
    ``design`` (a :class:`~cubefab.hdl.selfcheck.SelfCheckConfig`, keyed by its
    :meth:`~cubefab.hdl.selfcheck.SelfCheckConfig.key`): one compiled address-strapped
    node, run once per node by a C++ netlist (on ``threads`` threads), so build time
    and code size do not grow with the fabric. ``netlist``: a
    :class:`~cubefab.sim.verilator_netlist.Netlist`, whose post-synthesis netlist is
    the node instead of its RTL."""
    def factory():
        return design
    if netlist is not None:
        return netlist.model(factory, design.key(), opt=opt, threads=threads)
    from .verilator_fabric import VerilatorFabricModel
    return VerilatorFabricModel(factory, design.key(), opt=opt, threads=threads)


def latency_statistics(histogram):
    """Mean, nearest-rank percentiles p50/p90/p99, minimum and maximum of an exact
    latency histogram ``[[latency, packets], ...]`` (None when it is empty)."""
    total = sum(c for _, c in histogram)
    out = {"avg_latency": None, "min_latency": None, "p50_latency": None,
           "p90_latency": None, "p99_latency": None, "max_latency": None}
    if not total:
        return out
    out["avg_latency"] = sum(l * c for l, c in histogram) / total
    out["min_latency"] = histogram[0][0]
    out["max_latency"] = histogram[-1][0]
    for p in (50, 90, 99):
        rank = -(-p * total // 100)     # nearest rank: the ceil(p% of n)-th smallest
        seen = 0
        for latency, count in histogram:
            seen += count
            if seen >= rank:
                out[f"p{p}_latency"] = latency
                break
    return out


def statistics(topology, packet_flits, window, start, end, final, drain, checks,
               adaptive=False, broadcast=False, failures=False):
    """Statistics of a run from counter snapshots (after warm-up, after the window,
    at the end) and the harness checks (``checks``: ``misrouted``, ``reordered``,
    ``duplicated``, ``waiting_overtaken``, ``waiting`` and the window's
    ``latency_histogram``; with ``broadcast``, ``broadcast_histogram``: the latencies
    of the broadcasts whose last copy arrived in the window). With ``adaptive``
    (adaptive routers, which may reorder a
    flow's packets) ``reordered`` is a figure, not an error, and an overtaken packet
    is lost only if a drain ran to its limit (else it is in flight). With
    ``failures`` (links failed mid-run: a flow's route may change, so its packets may
    be reordered too) ``reordered`` is a figure, and with a drain every packet the
    harness saw injected and neither delivered nor dropped at a failed link is lost:
    the reconciliation is exact (a created packet is delivered, intact or cut, or
    dropped, or in flight).

    With fault-tolerant routers the counters ``lost_to_fault`` (flits dropped at
    failed links), ``dropped`` (packets dropped whole) and ``cut`` (packets delivered
    cut short) are reported; ``dropped`` and ``cut`` end a packet as ``delivered``
    does (``undelivered`` excludes them)."""
    n = topology.num_nodes
    d = {k: end[k] - start[k] for k in end}
    per = n * window if window else 0

    def rate(flits):
        return flits / per if per else None

    ended = sum(final.get(k, 0) for k in LOST_EVENTS)   # lost to a link failure
    undelivered = final["created"] - final["delivered"] - ended
    drain_expired = drain > 0 and undelivered > 0
    relaxed = adaptive or failures
    waiting = checks["waiting"] + (checks["waiting_overtaken"] if relaxed else 0)
    lost = (0 if relaxed else checks["waiting_overtaken"]) + (
        waiting if drain_expired or (failures and drain > 0) else 0)
    histogram = [list(e) for e in checks["latency_histogram"]]
    found = {"lost": lost, "duplicated": checks["duplicated"],
             "corrupted": final["corrupted"], "reordered": checks["reordered"],
             "misrouted": checks["misrouted"]}
    errors = {k: v for k, v in found.items() if not (relaxed and k == "reordered")}
    latency = latency_statistics(histogram)
    if d["delivered"]:   # the hardware's sum, exact as the histogram's mean
        latency["avg_latency"] = d["latency_sum"] / d["delivered"]
    extra = {}
    if broadcast:
        last = latency_statistics([list(e) for e in checks["broadcast_histogram"]])
        extra = {"broadcasts": final["broadcasts"],
                 "copies_delivered": final["copies_delivered"],
                 "broadcast_latency": {"mean": last["avg_latency"],
                                       "p99": last["p99_latency"],
                                       "max": last["max_latency"]},
                 "broadcast_histogram": [list(e) for e in checks["broadcast_histogram"]]}
    return {
        **extra,
        "nodes": n,
        "window_cycles": window,
        "offered": rate((d["created"] + d["refused"]) * packet_flits),
        "injection_rate": rate(d["injected_flits"]),
        "throughput": rate(d["delivered_flits"]),
        **latency,
        "latency_histogram": histogram,
        "window": {k: d[k] for k in d if k not in ("cycles", "latency_sum")},
        "created": final["created"],
        "refused": final["refused"],
        "unroutable": final.get("unroutable", 0),
        **{k: final[k] for k in ("lost_to_fault",) + LOST_EVENTS if k in final},
        "injected": final["injected"],
        "delivered": final["delivered"],
        **found,
        "in_flight": 0 if drain_expired or (failures and drain > 0) else waiting,
        "checker_errors": final["errors"],
        "errors": final["errors"] + sum(v for k, v in errors.items() if k != "corrupted"),
        "undelivered": undelivered,
        "drained": drain > 0 and undelivered == 0,
        "ok": (final["errors"] == 0 and not any(errors.values())
               and (drain == 0 or undelivered == 0)),
    }


def run_selfcheck(run, *, progress=None, build_progress=None):
    """Simulate the self-checking fabric of ``run``, check every flit, and return the
    statistics.

    Both engines simulate the same design (:class:`~cubefab.hdl.selfcheck.SelfCheckingFabric`)
    with the same traffic and apply the same checks: for equal runs they return
    identical results, but for the timing keys.

    Parameters
    ----------
    run : SelfCheckRun
        What to simulate (:mod:`cubefab.sim.run_spec`): the design, its schedule
        (``warmup`` cycles, ``cycles`` measured, at most ``drain`` more with injection
        off, ending as soon as every packet created has arrived), the stimulus, the
        faults and the engine.
    progress : callable, optional
        ``progress(cycle, total_cycles)`` as the run goes.
    build_progress : callable, optional
        ``build_progress(stage)`` while a Verilator build runs.

    Notes
    -----
    Faults (a design of fault-tolerant routers): the model's waypoint routing around
    the faulty nodes and links (:func:`~cubefab.topology.fault_routing.plan_waypoints`),
    proved deadlock-free (:func:`~cubefab.topology.fault_routing.check_waypoint_deadlock`),
    is loaded into the source tables through the configuration port before the run;
    traffic runs between healthy nodes only, packets to refused destinations count as
    ``unroutable``, and the misrouted check follows the waypoint routes
    (the routing's reference rule, :class:`~cubefab.topology.references.WaypointReference`).

    Links failing mid-run (``(u, v, cycle)``; both engines): before run cycle
    ``cycle`` (0 is the first; at most the last measured cycle) both directions of link
    ``u``-``v`` go down (the fabric's ``link_up``); that cycle detects it, and before
    the next one the harness writes, through the configuration port, the table entries
    that change for the new fault set (the old one plus the link), planned by the
    model; the routings of every fault set of the run are proved deadlock-free together
    (:func:`~cubefab.topology.fault_routing.check_transition_deadlock`). Every packet
    created after the failure's cycle avoids the link; the packets it drops whole
    (``dropped``) or cuts (``cut``, delivered with a synthetic tail) are reported as
    lost to the fault, and the misrouted check accepts the routes of every fault set
    of the run. The result adds ``fail_links`` (``[u, v, cycle]``), ``table_changes``
    and ``reaction_cycles`` (per failure: clock cycles from the failure to the first
    cycle whose new packets take the new routes, ``1 + table_changes``; the
    configuration cycles are no cycles of the run), ``late_losses`` (packets lost to a
    failure though created after its reaction: 0 by the bound) and
    ``last_lost_created`` (the latest creation cycle of a packet lost to a failure,
    None if none).

    Broadcasts (replicating routers, a stimulus with ``broadcast_fraction``): the
    counters count copies (a broadcast is ``N - 1`` packets created, injected and
    delivered; with a multicast group, one per member), and the result adds
    ``broadcasts`` (injected), ``copies_delivered`` and ``broadcast_latency`` (creation
    to the last copy's tail: ``mean``, ``p99``, ``max``, of the broadcasts completed
    in the window; computed by the harness from the copies' tails). A copy off the
    (pruned) tree or at a non-member is misrouted.

    Returns
    -------
    dict
        :func:`statistics` (the counts of :data:`CHECKS` and ``in_flight``; exact
        latency mean, p50/p90/p99, min, max and histogram of the packets delivered in
        the window) plus ``engine``, ``rate``, ``seed``, ``cycles``, ``warmup``,
        ``drain`` (the limit), ``drain_cycles`` (run: the drain ends once every packet
        created has arrived), ``simulated_cycles``, ``topology``, the configuration
        (:meth:`~cubefab.hdl.selfcheck.SelfCheckConfig.key`), ``seconds`` (simulation
        only), ``build_seconds``, ``cpu_seconds``, ``threads``, ``cycles_per_second``,
        ``router_cycles_per_second`` and ``router_cycles_per_cpu_second``.
    """
    if not isinstance(run, SelfCheckRun):
        raise TypeError(f"A run must be a SelfCheckRun, not {run!r}")
    design, schedule = run.design, run.schedule
    config, inputs = design.key(), run.stimulus.inputs(design)
    faults = fault_configuration(design, run.faults.nodes, run.faults.links,
                                 run.faults.fail_links,
                                 last_cycle=schedule.warmup + schedule.cycles - 1)
    outcome, threads = _run_engine(run, inputs, faults, progress, build_progress)
    result = _result(run, config, outcome, threads, faults)
    if run.engine.netlist is not None:
        result["netlist"] = run.engine.netlist.device
    return result


def _run_engine(run, inputs, faults, progress, build_progress):
    """Simulate ``run`` in its engine with the stimulus ``inputs`` and the fault
    configuration ``faults``; returns ``(outcome, threads)``: the engine's outcome
    (:func:`_run_amaranth`, :func:`_run_verilator`) and the threads it ran on (1 in
    Amaranth; in Verilator the engine's, by default :func:`default_threads`)."""
    design, schedule, engine = run.design, run.schedule, run.engine
    topology = design.topology
    marks, total = schedule.marks, schedule.total
    if engine.name == "amaranth":
        threads = 1
        outcome = _run_amaranth(topology, design, inputs, total, marks, progress,
                                engine.vcd, faults)
    else:
        threads = default_threads(topology) if engine.threads is None else engine.threads
        outcome = _run_verilator(design, inputs, total, marks, progress, build_progress,
                                 engine.opt, threads, faults, engine.netlist, engine.every)
    return outcome, threads


def _result(run, config, outcome, threads, faults):
    """The result of ``run`` (see :func:`run_selfcheck`) from the engine's
    ``outcome``."""
    design, schedule, stimulus = run.design, run.schedule, run.stimulus
    topology, router = design.topology, design.router
    warmup, cycles, drain = schedule.warmup, schedule.cycles, schedule.drain
    snapshots, final, checks, seconds, cpu_seconds, build_seconds = outcome
    result = {"topology": topology.label, "engine": run.engine.name,
              "rate": stimulus.rate, "seed": stimulus.seed, "cycles": cycles,
              "warmup": warmup, "drain": drain,
              "hotspot_fraction": stimulus.hotspot_fraction}
    result.update({k: v for k, v in config.items() if k not in ("design",)})
    # the input buffers' storage, and whether the "auto" rule chose it (the same cycles)
    result.update(buffer=router.storage, buffer_auto=router.buffer_auto)
    if router.broadcast:
        result["broadcast_fraction"] = stimulus.broadcast_fraction
        if stimulus.broadcast_fraction == 1:   # every packet a broadcast
            result["pattern"] = "broadcast"
    result.update(statistics(topology, design.fmt.packet_flits, cycles, snapshots[warmup],
                             snapshots[warmup + cycles], final, drain, checks,
                             # (endpoints keep each pair's order: then
                             # reordering is an error with adaptive routers too)
                             adaptive=not router.routing.in_order
                             and design.interface is None,
                             broadcast=router.broadcast,
                             failures=faults is not None and bool(faults.failures)))
    if faults is not None:
        result.update(faults.summary())
        if faults.failures:
            result.update({k: checks[k] for k in ("late_losses", "last_lost_created")})
            result["errors"] += checks["late_losses"]
            result["ok"] = result["ok"] and not checks["late_losses"]
    ran = final["cycles"]   # the drain ends early once every packet has arrived
    result.update(seconds=round(seconds, 3), cpu_seconds=round(cpu_seconds, 3),
                  build_seconds=round(build_seconds, 3), threads=threads,
                  simulated_cycles=ran, drain_cycles=ran - warmup - cycles)
    routers = ran * topology.num_nodes
    result["cycles_per_second"] = ran / seconds if seconds > 0 else None
    result["router_cycles_per_second"] = routers / seconds if seconds > 0 else None
    result["router_cycles_per_cpu_second"] = (routers / cpu_seconds if cpu_seconds > 0
                                              else None)
    return result


_CHECK_KEYS = ("misrouted", "reordered", "duplicated", "waiting_overtaken", "waiting",
               "latency_histogram", "broadcast_histogram", "late_losses",
               "last_lost_created")


class FaultConfiguration:
    """The fault set of a run of fault-tolerant routers: the model's routing around it
    (``routing``), proved deadlock-free, and the writes that load it into the source
    tables (``writes``, :func:`~cubefab.hdl.source_table.table_writes`).

    With ``fail_links`` (``(u, v, cycle)``, links failing mid-run, in cycle order):
    ``failures``, per failure ``(cycle, (u, v), channels, changes)``: the cycle, the
    link, the fabric's ``link_up`` bits of its two directions and the table writes
    that change from the previous fault set's routing to the new one's; the
    routings of every fault set of the run are proved deadlock-free together
    (:func:`~cubefab.topology.fault_routing.check_transition_deadlock`), and the
    routing's reference rule (asked with ``routings``, every fault set's) accepts the
    routes of any of them."""

    def __init__(self, design, faults, faulty_links, fail_links=(), last_cycle=None):
        from ..hdl.source_table import MAX_ENTRY_BITS, entry_layout, table_writes
        from ..topology.fault_routing import (FaultSet, check_transition_deadlock,
                                              check_waypoint_deadlock, guarantee_bound,
                                              plan_waypoints)
        topology, router = design.topology, design.router
        W = router.fault_waypoints
        self.faults = FaultSet(topology, faults, faulty_links)
        self.routing = plan_waypoints(topology, self.faults, W, router.algorithm)
        report = check_waypoint_deadlock(self.routing)
        if not report.deadlock_free:   # pragma: no cover - proved for every fault set
            raise ValueError(f"the waypoint routing around these faults can deadlock: "
                             f"{report.describe_cycle()}")
        width = entry_layout(topology.address_bits, W).size
        if width > MAX_ENTRY_BITS:
            raise ValueError(f"Source table entries must be at most {MAX_ENTRY_BITS} bits "
                             f"wide, not {width} ({W} waypoints of "
                             f"{topology.address_bits} bits)")
        self.writes = table_writes(self.routing, W)
        self.bound = guarantee_bound(topology)
        self.failures = []
        routings, links = [self.routing], list(self.faults.links)
        for cycle, (u, v) in _check_fail_links(topology, self.faults, fail_links,
                                               last_cycle):
            links.append((u, v))
            new = plan_waypoints(topology, FaultSet(topology, self.faults.nodes, links),
                                 W, router.algorithm)
            changes = _changed_writes(table_writes(routings[-1], W), table_writes(new, W))
            degree = topology.degree
            channels = [topology.index(a) * degree + topology.port(a, b)
                        for a, b in ((u, v), (v, u))]
            self.failures.append((cycle, (u, v), channels, changes))
            routings.append(new)
        if self.failures:
            report = check_transition_deadlock(routings)
            if not report.deadlock_free:   # pragma: no cover - the VC sets prove it
                raise ValueError(f"the routings before and after the failures can "
                                 f"deadlock together: {report.describe_cycle()}")
        #: list of WaypointRouting: every fault set's routing, the run's first
        self.routings = routings
        #: HealthyTree or None: the tree replicating routers flood
        self.tree = None
        self.flood, self.flood_writes = None, []
        if FLOOD_INPUT in router.routing.config_inputs(router):   # (a flood to load)
            self._flood(design, fail_links)

    def _flood(self, design, fail_links):
        """The flood of fault-tolerant replicating routers: the healthy network's
        spanning tree, proved deadlock-free on one broadcast VC beside the waypoint
        routing (:func:`~cubefab.topology.fault_broadcast.check_flood_beside_waypoints`),
        its reference rule (``flood``, asked of the routing:
        :class:`~cubefab.topology.references.FloodReference`) and the writes that load it
        (``flood_writes``, :func:`~cubefab.hdl.selfcheck_node.flood_writes`)."""
        from ..hdl.selfcheck_node import flood_word_width, flood_writes
        from ..hdl.source_table import MAX_ENTRY_BITS
        from ..topology.fault_broadcast import check_flood_beside_waypoints, healthy_tree
        topology, router = design.topology, design.router
        if fail_links:
            raise ValueError("Links failing mid-run need routers without broadcast VCs: "
                             "a copy dropped at a failed link takes its subtree's copies "
                             "with it, and the flooded tree is not rebuilt mid-run")
        width = flood_word_width(topology, router.multicast)
        if width > MAX_ENTRY_BITS:
            raise ValueError(f"Flood configuration words must be at most {MAX_ENTRY_BITS} "
                             f"bits wide, not {width} (multicast under faults writes a "
                             f"bit per node of {topology.label})")
        tree = healthy_tree(topology, self.faults)
        free, cycle = check_flood_beside_waypoints(self.routing, tree)
        if not free:   # pragma: no cover - a walk on a tree closes no cycle
            raise ValueError(f"flooding the healthy tree beside the waypoint routing can "
                             f"deadlock: {cycle}")
        self.tree = tree
        self.flood = router.routing.copy_reference(router, design.multicast_group, tree)
        copies = {a: len(r) for a, r in self.flood.receivers.items()}
        self.flood_writes = flood_writes(tree, copies, bool(router.multicast))

    def summary(self):
        """The run's fault figures (for its result)."""
        routing = self.routing
        return {"faulty_nodes": list(self.faults.nodes),
                "faulty_links": [list(x) for x in self.faults.links],
                "guarantee": self.bound, "guaranteed": routing.guaranteed,
                "waypoints_needed": routing.waypoints_needed,
                "pairs_detoured": routing.detoured, "pairs_cut_off": len(routing.cut_off),
                "pairs_unroutable": len(routing.unroutable),
                "configuration_writes": len(self.writes) + len(self.flood_writes),
                **({"fail_links": [[u, v, c] for c, (u, v), _, _ in self.failures],
                    "table_changes": [len(w) for *_, w in self.failures],
                    "reaction_cycles": [1 + len(w) for *_, w in self.failures],
                    "pairs_unroutable_after": len(self.routings[-1].unroutable)
                    + len(self.routings[-1].cut_off)}
                   if self.failures else {})}


def fault_configuration(design, faults=(), faulty_links=(), fail_links=(), last_cycle=None):
    """The :class:`FaultConfiguration` of a run of ``design`` (a
    :class:`~cubefab.hdl.selfcheck.SelfCheckConfig`), None for fault-free routers;
    ValueError for faults given to fault-free routers. ``last_cycle``: the last run
    cycle a link may fail in (None: any)."""
    faults, faulty_links, fail_links = list(faults), list(faulty_links), list(fail_links)
    if not design.router.fault_waypoints:
        if faults or faulty_links or fail_links:
            raise ValueError("Faults need fault-tolerant routers (fault_waypoints >= 1)")
        return None
    return FaultConfiguration(design, faults, faulty_links, fail_links, last_cycle)


def _check_fail_links(topology, faults, fail_links, last_cycle):
    """``fail_links`` checked: ``(cycle, (u, v))`` in cycle order (then link order);
    ValueError for a non-link, a link already faulty (or with a faulty end), a link
    failing twice, or a cycle outside ``0 .. last_cycle``."""
    out, seen = [], {frozenset(x) for x in faults.links}
    for item in fail_links:
        if not isinstance(item, (tuple, list)) or len(item) != 3:
            raise ValueError(f"A failing link must be (u, v, cycle), not {item!r}")
        u, v, cycle = item
        u, v = topology.check_node(u, "link end"), topology.check_node(v, "link end")
        if v not in [int(x) for x in topology.neighbors(u)]:
            raise ValueError(f"Failing link {u}-{v} must join two neighbours")
        if frozenset((u, v)) in seen:
            raise ValueError(f"Link {u}-{v} must fail once and not be faulty already")
        if u in faults.nodes or v in faults.nodes:
            raise ValueError(f"Failing link {u}-{v} must join two healthy nodes")
        top = last_cycle if last_cycle is not None else (1 << 62)
        check_int(f"Failure cycle of link {u}-{v}", cycle, 0, top)
        seen.add(frozenset((u, v)))
        out.append((cycle, (u, v)))
    return sorted(out)


def _changed_writes(old, new):
    """The writes ``(node, dest, entry)`` that turn tables loaded with ``old`` into
    tables loaded with ``new`` (both from a fresh fabric, every entry direct, 0): the
    entries that differ, a direct one where ``new`` leaves an entry of ``old``."""
    before = {(n, d): e for n, d, e in old}
    after = {(n, d): e for n, d, e in new}
    return [(n, d, after.get((n, d), 0)) for n, d in sorted(before.keys() | after.keys())
            if before.get((n, d), 0) != after.get((n, d), 0)]


def _run_verilator(design, inputs, total, marks, progress, build_progress, opt, threads,
                   faults=None, netlist=None, every=False):
    model = verilator_model(design, opt, threads, netlist)
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
                      stop_when_drained=_drain_stop(marks, total), window=marks,
                      faults=faults, every=every)
    seconds, cpu = time.monotonic() - start, _children_cpu() - cpu
    checks = {k: final.pop(k) for k in _CHECK_KEYS if k in final}
    if checks.get("last_lost_created", 0) < 0:   # (the main prints -1 for none)
        checks["last_lost_created"] = None
    for c in marks:
        if c == total:
            snapshots[c] = final
        elif c == 0:
            snapshots[c] = {k: 0 for k in final}
    return snapshots, final, checks, seconds, cpu, build_seconds


def _drain_stop(marks, total):
    """First cycle at which a run may end early, once every packet has arrived (the
    drain is a limit): the cycle after injection stops, or None without a drain."""
    return marks[1] + 1 if marks[1] < total else None


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class _Harness(Elaboratable):
    """The fabric with what the checks watch gathered into a few wide signals (the
    simulator reads one plain signal much faster than many): the valid bits of every
    link output, injection and ejection."""

    def __init__(self, fabric):
        self.fabric = fabric
        nodes, degree = fabric.nodes, fabric.topology.degree
        self.link_valid = Signal(len(nodes) * degree)
        self.inject_valid = Signal(len(nodes))
        self.eject_valid = Signal(len(nodes))
        self.link_flits = [n.link_out[p].flit.payload.as_value()
                           for n in nodes for p in range(degree)]
        # (routers that drop packets at failed links: the flits dropped, a cycle after
        # their grant, in the link outputs' payload registers)
        self.faulty = fabric.config.router.routing.loses_packets
        if self.faulty:
            self.link_dropped = Signal(len(nodes) * degree)
        self.inject_flits = [n.inject_flit.as_value() for n in nodes]
        self.eject_flits = [n.eject_flit.as_value() for n in nodes]

    def elaborate(self, platform):
        m = Module()
        fabric = m.submodules.fabric = self.fabric
        nodes, degree = fabric.nodes, fabric.topology.degree
        m.d.comb += [
            self.link_valid.eq(Cat(n.link_out[p].flit.valid
                                   for n in nodes for p in range(degree))),
            # (a node with replicating routers counts a broadcast's flits as copies)
            self.inject_valid.eq(Cat(n.injected_flits.any() for n in nodes)),
            self.eject_valid.eq(Cat(n.delivered_flits for n in nodes)),
        ]
        if self.faulty:
            m.d.comb += self.link_dropped.eq(Cat(n.dropped_ports for n in nodes))
        return m


def _bits(value):
    """Positions of the one bits of ``value``, ascending."""
    while value:
        low = value & -value
        yield low.bit_length() - 1
        value ^= low


def _run_amaranth(topology, design, inputs, total, marks, progress, vcd, faults=None):
    """The Amaranth engine: the whole fabric in Amaranth's simulator, with the checks
    of :mod:`cubefab.sim.checks` applied cycle by cycle by the testbench, in the
    order the Verilator main applies them (links; injections, then ejections, node by
    node). Returns ``(snapshots, final, checks, seconds, cpu_seconds, 0.0)``, as
    :func:`_run_verilator` does."""
    from amaranth.sim import Simulator
    dut = SelfCheckingFabric(design)
    harness = _Harness(dut)
    names = list(design.counter_members())
    checks = _AmaranthChecks(design, harness, faults, marks)
    snapshots, state = {}, {}
    bench = _testbench(dut, inputs, total, marks, progress, faults, checks, snapshots,
                       state)
    sim = Simulator(harness)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    start, cpu = time.monotonic(), time.process_time()
    if vcd:
        with sim.write_vcd(vcd):
            sim.run()
    else:
        sim.run()
    seconds, cpu = time.monotonic() - start, time.process_time() - cpu
    if 0 in marks:
        snapshots[0] = {name: 0 for name in names}
    final = state["final"]
    for c in marks:
        snapshots.setdefault(c, final)
    return snapshots, final, checks.report(), seconds, cpu, 0.0


def _testbench(dut, inputs, total, marks, progress, faults, checks, snapshots, state):
    """The testbench of :func:`_run_amaranth`: hold ``inputs``, load the fault
    configuration (:func:`_configure`), then run ``total`` cycles (injection off from
    ``marks[1]``), failing links on their cycles (:func:`_fail_links`), applying
    ``checks`` every cycle, keeping the counters at the ``marks`` in ``snapshots``
    and calling ``progress(cycle, total)`` about every hundredth; stop early once
    every packet created has arrived or ended (after :func:`_drain_stop`).
    ``state["final"]``: the counters at the end."""
    topology = dut.topology
    names = list(dut.config.counter_members())
    ended = [k for k in LOST_EVENTS if k in names]   # packets lost to link failures
    failures = faults.failures if faults is not None else []

    def read(ctx):
        return {name: ctx.get(getattr(dut, name)) for name in names}

    async def bench(ctx):
        for name, value in inputs.items():
            ctx.set(getattr(dut, name), value)
        await _configure(ctx, dut, faults)
        step = max(1, total // 100)
        first = _drain_stop(marks, total)
        done = 0
        link_up = (1 << (topology.num_nodes * topology.degree)) - 1
        while done < total:
            if done == marks[1]:
                ctx.set(dut.threshold, 0)
            link_up = await _fail_links(ctx, dut, failures, done, link_up, checks)
            checks.check(ctx, done)
            await ctx.tick()
            done += 1
            if done in marks:
                snapshots[done] = read(ctx)
            if progress and (done % step == 0 or done == total):
                progress(done, total)
            if first is not None and done >= first and ctx.get(dut.created) == \
                    ctx.get(dut.delivered) + sum(ctx.get(getattr(dut, k)) for k in ended):
                break
        state["final"] = read(ctx)

    return bench


async def _configure(ctx, dut, faults):
    """Load ``faults`` (a :class:`FaultConfiguration`, or None: nothing) into the
    fabric ``dut`` through its configuration port: the source tables' writes, then the
    flood's (:data:`~cubefab.hdl.selfcheck_node.FLOOD_INPUT` set), a configuration
    cycle each (no cycle of the run)."""
    if faults is None:
        return
    for flood, writes in ((0, faults.writes), (1, faults.flood_writes)):
        for node, dest, entry in writes:
            # configuration cycles: no cycle of the run
            for name, value in zip(CONFIG_INPUTS, (1, node, dest, entry)):
                ctx.set(getattr(dut, name), value)
            if faults.flood is not None:
                ctx.set(getattr(dut, FLOOD_INPUT), flood)
            await ctx.tick()
    ctx.set(dut.config_write, 0)


async def _fail_links(ctx, dut, failures, done, link_up, checks):
    """Before run cycle ``done``: fail the links of ``failures`` (of a
    :class:`FaultConfiguration`) whose cycle it is, at both ends of each, and write
    the table changes of those that failed the cycle before (configuration cycles, the
    network running on and ``checks`` applied, the generators standing still: no
    cycle of the run; ``checks.losses["failed"]`` becomes the failure's cycle).
    Returns the fabric's ``link_up`` bits."""
    for cycle, _, channels, changes in failures:
        if done == cycle:   # the link fails at both ends
            for c in channels:
                link_up &= ~(1 << c)
            ctx.set(dut.link_up, link_up)
        if done == cycle + 1:
            # detected in the failure's cycle; the new tables are written
            # before the next (configuration cycles: the network runs on,
            # the generators stand still, no cycle of the run)
            checks.losses["failed"] = cycle
            for node, dest, entry in changes:
                for name, value in zip(CONFIG_INPUTS, (1, node, dest, entry)):
                    ctx.set(getattr(dut, name), value)
                checks.check(ctx, done)
                await ctx.tick()
            ctx.set(dut.config_write, 0)
    return link_up


class _AmaranthChecks:
    """The harness checks of the Amaranth engine (:mod:`cubefab.sim.checks`) on the
    signals of a :class:`_Harness`: :meth:`check` applies them to a cycle, in the
    order the Verilator main does (flits dropped at failed links, links, injections,
    ejections); :meth:`report` gives their counts as the engines report them.

    Parameters
    ----------
    design : SelfCheckConfig
    harness : _Harness
    faults : FaultConfiguration or None
        The run's fault set (its routings, failures and flood).
    marks : tuple of int
        The schedule's marks: ``marks[0] <= cycle < marks[1]`` is the measured window.
    """

    def __init__(self, design, harness, faults, marks):
        topology = design.topology
        self.harness, self.marks = harness, marks
        self.fields = FlitFields(design.layout, design.fmt.timestamp_bits)
        #: the timestamps of the packets at the injection and ejection ports
        self.stamps = PacketStamps(self.fields)
        #: the reference rules of unicast flits and of broadcast copies
        self.route_rule, self.copy_rule = references(design, faults)
        self.ledger = Ledger()
        self.failures = faults.failures if faults is not None else []
        #: The packets lost to a failure though created after it (``late``), the
        #: latest creation of a lost packet (``last``), the latest failure's cycle.
        self.losses = {"late": 0, "last": None, "failed": None}
        self.degree = topology.degree
        self.addresses = [int(a) for a in topology.nodes()]
        #: per source, the nodes its broadcasts go to (the copy rule's)
        self.receivers = self.copy_rule.receivers
        self.members = {s: set(r) for s, r in self.receivers.items()}
        self.last_copies = BroadcastLatency({s: len(r) for s, r in self.receivers.items()})
        self.now_mask = (1 << design.fmt.timestamp_bits) - 1
        self.histogram = {}
        self.misrouted = 0
        self.open_stamp = [0] * topology.num_nodes

    def lost_to_fault(self, stamp):
        """Count a packet created at ``stamp`` lost to a failure: late if created
        after the latest failure's cycle."""
        losses = self.losses
        # a packet lost to a failure must have been created by the failure's cycle
        losses["last"] = stamp if losses["last"] is None else max(losses["last"], stamp)
        if losses["failed"] is None or stamp > losses["failed"]:
            losses["late"] += 1

    def check(self, ctx, cycle):
        """Apply the checks to the flits of run cycle ``cycle`` (before its clock
        edge)."""
        if self.failures:
            self._check_dropped(ctx)
        misrouted = self._check_links(ctx)
        self._check_injections(ctx)
        misrouted += self._check_ejections(ctx, cycle)
        self.misrouted += misrouted

    def _check_dropped(self, ctx):
        """The heads dropped at failed links: their packets leave the ledger (a
        duplicate if not outstanding), lost to the fault."""
        get, fields, harness = self.fields.get, self.fields, self.harness
        for j in _bits(ctx.get(harness.link_dropped)):
            raw = ctx.get(harness.link_flits[j])
            if get(raw, "head"):
                stamp = self.ledger.drop(get(raw, "src"), get(raw, "dest"),
                                         fields.timestamp(raw), fields.head_stamp_bits
                                         if fields.stamp_flit else None)
                if stamp is None:
                    self.ledger.duplicated += 1    # dropped, yet not outstanding
                    stamp = fields.timestamp(raw)
                self.lost_to_fault(stamp)

    def _check_links(self, ctx):
        """The flits on the links: returns how many are misrouted (a copy its copy rule
        does not allow, a unicast flit its route rule does not)."""
        get, fields, harness, degree = self.fields.get, self.fields, self.harness, self.degree
        misrouted = 0
        for j in _bits(ctx.get(harness.link_valid)):
            raw = ctx.get(harness.link_flits[j])
            if fields.head_only:   # a body flit reads as its head (per link and VC)
                raw = fields.with_head((j, get(raw, "vc")), raw)
            rule = self.copy_rule if get(raw, "bcast") else self.route_rule
            misrouted += not rule.allows(self.addresses[j // degree], j % degree,
                                         fields.header(raw))
        return misrouted

    def _check_injections(self, ctx):
        """The packets injected, with the flit where their timestamp ends: they (a
        broadcast's copies) enter the ledger."""
        harness = self.harness
        for i in _bits(ctx.get(harness.inject_valid)):
            read = self.stamps.read(("inject", i), ctx.get(harness.inject_flits[i]))
            for head, stamp, _ in read:   # (a generator's packets are whole)
                self._inject(head, stamp)

    def _inject(self, head, stamp):
        """The packet of ``head`` created at ``stamp`` (a broadcast's copies) enters
        the ledger."""
        get = self.fields.get
        if get(head, "bcast"):
            src = get(head, "src")
            self.ledger.inject_broadcast(src, self.receivers.get(src, ()), stamp)
        else:
            self.ledger.inject(get(head, "src"), get(head, "dest"), stamp)

    def _check_ejections(self, ctx, cycle):
        """The flits ejected: returns how many are misrouted (at another node than
        their destination, a copy at a non-member); packets leave the ledger with the
        flit where their timestamp ends (or their flits end), cut packets are lost to
        the fault, and the tails in the measured window add their latency (a
        broadcast's last copy, its broadcast latency)."""
        get, fields, harness = self.fields.get, self.fields, self.harness
        addresses, open_stamp, now_mask = self.addresses, self.open_stamp, self.now_mask
        misrouted = 0
        measured = self.marks[0] <= cycle < self.marks[1]
        for i in _bits(ctx.get(harness.eject_valid)):
            raw = ctx.get(harness.eject_flits[i])
            read = self.stamps.read(("eject", i), raw)
            if fields.head_only:   # (ejection does not interleave packets)
                raw = fields.with_head(("eject", i), raw)
            copy = get(raw, "bcast")
            if (addresses[i] not in self.members.get(get(raw, "src"), ())) if copy \
                    else (get(raw, "dest") != addresses[i]):
                misrouted += 1
            for head, stamp, bits in read:
                open_stamp[i] = self._deliver(head, addresses[i], stamp, bits)
            if get(raw, "cut"):   # a packet cut short by a failed link
                self.lost_to_fault(open_stamp[i])
                continue
            if get(raw, "tail") and measured:
                latency = (cycle - open_stamp[i]) & now_mask
                self.histogram[latency] = self.histogram.get(latency, 0) + 1
            if get(raw, "tail") and copy:
                self.last_copies.tail(get(raw, "src"), open_stamp[i], cycle, measured,
                                      now_mask)
        return misrouted

    def _deliver(self, head, here, stamp, bits):
        """The packet of ``head`` (a copy, at ``here``) whose timestamp's low ``bits``
        bits are ``stamp`` leaves the ledger; returns its timestamp."""
        get = self.fields.get
        flow = (("broadcast", get(head, "src")), here) if get(head, "bcast") \
            else (get(head, "src"), get(head, "dest"))
        if bits < self.fields.timestamp_bits:   # its low bits: the outstanding packet's
            stamp = self.ledger.resolve(*flow, stamp, bits)
        self.ledger.deliver(*flow, stamp)
        return stamp

    def report(self):
        """The checks' counts, as :func:`_run_verilator` reads them from the main:
        ``misrouted``, ``reordered``, ``duplicated``, ``waiting_overtaken``,
        ``waiting``, the latency histograms and, with failures, ``late_losses`` and
        ``last_lost_created``."""
        counts = self.ledger.counts(False)
        checks = {"misrouted": self.misrouted, "reordered": counts["reordered"],
                  "duplicated": counts["duplicated"], "waiting_overtaken": counts["lost"],
                  "waiting": counts["in_flight"],
                  "latency_histogram": sorted([k, v] for k, v in self.histogram.items()),
                  "broadcast_histogram": sorted([k, v] for k, v in
                                                self.last_copies.histogram.items())}
        if self.failures:
            checks.update({"late_losses": self.losses["late"],
                           "last_lost_created": self.losses["last"]})
        return checks
