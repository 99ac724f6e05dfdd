"""Trace plans and the closed loop's bookkeeping, through an ideal fabric: each packet
leaves its source whole and reaches its destination a fixed number of cycles later,
where it is ejected a flit per cycle (what the checks need, without a simulator)."""

import collections

import pytest
from amaranth.lib import data

from cubefab.hdl.config import RouterConfig
from cubefab.sim.netrace import read_trace
from cubefab.sim.trace_plan import ClosedLoop, TraceCheckError, TracePlan, packet_flits
from cubefab.topology.dlh import DLH
from cubefab.topology.hypercube import Hypercube
from tests.sim.test_netrace import trace_file


def layout_of(topology, **router):
    return RouterConfig.for_topology(topology, **router).layout


def plan_of(name="shrtex", topology=Hypercube(6), **options):
    return TracePlan(read_trace(trace_file(name)), topology, layout_of(topology), **options)


class IdealFabric:
    """Delivers each packet ``delay`` cycles after its tail entered; ``tamper(flits,
    dst)`` may change what is delivered, and where."""

    def __init__(self, delay=5, tamper=None):
        self.delay, self.tamper = delay, tamper
        self.entering = collections.defaultdict(list)
        self.arriving = []                          # (cycle, dst, flits)
        self.ejecting = collections.defaultdict(collections.deque)

    def run(self, loop, limit=100_000):
        while not loop.done and loop.cycle < limit:
            for node, raw in loop.offer().items():
                loop.accepted(node)
                self.entering[node].append(raw)
                if raw >> 1 & 1:   # the tail
                    self._send(loop, node)
            for item in [a for a in self.arriving if a[0] <= loop.cycle]:
                self.arriving.remove(item)
                self.ejecting[item[1]].extend(item[2])
            for node, flits in list(self.ejecting.items()):
                if flits:
                    loop.ejected(node, flits.popleft())
            loop.advance()
        return loop

    def _send(self, loop, node):
        flits = self.entering.pop(node)
        dst = int(data.Const(loop.plan.layout, flits[0]).dest)
        if self.tamper is not None:
            flits, dst = self.tamper(flits, dst)
        self.arriving.append((loop.cycle + self.delay, dst, flits))


def test_packet_length_follows_size_and_flit_format():
    layout = layout_of(Hypercube(6))        # 16-bit head payload, 28-bit body data
    assert (packet_flits(8, layout), packet_flits(72, layout)) == (3, 21)
    every = layout_of(Hypercube(6), header="every")
    assert (packet_flits(8, every), packet_flits(72, every)) == (4, 36)


def test_network_smaller_than_the_trace_is_refused():
    with pytest.raises(ValueError, match=r"Q\(5\) has 32 nodes; the trace .* has 64"):
        plan_of(topology=Hypercube(5))


def test_trace_nodes_are_the_networks_nodes_in_address_order():
    topology = DLH(4, 2)     # addresses are not dense
    plan = plan_of(topology=topology)
    nodes = [int(a) for a in topology.nodes()]
    assert all(p.src == nodes[p.trace_src] and p.dst == nodes[p.trace_dst]
               for p in plan.packets)


def test_first_packets_are_taken_by_id():
    plan = plan_of("example", packets=10)
    assert sorted(p.id for p in plan.packets) == list(range(10))
    assert [p.cycle for p in plan.packets] == sorted(p.cycle for p in plan.packets)


def test_dependencies_outside_the_run_are_dropped():
    plan = plan_of(packets=2)                 # packet 0 releases 1 and 3
    assert [p.dependents for p in plan.packets] == [(1,), ()]
    assert [p.waits_for for p in plan.packets] == [0, 1]


def test_closed_loop_waits_for_trace_cycle_and_dependencies():
    plan = plan_of("example")
    loop = IdealFabric().run(ClosedLoop(plan))
    assert loop.done
    for p in plan.packets:
        assert loop.inject_cycle[p.index] >= p.cycle - plan.start
        for d in p.dependents:
            assert loop.inject_cycle[d] > loop.deliver_cycle[p.index]


def test_ignoring_dependencies_injects_at_trace_cycles():
    # shrtex's packet 1 (trace cycle 24) waits for packet 0 (cycle 0) when they count
    free = IdealFabric(delay=40).run(ClosedLoop(plan_of(ignore_dependencies=True)))
    bound = IdealFabric(delay=40).run(ClosedLoop(plan_of()))
    assert free.inject_cycle[1] == 24
    assert bound.inject_cycle[1] > bound.deliver_cycle[0] > 24


def test_a_misrouted_packet_is_found():
    fabric = IdealFabric(tamper=lambda flits, dst: (flits, dst ^ 1))
    with pytest.raises(TraceCheckError, match="arrived at node 43"):
        fabric.run(ClosedLoop(plan_of()))


def test_a_corrupted_body_flit_is_found():
    def flip(flits, dst):
        return [flits[0], flits[1] ^ (1 << 20), *flits[2:]], dst
    with pytest.raises(TraceCheckError, match="not as it was sent"):
        IdealFabric(tamper=flip).run(ClosedLoop(plan_of()))


def test_a_duplicated_packet_is_found():
    def twice(flits, dst):
        return flits + flits, dst
    with pytest.raises(TraceCheckError, match="did not send or had delivered"):
        IdealFabric(tamper=twice).run(ClosedLoop(plan_of()))


def test_a_lost_flit_is_found():
    def drop(flits, dst):
        return [flits[0], *flits[2:]], dst
    with pytest.raises(TraceCheckError, match="with 2 flits"):
        IdealFabric(tamper=drop).run(ClosedLoop(plan_of()))


def test_an_undelivered_packet_is_lost():
    def vanish(flits, dst):
        return [], dst
    loop = IdealFabric(tamper=vanish).run(ClosedLoop(plan_of(packets=1)), limit=500)
    assert not loop.done and loop.lost() == [0]


def test_a_source_never_has_two_packets_of_one_name_in_flight():
    topology = Hypercube(6)
    plan = TracePlan(read_trace(trace_file("example")), topology,
                     layout_of(topology, payload_width=1))
    with pytest.raises(TraceCheckError, match="2 packets in flight"):
        IdealFabric(delay=5000).run(ClosedLoop(plan))


@pytest.mark.parametrize("header", ["head", "every"])
def test_flit_words_hold_the_fields_as_the_layout_places_them(header):
    plan = TracePlan(read_trace(trace_file("shrtex")), Hypercube(6),
                     layout_of(Hypercube(6), header=header))
    layout = plan.layout
    body = layout.body if header == "head" else layout
    for packet in plan.packets:
        head, *rest = plan.flit_words(packet)
        fields = data.Const(layout, head)
        assert (fields.head, fields.dest, fields.src) == (1, packet.dst, packet.src)
        assert fields.payload == packet.sequence and fields.tail == (not rest)
        assert layout.const({"head": 1, "tail": int(not rest), "dest": packet.dst,
                             "src": packet.src, "payload": packet.sequence}).as_bits() == head
        for k, word in enumerate(rest, 1):
            fields = {name: getattr(data.Const(body, word), name)
                      for name in (("tail", "data") if header == "head"
                                   else ("tail", "dest", "src", "payload"))}
            assert fields["tail"] == (k == len(rest))
            assert body.const(fields).as_bits() == word
