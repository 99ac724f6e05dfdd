"""One-to-all broadcast schedules as data, their validator and lower bounds.

A schedule is a list of steps; a step is a list of ``(sender, receiver)`` transfers
that happen in the same time unit. :func:`validate_schedule` checks any schedule on
any :class:`~cubefab.topology.base.Topology` under one of two port models:

``one-port``
    every node sends at most one and receives at most one message per step
    (metacube.txt section 4.2, dual-cube.txt section 4);
``all-port``
    a node may use all its links in one step, one message per link direction.

In both, a sender must already hold the message, every transfer uses a link, and
every node other than the source receives exactly once.

Schedules of the papers (:func:`broadcast_schedule` picks them):

* hypercube Q(n): binomial tree, ``n`` steps;
* metacube MC(k, m): Theorem 3 of metacube.txt, ``(m + 1) 2^k + k - 1`` steps;
* dual-cube MC(1, m): Theorem 2 of dual-cube.txt, ``2r`` steps, ``r = m + 1``
  (the default for ``k = 1``);
* DLH(m, d): section III.B of dlh.txt, ``m + d + 1`` steps. The count holds in the
  one-port model: the source first crosses to the other ring, then both ring nodes
  feed their rings in both directions (``m + 1`` steps for the DL(2m)), then every
  DL(2m) node runs a binomial tree in its hypercube (``d`` steps).
* any topology: ``flood`` (all-port breadth-first tree, eccentricity steps, optimal)
  and ``greedy`` (one-port, not optimal).

* Mcube: section 4 of mcube.txt (:mod:`cubefab.topology.mcube_broadcast`),
  ``ceil((k + 1) / 2)`` steps, all-port.

Extension: the registry :data:`BROADCAST_ALGORITHMS` maps a topology class to a list of
:class:`BroadcastAlgorithm`; :func:`register_broadcast` appends to it. :func:`broadcast_schedule` takes the first
algorithm of the topology's class (or base classes) that applies and fits the model.
"""

from dataclasses import dataclass, field
import math
from typing import Callable, Optional

import numpy as np

from .classwalk import _gray_cycle
from .properties import bfs_distances


__all__ = ["MODELS", "ALL_PORT", "ONE_PORT", "check_model", "ScheduleReport", "validate_schedule", "Schedule",
           "BroadcastAlgorithm", "BROADCAST_ALGORITHMS", "register_broadcast",
           "algorithms_for", "broadcast_schedule", "lower_bounds",
           "binomial_schedule", "metacube_schedule", "dualcube_schedule",
           "dlh_schedule", "flood_schedule", "greedy_schedule"]

#: The broadcast (port) models :func:`validate_schedule` knows: one copy a step
#: (``"one-port"``) or to every port at once (``"all-port"``).
ONE_PORT, ALL_PORT = "one-port", "all-port"
MODELS = (ONE_PORT, ALL_PORT)

_SCHEDULE_LIMIT = 1 << 20


def check_model(model):
    """Return ``model`` if it is one of :data:`MODELS`, else raise ValueError."""
    if model not in MODELS:
        raise ValueError(f"model must be one of {', '.join(MODELS)}, not {model!r}")
    return model


# -- validation ------------------------------------------------------------------------

@dataclass
class ScheduleReport:
    """The verdict of :func:`validate_schedule`.

    Attributes
    ----------
    num_steps : int
        Number of steps (time units) of the schedule.
    ok : bool
        True when there are no problems.
    problems : list of str
        Each violation found (the first 20 of each kind, then a count).
    model : str
    informed : int
        Nodes holding the message at the end (the source included).
    """

    num_steps: int
    ok: bool
    problems: list
    model: str
    informed: int

    def as_dict(self):
        return {"num_steps": self.num_steps, "ok": self.ok, "problems": self.problems,
                "model": self.model, "informed": self.informed}


def validate_schedule(topology, source, steps, model=ONE_PORT):
    """Check a broadcast schedule from ``source`` on ``topology`` under ``model``.

    Parameters
    ----------
    topology : Topology
    source : int
    steps : sequence of sequences of (sender, receiver)
    model : {"one-port", "all-port"}

    Returns
    -------
    ScheduleReport
        ``ok`` when every transfer uses a link from a node that already holds the
        message, the port model is respected in every step, and every node other than
        the source receives exactly once.

    Raises
    ------
    TypeError, ValueError
        If ``source`` is not a node or ``model`` is unknown (problems of the schedule
        itself are reported, not raised).
    """
    source = topology.check_node(source, "source")
    check_model(model)
    problems = []
    counts = {}

    def problem(kind, text):
        counts[kind] = counts.get(kind, 0) + 1
        if counts[kind] <= 20:
            problems.append(text)

    informed = {source}
    for n, step in enumerate(steps, start=1):
        sent, received = {}, set()
        arrivals = []
        pairs = []
        for transfer in step:
            try:
                u, v = (int(x) for x in transfer)
            except (TypeError, ValueError):
                problem("form", f"step {n}: {transfer!r} is not a (sender, receiver) pair")
                continue
            if not (topology.is_node(u) and topology.is_node(v)):
                problem("node", f"step {n}: ({u}, {v}) names a non-node")
                continue
            pairs.append((u, v))
        adjacent = _adjacent(topology, pairs)
        for (u, v), linked in zip(pairs, adjacent):
            if not linked:
                problem("link", f"step {n}: {u} and {v} are not adjacent")
                continue
            if u not in informed:
                problem("early", f"step {n}: {u} sends before it holds the message")
            if v in informed:
                problem("again", f"step {n}: {v} already holds the message "
                        f"({'the source' if v == source else 'received earlier'})")
            elif v in received:
                problem("twice", f"step {n}: {v} receives more than one message")
            received.add(v)
            sent[u] = sent.get(u, 0) + 1
            arrivals.append(v)
        if model == ONE_PORT:
            for u, c in sorted(sent.items()):
                if c > 1:
                    problem("port", f"step {n}: {u} sends {c} messages (one-port allows 1)")
        informed.update(arrivals)
    missing = topology.num_nodes - len(informed)
    if missing:
        left = sorted(set(int(a) for a in topology.nodes()) - informed) if missing <= 1 << 16 else []
        problem("missing", f"{missing} node(s) never receive the message"
                + (f", e.g. {left[:5]}" if left else ""))
    for kind, c in counts.items():
        if c > 20:
            problems.append(f"... {c - 20} more problem(s) of the same kind ({kind})")
    return ScheduleReport(len(steps), not problems, problems, model, len(informed))


def _adjacent(topology, pairs):
    """For each (u, v) of ``pairs`` (nodes), whether they are linked (vectorised)."""
    if not pairs:
        return []
    arr = np.array(pairs, dtype=np.int64)
    ok = np.zeros(len(pairs), dtype=bool)
    for p in range(topology.degree):
        ok |= topology.neighbor_array(arr[:, 0], p) == arr[:, 1]
    return ok.tolist()


# -- lower bounds ----------------------------------------------------------------------

def lower_bounds(topology, source, model=ONE_PORT):
    """Lower bounds on the number of broadcast steps from ``source``.

    Returns
    -------
    dict
        ``eccentricity`` (the largest distance from ``source``: a bound in every
        model), ``log2_nodes`` (``ceil(log2 N)``: the informed set at most doubles per
        step, one-port only, None for all-port) and ``lower_bound`` (the larger).
    """
    source = topology.check_node(source, "source")
    check_model(model)
    ecc = int(bfs_distances(topology, source).max())
    log2 = math.ceil(math.log2(topology.num_nodes)) if model == ONE_PORT else None
    return {"eccentricity": ecc, "log2_nodes": log2,
            "lower_bound": max(ecc, log2 or 0)}


# -- schedules of the papers -----------------------------------------------------------

def _xor_rounds(informed, masks, skip_informed=False):
    """Binomial-tree rounds: in round ``j`` every informed node sends to itself XOR
    ``masks[j](node)``; returns the steps and updates ``informed`` (a list). With
    ``skip_informed``, transfers to nodes that already hold the message are left out."""
    steps = []
    have = set(informed)
    for mask_of in masks:
        step = [(u, u ^ mask_of(u)) for u in informed]
        if skip_informed:
            step = [(u, v) for u, v in step if v not in have]
        new = [v for _, v in step if v not in have]
        have.update(new)
        informed += new
        steps.append(step)
    return steps


def binomial_schedule(topology, source):
    """Binomial tree of Q(n): in step ``j`` every informed node sends across dimension
    ``j - 1``; ``n`` steps, one-port."""
    informed = [source]
    return _xor_rounds(informed, [lambda u, b=b: 1 << b for b in range(topology.n)])


def _cluster_rounds(topology, informed, skip_informed=False):
    """``m`` rounds in which every informed node broadcasts in its own cluster."""
    mt = topology.m
    shift = topology.m * topology.h
    return _xor_rounds(informed, [
        lambda u, b=b: 1 << ((u >> shift) * mt + b) for b in range(mt)], skip_informed)


def metacube_schedule(topology, source, keep_redundant=False):
    """Theorem 3 of metacube.txt: ``(m + 1) 2^k + k - 1`` one-port steps.

    A binomial tree over the class cube (``k`` steps), then ``2^k`` times: every informed
    node broadcasts in its cluster (``m`` steps) and, except the last time, sends to
    ``next(u)``, the node of the next class on the Gray-code cycle of classes
    ``0, 1, 3, 2, ...`` (one step). Transfers to nodes that already hold the message
    (the paper's algorithm sends them: clusters covered in an earlier round broadcast
    again, and ``next(u)`` may be informed already, Table 3) are dropped unless
    ``keep_redundant``; the step count is the same.
    """
    k, h, shift = topology.k, topology.h, topology.m * topology.h
    informed = [source]
    steps = _xor_rounds(informed, [lambda u, b=b: 1 << (shift + b) for b in range(k)])
    cycle = _gray_cycle(k, 0, 0) if k else [0]
    successor = {cycle[i]: cycle[(i + 1) % h] for i in range(h)}
    for i in range(h):
        steps += _cluster_rounds(topology, informed, not keep_redundant)
        if i < h - 1:
            have = set(informed)
            step = [(u, (u & ((1 << shift) - 1)) | (successor[u >> shift] << shift))
                    for u in informed]
            if not keep_redundant:
                step = [(u, v) for u, v in step if v not in have]
            informed += [v for _, v in step if v not in have]
            steps.append(step)
    return steps


def dualcube_schedule(topology, source):
    """Theorem 2 of dual-cube.txt for the dual-cube MC(1, m): ``2r = 2m + 2`` one-port
    steps. The source crosses to ``s'``; ``s`` and ``s'`` broadcast in their clusters;
    every other node of both clusters crosses; the receivers broadcast in their
    clusters."""
    if topology.k != 1:
        raise ValueError(f"the dual-cube schedule needs k = 1, not {topology.label}")
    shift = topology.m * topology.h
    cross = 1 << shift
    informed = [source]
    steps = _xor_rounds(informed, [lambda u: cross])
    steps += _cluster_rounds(topology, informed)
    first = {source, source ^ cross}
    step = [(u, u ^ cross) for u in informed if u not in first]
    steps.append(step)
    receivers = [v for _, v in step]
    steps += _cluster_rounds(topology, receivers)
    return steps


def dlh_schedule(topology, source):
    """Section III.B of dlh.txt: ``m + d + 1`` one-port steps.

    Step 1 sends across the rings; in steps ``2 .. m + 1`` the two nodes at the source's
    ring position send to their successor, then to their predecessor, while every
    other informed ring node passes the message on, away from the source: the
    DL(2m) of the source is covered in ``m + 1`` steps. Then all ``4m`` nodes run a
    binomial tree in their hypercubes (``d`` steps).
    """
    m, d = topology.m, topology.d
    ring0, p0, cube = topology.split(source)
    length = 2 * m
    def at(r, p):
        return topology.make_address(r, p % length, cube)

    informed = {source, at(1 - ring0, p0)}
    steps = [[(source, at(1 - ring0, p0))]]
    for t in range(2, m + 2):
        step, targeted = [], set()
        for r in (0, 1):
            senders = []
            if t == 2:
                senders.append((0, +1))
            elif t == 3:
                senders.append((0, -1))
            if t >= 3:
                senders.append((t - 2, +1))
            if t >= 4:
                senders.append((-(t - 3), -1))
            for off, direction in senders:
                u = at(r, p0 + off)
                v = at(r, p0 + off + direction)
                if v not in informed and v not in targeted:
                    step.append((u, v))
                    targeted.add(v)
        informed |= targeted
        steps.append(step)
    holders = sorted(informed)
    steps += _xor_rounds(holders, [lambda u, b=b: 1 << b for b in range(d)])
    return steps


def flood_schedule(topology, source):
    """All-port breadth-first flood: every node at distance ``L`` receives in step ``L``
    from one neighbour at distance ``L - 1`` (the lowest port of the receiver that
    leads there). Takes the source's eccentricity, optimal for all-port."""
    if topology.num_nodes > _SCHEDULE_LIMIT:
        raise ValueError(f"{topology.label} is too large for an explicit schedule "
                         f"(at most {_SCHEDULE_LIMIT} nodes)")
    dist = bfs_distances(topology, source)
    nodes = topology.nodes()
    steps = []
    for level in range(1, int(dist.max()) + 1):
        receivers = nodes[dist == level]
        sender = np.full(receivers.size, -1, dtype=np.int64)
        for p in reversed(range(topology.degree)):
            nb = topology.neighbor_array(receivers, p)
            closer = dist[topology.index_array(nb)] == level - 1
            sender = np.where(closer, nb, sender)
        steps.append([(int(u), int(v)) for u, v in zip(sender, receivers)])
    return steps


def greedy_schedule(topology, source):
    """A one-port schedule for any topology: in each step every informed node, in
    address order, sends to its first uninformed neighbour (port order) that nobody
    else targets this step. Valid, not optimal."""
    if topology.num_nodes > _SCHEDULE_LIMIT:
        raise ValueError(f"{topology.label} is too large for an explicit schedule "
                         f"(at most {_SCHEDULE_LIMIT} nodes)")
    informed = {source}
    steps = []
    while len(informed) < topology.num_nodes:
        step, targeted = [], set()
        for u in sorted(informed):
            for v in topology.neighbors(u):
                if v not in informed and v not in targeted:
                    step.append((u, v))
                    targeted.add(v)
                    break
        if not step:
            raise ValueError(f"{topology.label} is not connected")
        informed |= targeted
        steps.append(step)
    return steps


# -- registry and dispatch -------------------------------------------------------------

@dataclass(frozen=True)
class BroadcastAlgorithm:
    """A broadcast schedule construction.

    Attributes
    ----------
    name : str
    model : str
        The port model it is built for; a one-port schedule is valid all-port too.
    build : callable
        ``build(topology, source)`` returns the steps.
    paper_steps : callable or None
        ``paper_steps(topology)``: the step count the paper claims.
    reference : str
        Where the construction and its count come from.
    applies : callable
        ``applies(topology)``: whether it can be used on this topology.
    """

    name: str
    model: str
    build: Callable
    paper_steps: Optional[Callable] = None
    reference: str = ""
    applies: Callable = field(default=lambda topology: True)


@dataclass
class Schedule:
    """A broadcast schedule and where it comes from (:func:`broadcast_schedule`).

    ``paper_steps`` and ``paper_reference`` give the paper's step count for the
    network (of its first paper construction), also when another construction (e.g.
    the all-port ``flood``) was chosen."""

    source: int
    steps: list
    model: str
    algorithm: str
    paper_steps: Optional[int]
    reference: str
    paper_reference: Optional[str] = None

    @property
    def num_steps(self):
        return len(self.steps)

    def as_dict(self):
        return {"source": self.source, "model": self.model, "algorithm": self.algorithm,
                "steps": [[[u, v] for u, v in step] for step in self.steps],
                "num_steps": self.num_steps, "paper_steps": self.paper_steps,
                "reference": self.reference, "paper_reference": self.paper_reference}


GENERIC = [
    BroadcastAlgorithm("flood", ALL_PORT, flood_schedule, None,
                       "breadth-first tree (all-port optimal: the source eccentricity)"),
    BroadcastAlgorithm("greedy", ONE_PORT, greedy_schedule, None,
                       "greedy one-port schedule (no paper count)"),
]

#: topology class -> list of :class:`BroadcastAlgorithm`, preferred first, added by
#: :func:`register_broadcast` before the family's own
#: (:meth:`~cubefab.topology.base.Topology.broadcast_algorithms`).
BROADCAST_ALGORITHMS = {}


def register_broadcast(cls, algorithm):
    """Append ``algorithm`` (a :class:`BroadcastAlgorithm`) to the list of ``cls``."""
    BROADCAST_ALGORITHMS.setdefault(cls, []).append(algorithm)


def algorithms_for(topology):
    """The algorithms that apply to ``topology``: its classes' first, then generic."""
    found = []
    for cls in type(topology).__mro__:
        found += BROADCAST_ALGORITHMS.get(cls, [])
    found += topology.broadcast_algorithms()
    return [a for a in found if a.applies(topology)] + GENERIC


def broadcast_schedule(topology, source, model=ONE_PORT, algorithm=None):
    """A broadcast schedule from ``source`` for ``model``.

    Parameters
    ----------
    model : {"one-port", "all-port"}
    algorithm : str, optional
        A name from :func:`algorithms_for`; by default the first that fits the
        model (for all-port: the optimal ``flood``).

    Returns
    -------
    Schedule
    """
    source = topology.check_node(source, "source")
    check_model(model)
    options = algorithms_for(topology)
    if algorithm is None:
        chosen = next(a for a in options if a.model == model)
    else:
        named = [a for a in options if a.name == algorithm]
        if not named:
            raise ValueError(f"broadcast algorithm must be one of "
                             f"{', '.join(a.name for a in options)} for {topology.label}, "
                             f"not {algorithm!r}")
        chosen = named[0]
        if model == ONE_PORT and chosen.model != ONE_PORT:
            raise ValueError(f"broadcast algorithm {chosen.name!r} is built for the "
                             f"{chosen.model} model, not one-port")
    if topology.num_nodes > _SCHEDULE_LIMIT:
        raise ValueError(f"{topology.label} has {topology.num_nodes} nodes; explicit "
                         f"schedules are built for up to {_SCHEDULE_LIMIT}")
    steps = chosen.build(topology, source)
    # the paper's count for this network, whichever construction was chosen
    paper_algorithm = next((a for a in options if a.paper_steps), None)
    paper = paper_algorithm.paper_steps(topology) if paper_algorithm else None
    return Schedule(source, [[(int(u), int(v)) for u, v in step] for step in steps],
                    model, chosen.name, paper, chosen.reference,
                    paper_algorithm.reference if paper_algorithm else None)
