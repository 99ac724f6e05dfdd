"""The Verilator fabric runner: one compiled node, a C++ netlist of the links."""

import os

import pytest

from cubefab.hdl.selfcheck import NODE_MODULE, SelfCheckingFabric
from cubefab.sim.selfcheck_run import (default_threads, run_selfcheck, selfcheck_config,
                                       verilator_model)
from cubefab.sim.verilator_fabric import VerilatorFabricModel, fabric_main
from cubefab.topology.catalog import make_topology

from tests.sim.engine_helpers import ENGINE_INDEPENDENT, both_engines, needs_verilator


@needs_verilator
def test_ring_links_are_wired_as_in_the_fabric(verilator_cache):
    # DLH rings: a node's successor port leads back through the predecessor port
    topo = make_topology("dlh", m=2, d=1)
    a, v = both_engines(topo, rate=0.4, cycles=120, warmup=20, drain=150, seed=3)
    assert {k: a[k] for k in ENGINE_INDEPENDENT} == {k: v[k] for k in ENGINE_INDEPENDENT}
    assert a["ok"] and a["delivered"] > 100


@needs_verilator
def test_a_1024_router_fabric_builds_one_node_and_delivers_everything(verilator_cache):
    topo = make_topology("metacube", k=2, m=2)
    r = run_selfcheck(topo, engine="verilator", rate=0.2, cycles=200, warmup=50,
                      drain=400, seed=5)
    assert r["errors"] == 0 and r["drained"] and r["delivered"] > 30000
    model = verilator_model(topo, selfcheck_config(topo))
    assert sorted(os.listdir(model.directory)) == sorted(
        [NODE_MODULE + ".v", "main.cpp", "ports.json", "V" + NODE_MODULE])


@needs_verilator
def test_threads_share_the_nodes_without_changing_results(verilator_cache):
    topo = make_topology("metacube", k=1, m=2)
    runs = [run_selfcheck(topo, engine="verilator", rate=0.4, cycles=300, warmup=50,
                          drain=200, seed=7, threads=t) for t in (1, 3)]
    assert {k: runs[0][k] for k in ENGINE_INDEPENDENT} == \
        {k: runs[1][k] for k in ENGINE_INDEPENDENT}
    assert runs[0]["ok"] and runs[0]["delivered"] > 3000


def test_default_threads_grow_with_the_fabric():
    assert default_threads(make_topology("metacube", k=1, m=2)) == 1
    assert 1 <= default_threads(make_topology("metacube", k=2, m=2)) <= 4


def test_the_netlist_names_every_node_and_link():
    topo = make_topology("hypercube", n=3)
    fabric = SelfCheckingFabric(topo, payload_width=32)
    main = fabric_main(fabric, VerilatorFabricModel._ports_of(fabric))
    assert "static const int N = 8;" in main and "static const int D = 3;" in main
    # node 0's input p comes from node 2**p's output p (hypercube ports are their own
    # inverse)
    assert "    {{1, 0}, {2, 1}, {4, 2}}," in main


def test_threads_must_be_a_positive_integer():
    topo = make_topology("hypercube", n=2)
    with pytest.raises(ValueError, match="Threads"):
        VerilatorFabricModel(lambda: topo, {"design": "x"}, threads=0)


def test_the_factory_must_give_a_self_checking_fabric():
    topo = make_topology("hypercube", n=2)
    model = VerilatorFabricModel(lambda: topo, {"design": "not a fabric"})
    with pytest.raises(TypeError, match="SelfCheckingFabric"):
        model._sources(topo)
