"""The Verilator fabric runner: one compiled node, a C++ netlist of the links."""

import os

import pytest

from cubefab.hdl.selfcheck import NODE_MODULE, SelfCheckConfig
from cubefab.sim.run_spec import SelfCheckRun
from cubefab.sim.selfcheck_run import default_threads, verilator_model
from cubefab.sim.verilator_fabric import VerilatorFabricModel, fabric_header
from cubefab.topology.catalog import make_topology
from tests.helpers import never_elaborated, run_fabric_of
from tests.sim.engine_helpers import both_engines, needs_verilator, same_results


@needs_verilator
@pytest.mark.parametrize("cycles, delivered", [(60, 40), pytest.param(120, 100,
                                                                     marks=pytest.mark.slow)])
@pytest.mark.slow
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
        [NODE_MODULE + ".v", "fabric.h", "node_state.h", "rules.h",
         *VerilatorFabricModel.main_files,
         "ports.json", "V" + NODE_MODULE])


@needs_verilator
def test_a_fabric_builds_one_node_and_delivers_everything(verilator_cache):
    topo = make_topology("metacube", k=1, m=2)        # 32 routers
    r = run_fabric_of(topo, engine="verilator", rate=0.2, cycles=200, warmup=50,
                      drain=400, seed=5)
    assert r["ok"] and r["errors"] == 0 and r["drained"] and r["delivered"] > 700
    check_one_node_built(topo)


def run_both_ways(topo, cycles, **options):
    """``(quick, every, evaluations)``: the model's counters and checks of a run of the
    default fabric of ``topo`` (``options`` of :class:`SelfCheckRun`, injection off for
    the last third: a run input changing) leaving quiet nodes alone and evaluating every
    node, and the nodes evaluated in the first."""
    run = SelfCheckRun.of(topo, engine="verilator", cycles=cycles, warmup=0, **options)
    model = verilator_model(run.design)
    settings = dict(inputs=run.stimulus.inputs(run.design), window=(0, cycles),
                    schedule=[(2 * cycles // 3, {"threshold": 0})], report_at=[cycles // 2])
    quick = model.run(cycles, **settings)
    evaluations = model.evaluations
    every = model.run(cycles, every=True, **settings)
    assert model.evaluations == topo.num_nodes * cycles
    return quick, every, evaluations


@needs_verilator
def test_leaving_quiet_nodes_alone_changes_no_count_and_no_check(verilator_cache):
    topo = make_topology("metacube", k=1, m=2)        # the default fabric's build
    quick, every, evaluations = run_both_ways(topo, 1500, rate=0.02, seed=4)
    assert quick == every and quick["delivered"] > 200 and quick["misrouted"] == 0
    assert evaluations < topo.num_nodes * 1500 / 3


@needs_verilator
def test_the_quiet_nodes_state_is_the_nodes_registers_but_the_random_state(
        verilator_cache):
    model = verilator_model(SelfCheckConfig.of(make_topology("metacube", k=1, m=2)))
    model.build()
    with open(os.path.join(model.directory, "node_state.h")) as f:
        text = f.read()
    for register in ("generator__DOT__queue__DOT__level", "generator__DOT__started",
                     "checker__DOT__sequence", "link_out___05F0___05Fflit___05Fvalid"):
        assert f"{register}," in text
    assert "__DOT__generator__DOT__state," not in text and "random_state" not in text
    assert "vlSymsp" not in text


@pytest.mark.slow
@needs_verilator
def test_a_1024_router_fabric_builds_one_node_and_delivers_everything(verilator_cache):
    topo = make_topology("metacube", k=2, m=2)
    r = run_fabric_of(topo, engine="verilator", rate=0.2, cycles=200, warmup=50,
                      drain=400, seed=5)
    # the packets offered over the warm-up and the run (2-flit packets at 16-bit
    # payloads), nearly all of them delivered
    offered = topo.num_nodes * 0.2 / 2 * (200 + 50)
    assert r["ok"] and r["errors"] == 0 and r["drained"] and r["delivered"] > 0.95 * offered
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
    with never_elaborated():
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
