"""Flits: the unit a router moves per cycle, and the link signature that carries them.

A packet is one or more flits; its first flit has ``head`` set and its last ``tail``
(a one-flit packet has both). ``vc`` is the virtual channel of the link the flit is
crossing (the deadlock-avoidance state, :mod:`cubefab.topology.deadlock`); ``payload``
is the user's data. Where the packet's routing information (``dest``, ``src``, ``cls``,
...) travels is the layout's ``header`` (one of :data:`HEADERS`): ``"every"`` flit
repeats it, so that any flit can be checked on its own; with ``"head"`` only the head
carries it, and every other flit carries data in all its bits but the flit-type bits
(``head``, ``tail``, ``bcast``) and ``vc`` (:attr:`FlitLayout.body`).
"""

from amaranth.hdl import Shape, unsigned
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..topology.base import check_int


__all__ = ["FlitLayout", "vc_width", "header_width",
           "payload_width_for", "payload_efficiency", "LinkSignature", "HEADERS",
           "DEFAULT_HEADER"]


#: Where a packet's routing information travels: in ``"every"`` flit, or in its
#: ``"head"`` flit only (body and tail flits carry data in its place).
HEADERS = ("every", "head")

#: Where it travels unless a design says otherwise: in the head flit only. At 16-bit
#: flits on the Q(4) router this lifts an 8-flit packet's payload efficiency from 0.38
#: to 0.81 for 22 LUT4 more on the HX8K (``benchmarks/fpga_router.py --only goal``,
#: docs/router.md, "Flit formats").
DEFAULT_HEADER = "head"


def vc_width(vcs):
    """Width of the ``vc`` field for ``vcs`` virtual channels (0 for one channel)."""
    vcs = check_int("Number of virtual channels", vcs, 1)
    return (vcs - 1).bit_length()


def header_width(address_bits, vcs=1, class_width=0, broadcast=False, next_port_bits=0):
    """Bits of a flit besides its payload: ``head``, ``tail``, ``bcast`` (with
    ``broadcast``), ``vc``, ``cls``, ``dest``, ``src`` and the lookahead fields
    (``next_port_bits``: :attr:`FlitLayout.lookahead_bits`) (a head flit carries them, and with ``header="every"`` every
    flit; see :class:`FlitLayout`)."""
    address_bits = check_int("Address width", address_bits, 1)
    return (2 + bool(broadcast) + vc_width(vcs) + check_int("Class width", class_width, 0)
            + 2 * address_bits + check_int("Next-port width", next_port_bits, 0))


def payload_width_for(address_bits, flit_width, vcs=1, class_width=0, broadcast=False,
                      next_port_bits=0):
    """The payload width that makes flits ``flit_width`` bits wide in all (the
    width of a link, as "flit width" is used in the router literature).

    Raises
    ------
    ValueError
        When ``flit_width`` leaves no payload bit beside the header
        (:func:`header_width`).
    """
    header = header_width(address_bits, vcs, class_width, broadcast, next_port_bits)
    flit_width = check_int("Flit width", flit_width, 1)
    if flit_width <= header:
        raise ValueError(f"Flit width must be at least {header + 1} bits for "
                         f"{address_bits}-bit addresses and {vcs} VC(s) (a {header}-bit "
                         f"header: head, tail, {'bcast, ' if broadcast else ''}vc, cls, "
                         f"dest, src{', next_port' if next_port_bits else ''}; "
                         f"and a payload), "
                         f"not {flit_width}")
    return flit_width - header


class FlitLayout(data.StructLayout):
    """The ``lib.data`` layout of a flit.

    Parameters
    ----------
    address_bits : int
        Width of ``dest`` and ``src``.
    payload_width : int
        Width of ``payload`` (a positive integer).
    vcs : int
        Number of virtual channels; ``vc`` is ``ceil(log2(vcs))`` bits wide.
    class_width : int
        Width of ``cls``, the escape VC class a packet of an adaptive router carries
        (default 0: no ``cls`` field, as for deterministic routers).
    waypoints : int
        Waypoints the header holds (default 0: none, no waypoint fields), for the
        fault-tolerant waypoint routing (:mod:`cubefab.topology.fault_routing`).
    broadcast : bool
        Add the ``bcast`` bit: the packet is a broadcast, replicated along the tree of
        its ``src`` (``dest`` is not read). Default False: no ``bcast`` field.
    multicast : bool
        Also add ``mmask`` (``address_bits``, with ``broadcast``): a ``bcast`` packet goes
        to the subcube of the nodes ``x`` with ``x & mmask == dest & mmask`` (``mmask``
        0: every node, a broadcast). Default False.
    member_bits : int
        With ``multicast``: 0 (the default) for the subcube field ``mmask``; otherwise
        the members are named explicitly instead, in a ``members`` field of
        ``member_bits`` bits (a bit per node, dense index order; ``dest`` is not read).
    header : str
        One of :data:`HEADERS`: with ``"every"`` every flit carries the fields
        below; with ``"head"`` (the default, :data:`DEFAULT_HEADER`) only a head flit does, and a body or tail flit is
        :attr:`body`: the flit-type bits and ``vc`` at the same places, then ``data``
        in every other bit (with ``waypoints``, ``cut`` is a flit-type bit, after
        ``tail``).
    next_port_bits : int
        Width of ``next_port`` (default 0: no such field): with lookahead routing
        (``RouterConfig(hop="lookahead")``) the output port the packet takes at the
        router it is travelling to, computed by the router before it (an adaptive
        router's: its escape port there).
    next_offered_bits : int
        Width of ``next_offered`` (default 0: no such field; it needs
        ``next_port_bits``): with adaptive lookahead routing the ports the packet's
        adaptive VCs may take at the router it is travelling to, a bit per network
        port.

    Fields, from bit 0: ``head`` (1), ``tail`` (1), ``bcast`` (1, only when
    ``broadcast``), ``vc``, ``cls`` (only when ``class_width``), ``dest``, ``src``,
    ``next_port`` (only when ``next_port_bits``), ``next_offered`` (only when
    ``next_offered_bits``), then with ``waypoints``:
    ``waypoint_count`` (waypoints named), ``phase`` (waypoints passed), ``waypoint``
    (an ``ArrayLayout`` of ``waypoints`` addresses) and ``cut`` (1: a tail a router
    made for a packet a failed link cut short, see
    :class:`~cubefab.hdl.router.Router`); ``mmask`` or ``members`` (only when
    ``multicast``); last ``payload``.
    """

    def __init__(self, address_bits, payload_width, vcs=1, class_width=0, waypoints=0,
                 broadcast=False, multicast=False, member_bits=0, header=DEFAULT_HEADER,
                 next_port_bits=0, next_offered_bits=0):
        self.address_bits = check_int("Address width", address_bits, 1)
        self.payload_width = check_int("Payload width", payload_width, 1)
        self.vcs = check_int("Number of virtual channels", vcs, 1)
        self.class_width = check_int("Class width", class_width, 0)
        self.waypoints = check_int("Number of waypoints", waypoints, 0)
        if not isinstance(broadcast, bool):
            raise TypeError(f"Broadcast must be a bool, not {broadcast!r}")
        self.broadcast = broadcast
        if not isinstance(multicast, bool) or (multicast and not broadcast):
            raise ValueError(f"Multicast must be a bool, and needs broadcast, not "
                             f"{multicast!r}")
        self.multicast = multicast
        self.member_bits = check_int("Member vector width", member_bits, 0)
        if member_bits and not multicast:
            raise ValueError(f"A member vector needs multicast, not member_bits = "
                             f"{member_bits!r}")
        if header not in HEADERS:
            raise ValueError(f"Header must be one of {', '.join(map(repr, HEADERS))}, "
                             f"not {header!r}")
        self.header = header
        fields = {"head": unsigned(1), "tail": unsigned(1)}
        if broadcast:
            fields["bcast"] = unsigned(1)
        if waypoints and header == "head":   # a flit-type bit: in every flit
            fields["cut"] = unsigned(1)
        fields["vc"] = unsigned(vc_width(vcs))
        if class_width:
            fields["cls"] = unsigned(class_width)
        fields.update({"dest": unsigned(address_bits), "src": unsigned(address_bits)})
        self.next_port_bits = check_int("Next-port width", next_port_bits, 0)
        if next_port_bits:
            fields["next_port"] = unsigned(next_port_bits)
        self.next_offered_bits = check_int("Next-offered width", next_offered_bits, 0)
        if next_offered_bits and not next_port_bits:
            raise ValueError(f"Next-offered ports need a next port, not next_offered_bits "
                             f"= {next_offered_bits!r} without next_port_bits")
        if next_offered_bits:
            fields["next_offered"] = unsigned(next_offered_bits)
        if waypoints:
            fields.update({"waypoint_count": unsigned(waypoints.bit_length()),
                           "phase": unsigned(waypoints.bit_length()),
                           "waypoint": data.ArrayLayout(address_bits, waypoints)})
            if header == "every":
                fields["cut"] = unsigned(1)
        if member_bits:
            fields["members"] = unsigned(member_bits)
        elif multicast:
            fields["mmask"] = unsigned(address_bits)
        super().__init__({**fields, "payload": unsigned(payload_width)})
        kind = ("head", "tail", "bcast") + ("cut",) * (header == "head") + ("vc",)
        type_bits = sum(Shape.cast(fields[k]).width for k in kind if k in fields)
        #: StructLayout: a body or tail flit with ``header="head"``: the flit-type bits
        #: and ``vc`` as in the head, then ``data`` (every other bit; with
        #: ``header="every"``, ``data`` holds the header fields and ``payload``).
        self.body = data.StructLayout({**{k: fields[k] for k in kind if k in fields},
                                       "data": unsigned(self.size - type_bits)})

    @property
    def body_payload_width(self):
        """int: payload bits of a body or tail flit: ``payload_width``, or with
        ``header="head"`` every bit of :attr:`body`'s ``data``."""
        if self.header == "head":
            return self.body["data"].shape.width
        return self.payload_width

    @property
    def lookahead_bits(self):
        """int: bits of the lookahead fields, ``next_port_bits + next_offered_bits``."""
        return self.next_port_bits + self.next_offered_bits

    def __eq__(self, other):
        return (super().__eq__(other)
                and getattr(other, "header", "every") == self.header)

    def __hash__(self):
        return hash((super().__hash__(), self.header))

    def __repr__(self):
        return (f"FlitLayout(address_bits={self.address_bits}, "
                f"payload_width={self.payload_width}, vcs={self.vcs}, "
                f"class_width={self.class_width}"
                + (f", waypoints={self.waypoints}" if self.waypoints else "")
                + (", broadcast=True" if self.broadcast else "")
                + (", multicast=True" if self.multicast else "")
                + (f", member_bits={self.member_bits}" if self.member_bits else "")
                + (f", next_port_bits={self.next_port_bits}" if self.next_port_bits else "")
                + (f", next_offered_bits={self.next_offered_bits}"
                   if self.next_offered_bits else "")
                + (f", header={self.header!r})" if self.header != DEFAULT_HEADER else ")"))


def payload_efficiency(layout, packet_flits):
    """Payload bits per link bit of a packet of ``packet_flits`` flits with flits of
    ``layout``: ``(payload_width + (L - 1) * body_payload_width) / (L * size)`` (with
    ``header="every"``, ``payload_width / size`` whatever ``L``).

    Raises
    ------
    TypeError, ValueError
        When ``layout`` is not a :class:`FlitLayout` or ``packet_flits`` not a positive
        integer.
    """
    if not isinstance(layout, FlitLayout):
        raise TypeError(f"Layout must be a FlitLayout, not {layout!r}")
    flits = check_int("Packet length in flits", packet_flits, 1)
    payload = layout.payload_width + (flits - 1) * layout.body_payload_width
    return payload / (flits * layout.size)


class LinkSignature(wiring.Signature):
    """One direction of a router-to-router link, credit flow controlled.

    Members (from the sender's side)
    --------------------------------
    flit : Out(stream.Signature(layout, always_ready=True))
        The flit on the wire; the receiver always accepts it (the sender sends on
        virtual channel ``v`` only while it holds a credit for ``v``).
    credit : In(vcs)
        Bit ``v`` pulses for one cycle each time the receiver frees a slot of its
        buffer of virtual channel ``v``. The sender starts with ``depth`` credits per
        channel, the receiver's buffer depth.
    """

    def __init__(self, layout):
        if not isinstance(layout, FlitLayout):
            raise TypeError(f"Layout must be a FlitLayout, not {layout!r}")
        self.layout = layout
        super().__init__({
            "flit": Out(stream.Signature(layout, always_ready=True)),
            "credit": In(layout.vcs),
        })

    def __eq__(self, other):
        return type(other) is LinkSignature and self.layout == other.layout

    def __hash__(self):
        return hash(self.layout)

    def __repr__(self):
        return f"LinkSignature({self.layout!r})"
