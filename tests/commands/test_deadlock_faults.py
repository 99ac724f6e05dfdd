"""cubefab deadlock --faults/--faulty-links/--waypoints: the waypoint routing around one
fault set."""

import pytest


def test_fault_set_is_proven(cli):
    r = cli("deadlock", "dlh", "-m", 2, "-d", 1, "--faults", "0,1,12", "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["deadlock_free"] and doc["delivered"] and doc["cycle"] is None
    assert doc["waypoints_needed"] == 2 and doc["vcs"] == 3 * 2
    assert doc["faulty_nodes"] == [0, 1, 12] and doc["guarantee"] == 3


def test_faulty_links_are_read(cli):
    r = cli("deadlock", "metacube", "-k", 1, "-m", 2, "--faulty-links", "1-0,0-2", "--json")
    assert r.status == 0, r.err
    assert r.json()["faulty_links"] == [[0, 1], [0, 2]]


def test_too_few_waypoints_fail_within_the_guarantee(cli):
    r = cli("deadlock", "dlh", "-m", 2, "-d", 1, "--faults", "0,1,12", "--waypoints", 1)
    assert r.status == 1
    assert "refused (needs more than --waypoints): 4->8 5->8" in r.out
    assert "NOT DELIVERED" in r.out


def test_beyond_the_guarantee_names_the_pairs_cut_off(cli):
    r = cli("deadlock", "hypercube", "-n", 3, "--faults", "1,2,4", "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["guaranteed"] is False and doc["delivered"]
    assert sorted(doc["cut_off"]) == sorted([[0, t] for t in (3, 5, 6, 7)]
                                            + [[t, 0] for t in (3, 5, 6, 7)])


@pytest.mark.parametrize("args, message", [
    (["hypercube", "-n", 3, "--faults", "9"], "--faults node must be in [0, 7]"),
    (["hypercube", "-n", 3, "--faulty-links", "0-3"], "nodes 0 and 3 are not adjacent"),
    (["dlh", "-m", 3, "-d", 1, "--faults", "4"], "--faults node 4 is not a node"),
    (["mcube", "-k", 3, "--faults", "1"], "modelled for the hypercube"),
    (["hypercube", "-n", 3, "--faults", "1", "--adaptive"], "--adaptive does not apply"),
    (["hypercube", "-n", 3, "--faults", "1", "--vcs", "2"], "--vcs does not apply"),
    (["metacube", "-k", 1, "-m", 1, "--faults", "1", "--algorithm", "paper"],
     "reads the header field"),
    (["hypercube", "-n", 3, "--waypoints", "9"], "--waypoints"),
    (["hypercube", "-n", 12, "--faults", "1"], "the route table of Q(12) would need"),
], ids=lambda x: x if isinstance(x, str) else " ".join(map(str, x)))
def test_bad_fault_input_is_one_error_line(cli, args, message):
    r = cli("deadlock", *args)
    assert r.status == 2
    assert r.err.count("error:") == 1 and message in r.err
