"""cocotb test of an AXI4-Stream fabric's Verilog (run by test_axi_stream_cocotb.py,
not by pytest): cocotbext-axi sources and sinks on every node.

Parameters come from the environment: ``AXIS_NODES`` (addresses, comma-separated),
``AXIS_WIDTH`` (tdata bits), ``AXIS_MAX_BEATS``, ``AXIS_MESSAGES`` (random messages
per node, besides one to every node, itself included), ``AXIS_TOO_LONG`` (over-long
ones per node), ``AXIS_SEED``, ``AXIS_SELF`` (optional: more messages each node sends
itself, default 0).

Every message is checked, those a node sends itself too: each pair (source,
destination) receives exactly the messages sent, with their payloads, in the order
sent; no node receives more; each node drops exactly its over-long ones.
"""

import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, SimTimeoutError, with_timeout
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource


def _settings():
    env = os.environ
    return ([int(a) for a in env["AXIS_NODES"].split(",")], int(env["AXIS_WIDTH"]),
            int(env["AXIS_MAX_BEATS"]), int(env["AXIS_MESSAGES"]), int(env["AXIS_TOO_LONG"]),
            int(env["AXIS_SEED"]), int(env.get("AXIS_SELF", 0)))


def _messages(rng, nodes, lanes, max_beats, count, too_long, to_self=0):
    """Per source, ``[(dest, bytes)]``: one message to every node (itself included),
    ``count`` to random nodes, ``to_self`` more to itself and ``too_long`` over-long
    ones, shuffled."""
    out = {}
    for src in nodes:
        msgs = [(d, rng.randint(1, max_beats)) for d in nodes]
        msgs += [(rng.choice(nodes), rng.randint(1, max_beats)) for _ in range(count)]
        msgs += [(src, rng.randint(1, max_beats)) for _ in range(to_self)]
        msgs += [(rng.choice(nodes), max_beats + rng.randint(1, 3)) for _ in range(too_long)]
        rng.shuffle(msgs)
        out[src] = [(d, rng.randbytes(beats * lanes)) for d, beats in msgs]
    return out


def _stuck(dut, nodes, expected, got):
    """Where the traffic stands: per node, messages received of those expected and
    its handshake signals."""
    words = []
    for n in nodes:
        want = sum(len(expected[(s, n)]) for s in nodes)
        have = sum(len(got[(s, n)]) for s in nodes)
        signals = " ".join(f"{side}.{sig}={getattr(dut, f'{side}_n{n}_{sig}').value}"
                           for side in ("s_axis", "m_axis") for sig in ("tvalid", "tready"))
        words.append(f"node {n}: {have}/{want} received, {signals}")
    return "; ".join(words)


def _pauses(rng):
    while True:
        yield rng.random() < 0.4


def _tid(frame):
    tid = frame.tid
    if isinstance(tid, list):
        assert len(set(tid)) == 1, f"tid changed within a message: {tid}"
        return tid[0]
    return tid


@cocotb.test()
async def every_pair_in_order(dut):
    nodes, width, max_beats, count, too_long, seed, to_self = _settings()
    lanes = width // 8
    rng = random.Random(seed)
    cocotb.start_soon(Clock(dut.aclk, 10, unit="ns").start())
    sources, sinks = {}, {}
    for n in nodes:
        sources[n] = AxiStreamSource(AxiStreamBus.from_prefix(dut, f"s_axis_n{n}"), dut.aclk,
                                     dut.aresetn, reset_active_level=False)
        sinks[n] = AxiStreamSink(AxiStreamBus.from_prefix(dut, f"m_axis_n{n}"), dut.aclk,
                                 dut.aresetn, reset_active_level=False)
        sinks[n].set_pause_generator(_pauses(random.Random(seed * 1000 + n)))
    dut.aresetn.value = 0
    await ClockCycles(dut.aclk, 4)
    dut.aresetn.value = 1
    await ClockCycles(dut.aclk, 2)

    messages = _messages(rng, nodes, lanes, max_beats, count, too_long, to_self)
    expected = {(s, d): [] for s in nodes for d in nodes}
    drops = {n: 0 for n in nodes}
    for src, msgs in messages.items():
        for dest, payload in msgs:
            if len(payload) > max_beats * lanes:
                drops[src] += 1
            else:
                expected[(src, dest)].append(payload)
    got = {(s, d): [] for s in nodes for d in nodes}

    async def receive(dest):
        for _ in range(sum(len(expected[(s, dest)]) for s in nodes)):
            frame = await sinks[dest].recv()
            tid = _tid(frame)
            assert tid in nodes, f"node {dest} got tid {tid}, no node"
            got[(tid, dest)].append(bytes(frame.tdata))

    async def send(src):   # each source's queue is bounded: one sender per source
        for dest, payload in messages[src]:
            await sources[src].send(AxiStreamFrame(payload, tdest=dest))

    receivers = [cocotb.start_soon(receive(n)) for n in nodes]
    senders = [cocotb.start_soon(send(n)) for n in nodes]
    total = sum(len(m) for m in expected.values())
    try:
        for task in receivers:
            await with_timeout(task, int(os.environ.get("AXIS_TIMEOUT_NS", 0))
                               or 200 * (total + 50) * max_beats, "ns")
    except SimTimeoutError:
        raise AssertionError("no progress: " + _stuck(dut, nodes, expected, got)) from None
    for src in nodes:
        await senders[nodes.index(src)]
        await sources[src].wait()
    await ClockCycles(dut.aclk, 50)
    for pair, want in expected.items():
        assert got[pair] == want, f"pair {pair}: messages lost, changed or out of order"
    for n in nodes:
        assert sinks[n].empty(), f"node {n} got more messages than were sent to it"
        assert int(getattr(dut, f"dropped_n{n}").value) == drops[n], f"node {n} drop count"
    # every node sent itself messages (one at least), and got each back
    to_itself = sum(len(expected[(n, n)]) for n in nodes)
    assert all(got[(n, n)] for n in nodes) and to_itself >= len(nodes) * (1 + to_self)
    delivered = sum(len(m) for m in got.values())
    assert delivered == total, f"{delivered} messages delivered of {total} sent"
    dut._log.info(f"{total} messages delivered ({to_itself} to their sender itself), "
                  f"{sum(drops.values())} dropped")
