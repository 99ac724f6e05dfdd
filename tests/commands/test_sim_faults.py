"""cubefab sim --faults/--faulty-links/--waypoints: a fabric of fault-tolerant routers
under one fault set, the tables loaded at run time."""

import pytest

from cubefab.sim.channel_load import waypoint_channel_load_bound
from cubefab.topology.catalog import make_topology
from cubefab.topology.fault_routing import FaultSet, plan_waypoints

SMALL = ("--engine", "amaranth", "--vcs-per-class", 1, "--depth", 4)


def test_a_fault_set_runs_clean(cli):
    r = cli("sim", "hypercube", "-n", 3, "--faults", "0", "--faulty-links", "1-3",
            "--waypoints", 1, "--rate", 0.4, "--cycles", 60, *SMALL, "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["ok"] and doc["fault_waypoints"] == 1 and doc["faulty_nodes"] == [0]
    assert doc["faulty_links"] == [[1, 3]] and doc["guaranteed"]
    assert isinstance(doc["unroutable"], int) and doc["unroutable"] > 0
    assert doc["misrouted"] == doc["lost"] == 0


def test_the_text_names_the_faults_and_the_refusals(cli):
    r = cli("sim", "hypercube", "-n", 3, "--faults", "1,2,4", "--waypoints", 1,
            "--cycles", 30, *SMALL)
    assert r.status == 0, r.err
    assert "around nodes [1, 2, 4]" in r.out and "8 refused" in r.out
    assert "unroutable" in r.out


@pytest.mark.parametrize("args, message", [
    (["--faults", "9"], "--faults node must be in [0, 7]"),
    (["--faulty-links", "0-3"], "nodes 0 and 3 are not adjacent"),
    (["--faults", "1", "--waypoints", "0"], "--waypoints: must be an integer from 1 to 8"),
    (["--faults", "1", "--adaptive"], "need deterministic routing"),
    (["--waypoints", "9"], "--waypoints: must be an integer from 1 to 8"),
])
def test_bad_faults_are_refused(cli, args, message):
    r = cli("sim", "hypercube", "-n", 3, *args, "--cycles", 5, "--engine", "amaranth")
    assert r.status == 2
    assert r.err.count("error:") == 1 and message in r.err


def test_a_routing_that_reads_the_source_is_refused(cli):
    r = cli("sim", "metacube", "-k", 1, "-m", 1, "--algorithm", "paper", "--faults", "1",
            "--cycles", 5, "--engine", "amaranth")
    assert r.status == 2 and "reads the header field" in r.err


@pytest.mark.slow
def test_a_sweep_draws_a_curve_per_fault_count(cli):
    r = cli("sweep", "hypercube", "-n", 3, "--rates", "0.3", "--faults", 2, "--waypoints", 1,
            "--engine", "amaranth", "--jobs", 1, "--cycles", 40, "--warmup", 10,
            "--vcs-per-class", 1, "--depth", 4, "--json")
    assert r.status == 0, r.err
    curves = r.json()["curves"]
    assert [c["faults"] for c in curves] == [0, 1, 2]
    assert [len(c["faulty_nodes"]) + len(c["faulty_links"]) for c in curves] == [0, 1, 2]
    assert all(c["ok"] for c in curves)
    assert all(isinstance(p["unroutable"], int) for c in curves for p in c["points"])
    # each curve's bound is its own fault set's (the waypoint routes' channel loads)
    topology = make_topology("hypercube", n=3)
    for c in curves:
        routing = plan_waypoints(topology, FaultSet(topology, c["faulty_nodes"],
                                                    [tuple(x) for x in c["faulty_links"]]), 1)
        expected = waypoint_channel_load_bound(routing, "uniform")
        assert c["bound"]["saturation_bound"] == pytest.approx(expected["saturation_bound"])
        assert c["bound"]["faulty_nodes"] == c["faulty_nodes"]


@pytest.mark.parametrize("args, message", [
    (["hypercube", "-n", 2, "--faults", "9"], "--faults must be at most the 8 nodes"),
    (["hypercube", "-n", 3, "--faults", "1", "--adaptive"], "need deterministic routing"),
    (["mcube", "-k", 1, "--faults", "1"], "modelled for the hypercube"),
    (["hypercube", "-n", 3, "--faults", "1", "--waypoints", "0"],
     "--waypoints: must be an integer from 1 to 8"),
])
def test_bad_sweep_faults_are_refused(cli, args, message):
    r = cli("sweep", *args, "--rates", "0.1", "--jobs", 1, "--engine", "amaranth")
    assert r.status == 2
    assert r.err.count("error:") == 1 and message in r.err


def test_a_link_failing_mid_run_is_counted_and_reconciled(cli):
    r = cli("sim", "hypercube", "-n", 3, "--fail-link", "0-1@30", "--waypoints", 1,
            "--rate", 0.8, "--cycles", 60, "--drain", 400, "--packet-flits", 2,
            *SMALL, "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["ok"] and doc["fail_links"] == [[0, 1, 30]]
    assert all(isinstance(doc[k], int) for k in ("lost_to_fault", "dropped", "cut",
                                                 "late_losses"))
    assert doc["created"] == doc["delivered"] + doc["dropped"] + doc["cut"]
    assert doc["reaction_cycles"] == [1 + doc["table_changes"][0]]


def test_the_text_reports_what_the_failure_cost(cli):
    r = cli("sim", "hypercube", "-n", 3, "--fail-link", "0-1@20", "--waypoints", 1,
            "--rate", 0.5, "--cycles", 40, "--drain", 300, *SMALL)
    assert r.status == 0, r.err
    assert "lost to a failed link and counted" in r.out and "reaction_cycles" in r.out
    assert "failing mid-run: 0-1 at cycle 20" in r.out


@pytest.mark.parametrize("args, message", [
    (["--fail-link", "0-3@5"], "must join two neighbours"),
    (["--fail-link", "0-1@50"], "Failure cycle of link 0-1"),
    (["--fail-link", "0-1"], "write U-V@CYCLE"),
    (["--fail-link", "0-1@-2"], "write U-V@CYCLE"),
    (["--fail-link", "0-9@2"], "link end"),
    (["--fail-link", "1-3@5", "--faulty-links", "1-3"], "fail once"),
    (["--fail-link", "0-1@5,1-0@6"], "fail once"),
    (["--fail-link", "0-1@5", "--faults", "0"], "two healthy nodes"),
])
def test_bad_failing_links_are_refused(cli, args, message):
    r = cli("sim", "hypercube", "-n", 3, *args, "--cycles", 40, "--engine", "amaranth",
            "--waypoints", 1)
    assert r.status == 2
    assert r.err.count("error:") == 1 and message in r.err


@pytest.mark.slow
def test_a_failing_link_runs_in_the_verilator_engine(cli):
    r = cli("sim", "hypercube", "-n", 3, "--fail-link", "0-1@20", "--waypoints", 1,
            "--rate", 0.8, "--cycles", 60, "--drain", 400, "--engine", "verilator",
            "--vcs-per-class", 1, "--depth", 4, "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["ok"] and doc["engine"] == "verilator" and doc["late_losses"] == 0
    assert doc["created"] == doc["delivered"] + doc["dropped"] + doc["cut"]
