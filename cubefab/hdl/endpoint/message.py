"""How an AXI4-Stream message travels as one packet: the bit string of its beats
cut into flit payloads, and the layouts of the two AXI4-Stream sides."""

import math

from amaranth.hdl import unsigned
from amaranth.lib import data

from ...topology.base import check_int
from ..config import RouterConfig
from ..modes import Adaptive, Deterministic


__all__ = ["MessageFormat", "axis_in_layout", "axis_out_layout", "PACKINGS", "check_packing",
           "MAX_DATA_WIDTH", "MAX_WINDOW"]


#: The widest ``tdata`` an endpoint takes (bits).
MAX_DATA_WIDTH = 512

#: How beats are cut into flits (:class:`MessageFormat`'s ``packing``): ``"auto"``
#: packs them tightly (a flit a beat only where packing would need a count field),
#: ``"aligned"`` gives every flit one beat, or one equal part of one;
#: ``"header-flit"`` too, but the head flit carries no beat (only the kind and seq
#: fields), so that flits need be no wider than a body flit of one beat.
PACKINGS = ("auto", "aligned", "header-flit")

#: The largest window of unacknowledged messages per destination.
MAX_WINDOW = 64


def check_packing(packing):
    """``packing`` if it is one of :data:`PACKINGS`; ValueError otherwise."""
    if packing not in PACKINGS:
        raise ValueError(f"Packing must be one of {', '.join(map(repr, PACKINGS))}, "
                         f"not {packing!r}")
    return packing


def axis_in_layout(data_width, address_bits):
    """The payload of an injection stream: ``data`` (``tdata``), ``last``
    (``tlast``) and ``dest`` (``tdest``, a node address)."""
    return data.StructLayout({"data": unsigned(data_width), "last": unsigned(1),
                              "dest": unsigned(address_bits)})


def axis_out_layout(data_width, address_bits):
    """The payload of an ejection stream: ``data`` (``tdata``), ``last`` (``tlast``)
    and ``id`` (``tid``, the source node's address)."""
    return data.StructLayout({"data": unsigned(data_width), "last": unsigned(1),
                              "id": unsigned(address_bits)})


class MessageFormat:
    """The packet of a message of ``beats`` beats of ``data_width`` bits.

    A message is one packet. Its bits are, from the first: with adaptive routing a
    ``kind`` bit (:attr:`kind_width`; 0 a message, 1 an acknowledgement: a one-flit
    packet that carries nothing else) and, with a :attr:`window` over 1, a ``seq``
    field (the message's number among its source's messages to its destination, mod
    :attr:`window`; :attr:`seq_width` bits), an optional ``count`` field (``beats -
    1``, :attr:`count_width` bits), then the beats in order, each
    beat's bit 0 first. The head flit's ``payload`` carries the first
    :attr:`head_bits` of them, every further flit the next :attr:`body_bits` (its
    ``payload`` with ``header="every"``, all of ``layout.body``'s ``data`` with
    ``header="head"``); the last flit (``tail``) is zero-padded. A packet has the
    fewest flits that hold its bits (:meth:`flits`).

    Where the flit count alone would not tell the beat count, i.e. where some message
    of at most :attr:`max_beats` beats would leave ``data_width`` or more bits of
    padding (``data_width`` smaller than a flit's payload), the format is one of two:

    - **aligned** (:attr:`aligned`), where a beat fits the head (after the kind and
      seq fields) and no body flit holds two: every flit carries exactly one beat (the
      head those fields and the first beat, :attr:`head_bits` and :attr:`body_bits` then count
      only those), so a ``B``-beat message is ``B`` flits and the head holds a whole
      beat (no count field, no cycle waiting for the second flit). This is the
      routers' default of 16-bit payloads and head-only headers with 16-bit
      ``tdata``: a body flit of 20 bits or more carries one beat.
    - otherwise a ``count`` field; elsewhere the receiver takes every whole beat it
      gets.

    With ``packing="aligned"`` the format is aligned whatever the width: every flit
    carries one :attr:`part_bits`-bit part of a beat, the beat cut into the fewest
    equal :attr:`parts` that fit the head beside the kind and seq fields (``tdata``
    of 32 bits on 16-bit payloads: two 16-bit halves), so a ``B``-beat message is
    ``B * parts`` flits. The endpoints of an aligned format cut and join no bits
    across flits (:class:`~cubefab.hdl.endpoint.AlignedInject`,
    :class:`~cubefab.hdl.endpoint.AlignedEject`), at the cost of the body flits' bits
    beyond a part.

    With ``packing="header-flit"`` the format is aligned too (:attr:`header_flit`),
    but the head flit carries only the kind and seq fields (:attr:`head_bits` is
    their width) and every part travels in a body flit, cut to fit one: a
    ``B``-beat message is ``1 + B * parts`` flits. A head then needs no room for
    data, so the routers' flits can be as narrow as a body flit of one beat (``tdata``
    of 16 bits on a Q(3): 18-bit flits, ``flit_width=18``, where a head flit that
    carries a beat needs 24), which makes every buffer, crossbar and link narrower.

    Parameters
    ----------
    config : RouterConfig
        The routers' configuration (its flit layout and topology). With deterministic
        routing per-pair order comes from the routing (one path and one VC per flow,
        FIFO buffers); adaptive routing can reorder packets, so there every message is
        acknowledged by its receiver (:attr:`acknowledged`) and a node has at most
        :attr:`window` unacknowledged messages to another. Waypoint routing is
        refused.
    data_width : int
        ``tdata`` bits, a whole number of bytes from 8 to :data:`MAX_DATA_WIDTH`.
    max_beats : int
        The longest message, in beats (>= 1).
    window : int
        With adaptive routing: the unacknowledged messages a node may have to each
        destination, a power of two up to :data:`MAX_WINDOW` (default 1: a message
        starts only when the one before it to the same node is acknowledged, so no
        two can be reordered). With more, messages are numbered and every receiver
        keeps a reorder buffer of ``window`` packets per source; 1 with deterministic
        routing.
    packing : str
        One of :data:`PACKINGS`: ``"auto"`` (default) packs the beats tightly,
        ``"aligned"`` gives every flit one beat or one part of a beat, and
        ``"header-flit"`` every flit but the head (above).

    Raises
    ------
    TypeError, ValueError
        If a parameter is not one of the values allowed above.
    """

    def __init__(self, config, data_width, max_beats, *, window=1, packing="auto"):
        if not isinstance(config, RouterConfig):
            raise TypeError(f"Router configuration must be a RouterConfig, not {config!r}")
        if not isinstance(config.routing, (Deterministic, Adaptive)):
            raise ValueError(f"AXI4-Stream endpoints need deterministic or adaptive "
                             f"routing (waypoint headers are not filled), not "
                             f"{config.routing!r}")
        data_width = check_int("Data width", data_width, 8, MAX_DATA_WIDTH)
        if data_width % 8:
            raise ValueError(f"Data width must be a whole number of bytes (8, 16, ..., "
                             f"{MAX_DATA_WIDTH}), not {data_width}")
        self.config = config
        self.layout = config.layout
        #: int: ``tdata`` bits
        self.data_width = data_width
        #: int: beats of the longest message
        self.max_beats = check_int("Maximum message length in beats", max_beats, 1)
        #: int: node address bits (``tdest``, ``tid``)
        self.address_bits = config.topology.address_bits
        #: int: message bits the head flit carries (kind bit included)
        self.head_bits = self.layout.payload_width
        #: int: message bits every other flit carries
        self.body_bits = self.layout.body_payload_width
        #: bool: whether a receiver acknowledges each message, and a sender has at most
        #: one unacknowledged message per destination (adaptive routing)
        self.acknowledged = isinstance(config.routing, Adaptive)
        #: int: width of the ``kind`` bit (1 with :attr:`acknowledged`, else 0)
        self.kind_width = int(self.acknowledged)
        window = check_int("Window", window, 1, MAX_WINDOW)
        if window & (window - 1):
            raise ValueError(f"Window must be a power of two, not {window}")
        if window > 1 and not self.acknowledged:
            raise ValueError(f"Window must be 1 with deterministic routing (its messages "
                             f"keep their order without acknowledgements), not {window}")
        #: int: messages a sender may have unacknowledged per destination (adaptive
        #: routing; a receiver restores their order)
        self.window = window
        #: int: width of the ``seq`` field (the message's number mod :attr:`window`)
        self.seq_width = (window - 1).bit_length()
        #: str: how the beats are cut into flits (:data:`PACKINGS`)
        self.packing = check_packing(packing)
        #: int: width of the ``count`` field (0: none)
        self.count_width = 0
        #: bool: whether each flit carries one beat, or one part of a beat (the head
        #: also the kind and seq fields)
        self.aligned = False
        #: int: the parts a beat is cut into, one a flit (1 but with aligned or
        #: header-flit packing)
        self.parts = 1
        #: bool: whether the head flit carries no beat (``packing="header-flit"``)
        self.header_flit = packing == "header-flit"
        if packing != "auto":
            self._align()
        elif any(self._padding(b) >= data_width for b in range(1, max_beats + 1)):
            if (self.tag_width + data_width <= self.head_bits
                    and 2 * data_width > self.body_bits):
                self.aligned = True
                self.head_bits = self.tag_width + data_width
                self.body_bits = data_width
            else:
                self.count_width = max(1, (max_beats - 1).bit_length())
        if self.prefix_width > self.head_bits:
            raise ValueError(f"Payload width must be at least {self.prefix_width} bits (the "
                             f"kind and count fields of {max_beats}-beat messages), not "
                             f"{self.head_bits}")

    def _align(self):
        """Cut every beat into the fewest equal parts that fit a body flit (and for
        aligned packing the head beside the kind and seq fields), one part a flit."""
        if self.header_flit and self.tag_width > self.head_bits:
            raise ValueError(f"Payload width must be at least {self.tag_width} bits (the "
                             f"kind and seq fields) for header-flit packing, not "
                             f"{self.head_bits}")
        room = self.body_bits
        if not self.header_flit:
            room = min(room, self.head_bits - self.tag_width)
        parts = next((k for k in range(1, self.data_width + 1)
                      if self.data_width % k == 0 and self.data_width // k <= room), None)
        if parts is None:
            raise ValueError(f"Payload width must be more than the {self.tag_width} bits "
                             f"of the kind and seq fields for aligned packing, not "
                             f"{self.head_bits}")
        self.aligned, self.parts = True, parts
        self.head_bits = self.tag_width + (0 if self.header_flit else self.part_bits)
        self.body_bits = self.part_bits

    @property
    def part_bits(self):
        """int: the bits of a beat each flit carries: ``data_width // parts``."""
        return self.data_width // self.parts

    @property
    def tag_width(self):
        """int: bits of the ``kind`` and ``seq`` fields."""
        return self.kind_width + self.seq_width

    @property
    def prefix_width(self):
        """int: bits before the first beat: ``kind_width + seq_width + count_width``."""
        return self.tag_width + self.count_width

    def message_bits(self, beats):
        """Bits of the packet of a ``beats``-beat message (kind and count included)."""
        return self.prefix_width + beats * self.data_width

    def flits(self, beats):
        """Flits of the packet of a ``beats``-beat message: the fewest that hold
        :meth:`message_bits`."""
        bits = self.message_bits(check_int("Message length in beats", beats, 1))
        if bits <= self.head_bits:
            return 1
        return 1 + math.ceil((bits - self.head_bits) / self.body_bits)

    def _padding(self, beats):
        bits = self.tag_width + beats * self.data_width
        flits = 1 if bits <= self.head_bits else (
            1 + math.ceil((bits - self.head_bits) / self.body_bits))
        return self.head_bits + (flits - 1) * self.body_bits - bits

    def __repr__(self):
        return (f"MessageFormat(data_width={self.data_width}, max_beats={self.max_beats}, "
                f"head_bits={self.head_bits}, body_bits={self.body_bits}, "
                f"count_width={self.count_width}, kind_width={self.kind_width}, "
                f"window={self.window}, aligned={self.aligned}, parts={self.parts}"
                + (", header_flit=True)" if self.header_flit else ")"))
