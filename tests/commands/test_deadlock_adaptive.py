"""cubefab deadlock --adaptive (Duato's condition) and the verdict when no VC count helps."""

import pytest


@pytest.mark.parametrize("args", [
    ["mcube", "-k", "3"], ["mcube", "-k", "8"], ["mcube", "-k", "6", "--algorithm", "ecube"],
    ["dlh", "-m", "2", "-d", "1"], ["metacube", "-k", "1", "-m", "2"],
    ["hypercube", "-n", "4"]], ids=" ".join)
def test_adaptive_is_proven(cli, args):
    r = cli("deadlock", *args, "--adaptive", "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["adaptive"] is True and doc["deadlock_free"] is True and doc["cycle"] is None
    assert doc["vcs"] == doc["escape_classes"] + doc["adaptive_vcs"]


def test_mcube_mroute_escapes_on_ecube(cli):
    doc = cli("deadlock", "mcube", "-k", "5", "--algorithm", "mroute", "--adaptive",
              "--adaptive-vcs", "2", "--json").json()
    assert doc["escape"] == "ecube" and doc["escape_classes"] == 1 and doc["adaptive_vcs"] == 2


def test_adaptive_witness_cycle(cli):
    r = cli("deadlock", "dlh", "-m", "2", "-d", "1", "--adaptive", "--vcs", "1")
    assert r.status == 1
    assert "CAN DEADLOCK" in r.out and "escape class 0" in r.out


def test_adaptive_witness_cycle_json(cli):
    r = cli("deadlock", "metacube", "-k", "1", "-m", "2", "--adaptive",
            "--vcs", "1", "--json")
    assert r.status == 1
    doc = r.json()
    assert doc["deadlock_free"] is False and len(doc["cycle"]) >= 2
    assert {step["dependency"] for step in doc["cycle"]} <= {"direct", "indirect"}


@pytest.mark.parametrize("options", [(), ("--algorithm", "mroute"),
                                     ("--vcs", "2", "--vcs-per-class", "2")], ids=" ".join)
def test_mroute_checks_the_router_sim_builds(cli, options):
    """sim runs the Mcube's mroute adaptively over e-cube escape VCs: deadlock proves
    that router (exit 0), the proof the fabric sim builds with the same options makes."""
    import argparse
    from cubefab.cli import build_parser, topology_from_args
    from cubefab.commands.router_options import router_config
    from cubefab.hdl.config import FabricConfig, deadlock_proof
    r = cli("deadlock", "mcube", "-k", "4", *options, "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["adaptive"] is True and doc["escape"] == "ecube" and doc["deadlock_free"]
    sim_args = build_parser().parse_args(["sim", "mcube", "-k", "4", *options])
    topology = topology_from_args(sim_args)
    router = router_config(sim_args, topology, routers=topology.num_nodes)
    FabricConfig(router)            # sim's fabric: proven when made
    expected = deadlock_proof(router).as_dict()
    assert {k: doc[k] for k in ("escape", "escape_classes", "escape_channels", "states",
                                "dependencies")} == \
        {k: expected[k] for k in ("escape", "escape_classes", "escape_channels", "states",
                                  "dependencies")}
    assert "the only deadlock-free way to run mroute" in cli("deadlock", "mcube", "-k",
                                                             "4", *options).out


def test_deterministic_mroute_has_no_vc_count(cli):
    """The deterministic mroute, which no command builds, has a cycle under every VC
    count: the model's verdict the adaptive default rests on."""
    from cubefab.topology.catalog import make_topology
    from cubefab.topology.deadlock import check_deadlock_free
    report = check_deadlock_free(make_topology("mcube", k=4), "mroute", 4)
    assert not report.deadlock_free and not report.rule_suffices


def test_too_few_vcs_still_names_what_suffices(cli):
    doc = cli("deadlock", "dlh", "-m", "2", "-d", "1", "--vcs", "1", "--json").json()
    assert doc["deadlock_free"] is False
    assert doc["required_vcs"] == 2 and doc["vcs_suffice"] is True


@pytest.mark.parametrize("args,message", [
    (["dlh", "-m", "2", "-d", "1", "--adaptive-vcs", "1"], "--adaptive-vcs needs --adaptive"),
    (["dlh", "-m", "2", "-d", "1", "--adaptive", "--adaptive-vcs", "3"], "power of two"),
    (["dlh", "-m", "2", "-d", "1", "--adaptive", "--adaptive-vcs", "0"], "--adaptive-vcs"),
    (["dlh", "-m", "2", "-d", "1", "--vcs", "3", "--vcs-per-class", "2"], "--vcs-per-class"),
    (["metacube", "-k", "1", "-m", "2", "--algorithm", "paper", "--adaptive"], "reads src"),
], ids=lambda a: a if isinstance(a, str) else " ".join(a))
def test_adaptive_bad_input(cli, args, message):
    r = cli("deadlock", *args)
    assert r.status == 2 and r.err.startswith("error:") and message in r.err
    assert r.err.count("\n") == 1 and r.out == ""
