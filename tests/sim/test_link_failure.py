"""A link that fails while traffic runs (fault-tolerant routers, both engines with
identical results): the flits it drops and the packets it cuts are counted, never
silent; the harness rewrites the source tables that change; no packet created after the
failure's cycle is lost; the rest of the fabric runs on and drains."""

import pytest

import cubefab.sim.selfcheck_run
from cubefab.topology import Hypercube, Metacube
from tests.helpers import run_fabric_of
from tests.sim.engine_helpers import both_engines, needs_verilator, same_results

#: A small fault-tolerant router for fast runs (the Python simulator is slow).
SMALL = {"fault_waypoints": 1, "vcs_per_class": 1, "depth": 4}

#: The runs below: Q(3) past saturation, link 0-1 failing at cycle 50.
RUN = {"rate": 0.95, "cycles": 120, "drain": 600, "seed": 5, "packet_flits": 4,
       "fail_links": [(0, 1, 50)], **SMALL}

ERRORS = ("lost", "duplicated", "corrupted", "misrouted", "checker_errors",
          "late_losses")


def failing_run(**options):
    return run_fabric_of(Hypercube(3), engine="amaranth", **{**RUN, **options})


def assert_reconciled(result):
    assert {k: result[k] for k in ERRORS} == dict.fromkeys(ERRORS, 0)
    assert result["ok"] and result["drained"] and result["in_flight"] == 0
    # every created packet delivered, dropped whole or delivered cut
    assert result["created"] == result["delivered"] + result["dropped"] + result["cut"]


@needs_verilator
@pytest.mark.parametrize("packet_flits", [2, pytest.param(4, marks=pytest.mark.slow)])
def test_a_link_failing_past_saturation_is_reconciled_in_both_engines(verilator_cache,
                                                                      packet_flits):
    result = both_engines(Hypercube(3), **{**RUN, "packet_flits": packet_flits,
                                           "opt": "-O1"})
    assert_reconciled(result)
    assert result["throughput"] < result["offered"]     # past saturation
    assert result["lost_to_fault"] > 0 and result["dropped"] + result["cut"] > 0
    # a cut packet's flits after the cut and a dropped packet's flits are all counted
    assert result["lost_to_fault"] >= result["dropped"] * packet_flits
    assert result["fail_links"] == [[0, 1, 50]]
    assert result["reaction_cycles"] == [1 + result["table_changes"][0]]


@pytest.mark.slow
@needs_verilator
def test_one_flit_packets_are_dropped_whole_never_cut(verilator_cache):
    result = both_engines(Hypercube(3), **{**RUN, "packet_flits": 1, "payload_width": 32, "rate": 0.8,
                                           "opt": "-O1"})
    assert_reconciled(result)
    assert result["dropped"] == result["lost_to_fault"] > 0 and result["cut"] == 0


def test_the_reaction_bound_holds_and_the_fabric_runs_on():
    # the tables change before cycle 51: no packet created after cycle 50 is lost,
    # and the packets created after it are delivered (window: cycles 60 .. 89)
    result = failing_run(warmup=60, cycles=30)
    assert_reconciled(result)
    assert result["last_lost_created"] is not None and result["last_lost_created"] <= 50
    assert result["window"]["delivered"] > 0 and result["window"]["created"] > 0
    assert result["window"]["dropped"] == result["window"]["cut"] == 0


def test_without_the_table_rewrite_late_packets_are_lost(monkeypatch):
    # the mutation: the harness writes no new entry, so packets created after the
    # failure still take the dead link: the bound's check fails
    monkeypatch.setattr(cubefab.sim.selfcheck_run, "_changed_writes", lambda old, new: [])
    result = failing_run(packet_flits=1, payload_width=32, rate=0.8)
    assert result["late_losses"] > 0 and not result["ok"]


def test_the_accounting_catches_a_truly_lost_packet():
    # a packet dropped at an ejection port (a defect, no failure's doing) is lost (the
    # drain runs to its end: long enough for every other packet)
    result = failing_run(packet_flits=1, payload_width=32, rate=0.5, drain=100,
                         defect={"kind": "drop", "node": 3})
    assert result["lost"] == 1 and not result["ok"] and not result["drained"]


def test_a_static_fault_run_reports_the_failure_counters_as_zero():
    result = run_fabric_of(Hypercube(3), engine="amaranth", rate=0.3, cycles=40,
                           drain=300, seed=1, faults=[0], **SMALL)
    assert (result["lost_to_fault"], result["dropped"], result["cut"]) == (0, 0, 0)
    assert "fail_links" not in result and result["ok"]


@pytest.mark.parametrize("options, match", [
    ({"fail_links": [(0, 3, 10)]}, "neighbours"),
    ({"fail_links": [(0, 1, 10), (1, 0, 20)]}, "fail once"),
    ({"fail_links": [(1, 3, 10)], "faulty_links": [(1, 3)]}, "fail once"),
    ({"fail_links": [(0, 1, 10)], "faults": [0]}, "healthy"),
    ({"fail_links": [(0, 1, 40)]}, "Failure cycle"),
    ({"fail_links": [(0, 1, -1)]}, "Failure cycle"),
    ({"fail_links": [(0, 1)]}, "u, v, cycle"),
    ({"fail_links": [(0, 1, 10)], "fault_waypoints": 0}, "fault-tolerant"),
])
def test_bad_failing_links_are_refused(options, match):
    params = {"engine": "amaranth", "cycles": 40, **SMALL}
    params.update(options)
    with pytest.raises(ValueError, match=match):
        run_fabric_of(Hypercube(3), **params)


@needs_verilator
def test_the_verilator_engine_counts_late_losses_too(verilator_cache, monkeypatch):
    # (2-flit packets: the compiled model of the reconciled run above, built once)
    monkeypatch.setattr(cubefab.sim.selfcheck_run, "_changed_writes", lambda old, new: [])
    result = run_fabric_of(Hypercube(3), engine="verilator", opt="-O1",
                           **{**RUN, "packet_flits": 2})
    assert result["late_losses"] > 0 and not result["ok"]


@pytest.mark.slow
@needs_verilator
@pytest.mark.parametrize("packet_flits, payload_width", [(1, 32), (3, 16)])
def test_two_links_failing_in_a_long_q4_run(verilator_cache, packet_flits, payload_width):
    # Verilator, 3000 measured cycles past saturation, links 0-1 and 5-7 failing (a
    # one-flit packet holds the self-checking fields in a 32-bit payload)
    result = run_fabric_of(Hypercube(4), engine="verilator", rate=0.9, cycles=3000,
                           warmup=200, drain=3000, seed=11, packet_flits=packet_flits,
                           payload_width=payload_width,
                           fault_waypoints=1, fail_links=[(0, 1, 700), (5, 7, 1900)])
    assert_reconciled(result)
    assert result["lost_to_fault"] > 0 and len(result["reaction_cycles"]) == 2
    assert result["last_lost_created"] <= 1900


@pytest.mark.slow
@needs_verilator
def test_mc12_link_failing_in_both_engines(verilator_cache):
    result = both_engines(Metacube(1, 2), rate=0.6, cycles=300, drain=1500, seed=7,
                          packet_flits=2, fail_links=[(0, 1, 120)], opt="-O1", **SMALL)
    assert_reconciled(result)
    assert result["lost_to_fault"] > 0


def test_a_failure_that_cuts_a_node_off_makes_its_pairs_unroutable():
    # nodes 1 and 2 faulty, then link 0-4 fails: node 0 is cut off; its pairs are
    # refused at their sources from the next cycle on (unroutable), never lost
    result = run_fabric_of(Hypercube(3), engine="amaranth", rate=0.5, cycles=100,
                           drain=400, seed=3, faults=[1, 2], fail_links=[(0, 4, 40)],
                           **SMALL)
    assert_reconciled(result)
    assert result["pairs_unroutable_after"] == 2 * 5 and result["unroutable"] > 0


@pytest.mark.slow
@needs_verilator
def test_two_failures_on_three_threads_match_the_amaranth_engine(verilator_cache):
    # the Verilator netlist split over three threads (each fails its own ends)
    options = {**RUN, "fail_links": [(0, 1, 50), (2, 6, 70)], "opt": "-O1"}
    amaranth = run_fabric_of(Hypercube(3), engine="amaranth", **options)
    threaded = run_fabric_of(Hypercube(3), engine="verilator", threads=3, **options)
    left, right = same_results(amaranth, threaded)
    assert left == right
    assert_reconciled(amaranth)
    assert len(amaranth["table_changes"]) == 2 and amaranth["last_lost_created"] <= 70
