"""``cubefab verilog --device``: the design is sized for the part as ``synth --device``
sizes it (the ``auto`` buffer rule's block RAMs and LUT RAM)."""

import pytest

from cubefab.hdl.config import RouterConfig
from cubefab.tools.devices import DEVICES
from cubefab.topology import Hypercube


@pytest.mark.parametrize("device, depth, storage", [
    ("hx8k", 4, "memory"), ("lfe5u-85f", 4, "distributed"), ("lfe5u-85f", 64, "memory"),
    ("gw1nr-9", 2, "registers"), ("gw1nr-9", 4, "memory")])
def test_the_router_keeps_its_buffers_where_the_device_rule_puts_them(
        cli, tmp_path, device, depth, storage):
    r = cli("verilog", "router", "hypercube", "-n", 4, "--node", 0, "--depth", depth,
            "--device", device, "-o", tmp_path / "router.v", "--json")
    assert r.status == 0, r.err
    library = RouterConfig.for_topology(Hypercube(4), depth=depth,
                                        **DEVICES[device].auto_settings)
    assert r.json()["buffer"] == library.storage == storage
    assert r.json()["device"] == device


def _design(path):
    """The Verilog of ``path`` without the header line naming the command."""
    return [line for line in path.read_text().splitlines()
            if not line.startswith("// Made by:")]


def test_without_a_device_the_design_is_sized_for_the_hx8k(cli, tmp_path):
    argv = ("verilog", "fabric", "hypercube", "-n", 1, "--interface", "axi-stream",
            "--data-width", 16)
    default = cli(*argv, "-o", tmp_path / "default.v", "--json")
    named = cli(*argv, "--device", "hx8k", "-o", tmp_path / "hx8k.v", "--json")
    assert default.json()["device"] == "hx8k"
    assert _design(tmp_path / "default.v") == _design(tmp_path / "hx8k.v")
    assert named.json()["buffer"] == "memory"


def test_an_axi_stream_fabric_for_the_25f_keeps_its_buffers_in_lut_ram(cli, tmp_path):
    r = cli("verilog", "fabric", "hypercube", "-n", 1, "--interface", "axi-stream",
            "--data-width", 32, "--device", "lfe5u-25f", "-o", tmp_path / "fabric.v",
            "--json")
    assert r.status == 0, r.err
    assert r.json()["buffer"] == "distributed" and r.json()["device"] == "lfe5u-25f"
