"""The channel-load bound on saturation throughput (Dally & Towles, ch. 3).

When every node injects ``r`` flits per cycle with destinations drawn from a traffic
pattern, a channel ``c`` carries ``r * gamma_c`` flits per cycle on average, where
``gamma_c`` is the expected number of packets crossing ``c`` per injected packet per
node: the sum over sources ``s`` and destinations ``t`` of ``P[s, t]`` times whether
the route from ``s`` to ``t`` uses ``c``. A channel carries at most one flit a cycle,
so no router can sustain an injection rate above ``1 / max_c gamma_c``. The routes
are the reference model's (``Topology.next_port``), so the bound belongs to the
routing algorithm the hardware implements, not to an idealised one.

Each node's injection and ejection channels carry at most one flit a cycle too;
:func:`channel_load_bound` reports both limits and the tighter one.

Under faults (:func:`waypoint_channel_load_bound`) the routes are those of a
:class:`~cubefab.topology.fault_routing.WaypointRouting`: a packet follows the reference
route of each of its legs (source, waypoints, destination); faulty nodes create
nothing and a healthy source's draws to a refused destination create nothing either
(they are counted as ``unroutable``), so only the routable share of the pattern loads
the channels.

:func:`minimal_routing_bound` bounds every *minimal* routing at once, whatever it
chooses: a channel that lies on every shortest path from ``s`` to ``t`` carries all of
that flow under any minimal routing, adaptive or not, so the largest sum of such forced
flows on one channel caps the throughput of them all (a topology where it is below a
non-minimal routing's bound can only reach that bound by leaving the shortest paths).
"""

import numpy as np

from ..topology.base import Topology
from ..topology.patterns import traffic_matrix


__all__ = ["channel_loads", "channel_load_bound", "minimal_forced_loads",
           "minimal_routing_bound", "waypoint_channel_load_bound"]


def _walk(topology, algorithm, P, progress=None):
    """Accumulate loads[u, port] (dense u) and sum of P * hops over every route."""
    n, degree = topology.num_nodes, topology.degree
    nodes = topology.nodes()
    neighbours = np.stack([topology.index_array(topology.neighbor_array(nodes, p))
                           for p in range(degree)], axis=1)
    loads = np.zeros(n * degree, dtype=np.float64)
    hop_mass = 0.0
    needs_src = "src" in topology.header_fields.get(algorithm, ())
    next_port = topology._next_port
    limit = 4 * topology.address_bits + 4 * n.bit_length() + 64
    for t in range(n):
        dest = int(nodes[t])
        sources = np.flatnonzero(P[:, t])
        sources = sources[sources != t]
        if progress is not None:
            progress(t, n)
        if not len(sources):
            continue
        weight = P[sources, t].astype(np.float64)
        here = sources.copy()
        if not needs_src:
            # The decision depends on (here, dest) only: one table per destination.
            table = np.array([next_port(int(a), dest, algorithm) if i != t else degree
                              for i, a in enumerate(nodes)], dtype=np.int64)
        steps = 0
        while len(here):
            if needs_src:
                ports = np.array([next_port(int(nodes[h]), dest, algorithm,
                                            src=int(nodes[s]))
                                  for h, s in zip(here, sources)], dtype=np.int64)
            else:
                ports = table[here]
            channel = here * degree + ports
            loads += np.bincount(channel, weights=weight, minlength=n * degree)
            hop_mass += float(weight.sum())
            here = neighbours[here, ports]
            keep = here != t
            here, weight, sources = here[keep], weight[keep], sources[keep]
            steps += 1
            if steps > limit:  # pragma: no cover - guards a broken routing function
                raise RuntimeError(f"{algorithm} routing to {dest} does not terminate")
    if progress is not None:
        progress(n, n)
    return loads.reshape(n, degree), hop_mass


def channel_loads(topology, traffic="uniform", algorithm=None, *, progress=None,
                  **pattern_options):
    """Expected load of every network channel per flit injected at every node.

    Parameters
    ----------
    topology : Topology
    traffic : str or numpy.ndarray
        A pattern name of :data:`cubefab.topology.patterns.PATTERNS` or a traffic matrix
        ``P[s, t]`` over dense indices whose rows sum to 1.
    algorithm : str, optional
        Routing algorithm (the topology's default when ``None``).
    progress : callable, optional
        ``progress(done, total)`` over destinations.
    **pattern_options
        Passed to :func:`cubefab.topology.patterns.traffic_matrix` (``hotspot``,
        ``hotspot_fraction``).

    Returns
    -------
    numpy.ndarray, shape (num_nodes, degree)
        ``loads[i, p]``: load of the channel leaving the node of dense index ``i``
        through port ``p``.
    """
    return _channel_analysis(topology, traffic, algorithm, progress, pattern_options)[0]


def _channel_analysis(topology, traffic, algorithm, progress, pattern_options):
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    algorithm = topology.check_algorithm(algorithm)
    P = _traffic(topology, traffic, pattern_options)
    loads, hop_mass = _walk(topology, algorithm, P, progress)
    return loads, hop_mass, P, algorithm


def _traffic(topology, traffic, pattern_options):
    """The dense traffic matrix of a pattern name or a checked matrix."""
    if isinstance(traffic, str):
        return traffic_matrix(topology, traffic, **pattern_options)
    if pattern_options:
        raise TypeError("pattern options apply to a named pattern, not a matrix")
    P = np.asarray(traffic, dtype=np.float64)
    n = topology.num_nodes
    if P.shape != (n, n) or (P < 0).any() or not np.allclose(P.sum(axis=1), 1):
        raise ValueError(f"traffic matrix must be {n}x{n}, non-negative, with rows "
                         f"summing to 1")
    return P


def channel_load_bound(topology, traffic="uniform", algorithm=None, *, progress=None,
                       **pattern_options):
    """The channel-load bound on the saturation throughput of a pattern and routing.

    Returns
    -------
    dict
        ``max_channel_load`` (the largest ``gamma_c`` over network channels),
        ``max_channel`` ([node address, port] of one channel that carries it),
        ``mean_channel_load``, ``average_hops`` (mean route length per packet,
        local deliveries counted as 0), ``max_ejection_load`` (largest expected
        number of packets per cycle ejected at a node per unit injection),
        ``network_bound`` (``1 / max_channel_load``), ``saturation_bound``
        (the tighter of ``network_bound``, the injection limit 1 and the ejection
        limit ``1 / max_ejection_load``), ``limited_by`` (``"network"``,
        ``"injection"`` or ``"ejection"``), ``traffic``, ``algorithm``, ``topology``.
        Rates are in flits per node per cycle.
    """
    loads, hop_mass, P, algorithm = _channel_analysis(topology, traffic, algorithm,
                                                      progress, pattern_options)
    return _bound(topology, traffic, algorithm, loads, hop_mass, P.sum(axis=1),
                  P.sum(axis=0))


def _bound(topology, traffic, algorithm, loads, hop_mass, injection, ejection):
    """The bound's dict from the channel loads (per unit rate), the route length mass,
    and each node's injection and ejection load per unit rate (dense)."""
    n = topology.num_nodes
    worst = int(np.argmax(loads))
    max_load = float(loads.flat[worst])
    most_in, most_out = float(injection.max()), float(ejection.max())
    network_bound = float("inf") if max_load == 0 else 1.0 / max_load
    limits = {"network": network_bound,
              "injection": float("inf") if most_in == 0 else 1.0 / most_in,
              "ejection": float("inf") if most_out == 0 else 1.0 / most_out}
    limited_by = min(limits, key=lambda key: (limits[key], key != "network"))
    return {
        "topology": topology.label,
        "traffic": traffic if isinstance(traffic, str) else "matrix",
        "algorithm": algorithm,
        "max_channel_load": max_load,
        "max_channel": [int(topology.nodes()[worst // topology.degree]),
                        worst % topology.degree],
        "mean_channel_load": float(loads.mean()),
        "average_hops": hop_mass / n,
        "max_ejection_load": most_out,
        "network_bound": network_bound,
        "saturation_bound": limits[limited_by],
        "limited_by": limited_by,
    }


#: Node count up to which :func:`minimal_routing_bound` runs (its work grows as n**3).
MINIMAL_BOUND_MAX_NODES = 1024


def minimal_forced_loads(topology, traffic="uniform", *, progress=None, **pattern_options):
    """The load every channel carries under *any* minimal routing, per unit rate.

    A channel ``u -> v`` is *forced* for the flow ``s -> t`` when every shortest path
    from ``s`` to ``t`` crosses it: exactly when ``u`` and ``v`` are the only nodes of
    their distance from ``t`` on the shortest ``s``-``t`` paths (the nodes ``x`` with
    ``d(s, x) + d(x, t) = d(s, t)``) and ``d(u, t) = d(v, t) + 1``. Under a routing
    that takes only shortest paths (deterministic, oblivious or adaptive, any split
    of a flow) such a channel carries the whole flow.

    Parameters
    ----------
    topology : Topology
        At most :data:`MINIMAL_BOUND_MAX_NODES` nodes.
    traffic, progress, **pattern_options
        As for :func:`channel_loads`.

    Returns
    -------
    numpy.ndarray, shape (num_nodes, degree)
        ``loads[i, p]``: the sum of ``P[s, t]`` over the flows forced through the
        channel leaving the node of dense index ``i`` through port ``p``.
    """
    return _forced_analysis(topology, traffic, progress, pattern_options)[0]


def _forced_analysis(topology, traffic, progress, pattern_options):
    from ..topology.properties import dense_neighbors, distance_matrix
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    n, degree = topology.num_nodes, topology.degree
    if n > MINIMAL_BOUND_MAX_NODES:
        raise ValueError(f"the minimal-routing bound runs up to {MINIMAL_BOUND_MAX_NODES} "
                         f"nodes, not {n}")
    P = _traffic(topology, traffic, pattern_options)
    neighbours = dense_neighbors(topology).T
    D = distance_matrix(topology)   # symmetric: row t is every node's distance to t
    loads = np.zeros((n, degree), dtype=np.float64)
    for t in range(n):
        if progress is not None:
            progress(t, n)
        sources = np.flatnonzero(P[:, t])
        sources = sources[sources != t]
        if not len(sources):
            continue
        to_t = D[t]
        rows = np.arange(len(sources))[:, None]
        # on[i, x]: node x lies on a shortest path from sources[i] to t
        on = D[sources] + to_t[None, :] == to_t[sources][:, None]
        layer_size = np.zeros((len(sources), int(to_t.max()) + 1), dtype=np.int64)
        np.add.at(layer_size, (np.broadcast_to(rows, on.shape)[on],
                               np.broadcast_to(to_t, on.shape)[on]), 1)
        alone = on & (layer_size[rows, to_t[None, :]] == 1)
        weight = P[sources, t][:, None]
        for p in range(degree):
            v = neighbours[:, p]
            hop = (to_t[v] == to_t - 1)[None, :]     # u -> v is a shortest-path hop
            loads[:, p] += (weight * (alone & alone[:, v] & hop)).sum(axis=0)
    if progress is not None:
        progress(n, n)
    return loads, P, D


def minimal_routing_bound(topology, traffic="uniform", *, progress=None, **pattern_options):
    """An upper bound on the saturation throughput of every minimal routing: no routing
    that takes only shortest paths sustains an injection rate above ``1 / max_c`` of
    the forced loads (:func:`minimal_forced_loads`). The bound need not be tight (flows
    that share no forced channel may still have to share a cut).

    Parameters and their limits are those of :func:`minimal_forced_loads`.

    Returns
    -------
    dict
        The keys of :func:`channel_load_bound` for the forced loads
        (``max_channel_load`` is the largest forced load of a channel, so
        ``network_bound`` is the bound; infinite when no channel is forced;
        ``average_hops`` the mean shortest distance per packet), ``algorithm``
        ``"any minimal"``, and ``forced_channels``: how many channels carry the
        largest forced load.
    """
    loads, P, D = _forced_analysis(topology, traffic, progress, pattern_options)
    result = _bound(topology, traffic, "any minimal", loads, float((P * D.T).sum()),
                    P.sum(axis=1), P.sum(axis=0))
    worst = result["max_channel_load"]
    result["forced_channels"] = int(np.isclose(loads, worst).sum()) if worst else 0
    return result


def waypoint_channel_load_bound(routing, traffic="uniform", **pattern_options):
    """The channel-load bound of a fault set's waypoint routing.

    Parameters
    ----------
    routing : WaypointRouting
        The routing of one fault set (:func:`~cubefab.topology.fault_routing.plan_waypoints`).
    traffic : str or numpy.ndarray
        A pattern name or a traffic matrix, as for :func:`channel_load_bound`.
    **pattern_options
        As for :func:`channel_load_bound`.

    Returns
    -------
    dict
        The keys of :func:`channel_load_bound`, with loads per unit *rate* (the
        probability a node draws a packet each cycle): a faulty node draws nothing and
        a draw to a refused destination creates nothing. ``rate_bound`` is the highest
        rate every channel, injection and ejection port sustains; ``routable_share``
        the mean over all nodes (faulty ones included) of the share of draws that
        create a packet; ``saturation_bound`` is ``rate_bound * routable_share``: the
        bound on accepted flits per node of the network, the unit in which a
        simulation reports offered load and throughput. ``average_hops`` is per
        routable packet, waypoint detours included; ``faulty_nodes``,
        ``faulty_links`` and ``waypoints`` name the routing.
    """
    from ..topology.fault_routing import WaypointRouting
    if not isinstance(routing, WaypointRouting):
        raise TypeError(f"routing must be a WaypointRouting, not {routing!r}")
    topology, table = routing.topology, routing.table
    P = _traffic(topology, traffic, pattern_options)
    n, degree = topology.num_nodes, topology.degree
    legs = routing.legs
    routable = (routing.healthy[:, None] & routing.healthy[None, :] & (legs >= 0)
                & (legs <= routing.max_waypoints + 1))
    share = np.where(routable, P, 0.0)
    # leg_weight[x, y]: packets per unit rate that follow the reference route x -> y,
    # as a whole route or as one leg of a detour through waypoints
    leg_weight = share.copy()
    for rows in routing.stops.values():
        a, b = rows[:, 0], rows[:, -1]
        weight = share[a, b]
        leg_weight[a, b] -= weight
        for x, y in zip(rows.T[:-1], rows.T[1:]):
            np.add.at(leg_weight, (x, y), weight)
    np.fill_diagonal(leg_weight, 0.0)
    hops = table.hop_port.shape[2]
    here = table.path[:, :, :hops].astype(np.int64)
    port = table.hop_port.astype(np.int64)
    used = port >= 0
    channel = (here * degree + port)[used]
    weights = np.broadcast_to(leg_weight[:, :, None], used.shape)[used]
    loads = np.bincount(channel, weights=weights, minlength=n * degree).reshape(n, degree)
    hop_mass = float((leg_weight * table.length).sum())
    injection, ejection = share.sum(axis=1), share.sum(axis=0)
    result = _bound(topology, traffic, table.algorithm, loads, hop_mass, injection,
                    ejection)
    created = float(injection.sum())
    result["average_hops"] = hop_mass / created if created else 0.0
    result["rate_bound"] = result.pop("saturation_bound")
    result["routable_share"] = created / n
    result["saturation_bound"] = result["rate_bound"] * result["routable_share"]
    result.update(faulty_nodes=list(routing.faults.nodes),
                  faulty_links=[list(x) for x in routing.faults.links],
                  waypoints=routing.max_waypoints)
    return result
