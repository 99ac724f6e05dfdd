"""Checking route units against the reference routing (import as
``from tests.hdl.route_helpers import ...``)."""

import itertools

import numpy as np

from amaranth.hdl import Elaboratable, Module, Signal
from amaranth.sim import Simulator

from cubefab.hdl.route import route_unit


__all__ = ["RouteBank", "simulate_ports", "reference_ports", "assert_matches_reference",
           "reference_vectors"]


class RouteBank(Elaboratable):
    """The constant-address route units of several nodes side by side, sharing one
    ``dest`` (and ``src``) input, so one simulation checks them all."""

    def __init__(self, topology, nodes, algorithm=None, unit_class=None):
        make = unit_class or route_unit
        self.units = [make(topology, node, algorithm) for node in nodes]
        self.dest = Signal(topology.address_bits)
        self.src = Signal(topology.address_bits)

    def elaborate(self, platform):
        m = Module()
        for i, unit in enumerate(self.units):
            m.submodules[f"unit{i}"] = unit
            m.d.comb += unit.dest.eq(self.dest)
            if unit.needs_src:
                m.d.comb += unit.src.eq(self.src)
        return m


def _cases(heres, dests, srcs):
    return [(h, s, d) for h in heres for s in (srcs or [None]) for d in dests]


def simulate_ports(topology, heres, dests, srcs=None, algorithm=None, straps=True,
                   unit_class=None):
    """Ports chosen by the route units, as ``{(here, src, dest): port}``.

    With ``straps`` one unit reads ``here`` from its input and sweeps every node;
    otherwise each node gets its own constant-address unit (all in one simulation).
    ``src`` is ``None`` in the keys when ``srcs`` is not given.
    """
    make = unit_class or route_unit
    result = {}
    if straps:
        unit = make(topology, None, algorithm)
        top = unit

        async def testbench(ctx):
            for here, src, dest in _cases(heres, dests, srcs):
                ctx.set(unit.here, here)
                if src is not None:
                    ctx.set(unit.src, src)
                ctx.set(unit.dest, dest)
                port = ctx.get(unit.port)
                request = ctx.get(unit.request)
                assert request == 1 << port, (here, src, dest, port, request)
                result[here, src, dest] = port
    else:
        top = RouteBank(topology, heres, algorithm, unit_class)

        async def testbench(ctx):
            for src, dest in itertools.product(srcs or [None], dests):
                if src is not None:
                    ctx.set(top.src, src)
                ctx.set(top.dest, dest)
                for here, unit in zip(heres, top.units):
                    result[here, src, dest] = ctx.get(unit.port)
    sim = Simulator(top)
    sim.add_testbench(testbench)
    sim.run()
    return result


def reference_ports(topology, cases, algorithm=None):
    """``{(here, src, dest): topology.next_port(...)}`` for the given cases."""
    return {(h, s, d): topology.next_port(h, d, algorithm, **({} if s is None else {"src": s}))
            for h, s, d in cases}


def assert_matches_reference(topology, heres, dests, srcs=None, algorithm=None, **kwargs):
    """Simulate and compare with ``next_port``; the message lists the first mismatches.
    Returns the number of cases checked."""
    ports = simulate_ports(topology, heres, dests, srcs, algorithm, **kwargs)
    expected = reference_ports(topology, ports.keys(), algorithm)
    wrong = [(case, ports[case], expected[case]) for case in ports
             if ports[case] != expected[case]]
    assert not wrong, (f"{topology.label} {algorithm or topology.algorithms[0]}: "
                       f"{len(wrong)} of {len(ports)} cases differ "
                       f"((here, src, dest), unit, reference): {wrong[:8]}")
    return len(ports)


def reference_vectors(topology, heres, dests, srcs=None, algorithm=None, straps=True):
    """Test vectors for a route unit's Verilog: ``(inputs, vectors, expected)`` for
    :func:`cubefab.build.vectors.run_vectors`; ``inputs`` names ``here`` (with
    ``straps``), ``src`` (when given) and ``dest``. Built as arrays (millions of
    vectors stay small)."""
    bits = topology.address_bits
    inputs = ([("here", bits)] if straps else []) + ([("src", bits)] if srcs else [])
    inputs.append(("dest", bits))
    count = len(heres) * len(srcs or [None]) * len(dests)
    vectors = np.empty((count, len(inputs)), dtype=np.int64)
    expected = np.empty(count, dtype=np.int64)
    row = 0
    for here in heres:
        for src in (srcs or [None]):
            header = {} if src is None else {"src": src}
            prefix = ([here] if straps else []) + ([src] if srcs else [])
            for dest in dests:
                vectors[row, :len(prefix)] = prefix
                vectors[row, -1] = dest
                expected[row] = topology.next_port(here, dest, algorithm, **header)
                row += 1
    return inputs, vectors, expected
