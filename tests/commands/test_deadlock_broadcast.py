"""cubefab deadlock --broadcast: the combined unicast + broadcast proof and its witness."""

import pytest


@pytest.mark.parametrize("args", [
    ["hypercube", "-n", "4"], ["metacube", "-k", "1", "-m", "2"], ["dlh", "-m", "2", "-d", "1"],
    ["mcube", "-k", "5", "--algorithm", "ecube"]], ids=" ".join)
def test_broadcast_is_proven(cli, args):
    r = cli("deadlock", *args, "--broadcast", "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["deadlock_free"] is True and doc["cycle"] is None
    assert doc["scheme"] == "buffered" and doc["broadcast_dependencies"] > 0
    assert doc["dependencies"] == doc["unicast_dependencies"] + doc["broadcast_dependencies"]


def test_wormhole_replication_witness(cli):
    r = cli("deadlock", "hypercube", "-n", "3", "--broadcast", "--replication", "wormhole")
    assert r.status == 1
    assert "CAN DEADLOCK" in r.out and "broadcast vc 0" in r.out


def test_too_few_broadcast_vcs_witness_json(cli):
    r = cli("deadlock", "dlh", "-m", "2", "-d", "1", "--broadcast", "--broadcast-vcs", "1",
            "--json")
    assert r.status == 1
    doc = r.json()
    assert doc["deadlock_free"] is False and len(doc["cycle"]) >= 2
    assert {step["class"] for step in doc["cycle"]} == {"broadcast"}


def test_unicast_cycle_is_named(cli):
    r = cli("deadlock", "mcube", "-k", "4", "--broadcast")
    assert r.status == 1
    assert "unicast routing deadlocks on its own" in r.out


@pytest.mark.parametrize("args,message", [
    (["dlh", "-m", "2", "-d", "1", "--broadcast-vcs", "1"], "need --broadcast"),
    (["dlh", "-m", "2", "-d", "1", "--replication", "wormhole"], "need --broadcast"),
    (["dlh", "-m", "2", "-d", "1", "--broadcast", "--adaptive", "--replication",
      "wormhole"], "adaptive routers replicate buffered"),
    (["dlh", "-m", "2", "-d", "1", "--broadcast", "--adaptive", "--faults", "1"],
     "--adaptive does not apply to the waypoint routing"),
    (["dlh", "-m", "2", "-d", "1", "--broadcast", "--faults", "1", "--broadcast-vcs", "2"],
     "--broadcast-vcs must be 1 with --waypoints"),
    (["dlh", "-m", "2", "-d", "1", "--broadcast", "--faults", "1", "--replication",
      "wormhole"], "fault-tolerant routers replicate buffered"),
    (["metacube", "-k", "1", "-m", "1", "--broadcast", "--faults", "5", "--faulty-links",
      "0-1"], "leave the healthy network disconnected"),
    (["dlh", "-m", "2", "-d", "1", "--broadcast", "--broadcast-vcs", "0"], "--broadcast-vcs"),
    (["mcube", "-k", "16", "--broadcast"], "limit"),
    (["hypercube", "-n", "3", "--broadcast", "--algorithm", "nope"], "algorithm"),
    (["hypercube", "-n", "3", "--model", "one-port"], "need --broadcast"),
    (["hypercube", "-n", "3", "--broadcast", "--model", "one-port", "--replication",
      "wormhole"], "all-port replication only"),
], ids=lambda a: a if isinstance(a, str) else " ".join(a))
def test_broadcast_bad_input(cli, args, message):
    r = cli("deadlock", *args)
    assert r.status == 2 and r.err.startswith("error:") and message in r.err
    assert r.err.count("\n") == 1 and r.out == ""


@pytest.mark.parametrize("args", [
    ["hypercube", "-n", "4"], ["metacube", "-k", "1", "-m", "2"], ["dlh", "-m", "2", "-d", "1"],
    ["mcube", "-k", "5", "--algorithm", "ecube"]], ids=" ".join)
def test_one_port_broadcast_is_proven(cli, args):
    r = cli("deadlock", *args, "--broadcast", "--model", "one-port", "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["deadlock_free"] is True and doc["model"] == "one-port"
    assert doc["broadcast_dependencies"] > 0


def test_too_few_one_port_broadcast_vcs_witness(cli):
    r = cli("deadlock", "dlh", "-m", "2", "-d", "2", "--broadcast", "--model", "one-port",
            "--broadcast-vcs", "1")
    assert r.status == 1 and "CAN DEADLOCK" in r.out and "broadcast vc 0" in r.out


# -- adaptive routers that replicate: Duato's graph beside the trees' --------------------

@pytest.mark.parametrize("args", [
    ["hypercube", "-n", "4"], ["metacube", "-k", "1", "-m", "2"], ["dlh", "-m", "2", "-d", "2"],
    ["mcube", "-k", "4"]], ids=" ".join)
@pytest.mark.parametrize("model", ["all-port", "one-port"])
def test_adaptive_broadcast_is_proven(cli, args, model):
    r = cli("deadlock", *args, "--broadcast", "--adaptive", "--model", model, "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["deadlock_free"] is True and doc["adaptive"] is True
    assert doc["model"] == model and doc["broadcast_dependencies"] > 0
    assert doc["dependencies"] == doc["adaptive_dependencies"] + doc["broadcast_dependencies"]


def test_adaptive_broadcast_proves_the_escape_vcs_sim_builds(cli):
    # the same router options give the same escape classes as the unicast proof
    alone = cli("deadlock", "dlh", "-m", "2", "-d", "2", "--adaptive", "--json").json()
    both = cli("deadlock", "dlh", "-m", "2", "-d", "2", "--adaptive", "--broadcast",
               "--json").json()
    assert both["escape_classes"] == alone["escape_classes"]
    assert both["adaptive_dependencies"] == alone["dependencies"]


@pytest.mark.parametrize("options, kind", [
    (["--broadcast-vcs", "1"], {"broadcast"}),
    (["--vcs", "1"], {"direct", "indirect"})], ids=["broadcast VCs", "escape VCs"])
def test_adaptive_broadcast_witness_names_the_part_that_cycles(cli, options, kind):
    r = cli("deadlock", "dlh", "-m", "2", "-d", "2", "--broadcast", "--adaptive", *options,
            "--json")
    assert r.status == 1
    doc = r.json()
    assert doc["deadlock_free"] is False and len(doc["cycle"]) >= 2
    assert {step["dependency"] for step in doc["cycle"]} <= kind


def test_fault_tolerant_broadcast_proves_the_flood_beside_the_waypoints(cli):
    r = cli("deadlock", "hypercube", "-n", "3", "--broadcast", "--waypoints", "1",
            "--faults", "0", "--faulty-links", "1-3")
    assert r.status == 0, r.err
    assert "flood tree (healthy nodes, links)" in r.out and "7, 6 (root 1)" in r.out
    assert "joined with the waypoint routing's, are acyclic" in r.out
    doc = cli("deadlock", "hypercube", "-n", "3", "--broadcast", "--waypoints", "1",
              "--faults", "0", "--faulty-links", "1-3", "--json").json()
    assert doc["deadlock_free"] and doc["flood"]["deadlock_free"]
    assert doc["flood"]["healthy_nodes"] == 7 and "0" not in doc["flood"]["tree_ports"]
