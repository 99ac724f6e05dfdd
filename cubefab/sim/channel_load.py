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
"""

import numpy as np

from ..topology.base import Topology
from ..topology.patterns import traffic_matrix


__all__ = ["channel_loads", "channel_load_bound"]


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
    if isinstance(traffic, str):
        P = traffic_matrix(topology, traffic, **pattern_options)
    else:
        if pattern_options:
            raise TypeError("pattern options apply to a named pattern, not a matrix")
        P = np.asarray(traffic, dtype=np.float64)
        n = topology.num_nodes
        if P.shape != (n, n) or (P < 0).any() or not np.allclose(P.sum(axis=1), 1):
            raise ValueError(f"traffic matrix must be {n}x{n}, non-negative, with rows "
                             f"summing to 1")
    loads, hop_mass = _walk(topology, algorithm, P, progress)
    return loads, hop_mass, P, algorithm


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
    n = topology.num_nodes
    worst = int(np.argmax(loads))
    max_load = float(loads.flat[worst])
    ejection = float(P.sum(axis=0).max())
    network_bound = float("inf") if max_load == 0 else 1.0 / max_load
    limits = {"network": network_bound, "injection": 1.0,
              "ejection": float("inf") if ejection == 0 else 1.0 / ejection}
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
        "max_ejection_load": ejection,
        "network_bound": network_bound,
        "saturation_bound": limits[limited_by],
        "limited_by": limited_by,
    }
