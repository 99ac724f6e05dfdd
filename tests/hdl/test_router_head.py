"""The header in the head flit only (``RouterConfig(header="head")``): the flit layouts
and their payload efficiency, and one router routing a packet's body flits by its head's
route."""

import random

import pytest

from cubefab.build.verilog import verilog_text
from cubefab.hdl.config import RouterConfig
from cubefab.hdl.flit import DEFAULT_HEADER, FlitLayout, payload_efficiency, payload_width_for
from cubefab.hdl.router import Router, input_unit
from cubefab.topology import Hypercube
from tests.helpers import run_clocked


def test_a_body_flit_is_data_but_for_its_type_and_vc_bits():
    layout = FlitLayout(4, 6, vcs=2, header="head")
    assert layout.size == 2 + 1 + 2 * 4 + 6
    assert [(name, field.offset) for name, field in layout.body] == \
        [("head", 0), ("tail", 1), ("vc", 2), ("data", 3)]
    assert layout.body_payload_width == layout.size - 3
    assert FlitLayout(4, 6, vcs=2, header="every").body_payload_width == 6


def test_a_head_only_cut_bit_is_a_flit_type_bit():
    layout = FlitLayout(3, 8, vcs=4, waypoints=2, header="head")
    assert layout["cut"].offset == 2 and "cut" in dict(layout.body)
    assert FlitLayout(3, 8, vcs=4, waypoints=2, header="every")["cut"].offset \
        > layout["dest"].offset


def test_layouts_of_the_two_headers_are_not_equal():
    assert FlitLayout(4, 6, header="every") != FlitLayout(4, 6, header="head")
    assert FlitLayout(4, 6, header="head") == FlitLayout(4, 6, header="head")


def test_the_header_is_in_the_head_flit_by_default():
    assert FlitLayout(4, 6).header == RouterConfig.for_topology(Hypercube(4)).header \
        == DEFAULT_HEADER == "head"
    assert "header" not in RouterConfig.for_topology(Hypercube(4)).as_dict()
    assert RouterConfig.for_topology(Hypercube(4), header="every").as_dict()["header"] \
        == "every"


def test_payload_efficiency_of_the_q4_router_with_16_bit_links():
    # 4-bit addresses, one VC: head, tail, dest, src = a 10-bit header, 6 payload bits
    every = FlitLayout(4, payload_width_for(4, 16), header="every")
    head = FlitLayout(4, payload_width_for(4, 16), header="head")
    assert every.size == head.size == 16
    assert [payload_efficiency(every, n) for n in (1, 4)] == [6 / 16, 6 / 16]
    # a head of 6 payload bits, then body flits of 14 (all but head and tail)
    assert [payload_efficiency(head, n) for n in (1, 2, 4)] == [6 / 16, 20 / 32, 48 / 64]


def test_a_header_that_is_no_mode_is_refused():
    with pytest.raises(ValueError, match="Header must be one of 'every', 'head', not 'tail'"):
        RouterConfig.for_topology(Hypercube(3), header="tail")


def test_only_the_head_mode_router_holds_routes():
    topo = Hypercube(2)
    text = {header: verilog_text(Router(RouterConfig.for_topology(
        topo, payload_width=4, header=header), 0)) for header in ("every", "head")}
    assert "held_route" not in text["every"] and "held_route_p0_vc0" in text["head"]


def body_flits_leaving(router_class):
    """A 4-flit packet from node 1 to node 6 entering node 0 of Q(3) (``router_class``,
    header in the head, two VCs per class) on port 0, its body flits holding random
    data whose bits where a head has ``dest`` name other nodes: the (port, flit value
    but ``vc``) of every flit that leaves in 20 cycles, and the flits sent."""
    topo = Hypercube(3)
    router = router_class(RouterConfig.for_topology(topo, payload_width=4, depth=8,
                                                    vcs_per_class=2, header="head"), 0)
    layout = router.layout
    rng = random.Random(5)
    head = layout.const({"head": 1, "dest": 6, "src": 1, "payload": 9}).as_value().value
    sent = [head]
    for k in range(1, 4):
        value = rng.getrandbits(layout.size) & ~0b11 | (k == 3) << 1   # head 0, tail
        dest = value >> layout["dest"].offset & 0b111
        sent.append(value ^ (dest ^ k) << layout["dest"].offset)   # dest k, not 6
    vc = (1 << layout["vc"].shape.width) - 1 << layout["vc"].offset
    seen = []

    async def bench(ctx):
        link = router.link_in[0].flit
        for cycle in range(20):
            ctx.set(link.valid, cycle < len(sent))
            if cycle < len(sent):
                ctx.set(link.payload.as_value(), sent[cycle] & ~vc)
            for p, out in enumerate(router.link_out):
                if ctx.get(out.flit.valid):
                    seen.append((p, ctx.get(out.flit.payload.as_value()) & ~vc))
            await ctx.tick()
    run_clocked(router, bench)
    return seen, [value & ~vc for value in sent]


def test_body_flits_take_their_heads_route_untouched_but_for_the_vc():
    seen, sent = body_flits_leaving(Router)
    # ecube from 0 to 6: the lowest differing bit, port 1
    assert seen == [(1, value) for value in sent]


def test_a_router_that_routes_body_flits_by_their_own_bits_is_caught(monkeypatch):
    # the defect: body flits routed by their own (data) bits
    monkeypatch.setattr(input_unit, "entry_route",
                        lambda frame, p, v, fifo, flit, new: new)
    seen, sent = body_flits_leaving(Router)
    assert seen != [(1, value) for value in sent]
