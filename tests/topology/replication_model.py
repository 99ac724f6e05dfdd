"""A packet-level model of buffered broadcast replication under mixed load, for tests
(import as ``from tests.topology.replication_model import run_mixed_load``).

Every channel ``(node, port, vc)`` buffers one whole packet (virtual cut-through). A
packet in a buffer (or at the head of its node's injection queue) waits for its output
channels: a unicast one (the reference routing and VC rule,
:func:`cubefab.topology.deadlock.next_vc`), a broadcast copy one per child of the
node in the tree of its source (:func:`cubefab.topology.broadcast_tree.broadcast_tree`,
VCs by :func:`cubefab.topology.broadcast_deadlock.broadcast_next_vc`, after the unicast
VCs). Each cycle every output link moves at most one packet, into an empty buffer,
chosen at random among the waiting ones; copies leave asynchronously and a packet frees
its buffer after its last copy. Local delivery always succeeds. If a cycle moves
nothing while packets remain, the state can never change again: a deadlock.
"""

import random

from cubefab.topology.broadcast_deadlock import broadcast_next_vc
from cubefab.topology.broadcast_tree import back_ports, broadcast_tree
from cubefab.topology.deadlock import next_vc


__all__ = ["run_mixed_load"]


def run_mixed_load(topology, unicast_vcs, broadcast_vcs, *, algorithm=None, rate=0.2,
                   fraction=0.1, cycles=400, drain=20000, seed=1):
    """Inject for ``cycles`` cycles (each node a packet with probability ``rate``, a
    broadcast with probability ``fraction``, else a unicast to a random other node), then
    drain. Returns a dict: ``deadlock`` (bool), ``cycle`` (when it ended), ``injected``,
    ``lost``, ``duplicated``, ``misdelivered`` (copies delivered where none was due: a
    unicast off its destination, a broadcast at its source), ``copies`` delivered."""
    rng = random.Random(seed)
    degree = topology.degree
    back = back_ports(topology)
    nodes = topology.nodes().tolist()
    trees = {}
    routes = {}

    def children(source, here):
        if source not in trees:
            trees[source] = broadcast_tree(topology, source).children
        mask = int(trees[source][topology.index(here)])
        return [p for p in range(degree) if mask >> p & 1]

    def route(here, dest):
        if (here, dest) not in routes:
            routes[here, dest] = topology.next_port(here, dest, algorithm)
        return routes[here, dest]

    def wants(packet, here, in_port, vc_in):
        """Output channels ``(port, vc)`` the packet needs at ``here`` (delivering first)."""
        if packet["kind"] == "unicast":
            if here == packet["dest"]:
                deliver(packet, here)
                return []
            port = route(here, packet["dest"])
            vc = next_vc(topology, here, port, vc_in if in_port < degree else 0, unicast_vcs)
            return [(port, vc)]
        if here != packet["src"]:
            deliver(packet, here)
        base = 0 if in_port == degree else vc_in - unicast_vcs
        return [(p, unicast_vcs + broadcast_next_vc(topology, here, in_port, p, base,
                                                     broadcast_vcs))
                for p in children(packet["src"], here)]

    delivered = {}

    def deliver(packet, here):
        key = (packet["id"], here)
        delivered[key] = delivered.get(key, 0) + 1

    buffers = {}                                  # (node, port, vc) -> [packet, wants]
    queues = {u: [] for u in nodes}
    expected = {}
    injected = 0
    for cycle in range(cycles + drain):
        if cycle < cycles:
            for u in nodes:
                if rng.random() < rate:
                    pid = injected
                    injected += 1
                    if rng.random() < fraction:
                        packet = {"id": pid, "kind": "broadcast", "src": u}
                        expected.update({(pid, v): 1 for v in nodes if v != u})
                    else:
                        dest = rng.choice([v for v in nodes if v != u])
                        packet = {"id": pid, "kind": "unicast", "src": u, "dest": dest}
                        expected[pid, dest] = 1
                    queues[u].append([packet, None])
        # the entries waiting at each node: buffers of links into it and the queue head
        waiting = {u: [] for u in nodes}
        for (u, p, vc), entry in buffers.items():
            waiting[topology._neighbor(u, p)].append(((u, p, vc), entry))
        for u in nodes:
            if queues[u]:
                entry = queues[u][0]
                if entry[1] is None:
                    entry[1] = wants(entry[0], u, degree, 0)
                waiting[u].append((("inject", u), entry))
        moves = []
        for u in nodes:
            for p in range(degree):
                offers = [(where, entry, vc) for where, entry in waiting[u]
                          for q, vc in entry[1] if q == p and (u, p, vc) not in buffers]
                if offers:
                    moves.append((u, p) + rng.choice(offers))
        progress = False
        for u, p, where, entry, vc in moves:
            packet = entry[0]
            entry[1].remove((p, vc))
            v = topology._neighbor(u, p)
            copy = [packet, None]
            buffers[u, p, vc] = copy
            copy[1] = wants(packet, v, back[p], vc)
            progress = True
        # entries with nothing left to send leave their buffers
        for key in [k for k, e in buffers.items() if not e[1]]:
            del buffers[key]
            progress = True
        for u in nodes:
            while queues[u] and queues[u][0][1] is not None and not queues[u][0][1]:
                queues[u].pop(0)
                progress = True
        busy = bool(buffers) or any(queues.values())
        if not busy and cycle >= cycles:
            break
        if busy and not progress:         # nothing can ever move again
            break
    return {"deadlock": busy, "cycle": cycle, "injected": injected,
            "lost": sum(1 for key in expected if key not in delivered),
            "duplicated": sum(c - 1 for c in delivered.values() if c > 1),
            "misdelivered": sum(c for key, c in delivered.items() if key not in expected),
            "copies": sum(delivered.values())}
