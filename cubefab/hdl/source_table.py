"""A source's fault configuration in hardware: the waypoints of each destination, or
"refused", in a table written at run time (:mod:`cubefab.topology.fault_routing`).

Each node of a fault-tolerant fabric holds a :class:`SourceTable` beside its traffic
generator: ``dest -> entry``, where an entry says whether packets to ``dest`` are
refused (the destination is faulty, cut off, or needs more waypoints than the header
holds) and otherwise which waypoints the header names (none: the direct reference
route). The table starts all direct (the fault-free network) and is changed through
its write port without rebuilding the design; a node's entry for itself says whether
the node is healthy (``refused``: the node is faulty and creates no packets).
:func:`table_writes` turns the model's routing of one fault set into the writes that
configure a fresh fabric.
"""

from amaranth.hdl import Const, Module, Signal, unsigned
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..topology.base import Topology, check_int


__all__ = ["entry_layout", "SourceTable", "table_writes", "MAX_ENTRY_BITS"]


#: Widest table entry a simulation's configuration port carries (one 64-bit word).
MAX_ENTRY_BITS = 64


def entry_layout(address_bits, waypoints):
    """The ``lib.data`` layout of a table entry: ``refused`` (1), ``count`` (the
    waypoints named) and ``waypoint`` (an ``ArrayLayout`` of ``waypoints`` addresses)."""
    address_bits = check_int("Address width", address_bits, 1)
    waypoints = check_int("Number of waypoints", waypoints, 1)
    return data.StructLayout({"refused": unsigned(1),
                              "count": unsigned(waypoints.bit_length()),
                              "waypoint": data.ArrayLayout(address_bits, waypoints)})


class SourceTable(wiring.Component):
    """The fault configuration of one source node.

    Parameters
    ----------
    topology : Topology
    waypoints : int
        Waypoints a header holds (``W >= 1``).
    node : int or None
        This node's address, or ``None`` to read it from the ``here`` input.

    Members
    -------
    dest : In(address_bits)
        The destination looked up.
    entry : Out(entry_layout)
        Its entry, in the same cycle (asynchronous read).
    healthy : Out(1)
        The node is healthy: its own entry is not refused (a register, 1 from the start).
    write : In(1)
        Write ``write_entry`` at ``write_dest`` at the clock edge.
    write_dest : In(address_bits)
    write_entry : In(entry_layout)
    here : In(address_bits)
        Present only when ``node`` is None.
    """

    def __init__(self, topology, waypoints, node=None):
        if not isinstance(topology, Topology):
            raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
        self.topology = topology
        self.node = None if node is None else topology.check_node(node, "node")
        self.layout = entry_layout(topology.address_bits, waypoints)
        bits = topology.address_bits
        super().__init__({
            "dest": In(bits), "entry": Out(self.layout), "healthy": Out(1),
            "write": In(1), "write_dest": In(bits), "write_entry": In(self.layout),
            **({"here": In(bits)} if self.node is None else {}),
        })

    def elaborate(self, platform):
        m = Module()
        bits = self.topology.address_bits
        memory = m.submodules.memory = Memory(shape=self.layout, depth=1 << bits, init=[])
        rd = memory.read_port(domain="comb")
        wr = memory.write_port()
        here = self.here if self.node is None else Const(self.node, bits)
        healthy = Signal(init=1)
        m.d.comb += [rd.addr.eq(self.dest), self.entry.eq(rd.data), self.healthy.eq(healthy),
                     wr.addr.eq(self.write_dest), wr.data.eq(self.write_entry),
                     wr.en.eq(self.write)]
        with m.If(self.write & (self.write_dest == here)):
            m.d.sync += healthy.eq(~self.write_entry.refused)
        return m


def table_writes(routing, waypoints):
    """The writes that configure the source tables of a fresh fabric (every entry
    direct) for the waypoint routing ``routing``
    (:class:`~cubefab.topology.fault_routing.WaypointRouting`) in headers of
    ``waypoints`` waypoints: a list of ``(node, dest, entry)``, ``entry`` the integer
    value of an :func:`entry_layout` entry. Every healthy source gets the entries of
    :meth:`~cubefab.topology.fault_routing.WaypointRouting.source_table` (waypoints, or
    refused) and a refused entry for each faulty destination; each faulty node its own
    entry, refused."""
    topology = routing.topology
    waypoints = check_int("Number of waypoints", waypoints, max(1, routing.max_waypoints))
    layout = entry_layout(topology.address_bits, waypoints)

    def value(path):
        if path is None:
            fields = {"refused": 1, "count": 0, "waypoint": [0] * waypoints}
        else:
            fields = {"refused": 0, "count": len(path),
                      "waypoint": list(path) + [0] * (waypoints - len(path))}
        return layout.const(fields).as_value().value

    faulty = sorted(routing.faults.nodes)
    writes = []
    for src in (int(a) for a in topology.nodes()):
        if src in faulty:
            writes.append((src, src, value(None)))
            continue
        for dest, path in sorted(routing.source_table(src).items()):
            writes.append((src, dest, value(path)))
        writes.extend((src, f, value(None)) for f in faulty)
    return writes
