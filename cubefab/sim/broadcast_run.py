"""One broadcast alone in the RTL fabric (replicating routers), against ``N - 1`` unicasts.

:func:`hardware_broadcast` builds a :class:`~cubefab.hdl.fabric.Fabric` of replicating
routers, injects one broadcast packet at the source in cycle 0 and runs Amaranth's
simulator until every other node has ejected its copy: it reports each node's arrival
(the cycle its copy's tail leaves its ``local_out``), the links the copies took (the
tree) and its depth. With ``unicasts`` it also runs the broadcast the way a unicast
fabric must: ``N - 1`` unicast packets queued at the source in cycle 0, one to every
other node; the source's injection time is the cycle its last flit enters.

With ``model="one-port"`` the routers send a packet's copies one after another
(``Broadcast(model="one-port")`` replication); the run then also *measures* the number
of sequential sends of the longest chain from the hardware: a node's sends are ordered
by the cycle their head left on the link, and a node's step is its sender's step plus
the position of its copy among the sender's sends, plus one (0 at the source).

With ``engine="verilator"`` the same run goes through
:class:`~cubefab.sim.verilator_broadcast.VerilatorRouterFabric` (one compiled
address-strapped router, a C++ netlist: networks of thousands of nodes) and gives the
same document; its multicast and one-port routers tabulate every (node, source) pair
in their straps, so it runs those on networks of at most 128 nodes.
"""

from amaranth.sim import Simulator

from ..hdl.config import RouterConfig, default_broadcast_vcs
from ..hdl.fabric import Fabric, FabricConfig
from ..hdl.options import ALL_PORT, ONE_PORT, SUBCUBE, VECTOR
from ..topology.base import Topology, check_int
from ..topology.broadcast import check_model
from ..topology.broadcast_tree import member_array, member_vector, subcube_members


__all__ = ["ENGINES", "hardware_broadcast", "measured_steps"]


#: The simulators :func:`hardware_broadcast` runs on.
ENGINES = ("amaranth", "verilator")


def _run(fabric, source, packets, limit, copies):
    """Inject ``packets`` (flit dicts, in order) at ``source`` from cycle 0; returns the
    cycle each node ejected each tail (``{address: [cycles]}``), the links flits
    crossed (``{(u, v)}``), the first cycle a head flit crossed each (``{(u, v):
    cycle}``) and the cycle the last flit entered."""
    topo = fabric.topology
    nodes = [int(a) for a in topo.nodes()]
    k = topo.index(source)
    expected = sum(1 for f in packets if f["tail"]) * copies
    state = {"tails": {}, "links": set(), "heads": {}, "injected": None}

    async def bench(ctx):
        for i in range(len(nodes)):
            ctx.set(fabric.local_out[i].ready, 1)
        sent = seen = 0
        for cycle in range(limit):
            port = fabric.local_in[k]
            if sent < len(packets):
                ctx.set(port.payload, packets[sent])
                ctx.set(port.valid, 1)
            else:
                ctx.set(port.valid, 0)
            if sent < len(packets) and ctx.get(port.ready):
                sent += 1
                if sent == len(packets):
                    state["injected"] = cycle + 1     # cycles taken to inject
            for i, router in enumerate(fabric.routers):
                for p in range(topo.degree):
                    flit = router.link_out[p].flit
                    if ctx.get(flit.valid):
                        link = (nodes[i], topo.neighbor(nodes[i], p))
                        state["links"].add(link)
                        if ctx.get(flit.payload).head:
                            state["heads"].setdefault(link, cycle)
                out = fabric.local_out[i]
                if ctx.get(out.valid) and ctx.get(out.payload).tail:
                    state["tails"].setdefault(nodes[i], []).append(cycle)
                    seen += 1
            if seen == expected and sent == len(packets):
                return
            await ctx.tick()

    sim = Simulator(fabric)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return state


def measured_steps(source, heads):
    """Steps of a one-port broadcast measured from its links' departure cycles.

    Parameters
    ----------
    source : int
    heads : dict
        ``(sender, receiver) -> cycle`` the copy's head left on that link.

    Returns
    -------
    (dict, dict)
        ``sends``: sender -> receivers in departure order; ``step``: address -> its
        step, the sender's step plus the copy's position among the sender's sends plus
        one (0 at ``source``). ValueError if a node received two copies, or a copy
        left a node that had none.
    """
    sends, parent = {}, {}
    for (u, v), cycle in sorted(heads.items(), key=lambda item: (item[1], item[0])):
        if v in parent or v == source:
            raise ValueError(f"node {v} received more than one copy")
        parent[v] = u
        sends.setdefault(u, []).append(v)
    step = {source: 0}

    def walk(v, seen=()):
        if v not in step:
            if v not in parent or v in seen:
                raise ValueError(f"node {v} sent a copy it never received")
            u = parent[v]
            step[v] = walk(u, seen + (v,)) + sends[u].index(v) + 1
        return step[v]

    for v in parent:
        walk(v)
    for u in sends:
        walk(u)
    return sends, step


def _flood_tree(topology, source, faults, faulty_links, unicasts, router):
    """The healthy tree a run's fault-tolerant routers flood (None for routers without
    fault waypoints); ValueError for faults without them, faults with ``unicasts``
    or a faulty ``source``."""
    from ..topology.fault_broadcast import healthy_tree
    from ..topology.fault_routing import FaultSet
    faults, faulty_links = list(faults), list(faulty_links)
    if not router.get("fault_waypoints"):
        if faults or faulty_links:
            raise ValueError("Faults need fault-tolerant routers (fault_waypoints >= 1)")
        return None
    if unicasts and (faults or faulty_links):
        raise ValueError("Unicasts are compared in a fault-free fabric: give no faults "
                         "with unicasts=True")
    tree = healthy_tree(topology, FaultSet(topology, faults, faulty_links))
    if source not in tree.ports:
        raise ValueError(f"Source {source} must be a healthy node")
    return tree


def hardware_broadcast(topology, source, *, packet_flits=1, unicasts=False, limit=None,
                       subcube=None, members=None, model=ALL_PORT, engine="amaranth",
                       faults=(), faulty_links=(), **router):
    """Run one broadcast from ``source`` alone in the RTL fabric (see the module text).

    Parameters
    ----------
    topology : Topology
    source : int
    packet_flits : int
        Flits of the broadcast packet (at most the buffer depth).
    unicasts : bool
        Also run ``N - 1`` unicasts from ``source`` for comparison.
    limit : int, optional
        Most cycles a run may take (default ``50 * N + 200``).
    subcube : (int, int), optional
        A multicast instead: to the nodes ``x`` with ``x & mask == value & mask``
        (multicast routers, ``Multicast(form="subcube")`` replication).
    members : iterable of int, optional
        A multicast instead: to these addresses, named in the packet's member vector
        (``Multicast(form="vector")`` replication; not with ``subcube``).
    model : {"all-port", "one-port"}
        The routers' ``broadcast_model``.
    engine : {"amaranth", "verilator"}
        The simulator; ``"verilator"`` runs multicasts and ``model="one-port"`` on
        networks of at most 128 nodes (ValueError above:
        :func:`~cubefab.hdl.router.check_strapped`).
    faults, faulty_links : iterable, optional
        Faulty nodes and links (fault-tolerant routers: ``fault_waypoints``): the
        routers flood the healthy network's spanning tree
        (:func:`~cubefab.topology.fault_broadcast.healthy_tree`) on one broadcast VC,
        and the copies go to the healthy nodes (members) only; not with ``unicasts``.
        Fault-tolerant routers without faults flood the fault-free network's tree.
    **router
        :meth:`~cubefab.hdl.config.RouterConfig.for_topology` keywords; ``broadcast_vcs``
        defaults to :func:`~cubefab.hdl.config.default_broadcast_vcs` (what the
        command line gives).

    Returns
    -------
    dict
        ``arrivals`` (address -> cycle of its copy's tail at its ``local_out``, the
        broadcast injected in cycle 0), ``tree`` (``[parent, child]`` links the copies
        crossed), ``depth`` (the tree's height), ``latency`` (the last arrival),
        ``copies`` (per node: copies ejected; 1 everywhere but the source),
        ``injection`` (cycles the source took to inject); with ``unicasts``,
        ``unicast_latency`` (the last unicast's tail), ``unicast_injection`` and the
        ratios ``latency_ratio`` and ``injection_ratio`` (unicasts / broadcast), the
        unicasts going to the same nodes; with ``subcube`` or ``members``, ``members``
        (the nodes that must receive a copy); with ``model="one-port"``, ``sends`` (per sender, the
        receivers in the order their copies' heads left), ``node_steps`` and ``steps``
        (:func:`measured_steps`: each node's step and the largest).
    """
    source, packet_flits, limit, multicast = _check_broadcast(
        topology, source, packet_flits, limit, model, engine, subcube, members)
    tree = _flood_tree(topology, source, faults, faulty_links, unicasts, router)
    config, wanted, value, mask = _broadcast_config(topology, source, tree, model,
                                                    multicast, subcube, members, router)
    if packet_flits > config.router.depth:
        raise ValueError(f"Broadcast packets must fit a buffer: packet_flits must be at "
                         f"most depth = {config.router.depth}, not {packet_flits}")
    nodes = [int(a) for a in topology.nodes()]
    targets = [a for a, member in zip(nodes, wanted) if member and a != source]
    packet = _packet_maker(topology, source, packet_flits, multicast, mask, wanted)
    run_packets = _packet_runner(engine, config, tree, source, limit)
    run = run_packets(packet(value if multicast else source, 1), len(targets))
    doc = _broadcast_doc(topology, source, config, run, targets, limit,
                         packet_flits=packet_flits, model=model)
    if subcube is not None:
        doc[SUBCUBE] = [value, mask]
    if multicast:
        doc["members"] = targets
    if model == ONE_PORT:
        doc.update(_one_port_figures(source, run))
    if unicasts and targets:
        flits = [f for dest in targets for f in packet(dest, 0)]
        doc.update(_unicast_figures(topology, source, run_packets(flits, 1), targets,
                                    limit, doc))
    return doc


def _check_broadcast(topology, source, packet_flits, limit, model, engine, subcube,
                     members):
    """``(source, packet_flits, limit, multicast)``: :func:`hardware_broadcast`'s
    arguments checked, the cycle limit by default ``50 N + 200``, and the multicast
    form (``"subcube"``, ``"vector"``, or False for a broadcast).

    Raises
    ------
    TypeError, ValueError
        On a topology, node, length, limit, model or engine out of range, or a
        multicast with another model than all-port or named both ways.
    """
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    source = topology.check_node(source, "source")
    packet_flits = check_int("Packet length in flits", packet_flits, 1)
    n = topology.num_nodes
    limit = 50 * n + 200 if limit is None else check_int("Cycle limit", limit, 1)
    check_model(model)
    if engine not in ENGINES:
        raise ValueError(f"Engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    multicast = SUBCUBE if subcube is not None else VECTOR if members is not None \
        else False
    if subcube is not None and members is not None:
        raise ValueError("A multicast names its members by a subcube or by a list, not both")
    return source, packet_flits, limit, multicast


def _broadcast_config(topology, source, tree, model, multicast, subcube, members, router):
    """``(config, wanted, value, mask)``: the :class:`~cubefab.hdl.fabric.FabricConfig`
    of the ``router`` keywords (updated in place with the broadcast model, the
    multicast form and by default the broadcast VCs,
    :func:`~cubefab.hdl.config.default_broadcast_vcs`), the member
    per node (dense order: every node, the subcube's or ``members``; healthy ones only
    under faults) and the packet's subcube value and mask (``value``: the source for a
    member vector)."""
    n = topology.num_nodes
    router["broadcast_model"] = model
    router.setdefault("broadcast_vcs", default_broadcast_vcs(
        topology, model, router.get("fault_waypoints", 0)))
    value = mask = 0
    if multicast:
        router["multicast"] = multicast
    if subcube is not None:
        value, mask = subcube
        wanted = subcube_members(topology, value, mask)
    elif members is not None:
        wanted = member_array(topology, members)
        value = source
    else:
        wanted = [True] * n
    if tree is not None:   # the healthy nodes only
        wanted = [bool(w) and a in tree.ports for w, a in zip(wanted, topology.nodes().tolist())]
    return FabricConfig(RouterConfig.from_dict(topology, router)), wanted, value, mask


def _packet_maker(topology, source, packet_flits, multicast, mask, wanted):
    """``packet(dest, bcast)``: the flits (dicts) of a ``packet_flits``-flit packet from
    ``source`` to ``dest`` (``bcast``: 1 for a broadcast or multicast), payload the
    flit's index, with the multicast's ``mmask`` (``"subcube"``) or member vector of
    ``wanted`` (``"vector"``)."""
    extra = ({"mmask": mask} if multicast == SUBCUBE else
             {"members": member_vector(topology, wanted)} if multicast == VECTOR else {})

    def packet(dest, bcast):
        return [{"head": int(i == 0), "tail": int(i == packet_flits - 1), "bcast": bcast,
                 "dest": dest, "src": source, "payload": i, **extra}
                for i in range(packet_flits)]

    return packet


def _one_port_figures(source, run):
    """The one-port figures of a broadcast's ``run`` (:func:`_run`'s record):
    ``sends`` (per sender, the receivers in the order their copies' heads left),
    ``node_steps`` and ``steps`` (:func:`measured_steps`)."""
    sends, step = measured_steps(source, run["heads"])
    return {"sends": {u: sends[u] for u in sorted(sends)},
            "node_steps": {a: step[a] for a in sorted(step)},
            "steps": max(step.values())}


def _packet_runner(engine, config, tree, source, limit):
    """``run_packets(packets, copies)``: injects ``packets`` at ``source`` in a fabric
    of ``config`` (flooding ``tree``, if any) in ``engine`` and returns :func:`_run`'s
    record, waiting for ``copies`` copies of each packet's tail (at most ``limit``
    cycles)."""
    if engine == "verilator":
        from .verilator_broadcast import VerilatorRouterFabric
        model_run = VerilatorRouterFabric(config, tree=tree).run   # (refuses what it cannot strap)

        def run_packets(packets, copies):
            return model_run(source, packets, limit=limit,
                             expected=copies * sum(f["tail"] for f in packets))
    else:
        def run_packets(packets, copies):
            return _run(Fabric(config, tree=tree), source, packets, limit, copies)
    return run_packets


def _broadcast_doc(topology, source, config, run, targets, limit, *, packet_flits, model):
    """The document of a broadcast's ``run`` (:func:`_run`'s record): the arrivals,
    the tree the copies took, its depth, the latency, the copies per node and the
    injection (see :func:`hardware_broadcast`).

    Raises
    ------
    RuntimeError
        If a node of ``targets`` received no copy within ``limit`` cycles.
    """
    arrivals = {a: cycles[0] for a, cycles in sorted(run["tails"].items())}
    missing = [a for a in targets if a not in arrivals]
    if missing:
        raise RuntimeError(f"{topology.label}: the broadcast from {source} did not reach "
                           f"{missing[:8]} within {limit} cycles")
    parent = {v: u for u, v in run["links"]}
    depth = {source: 0}

    def hops(v):
        if v not in depth:
            depth[v] = hops(parent[v]) + 1
        return depth[v]

    return {"topology": topology.label, "source": source, "packet_flits": packet_flits,
            "model": model, "broadcast_vcs": config.router.broadcast_vcs,
            "arrivals": arrivals,
            "tree": sorted([u, v] for u, v in run["links"]),
            "depth": max((hops(v) for v in arrivals), default=0),
            "latency": max(arrivals.values(), default=0),
            "copies": {a: len(c) for a, c in sorted(run["tails"].items())},
            "injection": run["injected"]}


def _unicast_figures(topology, source, uni, targets, limit, doc):
    """The unicast comparison of a broadcast's document ``doc`` from the run ``uni``
    of the unicasts to ``targets``: ``unicast_latency``, ``unicast_injection`` and the
    ratios ``latency_ratio`` and ``injection_ratio``.

    Raises
    ------
    RuntimeError
        If a unicast was not delivered within ``limit`` cycles.
    """
    done = [c for cycles in uni["tails"].values() for c in cycles]
    if len(done) != len(targets):
        raise RuntimeError(f"{topology.label}: {len(targets) - len(done)} unicasts "
                           f"from {source} undelivered within {limit} cycles")
    return {"unicast_latency": max(done), "unicast_injection": uni["injected"],
            "latency_ratio": max(done) / doc["latency"],
            "injection_ratio": uni["injected"] / doc["injection"]}
