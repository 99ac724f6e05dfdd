"""Packet traces in the netrace format: reading them.

A netrace trace (``.tra.bz2``; the format of the University of Texas at Austin's netrace
library, which BookSim2 and Constellation read) records the network packets of a
full-system simulation of a 64-node chip multiprocessor: for each packet the earliest
cycle it may be injected, its source and destination node, its type (which fixes its
size, 8 or 72 bytes) and the packets that wait for it. A trace is divided into regions
(phases of the program: warm-up, parallel section, ...).

The file is bzip2-compressed as a whole; inside, little-endian throughout:

- a 72-byte header: the magic number ``0x484A5455``, the version (a 32-bit float, 1.0),
  the benchmark's name (30 bytes, NUL-padded), the node count (8 bits), a pad byte, the
  trace's cycles and packets (64 bits each), the length of the notes (32 bits, their NUL
  included), the number of regions (32 bits) and 8 bytes of padding;
- the notes;
- a 24-byte record per region: the offset of its first packet from the end of these
  records, its cycles and its packets (64 bits each);
- the packets in the order of their cycles, 21 bytes each: cycle (64 bits), id (32),
  memory address (32), type, source node, destination node, node types (the source's in
  the high nibble, the destination's in the low one) and the number of dependents (8 bits
  each); then the id of each dependent (32 bits each): the packets that may not be
  injected before this one has been delivered.

:func:`read_trace` reads the header and regions; :meth:`Trace.packets` reads the packets
as they are needed, so that a trace of millions of packets is never held whole.
"""

import bz2
import struct
from dataclasses import dataclass


__all__ = ["MAGIC", "VERSION", "PACKET_TYPES", "NODE_TYPES", "NetraceError",
           "TraceRegion", "TracePacket", "Trace", "read_trace"]


#: The first four bytes of every netrace trace, as a little-endian 32-bit number.
MAGIC = 0x484A5455

#: The format version this reader reads.
VERSION = 1.0

_HEADER = struct.Struct("<If30sBxQQII8x")
_REGION = struct.Struct("<QQQ")
_PACKET = struct.Struct("<QIIBBBBB")
_DEPENDENT = 4   # bytes per dependent id

#: The packet types a trace can hold, by code: ``(name, bytes)``. Codes netrace leaves
#: unused are absent (a packet of such a type is an error).
PACKET_TYPES = {
    1: ("ReadReq", 8), 2: ("ReadResp", 72), 3: ("ReadRespWithInvalidate", 72),
    4: ("WriteReq", 72), 5: ("WriteResp", 8), 6: ("Writeback", 72),
    13: ("UpgradeReq", 8), 14: ("UpgradeResp", 8), 15: ("ReadExReq", 8),
    16: ("ReadExResp", 72), 25: ("BadAddressError", 8), 27: ("InvalidateReq", 8),
    28: ("InvalidateResp", 8), 29: ("DowngradeReq", 8), 30: ("DowngradeResp", 72),
}

#: The kinds of node a packet leaves or reaches, by code.
NODE_TYPES = ("L1 data cache", "L1 instruction cache", "L2 cache", "memory controller")


class NetraceError(ValueError):
    """A file that is no readable netrace trace: the message says where it went wrong."""


@dataclass(frozen=True)
class TraceRegion:
    """A region of a trace: a phase of the traced program.

    Attributes
    ----------
    index : int
        Its position among the trace's regions (from 0).
    offset : int
        Bytes from the first packet of the trace to its first packet.
    cycles, packets : int
        Its length in cycles, and its packets.
    first_cycle : int
        The trace cycle it begins at: the cycles of the regions before it (packets keep
        the trace's cycle numbers).
    """

    index: int
    offset: int
    cycles: int
    packets: int
    first_cycle: int


@dataclass(frozen=True)
class TracePacket:
    """One packet of a trace.

    Attributes
    ----------
    id : int
        Its id (unique in the trace).
    cycle : int
        The earliest cycle it may be injected in.
    src, dst : int
        Its source and destination nodes (0 to the trace's node count - 1).
    type : int
        Its type's code (a key of :data:`PACKET_TYPES`).
    address : int
        The memory address it concerns.
    node_types : int
        The kinds of its source (high nibble) and destination (low nibble) node.
    dependents : tuple of int
        The ids of the packets that may not be injected before it has been delivered.
    """

    id: int
    cycle: int
    src: int
    dst: int
    type: int
    address: int
    node_types: int
    dependents: tuple

    @property
    def type_name(self):
        """str: its type's name as netrace writes it (``"ReadReq"``, ...)."""
        return PACKET_TYPES[self.type][0]

    @property
    def size(self):
        """int: its size in bytes (8 or 72), fixed by its type."""
        return PACKET_TYPES[self.type][1]

    @property
    def src_type(self):
        """str: the kind of its source node (one of :data:`NODE_TYPES`)."""
        return _node_type(self.node_types >> 4)

    @property
    def dst_type(self):
        """str: the kind of its destination node (one of :data:`NODE_TYPES`)."""
        return _node_type(self.node_types & 0xF)


def _node_type(code):
    return NODE_TYPES[code] if code < len(NODE_TYPES) else "invalid"


@dataclass(frozen=True)
class Trace:
    """A netrace trace file, its header read (:func:`read_trace`).

    Attributes
    ----------
    path : str
        The file.
    version : float
        The format version (:data:`VERSION`).
    benchmark : str
        The traced benchmark's name.
    nodes : int
        The traced system's nodes.
    cycles, packet_count : int
        The trace's cycles, and its packets.
    notes : str
        The notes the trace's author wrote.
    regions : tuple of TraceRegion
        Its regions, in order.
    data_offset : int
        Bytes before its first packet (header, notes and region records).
    """

    path: str
    version: float
    benchmark: str
    nodes: int
    cycles: int
    packet_count: int
    notes: str
    regions: tuple
    data_offset: int

    def region(self, index):
        """The region of ``index`` (from 0); any other: :class:`ValueError` naming the
        regions there are."""
        if isinstance(index, bool) or not isinstance(index, int) \
                or not 0 <= index < len(self.regions):
            raise ValueError(f"Trace region must be an integer from 0 to "
                             f"{len(self.regions) - 1} ({self.path} has "
                             f"{len(self.regions)}), not {index!r}")
        return self.regions[index]

    def packets(self, region=None):
        """The packets of the whole trace, or of the region of index ``region``, in the
        trace's order (by cycle), read from the file one at a time.

        Raises
        ------
        NetraceError
            When the file ends inside a packet, a packet has a type netrace does not
            define, or a node beyond the trace's.
        """
        start, count = 0, None
        if region is not None:
            chosen = self.region(region)
            start, count = chosen.offset, chosen.packets
        with _open(self.path) as stream:
            _skip(stream, self.data_offset + start, self.path)
            yield from _read_packets(stream, self, count)


def _open(path):
    try:
        return bz2.open(path, "rb")
    except OSError as exc:
        raise NetraceError(f"cannot read {path}: {exc.strerror or exc}") from None


def _read(stream, size, path, what):
    """``size`` bytes of ``stream``; a short read is a :class:`NetraceError`."""
    try:
        data = stream.read(size)
    except (OSError, EOFError) as exc:
        raise NetraceError(f"{path} is no bzip2-compressed netrace trace ({exc})") \
            from None
    if len(data) != size:
        raise NetraceError(f"{path} ends inside {what}: a truncated trace")
    return data


def _skip(stream, size, path):
    while size:
        step = min(size, 1 << 16)
        _read(stream, step, path, "the packets before the region")
        size -= step


def _read_packets(stream, trace, count):
    remaining = count
    while remaining is None or remaining > 0:
        try:
            record = stream.read(_PACKET.size)
        except (OSError, EOFError) as exc:
            raise NetraceError(f"{trace.path}: packet data is corrupt ({exc})") from None
        if not record:
            if remaining is not None:
                raise NetraceError(f"{trace.path} ends {remaining} packets before the "
                                   f"end of its region")
            return
        if len(record) != _PACKET.size:
            raise NetraceError(f"{trace.path} ends inside a packet: a truncated trace")
        cycle, ident, address, kind, src, dst, node_types, deps = _PACKET.unpack(record)
        dependents = struct.unpack(f"<{deps}I", _read(stream, deps * _DEPENDENT,
                                                      trace.path, f"packet {ident}"))
        packet = TracePacket(ident, cycle, src, dst, kind, address, node_types, dependents)
        _check_packet(packet, trace)
        yield packet
        if remaining is not None:
            remaining -= 1


def _check_packet(packet, trace):
    if packet.type not in PACKET_TYPES:
        raise NetraceError(f"{trace.path}: packet {packet.id} has type code "
                           f"{packet.type}, which netrace does not define")
    for end, node in (("source", packet.src), ("destination", packet.dst)):
        if node >= trace.nodes:
            raise NetraceError(f"{trace.path}: packet {packet.id} has {end} node {node}; "
                               f"the trace has {trace.nodes} nodes")


def read_trace(path):
    """The :class:`Trace` of the netrace file ``path`` (its header, notes and regions;
    the packets are read by :meth:`Trace.packets`).

    Raises
    ------
    NetraceError
        When the file cannot be read, is not bzip2-compressed, or is not a netrace trace
        of :data:`VERSION` (its magic number, version or header is wrong).
    """
    path = str(path)
    with _open(path) as stream:
        header = _read(stream, _HEADER.size, path, "its header")
        magic, version, name, nodes, cycles, packets, notes_length, regions = \
            _HEADER.unpack(header)
        if magic != MAGIC:
            raise NetraceError(f"{path} is no netrace trace: its magic number is "
                               f"{magic:#010x}, not {MAGIC:#010x}")
        if version != VERSION:
            raise NetraceError(f"{path} is a netrace trace of version {version:g}; this "
                               f"reader reads version {VERSION:g}")
        notes = _read(stream, notes_length, path, "its notes")
        records = _read(stream, regions * _REGION.size, path, "its region records")
    return Trace(path, version, _text(name), nodes, cycles, packets, _text(notes),
                 _regions(records), _HEADER.size + notes_length + len(records))


def _text(raw):
    return raw.split(b"\0", 1)[0].decode("ascii", "replace")


def _regions(records):
    regions, first = [], 0
    for index, (offset, cycles, packets) in enumerate(_REGION.iter_unpack(records)):
        regions.append(TraceRegion(index, offset, cycles, packets, first))
        first += cycles
    return tuple(regions)
