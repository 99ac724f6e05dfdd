"""An independent model of the AXI4-Stream endpoints' packets and a simulation
driver for them (import as ``from tests.hdl.endpoint_helpers import ...``)."""


from amaranth.hdl import Module
from amaranth.lib import wiring

from tests.helpers import run_clocked


__all__ = ["model_packet", "random_messages", "check_delivery", "run_endpoints",
           "loopback"]


def model_packet(fmt, beats):
    """The flit payloads of a message ``beats`` (ints of ``fmt.data_width`` bits),
    as the endpoint format promises (docs/endpoints.md): ``[(head, tail, bits)]``,
    the kind bit (0) and the count field (``len(beats) - 1``) first where the format
    has them, then the
    beats, bit 0 first, cut into ``head_bits`` then ``body_bits`` pieces."""
    width, kind, count = fmt.data_width, fmt.kind_width, fmt.count_width
    prefix = kind + count                 # kind 0: a message
    value = (len(beats) - 1) << kind if count else 0
    for i, beat in enumerate(beats):
        value |= beat << (prefix + i * width)
    total = prefix + len(beats) * width
    sizes = [fmt.head_bits]
    while sum(sizes) < total:
        sizes.append(fmt.body_bits)
    flits, at = [], 0
    for i, size in enumerate(sizes):
        flits.append((int(i == 0), int(i == len(sizes) - 1), value >> at & ((1 << size) - 1)))
        at += size
    return flits


def random_messages(rng, fmt, nodes, count, *, bad=(), too_long=0.0, self_share=None):
    """``count`` random messages per source: ``{src: [(dest, beats)]}``; ``dest`` among
    ``nodes`` (and the addresses ``bad``, none a node), a ``too_long`` share of them
    ``max_beats + 1`` to ``max_beats + 3`` beats long, the others 1 to ``max_beats``."""
    out = {}
    for src in nodes:
        msgs = []
        for _ in range(count):
            dest = rng.choice(list(nodes) + list(bad))
            if self_share is not None and rng.random() < self_share:
                dest = src
            length = (rng.randint(fmt.max_beats + 1, fmt.max_beats + 3)
                      if rng.random() < too_long else rng.randint(1, fmt.max_beats))
            msgs.append((dest, [rng.getrandbits(fmt.data_width) for _ in range(length)]))
        out[src] = msgs
    return out


def expected_delivery(fmt, nodes, messages):
    """What the endpoints must deliver: ``{(src, dest): [beats, ...]}`` in the order
    sent, and the drops per source (too long, or ``dest`` not in ``nodes``)."""
    expected = {(s, d): [] for s in nodes for d in nodes}
    dropped = {s: 0 for s in nodes}
    for src, msgs in messages.items():
        for dest, beats in msgs:
            if dest not in nodes or len(beats) > fmt.max_beats:
                dropped[src] += 1
            else:
                expected[(src, dest)].append(beats)
    return expected, dropped


def check_delivery(fmt, nodes, messages, received, dropped):
    """Every message arrived exactly once, intact, with the right ``tid``, in order per
    pair; the others were dropped and counted. ``received``: ``{dest: [(tid, beats)]}``
    in arrival order; ``dropped``: ``{src: count}``."""
    expected, drops = expected_delivery(fmt, nodes, messages)
    got = {(s, d): [] for s in nodes for d in nodes}
    for dest, msgs in received.items():
        for tid, beats in msgs:
            assert tid in nodes, f"tid {tid} at node {dest} names no node"
            got[(tid, dest)].append(beats)
    for pair, want in expected.items():
        assert got[pair] == want, f"pair {pair}: got {got[pair]}, sent {want}"
    assert dropped == drops


def run_endpoints(dut, sources, sinks, nodes, messages, *, cycles, rng, ready_share=1.0,
                  dropped=None, flits=None, flits_per_stream=False):
    """Simulate: node ``nodes[k]`` sends ``messages[nodes[k]]`` on ``sources[k]`` (a
    stream of ``data``/``last``/``dest``), ``sinks[k]`` (``data``/``last``/``id``) is
    ready with probability ``ready_share`` each cycle. Returns ``{dest: [(tid,
    beats)]}`` and ``{src: dropped}`` (from the ``dropped`` signals, if given);
    ``flits``: streams whose transfers are recorded in the returned ``"flits"`` list
    (a list per stream with ``flits_per_stream``)."""
    received = {a: [] for a in nodes}
    counts = {}
    seen = [[] for _ in flits or ()] if flits_per_stream else []
    queues = {a: [(d, list(b)) for d, b in messages[a]] for a in nodes}

    async def bench(ctx):
        partial = {a: [] for a in nodes}
        position = {a: 0 for a in nodes}
        for _ in range(cycles):
            for k, a in enumerate(nodes):
                src = sources[k]
                if queues[a]:
                    dest, beats = queues[a][0]
                    i = position[a]
                    ctx.set(src.valid, 1)
                    ctx.set(src.payload, {"data": beats[i], "last": int(i == len(beats) - 1),
                                          "dest": dest})
                else:
                    ctx.set(src.valid, 0)
                ctx.set(sinks[k].ready, int(rng.random() < ready_share))
            for k, a in enumerate(nodes):
                if ctx.get(sources[k].valid) and ctx.get(sources[k].ready):
                    position[a] += 1
                    if position[a] == len(queues[a][0][1]):
                        queues[a].pop(0)
                        position[a] = 0
                sink = sinks[k]
                if ctx.get(sink.valid) and ctx.get(sink.ready):
                    beat = ctx.get(sink.payload)
                    partial[a].append((int(beat.id), int(beat.data)))
                    tids = {t for t, _ in partial[a]}
                    assert len(tids) == 1, f"node {a}: tid changed within a message"
                    if beat.last:
                        received[a].append((int(beat.id), [d for _, d in partial[a]]))
                        partial[a] = []
            for k, stream in enumerate(flits or ()):
                if ctx.get(stream.valid) and ctx.get(stream.ready):
                    value = ctx.get(stream.payload.as_value())
                    if flits_per_stream:
                        seen[k].append(value)
                    else:
                        seen.append(value)
            await ctx.tick()
        if dropped is not None:
            counts.update({a: ctx.get(dropped[k]) for k, a in enumerate(nodes)})
        assert not any(queues.values()), "messages still unsent at the end"
        assert not any(partial.values()), "a message was cut short"

    run_clocked(dut, bench)
    return received, counts, seen


def loopback(inject, eject):
    """A module with ``inject.local_in`` wired to ``eject.local_out`` (a node sending
    to itself without a router)."""
    m = Module()
    m.submodules.inject, m.submodules.eject = inject, eject
    wiring.connect(m, inject.local_in, eject.local_out)
    return m
