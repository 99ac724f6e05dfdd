"""The harness checks' reference tables and packet ledger (no simulation)."""

import pytest

from cubefab.hdl.flit import FlitLayout
from cubefab.sim.checks import FlitFields, Ledger, PacketStamps
from cubefab.topology.references import RouteReference
from cubefab.sim.selfcheck_run import latency_statistics
from cubefab.topology.catalog import make_topology
from cubefab.topology.deadlock import hop_vcs, required_vcs


@pytest.mark.parametrize("family, params, algorithm, per_class", [
    ("hypercube", {"n": 3}, None, 1),
    ("metacube", {"k": 1, "m": 2}, None, 2),
    ("metacube", {"k": 1, "m": 2}, "paper", 1),
    ("dlh", {"m": 2, "d": 2}, None, 2),
    ("mcube", {"k": 4}, "ecube", 1),
])
def test_reference_tables_give_every_route_and_its_vcs(family, params, algorithm,
                                                       per_class):
    topo = make_topology(family, **params)
    algorithm = topo.check_algorithm(algorithm)
    vcs = required_vcs(topo, algorithm) * per_class
    ref = RouteReference(topo, algorithm, vcs, per_class)
    nodes = [int(a) for a in topo.nodes()]
    for src in nodes:
        for dest in nodes:
            path = topo.route(src, dest, algorithm)
            vc = hop_vcs(topo, src, dest, algorithm, vcs, per_class)
            assert ref.hops(src, dest) == {u: (topo.port(u, w), c)
                                           for u, w, c in zip(path, path[1:], vc)}


def test_a_flit_off_its_route_or_vc_is_not_allowed():
    topo = make_topology("metacube", k=1, m=2)
    ref = RouteReference(topo, "minimal", 4, 2)
    src, dest = 0, int(topo.nodes()[-1])
    (here, (port, vc)), *_ = ref.hops(src, dest).items()
    assert ref.allowed(here, port, src, dest, vc)
    assert not ref.allowed(here, (port + 1) % topo.degree, src, dest, vc)
    assert not ref.allowed(here, port, src, dest, vc ^ 1)
    assert not ref.allowed(dest, 0, src, dest, vc)        # past its destination


def test_ledger_tells_reordered_duplicated_lost_and_in_flight():
    ledger = Ledger()
    for stamp in (1, 2, 3, 4, 5):
        ledger.inject(0, 3, stamp)
    ledger.inject(1, 3, 7)
    ledger.deliver(0, 3, 1)
    ledger.deliver(0, 3, 3)        # overtakes 2
    ledger.deliver(0, 3, 2)        # late: reordered
    ledger.deliver(0, 3, 2)        # again: duplicated
    ledger.deliver(0, 3, 5)        # overtakes 4, which never arrives: lost
    ledger.deliver(2, 3, 9)        # never injected (a corrupted header): not counted
    assert ledger.counts(False) == {"lost": 1, "in_flight": 1, "reordered": 1,
                                    "duplicated": 1}
    # a drain that ran out: every packet still undelivered is lost
    assert ledger.counts(True)["lost"] == 2


def test_timestamps_are_read_across_the_flits_that_carry_them():
    # 16-bit payloads, 24-bit timestamps: the low 16 bits in the head, the rest in the
    # next flit's data (after head and tail)
    layout = FlitLayout(2, 16)
    fields = FlitFields(layout, 24)
    stamps = PacketStamps(fields)
    stamp = 0xABCDEF
    head = 1 | (stamp & 0xFFFF) << layout["payload"].offset
    tail = 2 | (stamp >> 16) << fields.data_lo
    assert (fields.head_stamp_bits, fields.stamp_flit) == (16, 1)
    assert stamps.read("port", head) == []
    assert stamps.read("port", tail) == [(head, stamp, 24)]
    # a packet whose flits end before its timestamp does (here: the next head comes)
    # is known by the bits read
    assert stamps.read("port", head) == []
    assert stamps.read("port", head) == [(head, stamp & 0xFFFF, 16)]


def test_the_ledger_resolves_a_timestamp_from_its_low_bits():
    ledger = Ledger()
    for stamp in (0x10005, 0x20005, 0x20006):
        ledger.inject(1, 2, stamp)
    assert ledger.resolve(1, 2, 0x0005, 16) == 0x10005      # the oldest outstanding
    assert ledger.resolve(1, 2, 0x0007, 16) == 0x0007       # none: the bits themselves
    assert ledger.drop(1, 2, 0x0005, 16) == 0x10005
    assert ledger.resolve(1, 2, 0x0005, 16) == 0x20005


def test_latency_statistics_are_nearest_rank():
    stats = latency_statistics([[5, 50], [6, 40], [9, 9], [30, 1]])
    assert stats["avg_latency"] == (250 + 240 + 81 + 30) / 100
    assert (stats["min_latency"], stats["p50_latency"], stats["p90_latency"],
            stats["p99_latency"], stats["max_latency"]) == (5, 5, 6, 9, 30)
    assert latency_statistics([])["p99_latency"] is None
