"""The Verilator fabric runner: one compiled node, a C++ netlist of the links."""

import os

import pytest

from cubefab.hdl.selfcheck import NODE_MODULE, SelfCheckConfig
from cubefab.sim.selfcheck_run import default_threads, verilator_model
from cubefab.sim.verilator_fabric import VerilatorFabricModel, fabric_header
from cubefab.topology.catalog import make_topology
from tests.helpers import run_fabric_of
from tests.sim.engine_helpers import both_engines, needs_verilator, same_results


@needs_verilator
@pytest.mark.parametrize("cycles, delivered", [(60, 40), pytest.param(120, 100,
                                                                     marks=pytest.mark.slow)])
def test_ring_links_are_wired_as_in_the_fabric(verilator_cache, cycles, delivered):
    # DLH rings: a node's successor port leads back through the predecessor port (CI's
    # fast set: the shorter run)
    topo = make_topology("dlh", m=2, d=1)
    r = both_engines(topo, rate=0.4, cycles=cycles, warmup=20, drain=150, seed=3,
                     depth=4, vcs_per_class=1)
    assert r["ok"] and r["delivered"] > delivered


def check_one_node_built(topo):
    """The fabric's build holds one compiled node (its Verilog, the netlist header, the
    header of its reference rules, the main, the ports), whatever the number of
    routers."""
    model = verilator_model(SelfCheckConfig.of(topo))
    assert sorted(os.listdir(model.directory)) == sorted(
        [NODE_MODULE + ".v", "fabric.h", "rules.h", *VerilatorFabricModel.main_files,
         "ports.json", "V" + NODE_MODULE])


@needs_verilator
def test_a_fabric_builds_one_node_and_delivers_everything(verilator_cache):
    topo = make_topology("metacube", k=1, m=2)        # 32 routers
    r = run_fabric_of(topo, engine="verilator", rate=0.2, cycles=200, warmup=50,
                      drain=400, seed=5)
    assert r["ok"] and r["errors"] == 0 and r["drained"] and r["delivered"] > 700
    check_one_node_built(topo)


@pytest.mark.slow
@needs_verilator
def test_a_1024_router_fabric_builds_one_node_and_delivers_everything(verilator_cache):
    topo = make_topology("metacube", k=2, m=2)
    r = run_fabric_of(topo, engine="verilator", rate=0.2, cycles=200, warmup=50,
                      drain=400, seed=5)
    assert r["ok"] and r["errors"] == 0 and r["drained"] and r["delivered"] > 30000
    check_one_node_built(topo)


@needs_verilator
def test_threads_share_the_nodes_without_changing_results(verilator_cache):
    topo = make_topology("metacube", k=1, m=2)
    runs = [run_fabric_of(topo, engine="verilator", rate=0.4, cycles=300, warmup=50,
                          drain=200, seed=7, threads=t) for t in (1, 3)]
    left, right = same_results(*runs)
    assert left == right
    assert runs[0]["ok"] and runs[0]["delivered"] > 2000   # 2-flit packets


def test_default_threads_grow_with_the_fabric():
    assert default_threads(make_topology("metacube", k=1, m=2)) == 1
    assert 1 <= default_threads(make_topology("metacube", k=2, m=2)) <= 4


def test_the_netlist_names_every_node_and_link():
    topo = make_topology("hypercube", n=3)
    config = SelfCheckConfig.of(topo)
    header = fabric_header(config, config.node(None))
    assert "static const int N = 8;" in header and "static const int D = 3;" in header
    # node 0's input p comes from node 2**p's output p (hypercube ports are their own
    # inverse)
    assert "    {{1, 0}, {2, 1}, {4, 2}}," in header


def test_threads_must_be_a_positive_integer():
    topo = make_topology("hypercube", n=2)
    with pytest.raises(ValueError, match="Threads"):
        VerilatorFabricModel(lambda: topo, {"design": "x"}, threads=0)


def test_the_factory_must_give_a_self_checking_configuration():
    topo = make_topology("hypercube", n=2)
    model = VerilatorFabricModel(lambda: topo, {"design": "not a fabric"})
    with pytest.raises(TypeError, match="SelfCheckConfig"):
        model._sources(topo)
