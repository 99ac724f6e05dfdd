"""Hardware traffic generators and checkers against the reference patterns."""

import numpy as np
import pytest
from amaranth.hdl import Module

from cubefab.hdl.flit import FlitLayout
from cubefab.hdl.traffic_check import TrafficChecker
from cubefab.hdl.traffic_gen import (PacketFormat, TrafficGenerator, check_generator, node_seed,
                                     rate_threshold, xorshift64, dense_to_address)
from cubefab.topology.patterns import traffic_matrix
from cubefab.topology.catalog import make_topology
from tests.helpers import never_elaborated, refused, run_clocked


def run_generator(topology, node, pattern, cycles, *, rate=1.0, seed=5, hot=0,
                  packet_flits=1):
    """Drive one generator into an always-ready sink; returns per-cycle records."""
    fmt = PacketFormat(FlitLayout(topology.address_bits, 32), packet_flits)
    gen = TrafficGenerator(topology, node, fmt, pattern, hotspot=None)
    records = []

    async def bench(ctx):
        ctx.set(gen.seed, seed)
        ctx.set(gen.threshold, rate_threshold(rate))
        ctx.set(gen.hot_threshold, hot)
        ctx.set(gen.flits.ready, 1)
        for cycle in range(cycles):
            ctx.set(gen.now, cycle)
            created = ctx.get(gen.created)
            flit = ctx.get(gen.flits.payload) if ctx.get(gen.flits.valid) else None
            records.append((created, None if flit is None else
                            {"head": flit.head, "tail": flit.tail, "dest": flit.dest,
                             "src": flit.src, "payload": flit.payload}))
            await ctx.tick()

    run_clocked(gen, bench)
    return records


def test_creation_follows_the_reference_random_stream():
    topo = make_topology("hypercube", n=3)
    rate = 0.4
    records = run_generator(topo, 3, "uniform", 200, rate=rate, seed=11)
    state = node_seed(11, topo.index(3))
    expected = [0]  # the first cycle loads the seed
    for _ in range(199):
        expected.append(int((state & 0xFFFF) < rate_threshold(rate)))
        state = xorshift64(state)
    assert [c for c, _ in records] == expected


def test_a_loaded_random_state_draws_and_steps_as_the_state_would():
    # a harness that left the node alone gives it the state it reached: the cycle draws
    # from it, the state steps from it, and without the load the state steps by itself
    topo = make_topology("hypercube", n=3)
    gen = TrafficGenerator(topo, 3, PacketFormat(FlitLayout(3, 32)), random_input=True)
    loaded = 0x123456789ABC0001   # low 16 bits below the threshold: a packet
    seen = []

    async def bench(ctx):
        ctx.set(gen.threshold, rate_threshold(0.5))
        ctx.set(gen.flits.ready, 1)
        await ctx.tick()                       # the seed is loaded
        ctx.set(gen.random_load, 1)
        ctx.set(gen.random_value, loaded)
        seen.append(ctx.get(gen.created))
        await ctx.tick()
        ctx.set(gen.random_load, 0)
        seen.append(ctx.get(gen.random_state))
        await ctx.tick()
        seen.append(ctx.get(gen.random_state))

    run_clocked(gen, bench)
    assert seen == [1, xorshift64(loaded), xorshift64(xorshift64(loaded))]


@pytest.mark.parametrize("family, params, node", [
    ("hypercube", {"n": 3}, 3),
    ("dlh", {"m": 2, "d": 1}, 0b1010),
])
def test_uniform_destinations_follow_the_reference_random_stream(family, params, node):
    # the multiply-shift pick (draw * (N - 1)) >> 32 of the upper 32 random bits,
    # skipping this node (the hardware computes it without a multiplier)
    topo = make_topology(family, **params)
    records = run_generator(topo, node, "uniform", 120, rate=1.0, seed=9)
    state, expected = node_seed(9, topo.index(node)), []
    for _ in range(119):
        pick = ((state >> 32) * (topo.num_nodes - 1)) >> 32
        expected.append(int(topo.address(pick + (pick >= topo.index(node)))))
        state = xorshift64(state)
    sent = [flit["dest"] for _, flit in records if flit is not None]
    assert len(sent) > 100 and sent == expected[:len(sent)]


@pytest.mark.parametrize("family, params, node, pattern", [
    ("dlh", {"m": 2, "d": 1}, 0b1010, "uniform"),
    ("metacube", {"k": 1, "m": 1}, 5, "neighbor"),
    ("hypercube", {"n": 3}, 6, "hotspot"),
])
def test_destination_distribution_matches_the_pattern(family, params, node, pattern):
    topo = make_topology(family, **params)
    hot = 1 << 14  # a quarter of hotspot packets go to the hot node
    records = run_generator(topo, node, pattern, 1600, hot=hot)
    dests = [f["dest"] for _, f in records if f is not None]
    assert len(dests) > 1500
    counts = np.bincount(topo.index_array(dests), minlength=topo.num_nodes)
    P = traffic_matrix(topo, pattern, hotspot_fraction=0.25)[topo.index(node)]
    assert set(np.flatnonzero(counts)) == set(np.flatnonzero(P))
    expected = P * len(dests)
    chi2 = float(((counts - expected)[P > 0] ** 2 / expected[P > 0]).sum())
    assert chi2 < 3 * (np.count_nonzero(P) + 5)  # far beyond chance only if wrong


def test_permutation_destination_is_constant():
    topo = make_topology("hypercube", n=3)
    records = run_generator(topo, 0b011, "bitcomp", 40)
    assert {f["dest"] for _, f in records if f} == {0b100}


def test_packets_are_framed():
    topo = make_topology("hypercube", n=2)
    records = run_generator(topo, 1, "uniform", 60, packet_flits=3)
    flits = [f for _, f in records if f is not None]
    assert len(flits) >= 30
    for i, f in enumerate(flits[:30]):   # (the header in heads only, the default)
        assert f["head"] == (i % 3 == 0) and f["tail"] == (i % 3 == 2)
        assert f["src"] == 1 or not f["head"]


def test_dense_to_address_tables():
    dlh = make_topology("dlh", m=3, d=2)
    low, table = dense_to_address(dlh)
    idx = np.arange(dlh.num_nodes)
    rebuilt = (np.array(table)[idx >> low] << low) | (idx & ((1 << low) - 1))
    assert np.array_equal(rebuilt, dlh.nodes())
    assert dense_to_address(make_topology("metacube", k=1, m=2)) == (None, None)


def loopback(topology, src, dst, packet_flits, cycles, corrupt=None, drop=None,
             header="every", flip=None, payload_width=32, timestamp_bits=16):
    """Generator of ``src`` straight into the checker of ``dst`` (bitcomp pair); flit
    ``corrupt`` gets the bits of ``flip`` (default: payload bit 2) flipped, flit ``drop``
    is lost."""
    layout = FlitLayout(topology.address_bits, payload_width, header=header)
    fmt = PacketFormat(layout, packet_flits, timestamp_bits=timestamp_bits)
    flip = 4 << layout["payload"].offset if flip is None else flip
    gen = TrafficGenerator(topology, src, fmt, "bitcomp")
    chk = TrafficChecker(topology, dst, fmt)
    m = Module()
    m.submodules.gen, m.submodules.chk = gen, chk
    totals = {"delivered": 0, "error": 0, "latency": []}

    async def bench(ctx):
        ctx.set(gen.seed, 9)
        ctx.set(gen.threshold, rate_threshold(0.5))
        ctx.set(gen.flits.ready, 1)
        n = 0
        for cycle in range(cycles):
            ctx.set(gen.now, cycle)
            ctx.set(chk.now, cycle)
            valid = ctx.get(gen.flits.valid)
            flit = ctx.get(gen.flits.payload.as_value())
            if valid:   # the link, with an optional fault on the n-th flit
                n += 1
                if n == corrupt:
                    flit ^= flip
                if n == drop:
                    valid = 0
            ctx.set(chk.flits.valid, valid)
            ctx.set(chk.flits.payload.as_value(), flit)
            totals["delivered"] += ctx.get(chk.delivered)
            totals["error"] += ctx.get(chk.error)
            if ctx.get(chk.delivered):
                totals["latency"].append(ctx.get(chk.latency))
            await ctx.tick()

    run_clocked(m, bench)
    return totals


def test_checker_accepts_good_packets():
    topo = make_topology("hypercube", n=2)
    totals = loopback(topo, 0, 3, 2, 300)
    assert totals["delivered"] > 60 and totals["error"] == 0
    assert min(totals["latency"]) >= 1


def test_checker_counts_a_corrupted_flit():
    topo = make_topology("hypercube", n=2)
    assert loopback(topo, 0, 3, 2, 200, corrupt=7)["error"] == 1


def test_checker_accepts_good_packets_with_the_header_in_the_head_only():
    topo = make_topology("hypercube", n=2)
    totals = loopback(topo, 0, 3, 3, 300, header="head")
    assert totals["delivered"] > 40 and totals["error"] == 0


def test_a_body_flits_check_word_covers_the_bits_where_a_head_has_dest():
    topo = make_topology("hypercube", n=2)
    dest_bit = 1 << FlitLayout(2, 32, header="head")["dest"].offset
    # flit 8: the tail of the fourth 2-flit packet
    assert loopback(topo, 0, 3, 2, 200, corrupt=8, header="head", flip=dest_bit)["error"] == 1


def test_checker_counts_a_lost_flit():
    topo = make_topology("hypercube", n=2)
    # dropping a head makes its tail a stray flit and the next packet's number skip
    assert loopback(topo, 0, 3, 2, 200, drop=9)["error"] == 2


#: 16-bit payloads (the default router's) and the fabric's 24-bit timestamps: the head
#: carries the timestamp's low 16 bits, the next flit the rest, the sequence number
#: and, after them, the check bits.
SPLIT = {"payload_width": 16, "timestamp_bits": 24}


def test_the_fields_continue_in_the_next_flits_where_the_head_is_too_narrow():
    fmt = PacketFormat(FlitLayout(2, 16), 3, timestamp_bits=24)
    body = FlitLayout(2, 16).body_payload_width    # 20: all but head and tail
    assert (fmt.stamp_flit, fmt.fields_flit, body) == (1, 1, 20)
    assert [fmt.fields_in(i) for i in range(3)] == [(0, 16), (16, 16), (36, 0)]
    assert PacketFormat.flits_for(FlitLayout(2, 16), 32) == 2
    assert PacketFormat.flits_for(FlitLayout(2, 40), 32) == 1


@pytest.mark.parametrize("header, flits", [("head", 2), ("every", 3)])
def test_checker_accepts_good_packets_whose_fields_span_flits(header, flits):
    topo = make_topology("hypercube", n=2)
    totals = loopback(topo, 0, 3, flits, 300, header=header, **SPLIT)
    assert totals["delivered"] > 60 and totals["error"] == 0
    # exact: the generator's flits go straight in (one cycle), the tail L - 1 later
    assert min(totals["latency"]) == flits


@pytest.mark.parametrize("flit", [5, 6])
def test_checker_counts_a_corrupted_field_of_a_packet_whose_fields_span_flits(flit):
    # flit 5: a head, its timestamp's bit 15 (only the next flit's check bits cover
    # it); flit 6: the top check bit
    topo = make_topology("hypercube", n=2)
    top = 1 << FlitLayout(2, 16, header="head").size - 1
    assert loopback(topo, 0, 3, 2, 200, corrupt=flit, header="head", flip=top,
                    **SPLIT)["error"] == 1


def test_checker_counts_a_lost_flit_of_a_packet_whose_fields_span_flits():
    topo = make_topology("hypercube", n=2)
    # the second flit, with the rest of the fields: the packet ends with its head
    assert loopback(topo, 0, 3, 2, 200, drop=6, header="head", **SPLIT)["error"] >= 1


def test_checker_counts_misrouted_packets():
    topo = make_topology("hypercube", n=2)
    totals = loopback(topo, 0, 2, 1, 100)   # bitcomp sends 0 -> 3, checked at 2
    assert totals["delivered"] > 0 and totals["error"] == totals["delivered"]


def test_bad_parameters():
    topo = make_topology("hypercube", n=2)
    with pytest.raises(ValueError, match="packet_flits at least 2, or a wider payload"):
        PacketFormat(FlitLayout(topo.address_bits, 16), 1)
    # the generator's parameters are checked before one is built
    with pytest.raises(ValueError, match="traffic pattern"):
        check_generator(topo, FlitLayout(topo.address_bits, 32), "tornado", None, 16)
    with pytest.raises(ValueError, match="not a node"):
        dlh = make_topology("dlh", m=3, d=1)
        check_generator(dlh, FlitLayout(dlh.address_bits, 32), "shuffle", None, 16)
    with pytest.raises(ValueError, match="Queue depth"):
        check_generator(topo, FlitLayout(topo.address_bits, 32), "uniform", None, 0)
    with pytest.raises(ValueError, match="Packet rate"):
        rate_threshold(1.5)


def test_multicast_group_parameters():
    from cubefab.hdl.flit import FlitLayout
    topo = make_topology("hypercube", n=2)
    plain = PacketFormat(FlitLayout(2, 40, 2, broadcast=True), 1)
    with refused(ValueError, match="needs multicast flits"):
        TrafficGenerator(topo, 0, plain, multicast_group=1)
    subcube = PacketFormat(FlitLayout(2, 40, 2, broadcast=True, multicast=True), 1)
    with refused(ValueError, match=r"in \[0, 3\]"):
        TrafficGenerator(topo, 0, subcube, multicast_group=4)
    with never_elaborated():
        assert TrafficGenerator(topo, 0, subcube, multicast_group=1).multicast_group == 1
    vector = FlitLayout(2, 40, 2, broadcast=True, multicast=True, member_bits=4)
    with pytest.raises(ValueError, match="not to member vectors"):
        check_generator(topo, vector, "uniform", None, 16)
