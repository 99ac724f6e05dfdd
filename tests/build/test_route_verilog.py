"""Route-unit Verilog: the conventions.md interface, and equality with the reference
routing under Icarus Verilog and Verilator."""

import random

import pytest

from cubefab.build.manifest import verilog_ports
from cubefab.build.vectors import run_vectors
from cubefab.build.verilog import route_unit_verilog, verilog_text
from cubefab.hdl.route import route_unit, MetacubeRoute
from cubefab.topology.dlh import DLH
from cubefab.topology.hypercube import Hypercube
from cubefab.topology.metacube import Metacube

from tests.helpers import needs_simulator
from tests.hdl.route_helpers import reference_vectors


def _nodes(topology):
    return [int(a) for a in topology.nodes()]


def _check(topology, algorithm=None, heres=None, dests=None, srcs=None, straps=True,
           simulator="iverilog", node=None):
    heres = heres if heres is not None else _nodes(topology)
    dests = dests if dests is not None else _nodes(topology)
    unit = route_unit(topology, None if straps else node, algorithm)
    inputs, vectors, expected = reference_vectors(topology, heres, dests, srcs, algorithm,
                                                  straps)
    result = run_vectors(route_unit_verilog(unit), inputs, ("port", topology.port_width),
                         vectors, expected, simulator)
    assert result.vectors == len(expected)
    assert result.mismatches == 0, (topology.label, algorithm, node, result.first)
    return result


# -- interface ---------------------------------------------------------------------

def test_minimal_unit_has_dest_in_and_port_out_only():
    text = route_unit_verilog(route_unit(Metacube(2, 3), 0b01_111_101_110_000))
    assert verilog_ports(text, "top") == [
        {"name": "dest", "direction": "input", "width": 14},
        {"name": "port", "direction": "output", "width": 3}]


def test_paper_unit_reads_src_and_straps_unit_reads_here():
    paper = {p["name"]: (p["direction"], p["width"]) for p in verilog_ports(
        route_unit_verilog(MetacubeRoute(Metacube(2, 2), 3, "paper"), "route"), "route")}
    assert paper == {"dest": ("input", 10), "src": ("input", 10), "port": ("output", 3)}
    straps = {p["name"]: (p["direction"], p["width"]) for p in verilog_ports(
        route_unit_verilog(route_unit(DLH(4, 3))), "top")}
    assert straps == {"dest": ("input", 8), "here": ("input", 8), "port": ("output", 3)}


def test_verilog_text_rejects_bad_names():
    unit = route_unit(Hypercube(3), 1)
    with pytest.raises(ValueError, match="Member to omit must be one of"):
        verilog_text(unit, omit=("valid",))
    with pytest.raises(ValueError, match="Module name must be a Verilog identifier"):
        route_unit_verilog(unit, "2top")
    with pytest.raises(TypeError, match="Unit must be a RouteUnit"):
        route_unit_verilog(Hypercube(3))
    assert "module top" in route_unit_verilog(unit)


# -- simulation of the Verilog -------------------------------------------------------

@needs_simulator("iverilog")
@pytest.mark.parametrize("topology, algorithm", [
    (Hypercube(4), None), (Metacube(2, 1), "minimal"), (Metacube(1, 2), "paper"),
    (DLH(2, 2), None)], ids=lambda v: getattr(v, "label", v))
def test_icarus_straps_unit_exhaustive(topology, algorithm):
    nodes = _nodes(topology)
    _check(topology, algorithm, srcs=nodes if algorithm == "paper" else None)


@needs_simulator("iverilog")
def test_icarus_constant_node_units_sampled():
    topology = Metacube(2, 2)
    for node in random.Random(4).sample(_nodes(topology), 3):
        _check(topology, heres=[node], straps=False, node=node)


@needs_simulator("iverilog")
def test_icarus_reports_a_mismatch():
    topology = Metacube(1, 1)
    inputs, vectors, expected = reference_vectors(topology, _nodes(topology), _nodes(topology))
    expected[7] ^= 1
    result = run_vectors(route_unit_verilog(route_unit(topology)), inputs, ("port", 2),
                         vectors, expected, "iverilog")
    assert result.mismatches == 1
    assert result.first == [{"here": int(vectors[7][0]), "dest": int(vectors[7][1]),
                             "got": int(expected[7] ^ 1), "expected": int(expected[7])}]


@pytest.mark.slow
@needs_simulator("verilator")
def test_verilator_straps_unit_exhaustive():
    _check(DLH(4, 3), simulator="verilator")


# -- exhaustive on the larger networks (slow) ------------------------------------------

LARGER = [Metacube(2, 2), Metacube(1, 3), Metacube(3, 1), DLH(4, 3)]


@pytest.mark.slow
@needs_simulator("verilator")
@pytest.mark.parametrize("topology", LARGER, ids=lambda t: t.label)
def test_verilator_every_node_every_dest(topology):
    _check(topology, simulator="verilator")


@pytest.mark.slow
@needs_simulator("verilator")
@pytest.mark.parametrize("topology", LARGER[:3], ids=lambda t: t.label)
def test_verilator_paper_every_dest_sampled_sources(topology):
    nodes = _nodes(topology)
    rng = random.Random(topology.label)
    # one source per class, with random fields: the unit may only read the source's
    # class, but that is what is being checked, so the fields vary too
    field_bits = topology.m * topology.h
    srcs = [c << field_bits | rng.randrange(1 << field_bits) for c in range(topology.h)]
    # every node where that stays under ~10 M vectors (MC(3,1): 512 sampled nodes)
    limit = max(1, 10_000_000 // (len(srcs) * len(nodes)))
    heres = nodes if len(nodes) <= limit else sorted(rng.sample(nodes, limit))
    _check(topology, "paper", heres=heres, srcs=srcs, simulator="verilator")


@pytest.mark.slow
@needs_simulator("iverilog")
@pytest.mark.parametrize("topology", LARGER, ids=lambda t: t.label)
def test_icarus_constant_node_units(topology):
    # one build per node: Icarus compiles in a fraction of Verilator's time
    for node in random.Random(1).sample(_nodes(topology), 4):
        _check(topology, heres=[node], straps=False, node=node, simulator="iverilog")
