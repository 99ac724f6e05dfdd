"""Drive a fabric with packets and record every flit it moves (import as
``from tests.hdl.fabric_helpers import ...``)."""

from cubefab.topology.broadcast_tree import member_vector
from tests.helpers import run_clocked


__all__ = ["run_packets"]


def run_packets(fabric, packets, cycles):
    """Inject ``packets`` and run ``cycles`` cycles, recording what moves.

    Parameters
    ----------
    packets : list of dict
        ``{"src": address, "dest": address, "flits": n, "at": cycle, "tag": int}``
        (and ``"bcast": 0 or 1`` for replicating routers, default 0; ``"mmask"``, or
        ``"members"`` (addresses; default every node), for multicast routers); a node
        injects its packets in list order, each from cycle ``at`` on (``tag`` goes
        into every flit's payload, with the flit index). A flit offered in cycle
        ``c`` and accepted enters its router at the clock edge that ends ``c``.

    Returns
    -------
    dict
        ``links``: ``[(cycle, u, port, flit dict)]`` of every flit on a link (the
        cycle in which ``link_out[port]`` of ``u`` holds it);
        ``local``: ``[(cycle, node, flit dict)]`` of every flit ejected; ``overflow``:
        whether any router saw a flit arrive at a full buffer.
    """
    topo = fabric.topology
    nodes = [int(a) for a in topo.nodes()]
    queues = {a: [p for p in packets if p["src"] == a] for a in nodes}
    record = {"links": [], "local": [], "overflow": False}

    fields = dict(fabric.layout)

    def flit(pkt, i):
        f = {"head": int(i == 0), "tail": int(i == pkt["flits"] - 1),
             "dest": pkt["dest"], "src": pkt["src"], "payload": pkt["tag"] << 4 | i}
        if "bcast" in fields:       # replicating routers: broadcast or unicast
            f["bcast"] = pkt.get("bcast", 0)
        if "mmask" in fields:       # a multicast's subcube is (dest, mmask)
            f["mmask"] = pkt.get("mmask", 0)
        if "members" in fields:     # ... or its members, named
            f["members"] = member_vector(topo, pkt.get("members", topo.nodes()))
        return f

    async def bench(ctx):
        for k in range(len(nodes)):
            ctx.set(fabric.local_out[k].ready, 1)
        position = {a: 0 for a in nodes}      # (packet, flit) cursor per node
        for cycle in range(cycles):
            for k, a in enumerate(nodes):
                q = queues[a]
                pkt = q[0] if q else None
                port = fabric.local_in[k]
                if pkt is not None and pkt["at"] <= cycle:
                    ctx.set(port.payload, flit(pkt, position[a]))
                    ctx.set(port.valid, 1)
                else:
                    ctx.set(port.valid, 0)
            # sample after the inputs settle, before the edge
            for k, a in enumerate(nodes):
                router = fabric.routers[k]
                for p in range(topo.degree):
                    out = router.link_out[p].flit
                    if ctx.get(out.valid):
                        record["links"].append((cycle, a, p,
                                                _as_dict(ctx.get(out.payload), fields)))
                if ctx.get(fabric.local_out[k].valid):
                    record["local"].append((cycle, a, _as_dict(
                        ctx.get(fabric.local_out[k].payload), fields)))
                q = queues[a]
                if q and q[0]["at"] <= cycle and ctx.get(fabric.local_in[k].ready):
                    position[a] += 1
                    if position[a] == q[0]["flits"]:
                        q.pop(0)
                        position[a] = 0
            await ctx.tick()
        record["overflow"] = any(ctx.get(r.overflow) for r in fabric.routers)

    run_clocked(fabric, bench)
    return record


def _as_dict(view, fields):
    """The flit ``view`` as a dict of its header fields (``bcast`` where it has one)
    and payload."""
    return {name: int(getattr(view, name)) for name in
            ("head", "tail", "bcast", "vc", "dest", "src", "payload") if name in fields}
