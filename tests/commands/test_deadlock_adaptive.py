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
              "--vcs", "3", "--json").json()
    assert doc["escape"] == "ecube" and doc["escape_classes"] == 1 and doc["adaptive_vcs"] == 2


def test_adaptive_witness_cycle(cli):
    r = cli("deadlock", "dlh", "-m", "2", "-d", "1", "--adaptive", "--escape-classes", "1")
    assert r.status == 1
    assert "CAN DEADLOCK" in r.out and "escape class 0" in r.out


def test_adaptive_witness_cycle_json(cli):
    r = cli("deadlock", "metacube", "-k", "1", "-m", "2", "--adaptive",
            "--escape-classes", "1", "--json")
    assert r.status == 1
    doc = r.json()
    assert doc["deadlock_free"] is False and len(doc["cycle"]) >= 2
    assert {step["dependency"] for step in doc["cycle"]} <= {"direct", "indirect"}


def test_mroute_verdict_says_no_vc_count_suffices(cli):
    r = cli("deadlock", "mcube", "-k", "4", "--json")
    assert r.status == 1
    doc = r.json()
    assert doc["deadlock_free"] is False
    assert doc["required_vcs"] is None and doc["vcs_suffice"] is False
    text = cli("deadlock", "mcube", "-k", "4").out
    assert "no number of VCs suffices" in text and "--adaptive" in text


def test_too_few_vcs_still_names_what_suffices(cli):
    doc = cli("deadlock", "dlh", "-m", "2", "-d", "1", "--vcs", "1", "--json").json()
    assert doc["deadlock_free"] is False
    assert doc["required_vcs"] == 2 and doc["vcs_suffice"] is True


@pytest.mark.parametrize("args,message", [
    (["dlh", "-m", "2", "-d", "1", "--escape-classes", "1"], "--escape-classes needs --adaptive"),
    (["dlh", "-m", "2", "-d", "1", "--adaptive", "--vcs", "2"], "at least one adaptive VC"),
    (["dlh", "-m", "2", "-d", "1", "--adaptive", "--escape-classes", "0"], "--escape-classes"),
    (["metacube", "-k", "1", "-m", "2", "--algorithm", "paper", "--adaptive"], "reads src"),
], ids=lambda a: a if isinstance(a, str) else " ".join(a))
def test_adaptive_bad_input(cli, args, message):
    r = cli("deadlock", *args)
    assert r.status == 2 and r.err.startswith("error:") and message in r.err
    assert r.err.count("\n") == 1 and r.out == ""
