"""Channel loads of uniform traffic from the structure: exact, at any size.

Under uniform traffic every node sends to each other node with probability
``1/(N-1)``; the load ``gamma_c`` of a channel is the expected number of packets
crossing it per packet injected at every node (:mod:`cubefab.sim.channel_load`, which
walks every route, defines it and measures it on small networks). The default routing
of each family here commutes with a group of translations that acts transitively on
the channels of one kind (XOR of the address by the cube or field bits; rotation of
the DLH's rings), so every channel of a kind carries the same load: the total number
of hops of that kind over all ordered pairs, divided by the number of such channels,
times ``1/(N-1)``. The totals follow from the structure, without enumerating nodes:

* Q(n), e-cube (and MC(0, m)): a channel of dimension j carries the pairs that differ in
  bit j and agree with it below and above as e-cube requires: N/2 of them.
* MC(k, m), ``minimal`` routing (k <= 4): a cube channel of class c, dimension j, carries
  every pair whose field M_c differs in bit j (each such bit is corrected once):
  ``N 2^(k-1)``. A cross channel of dimension i carries the class walks' steps along i:
  the walks of the routing's own table (``CoveringWalks.step``) from every source class
  to class 0, for every set D of differing fields, each weighted by the
  ``(2^m - 1)^|D|`` targets that have it (class translations carry the walks to any
  other target class and channel of the dimension).
* DLH(m, d), ``dimension-order``: cube and ring-bit channels N/2; the ring successor
  channels carry the ring distances 1..m (ties go to the successor), ``N (m+1)/4``, the
  predecessor channels 1..m-1, ``N (m-1)/4``.

:func:`uniform_channel_load` returns None for other families and routings (the Mcube's
routes are table-driven and not translation-invariant: walk them with
:func:`cubefab.sim.channel_load.channel_load_bound`).
"""

from fractions import Fraction
from functools import lru_cache

import numpy as np

from .classwalk import CoveringWalks


__all__ = ["uniform_channel_load", "class_walk_steps"]


@lru_cache(maxsize=None)
def class_walk_steps(k, every_target=False):
    """``steps[w, i]``: over every source class, target class 0 (every target class
    with ``every_target``, then divided by ``2**k``) and set D of classes whose field
    differs with ``|D| = w``, the number of cross steps along class dimension ``i`` that
    the ``minimal`` routing of MC(k, m) takes (any m). Returns a tuple of tuples of
    ints (exact; with ``every_target`` a tuple of Fractions).

    The walk is the routing's: in class c the field of c is corrected (c leaves D), then
    the class bit ``CoveringWalks.step[D, c, t]`` is crossed, until the step table says
    the walk has ended.
    """
    walks = CoveringWalks.of(k)
    h = 1 << k
    step = walks.step
    masks = np.arange(1 << h, dtype=np.int64)
    targets = range(h) if every_target else (0,)
    counts = np.zeros((h + 1, max(k, 1)), dtype=np.int64)
    for t in targets:
        # states: every (D0, c_s) for target t
        d = np.repeat(masks, h)
        c = np.tile(np.arange(h, dtype=np.int64), masks.size)
        w = np.bitwise_count(d).astype(np.int64)
        for _ in range(4 * h + 4):
            d &= ~(np.int64(1) << c)
            port = step[d, c, t].astype(np.int64)
            moving = port != 255
            if not moving.any():
                break
            d, c, w, port = d[moving], c[moving], w[moving], port[moving]
            counts += np.bincount(w * max(k, 1) + port, minlength=counts.size
                                  ).reshape(counts.shape)
            c ^= np.int64(1) << port
        else:   # pragma: no cover - a walk longer than any covering walk
            raise RuntimeError(f"class walks of MC({k}, m) do not end")
    if every_target:
        return tuple(tuple(Fraction(int(v), h) for v in row) for row in counts)
    return tuple(tuple(int(v) for v in row) for row in counts)


def _result(topology, algorithm, loads, detail):
    """The dict of :func:`uniform_channel_load` from ``loads``: [(channels, load as a
    Fraction)]."""
    worst = max(load for _, load in loads)
    network = float(1 / worst) if worst else float("inf")
    # uniform traffic: each node injects and ejects one flit per unit rate
    limited_by = "network" if network <= 1.0 else "injection"
    return {
        "topology": topology.label,
        "traffic": "uniform",
        "algorithm": algorithm,
        "method": "structure",
        "detail": detail,
        "max_channel_load": float(worst),
        "max_channel_load_exact": f"{worst.numerator}/{worst.denominator}",
        "channels": [{"channels": name, "load": float(load),
                      "load_exact": f"{load.numerator}/{load.denominator}"}
                     for name, load in loads],
        "network_bound": network,
        "saturation_bound": min(network, 1.0),
        "limited_by": limited_by,
    }


def _hypercube(topology, algorithm, n):
    nodes = 1 << n
    load = Fraction(nodes // 2, nodes - 1)
    return _result(topology, algorithm, [("every channel", load)],
                   "e-cube: a channel of dimension j carries the N/2 pairs whose bits below "
                   "j are the target's and above j the source's, differing in bit j")


def _metacube(topology, algorithm):
    k, m = topology.k, topology.m
    if k == 0:
        return _hypercube(topology, algorithm, m)
    nodes, h = topology.num_nodes, topology.h
    pairs = nodes - 1
    loads = [("cube channels", Fraction(nodes * h // 2, pairs))]
    steps = class_walk_steps(k)
    for i in range(k):
        total = sum(steps[w][i] * (2 ** m - 1) ** w for w in range(h + 1))
        loads.append((f"cross channels of class dimension {i}", Fraction(total, pairs)))
    return _result(topology, algorithm, loads,
                   "minimal routing: a cube channel carries the N 2^(k-1) pairs whose field "
                   "differs in its bit; a cross channel the class walks of the routing's "
                   "table along its dimension, weighted by (2^m - 1)^|D| targets per set D "
                   "of differing fields")


def _dlh(topology, algorithm):
    nodes, m = topology.num_nodes, topology.m
    pairs = nodes - 1
    loads = [("cube and ring-bit channels", Fraction(nodes, 2 * pairs)),
             ("ring successor channels", Fraction(nodes * (m + 1), 4 * pairs)),
             ("ring predecessor channels", Fraction(nodes * (m - 1), 4 * pairs))]
    return _result(topology, algorithm, loads,
                   "dimension order: cube and ring-bit channels carry N/2 pairs; the ring "
                   "successor channels the ring distances 1..m (ties to the successor), "
                   "N (m+1)/4; the predecessor channels 1..m-1, N (m-1)/4")


def uniform_channel_load(topology, algorithm=None):
    """The channel loads of uniform traffic under the family's routing, from the
    structure (exact, any size), or None where no structure is known.

    Parameters
    ----------
    topology : Topology
    algorithm : str, optional
        The routing (default: the topology's default). Only the default routing of the
        hypercube (``ecube``), the metacube with k <= 4 (``minimal``) and the DLH
        (``dimension-order``) has a structural form.

    Returns
    -------
    dict or None
        The keys of :func:`cubefab.sim.channel_load.channel_load_bound` that need no
        route walk (``max_channel_load``, ``network_bound`` = 1 / max load,
        ``saturation_bound`` (at most the injection limit 1), ``limited_by``,
        ``traffic``, ``algorithm``, ``topology``), plus ``max_channel_load_exact`` (a
        fraction), ``channels`` (each kind of channel with its load), ``method``
        (``structure``) and ``detail``.
    """
    algorithm = topology.check_algorithm(algorithm)
    return topology.uniform_load_bound(algorithm)
