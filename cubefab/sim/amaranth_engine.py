"""Simulate a whole fabric under load in Amaranth's Python simulator.

The testbench plays every node's source and sink: it presents each node's queued
flits on ``local_in`` (holding a flit until it is accepted, as ``lib.stream``
requires), takes flits from ``local_out`` (``ready`` high unless a stall schedule
says otherwise) and hands them to the :class:`~cubefab.sim.scoreboard.Scoreboard`.
With ``trace_hops`` it also watches every link and records which links each head
crosses, so that the scoreboard compares every route with the reference route. A
progress watchdog ends the run when packets are outstanding and no flit has moved
for ``watchdog`` cycles (a deadlock, or a livelock at the edge of the network).
"""

from collections import deque
import time

from amaranth.hdl import Cat, Elaboratable, Module, Signal
from amaranth.sim import Simulator

from ..hdl.fabric import Fabric, FabricConfig
from ..topology.base import check_int
from .result import SimResult
from .scoreboard import Scoreboard
from .traffic import Traffic


__all__ = ["AmaranthEngine"]


class AmaranthEngine:
    """Runs traffic through a :class:`~cubefab.hdl.fabric.Fabric` in Amaranth's simulator.

    Parameters
    ----------
    topology : Topology
    payload_width, vcs, depth, algorithm
        Router parameters of the fabric.
    trace_hops : bool
        Watch every link and check every packet's route (slower).
    vcd : str or None
        Write a VCD waveform file.
    """

    name = "amaranth"

    def __init__(self, topology, *, payload_width=16, vcs=None, depth=4, algorithm=None,
                 vcs_per_class=1, trace_hops=True, vcd=None):
        self.fabric = Fabric(FabricConfig.for_topology(
            topology, payload_width=payload_width, vcs=vcs, depth=depth,
            algorithm=algorithm, vcs_per_class=vcs_per_class))
        # built here to check the parameters early; an engine never run leaves it unused
        for design in (self.fabric, *self.fabric.routers):
            design._MustUse__silence = True
        self.topology = topology
        self.trace_hops = bool(trace_hops)
        self.vcd = vcd

    def run(self, traffic, cycles, *, drain=None, watchdog=None, stall=None,
            packets=None, progress=None):
        """Simulate ``cycles`` cycles of ``traffic``, then drain.

        Parameters
        ----------
        traffic : Traffic or None
            Packet source (None: only ``packets``).
        cycles : int
            Cycles during which ``traffic`` creates packets.
        drain : int or None
            Most cycles to wait afterwards for the outstanding packets (default:
            until all are delivered or the watchdog fires).
        watchdog : int or None
            Cycles without any flit accepted or delivered, while packets are
            outstanding, that count as no progress (default: a bound derived from
            the diameter, buffer depth and packet length).
        stall : callable or None
            ``stall(cycle, node)`` -> True to hold ``local_out[node].ready`` low.
        packets : iterable of (cycle, src, dest, flits), optional
            Extra packets (dense indices) created at given cycles.
        progress : callable or None
            ``progress(done, total)`` called now and then.

        Returns
        -------
        SimResult
        """
        topo, fabric = self.topology, self.fabric
        config = fabric.config.router
        cycles = check_int("Cycles", cycles, 0)
        if traffic is not None and not isinstance(traffic, Traffic):
            raise TypeError(f"Traffic must be a Traffic, not {traffic!r}")
        if traffic is not None and traffic.topology != topo:
            raise ValueError(f"Traffic is for {traffic.topology.label}, not {topo.label}")
        flits_per_packet = traffic.packet_flits if traffic is not None else 1
        if watchdog is None:
            watchdog = 64 + 8 * topo.address_bits * (config.depth + flits_per_packet)
        watchdog = check_int("Watchdog", watchdog, 1)
        extra = {}
        for at, src, dest, length in (packets or ()):
            extra.setdefault(at, []).append((src, dest, length))
        n = topo.num_nodes
        board = Scoreboard(topo, fabric.layout, config.algorithm, config.vcs,
                           config.vcs_per_class)
        queues = [deque() for _ in range(n)]       # per node: (packet, flit index)
        state = {"cycle": 0, "stalled": False, "drain_cycles": 0, "injected_flits": 0,
                 "window_flits": 0}
        harness = _Harness(fabric, self.trace_hops)
        outs = [fabric.local_out[i] for i in range(n)]
        out_ready = [p.ready for p in outs]
        out_payload = [p.payload.as_value() for p in outs]
        in_width = fabric.layout.size + 1
        total = cycles
        head_bit = 1 << fabric.layout["head"].offset

        async def testbench(ctx):
            presented = [None] * n
            driven = 0
            for i in range(n):
                ctx.set(out_ready[i], 1)
            ready_now = [True] * n
            cycle, idle = 0, 0
            while True:
                generating = cycle < cycles
                if generating and traffic is not None:
                    for src, dest in traffic.generate():
                        p = board.create(src, dest, flits_per_packet, cycle)
                        queues[src].append(p)
                for src, dest, length in extra.get(cycle, ()):
                    queues[src].append(board.create(src, dest, length, cycle))
                # sources: present the front flit of every queue (held until taken)
                word = 0
                for i in range(n):
                    q = queues[i]
                    if q:
                        flit = q[0].flits[_sent[i]]
                        presented[i] = flit
                        word |= (flit | 1 << (in_width - 1)) << (i * in_width)
                    else:
                        presented[i] = None
                if word != driven:
                    ctx.set(harness.drive, word)
                    driven = word
                # sinks: ready per the stall schedule
                if stall is not None:
                    for i in range(n):
                        r = not stall(cycle, i)
                        if r != ready_now[i]:
                            ctx.set(out_ready[i], int(r))
                            ready_now[i] = r
                moved = False
                bits = ctx.get(harness.in_ready)
                for i in range(n):
                    if presented[i] is not None and (bits >> i) & 1:
                        moved = True
                        p = queues[i][0]
                        if _sent[i] == 0:
                            board.accept(p, cycle)
                        state["injected_flits"] += 1
                        _sent[i] += 1
                        if _sent[i] == len(p.flits):
                            queues[i].popleft()
                            _sent[i] = 0
                bits = ctx.get(harness.out_valid)
                i = 0
                while bits:
                    if bits & 1 and ready_now[i]:
                        moved = True
                        board.eject(i, ctx.get(out_payload[i]), cycle)
                        if generating:
                            state["window_flits"] += 1
                    bits >>= 1
                    i += 1
                if harness.links:
                    bits = ctx.get(harness.link_valid)
                    j = 0
                    while bits:
                        if bits & 1:
                            node, port, payload = harness.links[j]
                            raw = ctx.get(payload)
                            if raw & head_bit:
                                board.hop(node, port, raw)
                        bits >>= 1
                        j += 1
                await ctx.tick()
                cycle += 1
                state["cycle"] = cycle
                if progress is not None and cycle % 64 == 0:
                    progress(min(cycle, total), total)
                busy = board.outstanding > 0 or any(queues)
                idle = 0 if moved else idle + 1
                if cycle >= cycles:
                    if not busy:
                        break
                    state["drain_cycles"] = cycle - cycles
                    if drain is not None and cycle - cycles >= drain:
                        break
                if busy and idle >= watchdog:
                    state["stalled"] = True
                    break
            if progress is not None:
                progress(total, total)

        _sent = [0] * n
        sim = Simulator(harness)
        sim.add_clock(1e-8)
        sim.add_testbench(testbench)
        t0 = time.perf_counter()
        if self.vcd:
            with sim.write_vcd(self.vcd):
                sim.run()
        else:
            sim.run()
        seconds = time.perf_counter() - t0
        return SimResult(topo, board, engine=self.name, cycles=cycles,
                         simulated_cycles=state["cycle"], drain_cycles=state["drain_cycles"],
                         window_flits=state["window_flits"],
                         injected_flits=state["injected_flits"], stalled=state["stalled"],
                         watchdog=watchdog, seconds=seconds, traffic=traffic,
                         config={"vcs": config.vcs, "depth": config.depth,
                                 "payload_width": config.payload_width,
                                 "algorithm": config.algorithm})


class _Harness(Elaboratable):
    """The fabric with its local ports gathered into a few wide signals: the
    simulator sets or reads a plain signal much faster than a concatenation, and
    every testbench ``set`` settles the whole design once."""

    def __init__(self, fabric, trace_hops):
        self.fabric = fabric
        n = fabric.topology.num_nodes
        width = fabric.layout.size + 1
        self.drive = Signal(n * width)       # per node: payload, then valid
        self.in_ready = Signal(n)
        self.out_valid = Signal(n)
        self.links = []
        if trace_hops:
            for i, r in enumerate(fabric.routers):
                for p in range(fabric.topology.degree):
                    self.links.append((i, p, r.link_out[p].flit.payload.as_value()))
        self.link_valid = Signal(max(1, len(self.links)))

    def elaborate(self, platform):
        m = Module()
        fabric = m.submodules.fabric = self.fabric
        n = fabric.topology.num_nodes
        width = fabric.layout.size + 1
        for i in range(n):
            port = fabric.local_in[i]
            word = self.drive[i * width:(i + 1) * width]
            m.d.comb += [port.payload.eq(word[:-1]), port.valid.eq(word[-1]),
                         self.in_ready[i].eq(port.ready),
                         self.out_valid[i].eq(fabric.local_out[i].valid)]
        if self.links:
            valids = [r.link_out[p].flit.valid for r in fabric.routers
                      for p in range(fabric.topology.degree)]
            m.d.comb += self.link_valid.eq(Cat(*valids))
        return m
