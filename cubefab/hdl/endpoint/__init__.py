"""AXI4-Stream endpoints: a message interface in front of every node of a fabric
(docs/endpoints.md).

:class:`EndpointInject` takes AXI4-Stream messages (``tdata``, ``tlast``, ``tdest``)
and sends each as one packet into a router's ``local_in``; :class:`EndpointEject`
turns the packets of a router's ``local_out`` back into messages (``tdata``,
``tlast``, ``tid`` = source), behind a :class:`SkidBuffer` (the router sees a
``ready`` from a register) and, where adaptive routing has several messages of a pair
in flight, a :class:`ReorderBuffer`. Where every flit carries one beat (an aligned
:class:`MessageFormat`) their variants :class:`AlignedInject` and
:class:`AlignedEject` need no shifter or ring; :func:`injection_side` and
:func:`ejection_side` pick the side for a format. :class:`EndpointFabric` is a
:class:`~cubefab.hdl.fabric.Fabric` with both at every node. :class:`PacketToMessage`
and :class:`MessageToPacket` carry a self-checking fabric's packets through them
(:class:`EndpointInterface`).
"""

from .message import MessageFormat, axis_in_layout, axis_out_layout
from .inject import AlignedInject, EndpointInject, injection_side
from .reorder import ReorderBuffer
from .skid import SkidBuffer
from .eject import AlignedEject, EndpointEject, ejection_side
from .fabric import EndpointFabric, routers_budget
from .bridge import (EndpointInterface, MessageToPacket, PacketToMessage, packet_beats,
                     packet_bits)


__all__ = ["MessageFormat", "axis_in_layout", "axis_out_layout", "EndpointInject",
           "EndpointEject", "AlignedInject", "AlignedEject", "injection_side",
           "ejection_side", "EndpointFabric", "routers_budget", "ReorderBuffer",
           "SkidBuffer", "EndpointInterface", "PacketToMessage", "MessageToPacket",
           "packet_bits", "packet_beats"]
