"""Adaptive minimal routing with an escape port: the reference model.

At every hop an adaptive router is offered

* the *minimal ports* of ``(here, dest)``: every network port whose neighbour is one hop
  closer to ``dest`` (:func:`minimal_ports`, from the topology's exact distance:
  closed forms for the hypercube, the DLH and the metacube with ``k <= 4``, BFS for
  the Mcube), and
* the *escape port*: the port of a deterministic, deadlock-free routing
  (:func:`escape_port`), which the escape virtual channels follow (Duato's protocol,
  :mod:`cubefab.topology.duato`).

For the minimal routings (hypercube ``ecube``, metacube ``minimal``, DLH
``dimension-order``) the escape port is the algorithm's own port and is itself minimal.
The Mcube's ``mroute`` is not always shortest and deadlocks on its own VC rule, so
``mroute`` in adaptive mode means Mroute on the adaptive VCs with e-cube (always
deadlock-free on one VC) as the escape: :func:`escape_algorithm`. The adaptive VCs are
offered every port that Mroute could equally take (:func:`mroute_offered_masks`); where
e-cube's route is as short as Mroute's (:func:`ecube_as_short_masks`) the router injects
a packet on its e-cube escape while it has room.
"""

import numpy as np

from .base import Topology
from .mcube import ecube_as_short_masks, mroute_offered_masks


__all__ = ["escape_algorithm", "escape_port", "minimal_ports", "adaptive_ports",
           "minimal_port_masks", "offered_port_masks", "mroute_offered_masks",
           "ecube_as_short_masks", "needs_adaptive"]


def _check_topology(topology):
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")


def escape_algorithm(topology, algorithm=None):
    """The deterministic routing the escape VCs follow when ``algorithm`` runs adaptively.

    Raises
    ------
    ValueError
        For an algorithm whose decision reads header fields besides ``dest`` (the
        metacube's ``paper``): an escape must be a function of ``(here, dest)``.
    """
    _check_topology(topology)
    algorithm = topology.check_algorithm(algorithm)
    if topology.header_fields.get(algorithm):
        raise ValueError(f"adaptive routing needs an escape that reads only the destination; "
                         f"{algorithm!r} reads {', '.join(topology.header_fields[algorithm])} "
                         f"(use {topology.algorithms[0]!r})")
    return topology.escape_algorithm(algorithm)


def needs_adaptive(topology, algorithm=None):
    """Whether ``algorithm`` runs deadlock-free only adaptively: it is not its own
    escape (:func:`escape_algorithm`), because no number of VCs makes it deadlock-free
    under the deterministic VC rule (the Mcube's ``mroute``, over an e-cube escape;
    :class:`~cubefab.topology.deadlock.DeadlockReport`'s ``rule_suffices`` is false for
    it, as the tests check). Cheap: no graph is built."""
    _check_topology(topology)
    algorithm = topology.check_algorithm(algorithm)
    if topology.header_fields.get(algorithm):
        return False
    return escape_algorithm(topology, algorithm) != algorithm


def escape_port(topology, here, dest, algorithm=None):
    """The escape port of ``(here, dest)``: the escape routing's
    :meth:`~cubefab.topology.base.Topology.next_port` (``degree`` when ``here == dest``)."""
    return topology.next_port(here, dest, escape_algorithm(topology, algorithm))


def minimal_ports(topology, here, dest):
    """The network ports of ``here`` whose neighbour is one hop closer to ``dest``
    (empty when ``here == dest``), in ascending order.

    Returns
    -------
    tuple of int
    """
    _check_topology(topology)
    here = topology.check_node(here, "here")
    dest = topology.check_node(dest, "dest")
    distance = topology.distance_function()
    d = distance(here, dest)
    return tuple(p for p, v in enumerate(topology.neighbors(here))
                 if d and distance(v, dest) == d - 1)


def adaptive_ports(topology, here, dest, algorithm=None):
    """The ports an adaptive router may take on its adaptive VCs: the minimal ports; on
    the Mcube, whose escape (e-cube) is not minimal, ports that make progress in the
    escape's own order instead (minimal ports with an e-cube escape can cycle: a packet
    escapes away from its destination and comes back adaptively): for ``mroute``
    every port Mroute could equally take (:func:`mroute_offered_masks`; Mroute's own
    port among them), for ``ecube`` every link ``j`` with bit ``j`` of ``here ^ dest``
    set (it clears that bit and changes only lower ones, so ``here ^ dest`` decreases).

    Returns
    -------
    tuple of int
    """
    _check_topology(topology)
    algorithm = topology.check_algorithm(algorithm)
    escape_algorithm(topology, algorithm)
    here = topology.check_node(here, "here")
    dest = topology.check_node(dest, "dest")
    ports = topology.adaptive_ports(here, dest, algorithm)
    return minimal_ports(topology, here, dest) if ports is None else ports


def minimal_port_masks(topology, dest):
    """Vectorised :func:`minimal_ports` towards ``dest``, by BFS distances: int64 array
    indexed densely, bit ``p`` of entry ``i`` set when port ``p`` of node ``i`` is minimal."""
    from .properties import bfs_distances
    _check_topology(topology)
    dest = topology.check_node(dest, "dest")
    nodes = topology.nodes()
    dist = bfs_distances(topology, dest).astype(np.int64)    # links are symmetric
    masks = np.zeros(len(nodes), dtype=np.int64)
    for p in range(topology.degree):
        there = topology.index_array(topology.neighbor_array(nodes, p))
        masks |= (dist[there] == dist - 1).astype(np.int64) << p
    return masks


def offered_port_masks(topology, dest, algorithm=None):
    """Vectorised :func:`adaptive_ports` and :func:`escape_port` towards ``dest``.

    Returns
    -------
    (masks, escape) : numpy int64 arrays indexed densely
        bit ``p`` of ``masks[i]`` set when port ``p`` of node ``i`` is offered on the
        adaptive VCs; ``escape[i]`` the escape port (``degree`` at ``dest``).
    """
    _check_topology(topology)
    algorithm = topology.check_algorithm(algorithm)
    escape = escape_algorithm(topology, algorithm)
    dest = topology.check_node(dest, "dest")
    nodes = topology.nodes()
    ports = np.array([topology.next_port(int(a), dest, escape) for a in nodes],
                     dtype=np.int64)
    masks = topology.adaptive_port_masks(dest, algorithm)
    return (minimal_port_masks(topology, dest) if masks is None else masks), ports
