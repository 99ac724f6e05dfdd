"""One behaviour in every simulator (issue #47): the Verilog cubefab writes
(:func:`cubefab.hdl.emit.emit_verilog`) runs the same in Icarus Verilog under
``-g2005`` and ``-g2012``, in Verilator and in Amaranth's simulator: a route unit
against the topology model, a router and self-checking fabrics against the Amaranth
simulation cycle for cycle, two generated fabrics in one design, and a board top's
lamps. The runners are in tests/build/hdl_runners.py; the AXI4-Stream fabrics under
cocotb are in test_axi_stream_cocotb.py."""

import functools
import random
import re

import pytest

from cubefab.build.board import selfcheck_board_top
from cubefab.build.vectors import run_vectors
from cubefab.build.verilog import route_unit_verilog, verilog_text
from cubefab.hdl.config import RouterConfig
from cubefab.hdl.emit import emit_verilog
from cubefab.hdl.route import route_unit
from cubefab.hdl.router import Router
from cubefab.hdl.router.component import wrap_ports
from cubefab.hdl.selfcheck import SelfCheckingFabric
from cubefab.hdl.traffic_gen import rate_threshold
from cubefab.topology import Hypercube, Metacube

from tests.build.hdl_runners import (Run, amaranth_outputs, component_io,
                                     first_differences, icarus_params, simulator_params,
                                     vector_outputs, verilog_outputs)
from tests.hdl.route_helpers import reference_vectors


#: Small self-checking fabrics: 8-bit payloads (a 5-bit timestamp, a 3-bit sequence
#: number), 2-flit buffers and source queues.
SMALL = {"payload_width": 8, "timestamp_bits": 5, "sequence_bits": 3, "depth": 2,
         "queue_depth": 2}

#: Clock cycles of each self-checking run (its 5-bit timestamps wrap, the same in every
#: simulator: the checkers' order and latency sums are compared as they are).
CYCLES = 400


def selfcheck_run(topology, module, seed=7, rate=0.25):
    """A :class:`Run` of the small self-checking fabric of ``topology`` as Verilog
    module ``module``: seed and injection rate tied, every counter read."""
    design = SelfCheckingFabric(topology, **SMALL)
    inputs = {"seed": (design.seed, seed),
              "threshold": (design.threshold, rate_threshold(rate)),
              "hot_threshold": (design.hot_threshold, 0)}
    outputs = {name: getattr(design, name) for name in design.config.counter_members()}
    return Run(design, module, verilog_text(design, module), inputs, outputs)


@functools.cache
def q2_run():
    return selfcheck_run(Hypercube(2), "cubefab_q2_fabric")


@functools.cache
def mc11_run():
    return selfcheck_run(Metacube(1, 1), "cubefab_mc11_fabric", seed=11, rate=0.2)


@functools.cache
def q1_run():
    return selfcheck_run(Hypercube(1), "cubefab_q1_fabric", seed=11, rate=0.2)


#: The self-checking runs by name.
RUNS = {"q2": q2_run, "mc11": mc11_run, "q1": q1_run}


@functools.cache
def amaranth_counters(which, cycles):
    return amaranth_outputs(RUNS[which](), cycles)


def assert_healthy(counters, cycles):
    assert counters["cycles"] == cycles
    assert counters["errors"] == 0 and counters["corrupted"] == 0, counters
    assert counters["delivered"] > 0, counters
    # what was created is delivered, in flight (a few a node) or refused
    assert counters["created"] - counters["refused"] - counters["delivered"] <= 4 * 8


# -- a self-checking fabric ---------------------------------------------------------------

@pytest.mark.parametrize("simulator", simulator_params())
def test_self_checking_fabric_counts_as_in_amaranth(simulator, tmp_path):
    """Q(2), 400 cycles: every counter equals the Amaranth simulation's."""
    run = q2_run()
    got = verilog_outputs(simulator, tmp_path, [run], CYCLES)[run.instance]
    want = amaranth_counters("q2", CYCLES)
    assert_healthy(want, CYCLES)
    assert got == want


# -- two generated fabrics in one design ------------------------------------------------

@pytest.mark.parametrize("other", ["q1", pytest.param("mc11", marks=pytest.mark.slow)])
@pytest.mark.parametrize("simulator", simulator_params())
def test_two_fabrics_in_one_design(simulator, other, tmp_path):
    """Q(2) and a Q(1) (or, in the slow set, an MC(1,1): written and simulated in
    Amaranth in some 20 s) self-checking fabric, each written by verilog_text as one
    module of its own name, side by side in one testbench: they compile together (no
    module defined twice) and each counts what it counts alone in Amaranth."""
    runs = [q2_run(), RUNS[other]()]
    for run in runs:
        assert re.findall(r"^module (\w+)", run.verilog, re.M) == [run.module]
    got = verilog_outputs(simulator, tmp_path, runs, CYCLES)
    for run, which in zip(runs, ("q2", other)):
        want = amaranth_counters(which, CYCLES)
        assert_healthy(want, CYCLES)
        assert got[run.instance] == want, run.module


# -- a board top ------------------------------------------------------------------------

#: Clock cycles of the board top's run.
BOARD_CYCLES = 500


@functools.cache
def board_top_run():
    """The :class:`Run` of the iCEBreaker's self-checking Q(2) board top, and its
    outputs after :data:`BOARD_CYCLES` in Amaranth (both Icarus generations read
    them)."""
    top = selfcheck_board_top(Hypercube(2), "icebreaker", rate=0.25, seed=7)
    outputs = {"fail": top.leds.fail, "passing": top.leds.passing,
               "activity": top.leds.activity, "cycles": top.design.cycles,
               "delivered": top.design.delivered, "errors": top.design.errors}
    text = emit_verilog(top, "cubefab_board_top", list(outputs.values()))
    run = Run(top, "cubefab_board_top", text, {}, outputs)
    return run, amaranth_outputs(run, BOARD_CYCLES)


@pytest.mark.parametrize("generation", icarus_params())
def test_board_top_lamps_as_in_amaranth(generation, tmp_path):
    """The iCEBreaker's self-checking Q(2) (no platform: no pins; the lamps and
    counters as ports): pass lamp on, error lamp off, as in Amaranth. (A BoardTop is
    no wiring.Component, so emit_verilog, not verilog_text, names its ports.)"""
    run, want = board_top_run()
    cycles = BOARD_CYCLES
    got = verilog_outputs(f"icarus-{generation}", tmp_path, [run], cycles)[run.instance]
    assert (want["passing"], want["fail"], want["errors"]) == (1, 0, 0), want
    assert want["cycles"] == cycles and want["delivered"] > 0
    assert got == want


# -- a route unit against the model ----------------------------------------------------

@pytest.mark.parametrize("generation", icarus_params())
@pytest.mark.parametrize("straps", [False, True], ids=["constant", "straps"])
def test_route_unit_equals_the_model_in_icarus(generation, straps):
    """MC(1,2), every destination (and with straps every node): the port the
    model's routing takes."""
    topology = Metacube(1, 2)
    nodes = [int(a) for a in topology.nodes()]
    node = 0b1_01_10
    unit = route_unit(topology, None if straps else node)
    inputs, vectors, expected = reference_vectors(
        topology, nodes if straps else [node], nodes, straps=straps)
    result = run_vectors(route_unit_verilog(unit), inputs, ("port", topology.port_width),
                         vectors, expected, "iverilog", generation=generation)
    assert result.vectors == len(expected) == len(nodes) * (len(nodes) if straps else 1)
    assert result.mismatches == 0, result.first


# -- a router against the Amaranth simulator -----------------------------------------

ROUTER_NODE = 5


def _router(straps):
    config = RouterConfig.for_topology(Metacube(1, 1), depth=2, payload_width=4)
    router = Router(config, None if straps else ROUTER_NODE)
    fixed = Router.straps_of(config, ROUTER_NODE) if straps else {}
    return router, fixed


def _arrivals(config, here):
    """Per input port of the router of ``here``, the ``(src, dest, vc)`` of the packets
    the model's routes bring through it (with the VC they arrive on)."""
    topology = config.topology
    arrivals = {p: [] for p in range(topology.degree)}
    for s in (int(a) for a in topology.nodes()):
        for d in (int(a) for a in topology.nodes()):
            path = [int(x) for x in topology.route(s, d, config.algorithm)] if s != d else []
            vc = 0
            for u, v in zip(path, path[1:]):
                if v == here:
                    arrivals[topology.port(here, u)].append((s, d, vc))
                vc += wrap_ports(topology, u)[topology.port(u, v)]
    return arrivals


def run_router_traffic(router, fixed, inputs, outputs, cycles, seed):
    """Drive ``router`` in Amaranth with traffic that keeps the protocols: one-flit
    packets injected (held until taken) to random other nodes, and arriving on each
    link along the model's routes through the node, on their VC, within the credits
    the router returns; the links' credits returned at random and ejection ready at
    random. Returns ``(vectors, rows)``: the inputs of every cycle (``{port:
    value}``) and the outputs (tuples in ``outputs``' order), for replay in Verilog."""
    from amaranth.sim import Simulator
    config, layout = router.config, router.layout
    topology, here, degree = config.topology, ROUTER_NODE, config.topology.degree
    rng = random.Random(seed)
    arrivals = _arrivals(config, here)
    others = [int(a) for a in topology.nodes() if int(a) != here]
    depth, vcs = config.depth, config.vcs
    state = {"inject": None, "credits": [[depth] * vcs for _ in range(degree)],
             "owed": [[0] * vcs for _ in range(degree)]}
    vectors, rows = [], []

    def flit(src, dest, vc):
        return layout.const({"head": 1, "tail": 1, "vc": vc, "dest": dest, "src": src,
                             "payload": rng.getrandbits(config.payload_width)}).as_bits()

    def choose():
        vector = {port: 0 for port in inputs}
        vector.update(fixed)
        if state["inject"] is None and rng.random() < 0.5:
            state["inject"] = flit(here, rng.choice(others), 0)
        if state["inject"] is not None:
            vector.update(local_in__valid=1, local_in__payload=state["inject"])
        for p in range(degree):
            src, dest, vc = rng.choice(arrivals[p])
            if state["credits"][p][vc] and rng.random() < 0.5:
                state["credits"][p][vc] -= 1
                vector.update({f"link_in__{p}__flit__valid": 1,
                               f"link_in__{p}__flit__payload": flit(src, dest, vc)})
            returned = 0
            for v in range(vcs):
                if state["owed"][p][v] and rng.random() < 0.5:
                    state["owed"][p][v] -= 1
                    returned |= 1 << v
            vector[f"link_out__{p}__credit"] = returned
        vector["local_out__ready"] = int(rng.random() < 0.7)
        return vector

    async def bench(ctx):
        for _ in range(cycles):
            vector = choose()
            for port, signal in inputs.items():
                ctx.set(signal, vector[port])
            out = {port: ctx.get(signal) for port, signal in outputs.items()}
            if out["local_in__ready"]:
                state["inject"] = None
            for p in range(degree):
                for v in range(vcs):
                    state["credits"][p][v] += out[f"link_in__{p}__credit"] >> v & 1
                if out[f"link_out__{p}__flit__valid"]:
                    vc = layout.from_bits(out[f"link_out__{p}__flit__payload"]).vc
                    state["owed"][p][vc] += 1
            vectors.append(vector)
            rows.append(tuple(out.values()))
            await ctx.tick()
    sim = Simulator(router)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return vectors, rows


@pytest.mark.parametrize("simulator", simulator_params())
@pytest.mark.parametrize("straps", [False, True], ids=["constant", "straps"])
def test_router_equals_amaranth_under_random_traffic(simulator, straps, tmp_path):
    """An MC(1,1) router (node 5, its address constant or strapped) under 300 cycles
    of random traffic on every port (:func:`run_router_traffic`, recorded in
    Amaranth): replayed in Verilog, every output, every cycle, as in Amaranth."""
    router, fixed = _router(straps)
    inputs, outputs = component_io(router)
    assert set(fixed) <= set(inputs)
    text = verilog_text(router, "cubefab_router")
    vectors, want = run_router_traffic(router, fixed, inputs, outputs, 300,
                                       seed=47 + straps)
    names = list(outputs)
    # the traffic makes the router work: flits leave through its links and ejection
    for port in ("link_out__0__flit__valid", "link_out__1__flit__valid",
                 "local_out__valid", "local_in__ready"):
        assert sum(row[names.index(port)] for row in want) > 10, port
    got = vector_outputs(simulator, tmp_path, "cubefab_router", text,
                         {p: len(s) for p, s in inputs.items()},
                         {p: len(s) for p, s in outputs.items()}, vectors)
    assert got == want, first_differences(got, want, names)
