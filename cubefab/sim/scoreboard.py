"""The scoreboard: every packet delivered exactly once, at the right node, intact, in
order per flow, along the reference route.

Packets are numbered per flow (source, destination); the head flit's payload carries
the number (modulo ``2**payload_width``) and the other flits pseudo-random words
derived from it, so a delivered packet can be recognised and checked on its own.
"""

from collections import deque

from ..topology.base import Topology
from ..topology.deadlock import hop_vcs


__all__ = ["Packet", "Scoreboard"]


class Packet:
    """One packet: dense ``src`` and ``dest`` indices, flow sequence number ``seq``,
    flits as raw integers, and the cycles it was ``created``, ``injected`` (head
    accepted) and ``delivered`` (tail ejected)."""

    __slots__ = ("src", "dest", "seq", "tag", "flits", "created", "injected",
                 "delivered", "hops")

    def __init__(self, src, dest, seq, tag, flits, created):
        self.src, self.dest, self.seq, self.tag = src, dest, seq, tag
        self.flits = flits
        self.created = created
        self.injected = None
        self.delivered = None
        self.hops = []

    @property
    def latency(self):
        """Cycles from creation to the tail's ejection (source queueing included)."""
        return None if self.delivered is None else self.delivered - self.created

    @property
    def network_latency(self):
        """Cycles from the head's acceptance to the tail's ejection."""
        return None if self.delivered is None else self.delivered - self.injected


class Scoreboard:
    """Creates the packets of a run and checks every flit that leaves the network.

    Parameters
    ----------
    topology : Topology
    layout : FlitLayout
        The fabric's flit layout (field offsets for the raw flits).
    algorithm : str or None
        Routing algorithm whose reference routes the traced hops must follow.
    vcs : int or None
        Number of VCs: the VC each packet arrives on must be the reference
        assignment's (:func:`cubefab.topology.deadlock.hop_vcs`); None skips the check.
    vcs_per_class : int
        VCs per VC class of the routers (see :class:`~cubefab.hdl.router.Router`).
    """

    def __init__(self, topology, layout, algorithm=None, vcs=None, vcs_per_class=1):
        if not isinstance(topology, Topology):
            raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
        self.topology = topology
        self.layout = layout
        self.algorithm = topology.check_algorithm(algorithm)
        self.vcs = vcs
        self.vcs_per_class = vcs_per_class
        self._vcs_of = {}
        self.addresses = [int(a) for a in topology.nodes()]
        self._index = {a: i for i, a in enumerate(self.addresses)}
        f = {name: (layout[name].offset, (1 << layout[name].shape.width) - 1)
             for name in ("head", "tail", "vc", "dest", "src", "payload")}
        self._fields = f
        self._mask = f["payload"][1]
        self._vc_clear = ~(f["vc"][1] << f["vc"][0])
        self._pending = {}       # flow -> deque of packets not yet delivered
        self._delivered_tags = {}  # flow -> deque of the tags of recent deliveries
        self._next_seq = {}
        self._assembly = {}      # node -> flits of the packet being ejected
        self._tracing = {}       # (src, dest, tag) -> packets in flight
        self._routes = {}
        self.created = []
        self.delivered = []
        self.injected = 0
        self.duplicated = 0
        self.corrupted = 0
        self.misrouted = 0
        self.reordered = 0
        self.hop_mismatches = 0
        self.vc_mismatches = 0
        self.flits_delivered = 0
        self.events = []         # descriptions of the first errors

    # -- flits ------------------------------------------------------------------------

    def encode(self, **fields):
        """Raw flit from field values."""
        raw = 0
        for name, value in fields.items():
            offset, mask = self._fields[name]
            raw |= (value & mask) << offset
        return raw

    def decode(self, raw, name):
        offset, mask = self._fields[name]
        return (raw >> offset) & mask

    def _word(self, src, dest, seq, j):
        x = (seq * 0x9E3779B1 + src * 0x85EBCA6B + dest * 0xC2B2AE35 + j * 0x27D4EB2F)
        x ^= x >> 15
        return (x * 0x2545F491) >> 7 & self._mask

    # -- the source side --------------------------------------------------------------

    def create(self, src, dest, length, cycle):
        """A new packet of ``length`` flits from dense ``src`` to dense ``dest``."""
        flow = (src, dest)
        seq = self._next_seq.get(flow, 0)
        self._next_seq[flow] = seq + 1
        tag = seq & self._mask
        s, d = self.addresses[src], self.addresses[dest]
        flits = []
        for j in range(length):
            payload = tag if j == 0 else self._word(src, dest, seq, j)
            flits.append(self.encode(head=int(j == 0), tail=int(j == length - 1),
                                     dest=d, src=s, payload=payload))
        p = Packet(src, dest, seq, tag, flits, cycle)
        self._pending.setdefault(flow, deque()).append(p)
        self.created.append(p)
        return p

    def accept(self, packet, cycle):
        """The network accepted ``packet``'s head in ``cycle``."""
        packet.injected = cycle
        self.injected += 1
        self._tracing.setdefault((packet.src, packet.dest, packet.tag), deque()).append(packet)

    def hop(self, node, port, raw):
        """A head flit ``raw`` left dense ``node`` through network ``port``."""
        key = (self._index.get(self.decode(raw, "src"), -1),
               self._index.get(self.decode(raw, "dest"), -1), self.decode(raw, "payload"))
        packets = self._tracing.get(key)
        if packets:
            packets[0].hops.append((node, port))

    # -- the destination side ---------------------------------------------------------

    def _error(self, text):
        if len(self.events) < 20:
            self.events.append(text)

    def eject(self, node, raw, cycle):
        """A flit ``raw`` left the network at dense ``node`` in ``cycle``."""
        self.flits_delivered += 1
        flits = self._assembly.get(node)
        if self.decode(raw, "head"):
            if flits:
                self.corrupted += 1
                self._error(f"cycle {cycle}: node {self.addresses[node]} got a head "
                            f"inside a packet")
            flits = self._assembly[node] = []
        elif flits is None:
            self.corrupted += 1
            self._error(f"cycle {cycle}: node {self.addresses[node]} got a body flit "
                        f"outside a packet")
            return
        flits.append(raw)
        if self.decode(raw, "tail"):
            del self._assembly[node]
            self._complete(node, flits, cycle)

    def _complete(self, node, flits, cycle):
        head = flits[0]
        s_addr, d_addr = self.decode(head, "src"), self.decode(head, "dest")
        src, dest = self._index.get(s_addr), self._index.get(d_addr)
        where = f"cycle {cycle}: node {self.addresses[node]}"
        if src is None or dest is None:
            self.corrupted += 1
            self._error(f"{where}: packet with invalid src/dest {s_addr}/{d_addr}")
            return
        if dest != node:
            self.misrouted += 1
            self._error(f"{where}: packet for {d_addr} delivered here")
        flow = (src, dest)
        tag = self.decode(head, "payload")
        pending = self._pending.get(flow, ())
        match = None
        for i, p in enumerate(pending):
            if p.tag == tag:
                match = i
                break
        if match is None:
            if tag in self._delivered_tags.get(flow, ()):
                self.duplicated += 1
                self._error(f"{where}: duplicate of packet {tag} of flow {s_addr}->{d_addr}")
            else:
                self.corrupted += 1
                self._error(f"{where}: unknown packet {tag} of flow {s_addr}->{d_addr}")
            return
        if match:
            self.reordered += 1
            self._error(f"{where}: packet {tag} of flow {s_addr}->{d_addr} overtook "
                        f"{match} earlier one(s)")
        p = pending[match]
        del pending[match]
        tags = self._delivered_tags.setdefault(flow, deque(maxlen=64))
        tags.append(tag)
        # the vc field carries the VC of the last link: compare it with the reference
        # VC assignment, and everything else with what was sent
        if [x & self._vc_clear for x in flits] != p.flits:
            self.corrupted += 1
            self._error(f"{where}: packet {tag} of flow {s_addr}->{d_addr} corrupted")
        elif self.vcs is not None:
            vc = self.decode(head, "vc")
            want = self.reference_vc(p.src, p.dest)
            if vc != want:
                self.vc_mismatches += 1
                self._error(f"{where}: packet {tag} of flow {s_addr}->{d_addr} arrived "
                            f"on VC {vc}, the reference VC assignment gives {want}")
        p.delivered = cycle
        self.delivered.append(p)
        traced = self._tracing.get((p.src, p.dest, p.tag))
        if traced and traced[0] is p:
            traced.popleft()
        if p.hops and p.hops != self.reference_hops(p.src, p.dest):
            self.hop_mismatches += 1
            self._error(f"{where}: packet {tag} of flow {s_addr}->{d_addr} took "
                        f"{p.hops}, the reference route is "
                        f"{self.reference_hops(p.src, p.dest)}")

    def reference_hops(self, src, dest):
        """The (dense node, port) hops of the reference route between dense indices."""
        key = (src, dest)
        if key not in self._routes:
            topo = self.topology
            path = topo.route(self.addresses[src], self.addresses[dest], self.algorithm)
            self._routes[key] = [(self._index[u], topo.port(u, v))
                                 for u, v in zip(path, path[1:])]
        return self._routes[key]

    def reference_vc(self, src, dest):
        """VC of the last hop of the reference route (0 for a packet to itself)."""
        key = (src, dest)
        if key not in self._vcs_of:
            vcs = hop_vcs(self.topology, self.addresses[src], self.addresses[dest],
                          self.algorithm, self.vcs, self.vcs_per_class)
            self._vcs_of[key] = vcs[-1] if vcs else 0
        return self._vcs_of[key]

    # -- summary ----------------------------------------------------------------------

    @property
    def outstanding(self):
        """Packets accepted by the network and not yet delivered."""
        return self.injected - len(self.delivered)

    def summary(self):
        """Counts: created, injected (accepted by the network), delivered, lost
        (accepted, never delivered), pending (never accepted), duplicated, corrupted
        (misrouted and reordered included), hop mismatches."""
        lost = sum(1 for p in self.created if p.injected is not None and p.delivered is None)
        pending = sum(1 for p in self.created if p.injected is None)
        return {
            "created": len(self.created),
            "injected": self.injected,
            "delivered": len(self.delivered),
            "lost": lost,
            "pending": pending,
            "duplicated": self.duplicated,
            "corrupted": self.corrupted + self.misrouted + self.reordered,
            "misrouted": self.misrouted,
            "reordered": self.reordered,
            "hop_mismatches": self.hop_mismatches,
            "vc_mismatches": self.vc_mismatches,
        }
