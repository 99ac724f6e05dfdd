"""The turns of a router: which input ports feed which output ports under the
reference routing.

A router needs a crossbar path and an arbiter input from input port ``p`` to output
port ``o`` only if some packet arriving through ``p`` leaves through ``o``. Under
e-cube routing of the hypercube, for instance, a packet that arrived through dimension
``p`` leaves through a higher dimension or is delivered: 15 of the 25 turns of a
5-port router. The turn sets are computed from every hop of every reference route (as
the channel dependency graph of :mod:`cubefab.topology.deadlock` is).
"""

import functools

import numpy as np

from .base import Topology
from .deadlock import _enumerate_hops, translation_mask


__all__ = ["inverse_ports", "router_turns", "adaptive_turns"]


def inverse_ports(topology):
    """``q[p]``: the port through which the neighbour reached via ``p`` leads back
    (``p`` itself for the cubes; successor and predecessor swap on DLH rings)."""
    nodes = topology.nodes()
    out = []
    for p in range(topology.degree):
        there = topology.neighbor_array(nodes, p)
        for q in range(topology.degree):
            if (topology.neighbor_array(there, q) == nodes).all():
                out.append(q)
                break
        else:  # pragma: no cover - every family here has inverse ports
            raise ValueError(f"{topology.label}: port {p} has no inverse port")
    return tuple(out)


@functools.lru_cache(maxsize=64)
def _turns_by_class(topology, algorithm):
    """{address & ~translation_mask: set of (input port, output port)}."""
    degree = topology.degree
    local = degree
    back = np.array(inverse_ports(topology), dtype=np.int64)
    nodes = topology.nodes()
    keep = ~translation_mask(topology)
    neighbours = np.stack([topology.neighbor_array(nodes, p) for p in range(degree)], axis=1)
    found = {}

    def add(addresses, inputs, outputs):
        rows = np.unique(np.stack([addresses & keep, inputs, outputs], axis=1), axis=0)
        for cls, i, o in rows.tolist():
            found.setdefault(cls, set()).add((i, o))

    add(nodes, np.full(len(nodes), local), np.full(len(nodes), local))   # to itself
    for dest, here, ports, _, prev_port, _ in _enumerate_hops(topology, algorithm, None):
        at = nodes[here]
        inputs = np.where(prev_port < 0, local, back[np.maximum(prev_port, 0)])
        add(at, inputs, ports)
        arrived = neighbours[here, ports] == dest       # the next router delivers it
        add(neighbours[here, ports][arrived], back[ports[arrived]],
            np.full(int(arrived.sum()), local))
    # XOR translations by the mask bits map routes onto routes, ports unchanged: the
    # routes into the representative destinations show every class's turns
    return {cls: frozenset(turns) for cls, turns in found.items()}


def router_turns(topology, node=None, algorithm=None):
    """The (input port, output port) pairs that reference routes take at ``node``
    (the union over every node when ``node`` is ``None``); port ``degree`` is the
    local port, and (local, local) — a packet to its own node — is always included.

    Returns
    -------
    frozenset of (int, int)
    """
    by_class = _turns_by_class(topology, _check(topology, algorithm))
    return _at(topology, node, by_class, lambda a: a & ~translation_mask(topology))


def _check(topology, algorithm):
    """``algorithm`` of ``topology`` (its default when None), checked."""
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    return topology.check_algorithm(algorithm)


def _at(topology, node, turns, key):
    """The turns of ``node`` (``turns[key(node)]``), or the union of all for None."""
    if node is None:
        return frozenset().union(*(turns.values() if isinstance(turns, dict) else turns))
    return turns[key(topology.check_node(node, "node"))]


@functools.lru_cache(maxsize=16)
def _adaptive_turns_by_node(topology, algorithm):
    """Per dense node index, the set of (input port, output port) of adaptive routes."""
    from .adaptive import offered_port_masks
    degree = topology.degree
    local = degree
    back = inverse_ports(topology)
    nodes = topology.nodes()
    n = len(nodes)
    neighbours = np.stack([topology.index_array(topology.neighbor_array(nodes, p))
                           for p in range(degree)], axis=1)
    # outputs[i, q]: bit o set when a packet arriving at node i through port q may
    # leave through o (q = local: injected there)
    outputs = np.zeros((n, degree + 1), dtype=np.int64)
    outputs[:, local] |= 1 << local                      # a packet to itself
    for dest in nodes.tolist():
        masks, escape = offered_port_masks(topology, dest, algorithm)
        offered = masks | (np.int64(1) << escape)      # escape == degree at dest
        outputs[:, local] |= offered                   # every node injects to dest
        for p in range(degree):
            # every node but dest holds packets to dest (they inject them): each hop
            # offered there is taken, and the next node offers its own ports
            hop = ((offered >> p) & 1).astype(bool)
            hop[topology.index(dest)] = False
            there = neighbours[hop, p]
            np.bitwise_or.at(outputs[:, back[p]], there, offered[there])
    return [frozenset((q, o) for q in range(degree + 1) for o in range(degree + 1)
                      if outputs[i, q] >> o & 1) for i in range(n)]


def adaptive_turns(topology, node=None, algorithm=None):
    """The (input port, output port) pairs adaptive routes take at ``node`` (the union
    over every node when ``node`` is ``None``): an input port feeds the adaptive ports
    (:func:`~cubefab.topology.adaptive.adaptive_ports`) and escape port
    (:func:`~cubefab.topology.adaptive.escape_port`) of every packet that can arrive
    through it, as :func:`router_turns` does for the reference routes.

    Returns
    -------
    frozenset of (int, int)
    """
    by_node = _adaptive_turns_by_node(topology, _check(topology, algorithm))
    return _at(topology, node, by_node, topology.index)
