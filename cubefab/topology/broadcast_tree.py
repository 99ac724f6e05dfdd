"""Broadcast and multicast spanning trees that routers can compute locally.

The reference model for replication in the fabric. Every tree here is defined by a
*tree routing*: a deterministic, minimal, memoryless routing ``R(here, dest)``; the
parent of a node ``v`` in the broadcast tree of ``source`` is ``v``'s next hop towards
``source`` under ``R``, so

* the children of ``here`` are the neighbours ``w`` whose next hop towards ``source``
  is ``here``: a function of ``(source, here)`` that a router computes from the route
  decisions of its neighbours (each a route unit, :mod:`cubefab.hdl.route`);
* a node at distance ``L`` from the source hangs at depth ``L`` (the routing is
  minimal), so the tree's depth is the source's eccentricity: optimal all-port.

Tree routings (:func:`tree_algorithm`): the hypercube's ``ecube``, the metacube's
``minimal`` (``k <= 4``) and the DLH's ``dimension-order`` are shortest-path routings
and are used as they are. The Mcube's ``mroute`` is not always shortest (and ``ecube``
even less), so the Mcube's tree routing is ``"bfs-lowest"``: the lowest-numbered port
whose neighbour is one hop closer (exact BFS distances,
:func:`~cubefab.topology.adaptive.minimal_port_masks`), a table.

One-port mode (:func:`one_port_tree`): each node sends to one neighbour per step. The
order is the papers' schedule (:func:`~cubefab.topology.broadcast.broadcast_schedule`)
read per node: ``sends[here] = [(step, port), ...]``. The Mcube's paper schedule is
all-port; its one-port broadcast is a binomial tree over the links in descending order
(``k = log2 N`` steps, the one-port lower bound).

Multicast (:func:`multicast_tree`): the broadcast tree pruned to the branches that hold
a member; members are a subcube (``value``, ``mask``: every node ``x`` with
``x & mask == value & mask``) or an explicit set. A pruned tree is still a tree: no
link carries two copies and every member receives exactly one.
"""

import dataclasses
import functools
from dataclasses import dataclass

import numpy as np

from .broadcast import ALL_PORT, ONE_PORT
from .adaptive import minimal_port_masks
from .base import Topology
from .broadcast import broadcast_schedule, check_model, validate_schedule
from .deadlock import translation_mask


__all__ = ["tree_algorithm", "back_ports",
           "parent_ports", "model_parent_ports", "one_port_sends",
           "BroadcastTree", "broadcast_tree", "OnePortTree", "one_port_tree",
           "subcube_members", "member_array", "member_vector", "multicast_tree"]

#: Largest network whose trees are built (dense arrays per source).
MAX_NODES = 1 << 20


def _check_topology(topology):
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    algorithm = tree_algorithm(topology)
    if topology.num_nodes > MAX_NODES:
        raise ValueError(f"{topology.label} has {topology.num_nodes} nodes; broadcast trees "
                         f"are built for at most {MAX_NODES}")
    topology.check_tree_routing()
    return algorithm


def tree_algorithm(topology):
    """Name of the tree routing of ``topology`` (its family's ``tree_algorithm``): a
    routing algorithm of the topology, or ``"bfs-lowest"`` (the Mcube: lowest minimal
    port by BFS distances).

    Raises
    ------
    TypeError
        If ``topology`` is not a topology of a family with a tree routing.
    """
    algorithm = getattr(topology, "tree_algorithm", None)
    if algorithm is None:
        from .catalog import family_titles
        raise TypeError(f"Topology must be of a family with broadcast trees "
                        f"({family_titles(lambda cls: cls.tree_algorithm)}), "
                        f"not {topology!r}")
    return algorithm


@functools.lru_cache(maxsize=16)
def back_ports(topology):
    """Tuple: for each port ``p``, the port ``q`` with ``neighbor(neighbor(u, p), q) == u``
    for every node ``u`` (checked on every node; ValueError if some port has none)."""
    nodes = topology.nodes()
    out = []
    for p in range(topology.degree):
        there = topology.neighbor_array(nodes, p)
        found = [q for q in range(topology.degree)
                 if np.array_equal(topology.neighbor_array(there, q), nodes)]
        if not found:
            raise ValueError(f"{topology.label}: port {p} has no inverse port")
        out.append(found[0])
    return tuple(out)


@functools.lru_cache(maxsize=64)
def _representative_ports(topology, rep):
    algorithm = tree_algorithm(topology)
    nodes = topology.nodes()
    if algorithm == "bfs-lowest":
        masks = minimal_port_masks(topology, rep)
        lowest = (masks & -masks)
        ports = np.where(masks > 0, np.log2(np.maximum(lowest, 1)).astype(np.int64),
                         topology.degree)
    else:
        ports = np.array([topology.next_port(int(a), rep, algorithm) for a in nodes],
                         dtype=np.int64)
    ports.setflags(write=False)
    return ports


def parent_ports(topology, source):
    """The tree routing's port towards ``source`` of every node, in dense index order
    (``degree`` at the source): the port to each node's parent.

    Computed for the representative ``source & ~T`` of the source's translation class
    (``T``: :func:`~cubefab.topology.deadlock.translation_mask`, XORs that map routes onto
    routes) and translated: ``port(u, s) = port(u ^ t, s ^ t)``.
    """
    _check_topology(topology)
    source = topology.check_node(source, "source")
    t = source & translation_mask(topology)
    rep_ports = _representative_ports(topology, source ^ t)
    if not t:
        return rep_ports
    nodes = topology.nodes()
    return rep_ports[topology.index_array(nodes ^ t)]


@dataclass
class BroadcastTree:
    """The all-port broadcast tree of ``source`` (:func:`broadcast_tree`).

    Attributes
    ----------
    topology : Topology
    source : int
    algorithm : str
        The tree routing (:func:`tree_algorithm`).
    parent : numpy.ndarray
        Port to the parent of each node, dense order (``degree`` at the source).
    children : numpy.ndarray
        int64 mask of each node's child ports (bit ``p``: the neighbour through ``p``
        is a child), dense order.
    depth : numpy.ndarray
        Hops from the source of each node, dense order.
    """

    topology: Topology
    source: int
    algorithm: str
    parent: np.ndarray
    children: np.ndarray
    depth: np.ndarray

    @property
    def height(self):
        """int: the tree's depth (its deepest node's hop count)."""
        return int(self.depth.max())

    def edges(self):
        """List of ``(parent, child)`` address pairs, by depth then child address."""
        topo = self.topology
        nodes = topo.nodes()
        order = np.lexsort((nodes, self.depth))
        out = []
        for i in order:
            if self.depth[i] <= 0:      # the source, or a node off a pruned tree
                continue
            u = int(nodes[i])
            out.append((topo._neighbor(u, int(self.parent[i])), u))
        return out

    def subtrees(self):
        """Dense bool matrix ``[w, x]``: node ``x`` lies in the subtree of node ``w`` (its
        own included; off a pruned tree, nothing)."""
        topo = self.topology
        n = topo.num_nodes
        if n > 1 << 13:
            raise ValueError(f"subtree matrices are built for at most {1 << 13} nodes, "
                             f"not {n}")
        up = _up_indices(topo, self.parent)
        inside = np.zeros((n, n), dtype=bool)
        on = self.depth >= 0
        here = np.arange(n)
        for _ in range(int(self.depth.max()) + 1):
            inside[here[on], np.flatnonzero(on)] = True
            here = up[here]
        return inside

    def schedule(self):
        """The tree as an all-port schedule: step ``L`` holds the transfers into the
        nodes at depth ``L`` (for :func:`~cubefab.topology.broadcast.validate_schedule`)."""
        steps = [[] for _ in range(self.height)]
        index = self.topology.index
        for u, v in self.edges():
            steps[int(self.depth[index(v)]) - 1].append((u, v))
        return steps


def _children_masks(topology, parent):
    nodes = topology.nodes()
    back = back_ports(topology)
    masks = np.zeros(len(nodes), dtype=np.int64)
    for p in range(topology.degree):
        there = topology.index_array(topology.neighbor_array(nodes, p))
        masks |= (parent[there] == back[p]).astype(np.int64) << p
    return masks


def _up_indices(topology, parent):
    """Dense index of each node's parent (itself at the source)."""
    nodes = topology.nodes()
    up = np.arange(len(nodes))
    for p in range(topology.degree):
        sel = parent == p
        up[sel] = topology.index_array(topology.neighbor_array(nodes[sel], p))
    return up


def _depths(topology, parent):
    """Hop count along the parent pointers (ValueError if they do not form a tree)."""
    n = topology.num_nodes
    up = _up_indices(topology, parent)
    depth = np.zeros(n, dtype=np.int64)
    here = np.arange(n)
    for _ in range(n):
        moving = up[here] != here
        if not moving.any():
            return depth
        depth += moving
        here = up[here]
    raise ValueError(f"{topology.label}: the parent pointers do not reach the source")


def broadcast_tree(topology, source):
    """The all-port broadcast tree of ``source`` (see the module text).

    Returns
    -------
    BroadcastTree
        Its depth is the source's eccentricity (the tree routing is minimal; tests check
        it against BFS).
    """
    algorithm = _check_topology(topology)
    source = topology.check_node(source, "source")
    parent = parent_ports(topology, source)
    return BroadcastTree(topology, source, algorithm, parent,
                         _children_masks(topology, parent), _depths(topology, parent))


# -- one-port ---------------------------------------------------------------------------

@dataclass
class OnePortTree:
    """A one-port broadcast (:func:`one_port_tree`).

    Attributes
    ----------
    topology : Topology
    source : int
    algorithm : str
        The schedule it follows: a paper's (the name
        :func:`~cubefab.topology.broadcast.broadcast_schedule` gives it), or
        ``"binomial"`` for the Mcube.
    sends : dict
        ``here -> [(step, port), ...]`` in step order (steps from 1): the node's sends.
    paper_steps : int or None
        The step count the paper claims for the network.
    """

    topology: Topology
    source: int
    algorithm: str
    sends: dict
    paper_steps: int = None

    @property
    def num_steps(self):
        """int: the last step in which anything is sent."""
        return max((s for sends in self.sends.values() for s, _ in sends), default=0)

    def schedule(self):
        """The sends as a schedule of ``(sender, receiver)`` steps."""
        steps = [[] for _ in range(self.num_steps)]
        for here, sends in sorted(self.sends.items()):
            for step, port in sends:
                steps[step - 1].append((here, self.topology._neighbor(here, port)))
        return steps

    def validate(self):
        """:func:`~cubefab.topology.broadcast.validate_schedule` of the sends, one-port."""
        return validate_schedule(self.topology, self.source, self.schedule(), ONE_PORT)

    @property
    def parent(self):
        """numpy.ndarray: the port to each node's sender (its parent in the one-port
        tree), dense order (``degree`` at the source); read-only."""
        topo = self.topology
        parent = np.full(topo.num_nodes, topo.degree, dtype=np.int64)
        back = back_ports(topo)
        for here, sends in self.sends.items():
            for _, port in sends:
                parent[topo.index(topo._neighbor(here, port))] = back[port]
        parent.setflags(write=False)
        return parent

    def edges(self):
        """List of ``(sender, receiver)`` address pairs, by step then sender."""
        return [pair for transfers in self.schedule() for pair in transfers]


@functools.lru_cache(maxsize=1024)
def _one_port_tree(topology, source):
    """The one-port tree, its sends as tuples (cached: shared, not to be changed)."""
    own = topology.one_port_tree_sends(source)
    if own is not None:
        sends, algorithm, paper = own
    else:
        schedule = broadcast_schedule(topology, source, ONE_PORT)
        sends = {int(a): [] for a in topology.nodes()}
        for step, transfers in enumerate(schedule.steps, start=1):
            for u, v in transfers:
                sends[u].append((step, topology.port(u, v)))
        algorithm, paper = schedule.algorithm, schedule.paper_steps
    return OnePortTree(topology, source, algorithm,
                       {a: tuple(v) for a, v in sends.items()}, paper)


def one_port_sends(topology, source, node):
    """``one_port_tree(topology, source).sends[node]`` as a tuple, from a cache shared
    by the hardware units (every unit of a fabric reads every source's schedule)."""
    _check_topology(topology)
    source = topology.check_node(source, "source")
    return _one_port_tree(topology, source).sends[topology.check_node(node, "node")]


def model_parent_ports(topology, source, model=ALL_PORT):
    """The port to each node's parent (dense order, ``degree`` at the source) in the
    broadcast of ``source`` under ``model`` (one of
    :data:`~cubefab.topology.broadcast.MODELS`): the all-port tree's
    (:func:`parent_ports`) or the one-port tree's (:attr:`OnePortTree.parent`)."""
    if check_model(model) == ALL_PORT:
        return parent_ports(topology, source)
    _check_topology(topology)
    return _one_port_parent(topology, topology.check_node(source, "source"))


@functools.lru_cache(maxsize=1024)
def _one_port_parent(topology, source):
    return _one_port_tree(topology, source).parent


def one_port_tree(topology, source):
    """The one-port broadcast from ``source``: the paper's schedule read per node
    (hypercube binomial tree, dual-cube Theorem 2, metacube Theorem 3, DLH section
    III.B); for the Mcube a binomial tree over its links in descending order.

    Returns
    -------
    OnePortTree
    """
    _check_topology(topology)
    source = topology.check_node(source, "source")
    tree = _one_port_tree(topology, source)
    # (cached: a copy, so that callers may not change the cached sends)
    return dataclasses.replace(tree, sends={a: list(v) for a, v in tree.sends.items()})


# -- multicast --------------------------------------------------------------------------

def subcube_members(topology, value, mask):
    """Dense bool array of the members of the subcube ``(value, mask)``: the nodes ``x``
    with ``x & mask == value & mask``."""
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    limit = (1 << topology.address_bits) - 1
    for name, v in (("value", value), ("mask", mask)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 0 <= v <= limit:
            raise ValueError(f"Multicast {name} must be an integer in [0, {limit}], not {v!r}")
    nodes = topology.nodes()
    return (nodes & mask) == (value & mask)


def member_array(topology, members):
    """The destination set ``members`` as a new dense bool array.

    Parameters
    ----------
    members : array-like of bool (dense order), or iterable of addresses
    """
    n = topology.num_nodes
    arr = np.asarray(members)
    if arr.dtype == bool:
        if arr.shape != (n,):
            raise ValueError(f"Multicast member mask must have {n} entries, not {arr.shape}")
        return arr.copy()
    wanted = np.zeros(n, dtype=bool)
    for a in arr.ravel().tolist():
        wanted[topology.index(topology.check_node(a, "member"))] = True
    return wanted


def member_vector(topology, members):
    """The destination set ``members`` (as for :func:`member_array`) as an int whose
    bit ``i`` is set when the node of dense index ``i`` is a member: the ``members``
    field of a member-vector multicast flit."""
    row = member_array(topology, members)
    return int.from_bytes(np.packbits(row, bitorder="little").tobytes(), "little")


def multicast_tree(topology, source, members):
    """The broadcast tree of ``source`` pruned to the branches that hold a member.

    Parameters
    ----------
    members : array-like of bool (dense order), or iterable of addresses
        The destination set (the source itself never receives a copy).

    Returns
    -------
    BroadcastTree
        ``children`` keeps a child port only when the child's subtree holds a member;
        ``depth`` is unchanged (-1 for nodes off the pruned tree).
    """
    tree = broadcast_tree(topology, source)
    n = topology.num_nodes
    wanted = member_array(topology, members)
    wanted[topology.index(source)] = False
    nodes = topology.nodes()
    # a node is on the pruned tree when its subtree holds a member: push marks upwards
    on = wanted.copy()
    up = _up_indices(topology, tree.parent)
    for i in np.argsort(-tree.depth, kind="stable"):
        if on[i] and tree.depth[i] > 0:
            on[up[i]] = True
    back = back_ports(topology)
    children = np.zeros(n, dtype=np.int64)
    for p in range(topology.degree):
        there = topology.index_array(topology.neighbor_array(nodes, p))
        children |= ((tree.parent[there] == back[p]) & on[there]).astype(np.int64) << p
    depth = np.where(on, tree.depth, -1)
    depth[topology.index(source)] = 0
    return BroadcastTree(topology, tree.source, tree.algorithm, tree.parent, children, depth)
