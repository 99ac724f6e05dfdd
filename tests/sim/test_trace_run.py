"""Trace-driven runs in both engines: the same cycles for every packet, every packet
checked, and the figures and log of a run."""

import csv
import io

import pytest

from cubefab.hdl.config import Broadcast, FabricConfig
from cubefab.sim.netrace import read_trace
from cubefab.sim.trace_plan import TraceCheckError, TracePlan
from cubefab.sim.trace_run import TRACE_LOG_COLUMNS, default_limit, run_trace
from cubefab.sim.verilator_trace import VerilatorTraceFabric
from cubefab.topology.hypercube import Hypercube
from tests.sim.test_netrace import trace_file
from tests.sim.engine_helpers import needs_verilator


Q6 = FabricConfig.for_topology(Hypercube(6))


def plan_of(name="shrtex", config=Q6, **options):
    return TracePlan(read_trace(trace_file(name)), config.topology, config.router.layout,
                     **options)


@pytest.mark.slow
@needs_verilator
def test_both_engines_give_every_packet_the_same_cycles():
    plan = plan_of()
    amaranth = run_trace(plan, Q6, engine="amaranth")
    verilator = run_trace(plan, Q6, engine="verilator")
    assert amaranth.inject_cycle == verilator.inject_cycle
    assert amaranth.deliver_cycle == verilator.deliver_cycle
    assert amaranth.cycles == 281      # node 42 sends four packets in a row


@pytest.mark.slow
@needs_verilator
def test_a_trace_runs_near_its_own_cycles():
    result = run_trace(plan_of("example"), Q6, engine="verilator")
    doc = result.doc()
    assert doc["packets"] == 175 and doc["trace_cycles"] == 6820
    assert 1 <= doc["ratio"] < 1.01
    assert set(doc["latency"]) == {p.type_name for p in result.plan.packets}


@pytest.mark.slow
@needs_verilator
def test_the_log_has_a_row_per_packet_in_trace_numbering():
    plan = plan_of("multiregion", region=1, packets=50)
    rows = list(csv.DictReader(io.StringIO(run_trace(plan, Q6, engine="verilator")
                                           .log_csv())))
    assert tuple(rows[0]) == TRACE_LOG_COLUMNS and len(rows) == 50
    assert all(int(r["trace_cycle"]) <= int(r["inject_cycle"]) < int(r["deliver_cycle"])
               for r in rows)
    assert min(int(r["trace_cycle"]) for r in rows) >= plan.start > 0


class MisroutingPlan(VerilatorTraceFabric):
    """Tells the C++ harness that packet 0 goes elsewhere than its head says."""

    def _plan_text(self, plan):
        lines = super()._plan_text(plan).split("\n")
        src, dst, *rest = lines[3].split(" ")
        lines[3] = " ".join([src, str(int(dst) ^ 1), *rest])
        return "\n".join(lines)


@pytest.mark.slow
@needs_verilator
def test_the_compiled_harness_finds_a_misrouted_packet():
    with pytest.raises(TraceCheckError, match="not as it was sent"):
        MisroutingPlan(Q6).run(plan_of(), limit=1000)


def test_replicating_routers_are_refused():
    config = FabricConfig.for_topology(Hypercube(6), replication=Broadcast(1))
    with pytest.raises(ValueError, match="unicast packets"):
        run_trace(plan_of(config=config), config)


@pytest.mark.slow
@needs_verilator
def test_leaving_quiet_nodes_alone_changes_no_cycle():
    plan = plan_of("multiregion", region=4, packets=400)
    fabric = VerilatorTraceFabric(Q6)
    quick = fabric.run(plan, limit=default_limit(plan))
    assert fabric.evaluations < 64 * fabric.cycles / 4
    assert fabric.run(plan, limit=default_limit(plan), every=True) == quick
    assert fabric.evaluations == 64 * fabric.cycles


@pytest.mark.slow
def test_the_amaranth_engine_reports_each_delivery():
    seen = []
    run_trace(plan_of(packets=3), Q6, engine="amaranth",
              progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 3), (2, 3), (3, 3)]


def test_the_figures_hold_the_exact_latency_histogram_of_each_type():
    """``doc()``'s histogram of a packet type counts each latency of its packets
    (here made-up cycles: no run needed), and agrees with its count and maximum."""
    from collections import Counter
    from cubefab.sim.trace_run import TraceResult
    plan = plan_of(packets=40)
    result = TraceResult(plan, "amaranth", tuple(range(40)),
                         tuple(p.cycle - plan.start + 3 + i % 7
                               for i, p in enumerate(plan.packets)))
    latencies = result.latencies()
    for name, stats in result.doc()["latency"].items():
        assert stats["histogram"] == sorted(map(list, Counter(
            latencies[name].tolist()).items()))
        assert sum(c for _, c in stats["histogram"]) == stats["count"]
        assert stats["histogram"][-1][0] == stats["max"]


def test_the_speed_is_the_cycles_per_second_of_the_run():
    from cubefab.sim.trace_run import TraceResult
    plan = plan_of(packets=4)
    result = TraceResult(plan, "amaranth", (0, 1, 2, 3), (9, 10, 11, 19), seconds=0.5)
    assert result.doc()["cycles_per_second"] == 40.0
    assert TraceResult(plan, "amaranth", (0,) * 4, (1,) * 4).cycles_per_second is None
