"""The wormhole virtual-channel router of one node."""

from amaranth.hdl import Module, Signal, Cat, Mux, C, unsigned
from amaranth.lib import data, stream, wiring
from amaranth.lib.fifo import FIFOInterface
from amaranth.lib.wiring import In, Out

from ..topology.base import Topology, check_int
from ..topology.deadlock import required_vcs, wrap_ports
from .allocator import round_robin
from .crossbar import one_hot_mux
from .fifo import register_fifo_logic
from .flit import FlitLayout, LinkSignature
from .route import route_unit


__all__ = ["Router", "HOP_LATENCY", "ROUTER_LATENCY", "configure_router"]


#: Cycles a head flit takes per hop with no contention: one in the input buffer, one
#: in the output register (``link_out[p].flit`` is a register).
HOP_LATENCY = 2

#: Cycles from a flit accepted on ``local_in`` to it appearing on ``local_out`` of the
#: same router (a packet to itself); a packet of ``L`` flits over ``h`` hops has
#: latency ``ROUTER_LATENCY + h * HOP_LATENCY + L - 1`` from its head's acceptance to
#: its tail's appearance, with no contention.
ROUTER_LATENCY = 2


def configure_router(obj, topology, payload_width, vcs, depth, algorithm):
    """Check router parameters and set ``topology``, ``algorithm``, ``vcs`` (default:
    what the VC assignment needs), ``depth``, ``layout`` and ``payload_width`` on
    ``obj`` (a router, or a fabric of such routers)."""
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    obj.topology = topology
    obj.algorithm = topology.check_algorithm(algorithm)
    if vcs is None:
        vcs = required_vcs(topology, obj.algorithm)
    obj.vcs = check_int("Number of virtual channels", vcs, 1)
    obj.depth = check_int("Buffer depth", depth, 1)
    obj.layout = FlitLayout(topology.address_bits, payload_width, obj.vcs)
    obj.payload_width = obj.layout.payload_width


class Router(wiring.Component):
    """Input-buffered wormhole router with virtual channels and credit flow control.

    Parameters
    ----------
    topology : Topology
        The network; ports are numbered as in conventions.md.
    node : int
        This router's node address.
    payload_width : int
        Width of a flit's ``payload`` field.
    vcs : int or None
        Virtual channels per link (default: what the VC-assignment function of
        :mod:`cubefab.topology.deadlock` needs to be deadlock-free).
    depth : int
        Flits of buffering per input virtual channel (>= 1; 4 sustains one flit per
        cycle on one VC across the credit loop).
    algorithm : str or None
        Routing algorithm (the topology's default when ``None``).

    Members
    -------
    link_in : In(LinkSignature(layout)).array(degree)
        ``link_in[p]``: flits arriving through network port ``p``; the router returns
        a credit on ``link_in[p].credit[v]`` when a flit of VC ``v`` leaves its buffer.
    link_out : Out(LinkSignature(layout)).array(degree)
        ``link_out[p]``: flits leaving through network port ``p`` (registered); the
        router sends on VC ``v`` only with a credit, and starts with ``depth``.
    local_in : In(stream.Signature(layout))
        Injection. Packets must be well formed (a head, body flits, a tail; ``head``
        and ``tail`` both set for one flit); ``vc`` is ignored.
    local_out : Out(stream.Signature(layout))
        Ejection (registered); a packet's flits leave consecutively, never
        interleaved with another packet's. ``vc`` holds the VC of the last link.

    A packet's head reserves an output VC (wormhole switching: it stays reserved
    until the tail passes), each output port sends one flit a cycle, chosen by a
    round-robin arbiter among the input VCs that may use it.
    """

    def __init__(self, topology, node, *, payload_width=16, vcs=None, depth=4,
                 algorithm=None):
        configure_router(self, topology, payload_width, vcs, depth, algorithm)
        self.node = topology.check_node(node, "node")
        degree = topology.degree
        #: Sticky flag for simulation: a flit arrived at a full buffer (a broken
        #: credit protocol); never set in a correct network.
        self.overflow = Signal()
        super().__init__({
            "link_in": In(LinkSignature(self.layout)).array(degree),
            "link_out": Out(LinkSignature(self.layout)).array(degree),
            "local_in": In(stream.Signature(self.layout)),
            "local_out": Out(stream.Signature(self.layout)),
        })

    def elaborate(self, platform):
        m = Module()
        topo, layout = self.topology, self.layout
        degree, vcs, depth = topo.degree, self.vcs, self.depth
        wraps = wrap_ports(topo, self.node)
        local = degree
        vc_bits = layout["vc"].shape.width
        vc_at = layout["vc"].offset
        vc_end = vc_at + vc_bits

        # Route computation happens as a flit enters its input buffer (one route unit
        # per input port); the buffer stores the flit, its output port and the VC it
        # takes on the next link: vc_out = min(vc_in + wrap(here, port), vcs - 1).
        entry = data.StructLayout({
            "flit": layout,
            "port": unsigned(topo.port_width),
            "vc": unsigned(layout["vc"].shape.width),
        })
        queues = [(p, v) for p in range(degree) for v in range(vcs)] + [(local, 0)]
        heads, fifos = [], []
        for p in range(degree + 1):
            # (expressions rather than named signals where possible: every named
            # signal costs the Python simulator an update per evaluation)
            if p < degree:
                arriving = self.link_in[p].flit.payload
            else:
                arriving = data.View(layout, Cat(self.local_in.payload.as_value()[:vc_at],
                                                 C(0, vc_bits),
                                                 self.local_in.payload.as_value()[vc_end:]))
            ru = m.submodules[f"route_p{p}"] = route_unit(topo, self.node, self.algorithm)
            m.d.comb += ru.dest.eq(arriving.dest)
            if hasattr(ru, "src") and "src" in ru.signature.members:
                m.d.comb += ru.src.eq(arriving.src)
            enter = Signal(entry, name=f"enter_p{p}")
            m.d.comb += [enter.flit.eq(arriving), enter.port.eq(ru.port),
                         enter.vc.eq(arriving.vc)]
            with m.Switch(ru.port):
                for o in range(degree):
                    if wraps[o] and vcs > 1:
                        with m.Case(o):
                            m.d.comb += enter.vc.eq(Mux(arriving.vc == vcs - 1, vcs - 1,
                                                        arriving.vc + 1))
            for v in range(vcs if p < degree else 1):
                fifo = FIFOInterface(width=entry.size, depth=depth)
                register_fifo_logic(m, fifo, name=f"fifo_p{p}_vc{v}")
                m.d.comb += fifo.w_data.eq(enter)
                if p < degree:
                    link = self.link_in[p]
                    m.d.comb += fifo.w_en.eq(link.flit.valid & (link.flit.payload.vc == v))
                    with m.If(fifo.w_en & ~fifo.w_rdy):
                        m.d.sync += self.overflow.eq(1)
                    # credit return, registered: one pulse per flit leaving the buffer
                    m.d.sync += link.credit[v].eq(fifo.r_en & fifo.r_rdy)
                else:
                    m.d.comb += [fifo.w_en.eq(self.local_in.valid),
                                 self.local_in.ready.eq(fifo.w_rdy)]
                heads.append(data.View(entry, fifo.r_data))
                fifos.append(fifo)

        # Output state: a busy bit per output VC (held from head to tail) and a credit
        # counter per network output VC. The local output has one VC and uses its
        # output register's handshake instead of credits.
        out_vcs = [vcs] * degree + [1]
        busy = [[Signal(name=f"busy_p{o}_vc{w}") for w in range(out_vcs[o])]
                for o in range(degree + 1)]
        credits = [[Signal(range(depth + 1), init=depth, name=f"credit_p{o}_vc{w}")
                    for w in range(vcs)] for o in range(degree)]
        can_send = []
        for o in range(degree):
            can_send.append(Cat(c != 0 for c in credits[o]))
        local_free = Signal()
        m.d.comb += local_free.eq(~self.local_out.valid | self.local_out.ready)
        can_send.append(local_free)

        nq = len(queues)
        # Switch allocation: a round-robin arbiter per output among the input VCs.
        # (Arbiters, crossbar and buffers are built inline in this module; the Python
        # simulator runs one module much faster than many small ones.)
        requests = [Signal(nq, name=f"requests_p{o}") for o in range(degree + 1)]
        grants = [Signal(nq, name=f"grants_p{o}") for o in range(degree + 1)]
        for o in range(degree + 1):
            round_robin(m, requests[o], grants[o], 1, name=f"last_p{o}")
        departing = []
        for q, (p, v) in enumerate(queues):
            fifo, head = fifos[q], heads[q]
            active = Signal(name=f"active_p{p}_vc{v}")
            held_port = Signal(topo.port_width, name=f"held_port_p{p}_vc{v}")
            held_vc = Signal(len(head.vc), name=f"held_vc_p{p}_vc{v}")
            port = Mux(active, held_port, head.port)
            out_vc = Mux(active, held_vc, head.vc)[:vc_bits]
            for o in range(degree + 1):
                if o < degree:
                    vc_busy = Cat(busy[o]).bit_select(out_vc, 1)
                    credit = can_send[o].bit_select(out_vc, 1)
                else:
                    vc_busy, credit = busy[o][0], can_send[o]
                m.d.comb += requests[o][q].eq(
                    fifo.r_rdy & (port == o) & (active | ~vc_busy) & credit)
            granted = Cat(grants[o][q] for o in range(degree + 1)).any()
            m.d.comb += fifo.r_en.eq(granted)
            flit = head.flit.as_value()   # the flit leaves on its output VC
            departing.append(Cat(flit[:vc_at], out_vc, flit[vc_end:]))
            with m.If(granted):
                m.d.sync += [active.eq(~head.flit.tail), held_port.eq(port),
                             held_vc.eq(out_vc)]

        # Crossbar into the registered outputs.
        switched = [Signal(layout, name=f"switched_p{o}") for o in range(degree + 1)]
        for o in range(degree + 1):
            m.d.comb += switched[o].eq(one_hot_mux(grants[o], departing))
        for o in range(degree):
            out = self.link_out[o]
            sent = grants[o].any()
            m.d.sync += [out.flit.valid.eq(sent), out.flit.payload.eq(switched[o])]
            for w in range(vcs):
                used = sent & (switched[o].vc == w)
                m.d.sync += credits[o][w].eq(credits[o][w] + out.credit[w] - used)
                # an output VC is busy from a packet's head until its tail has left
                with m.If(used):
                    m.d.sync += busy[o][w].eq(~switched[o].tail)
        with m.If(local_free):
            m.d.sync += [self.local_out.valid.eq(grants[local].any()),
                         self.local_out.payload.eq(switched[local])]
        with m.If(grants[local].any()):
            m.d.sync += busy[local][0].eq(~switched[local].tail)
        return m
