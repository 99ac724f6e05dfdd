"""Formal proofs (yosys ``write_smt2`` + z3) that route and replication units equal the
reference model.

:func:`prove_minimal_route`: a minimal route unit always moves a packet one hop closer.
The unit is built with address straps (``here`` an input), so one proof covers
every node. yosys (``write_smt2``) turns its Verilog into an SMT-LIB model; z3
(pip ``z3-solver``) then searches for nodes ``here`` and ``dest`` where

* ``port == degree`` and ``here != dest`` (or the reverse), or
* ``here != dest`` and the neighbour through ``port`` is not exactly one hop closer
  to ``dest`` than ``here`` is,

and the proof holds when there are none (unsat). Distances, neighbours and the node
set are not re-derived: they are tables computed from the reference model (BFS
distances of :func:`~cubefab.topology.properties.bfs_distances`, ``neighbor_array``,
``is_node``), turned into SMT lookup trees. To keep the tables small they are indexed
modulo the network's *translations*: address bits ``b`` for which ``u -> u ^ 2**b``
is an automorphism that keeps port numbers (the field bits of a metacube, the cube
bits of a DLH, every bit of a hypercube), found and checked on the reference model
for every node and port, so that ``d(u, t) = d(u & R, t ^ (u & T))``.

The other provers follow the same pattern: :func:`prove_adaptive_route` (adaptive
route units), :func:`prove_waypoint_route` (waypoint route units),
:func:`prove_broadcast_children` (broadcast children units) and, for units of one node
or with address straps, :func:`prove_multicast_children` and :func:`prove_one_port_sends`
(multicast children and one-port send order units,
:mod:`cubefab.build._formal_replication`). The plumbing
they share is in :mod:`cubefab.build._formal_smt`.
"""

import time

import numpy as np

from ..hdl.route import route_unit
from ..hdl.route.adaptive import adaptive_route_unit
from ..hdl.route.broadcast import broadcast_children_unit
from ..topology import deadlock as _deadlock
from ..topology.broadcast_tree import back_ports, parent_ports
from ..topology.properties import bfs_distances
from ._formal_replication import prove_multicast_children, prove_one_port_sends
from ._formal_smt import (ProofResult, route_unit_smt2, _bits_of, _checked_unit, _circuit,
                          _compose, _gather, _lookup, _node_term, _smt_of, _solver,
                          _verdict)


__all__ = ["ProofResult", "translation_mask", "route_unit_smt2", "prove_minimal_route",
           "prove_adaptive_route", "prove_broadcast_children", "prove_waypoint_route",
           "prove_multicast_children", "prove_one_port_sends"]


def translation_mask(topology):
    """Mask of the address bits ``b`` whose flip ``u -> u ^ 2**b`` maps nodes to nodes
    and every link ``(u, port p)`` to the link ``(u ^ 2**b, port p)``, checked on
    every node of the reference model."""
    nodes = topology.nodes()
    node_set = np.zeros(1 << topology.address_bits, dtype=bool)
    node_set[nodes] = True
    neighbors = [topology.neighbor_array(nodes, p) for p in range(topology.degree)]
    mask = 0
    for b in range(topology.address_bits):
        moved = nodes ^ (1 << b)
        if not node_set[moved].all():
            continue
        if all(np.array_equal(topology.neighbor_array(moved, p), neighbors[p] ^ (1 << b))
               for p in range(topology.degree)):
            mask |= 1 << b
    return mask


def _reference_terms(z3, topology):
    """SMT terms of the reference model: ``(is_node(u), distance(u, t), neighbour(u, p),
    translation bits, table entries)``, from lookup tables indexed modulo the
    translations (see the module docstring)."""
    n = topology.address_bits
    degree = topology.degree
    pw = topology.port_width
    full = (1 << n) - 1
    T = translation_mask(topology)
    R = full & ~T
    t_bits, r_bits = _bits_of(T), _bits_of(R)

    # reference tables: distances from each translation class representative
    reps = sorted({int(a) & R for a in topology.nodes()})
    rep_index = {r: i for i, r in enumerate(reps)}

    diameter = 0
    dist_rows = {}
    for r in reps:
        row = bfs_distances(topology, r)
        dist_rows[r] = row
        diameter = max(diameter, int(row.max()))
    dw = max(1, (diameter + 1).bit_length())
    # key of d(u, t): (u & R) bits, (t & R) bits, ((u ^ t) & T) bits, LSB first
    key_positions = len(r_bits) * 2 + len(t_bits)
    dist_table = [0] * (1 << key_positions)
    nodes_set = set(int(a) for a in topology.nodes())
    for key in range(1 << key_positions):
        u_r = _compose(r_bits, key & ((1 << len(r_bits)) - 1))
        t_r = _compose(r_bits, (key >> len(r_bits)) & ((1 << len(r_bits)) - 1))
        x = _compose(t_bits, key >> (2 * len(r_bits)))
        target = t_r | x
        if u_r in rep_index and target in nodes_set:
            dist_table[key] = int(dist_rows[u_r][topology.index(target)])
    # neighbour of a representative through a port; is_node of a representative
    nbr_positions = len(r_bits) + pw
    nbr_table = [0] * (1 << nbr_positions)
    for key in range(1 << nbr_positions):
        u_r = _compose(r_bits, key & ((1 << len(r_bits)) - 1))
        p = key >> len(r_bits)
        if u_r in rep_index and p < degree:
            nbr_table[key] = int(topology.neighbor_array(np.array([u_r]), p)[0])
    is_node = _node_term(z3, topology, T)

    def distance(u, t):
        key = _gather(z3, u, r_bits) + _gather(z3, t, r_bits) + _gather(z3, u ^ t, t_bits)
        return _lookup(z3, key, dist_table, dw)

    def neighbour(u, p):
        base = _lookup(z3, _gather(z3, u, r_bits) + _gather(z3, p, range(pw)), nbr_table, n)
        return base ^ (u & T)

    return is_node, distance, neighbour, t_bits, len(dist_table) + len(nbr_table)


def prove_minimal_route(topology, algorithm=None, unit=None, workdir=None, timeout_s=600):
    """Prove that ``unit`` (default: :func:`~cubefab.hdl.route.route_unit` of
    ``topology`` with address straps) routes every packet one hop closer.

    Parameters
    ----------
    topology : Topology
        Small enough to enumerate (the reference tables are built from BFS).
    algorithm : str, optional
        The unit's algorithm; a non-minimal one yields a counterexample.
    unit : RouteUnit, optional
        A unit built with ``node=None`` (its ``here`` input is quantified over).
    workdir : str, optional
        Where yosys runs; a temporary directory when None.

    Returns
    -------
    ProofResult
    """
    import z3

    start = time.monotonic()
    unit = _checked_unit(topology, unit, lambda: route_unit(topology, None, algorithm),
                         "prove_minimal_route")
    smt = _smt_of(unit, workdir)

    n = topology.address_bits
    degree = topology.degree
    pw = topology.port_width
    is_node, distance, neighbour, t_bits, entries = _reference_terms(z3, topology)

    here, dest, src = z3.BitVec("here", n), z3.BitVec("dest", n), z3.BitVec("src", n)
    port = z3.BitVec("port", pw)
    decls = {"here": here, "dest": dest, "port": port}
    glue = ["(declare-fun s () |top_s|)", "(assert (= here (|top_n here| s)))",
            "(assert (= dest (|top_n dest| s)))", "(assert (= port (|top_n port| s)))"]
    if unit.needs_src:
        decls["src"] = src
        glue.append("(assert (= src (|top_n src| s)))")
    circuit = z3.parse_smt2_string(smt + "\n".join(glue), decls=decls)

    step = neighbour(here, port)
    closer = z3.And(z3.ULT(port, degree), distance(step, dest) + 1 == distance(here, dest))
    good = z3.And((port == degree) == (here == dest), z3.Implies(here != dest, closer))
    solver = _solver(z3, timeout_s)
    solver.add(circuit)
    solver.add(is_node(here), is_node(dest), z3.Not(good))
    if unit.needs_src:
        solver.add(is_node(src))
    outcome = solver.check()
    result = ProofResult(topology=topology.label, algorithm=unit.algorithm,
                         proved=outcome == z3.unsat, translation_bits=len(t_bits),
                         table_entries=entries)
    if outcome == z3.unknown:
        raise RuntimeError(f"z3 gave no answer for {topology.label}: {solver.reason_unknown()}")
    if outcome == z3.sat:
        model = solver.model()
        value = {name: model.eval(var, model_completion=True).as_long()
                 for name, var in decls.items()}
        result.counterexample = dict(value)
        if value["here"] != value["dest"] and topology.is_node(value["here"]):
            result.counterexample["reference_distance"] = topology.distance(value["here"],
                                                                            value["dest"])
    result.seconds = time.monotonic() - start
    return result


def prove_adaptive_route(topology, algorithm=None, unit=None, workdir=None, timeout_s=600):
    """Prove that an adaptive route unit (default:
    :func:`~cubefab.hdl.route.adaptive.adaptive_route_unit` with address straps)
    offers exactly the minimal ports (bit ``p`` of ``offered`` set iff the neighbour
    through ``p`` is one hop closer to ``dest``) and an escape port that is one of
    them (``degree`` exactly when ``here == dest``), for every pair of nodes.

    For the families whose adaptive ports are the minimal ports (not the Mcube); the
    parameters and the result are as for :func:`prove_minimal_route`.
    """
    import z3

    if not topology.adaptive_ports_are_minimal:
        raise ValueError(f"{topology.title}'s adaptive ports are not its minimal ports (its "
                         f"escape is not minimal); prove its units by simulation")
    start = time.monotonic()
    unit = _checked_unit(topology, unit, lambda: adaptive_route_unit(topology, None, algorithm),
                         "prove_adaptive_route")
    smt = _smt_of(unit, workdir)
    n, degree, pw = topology.address_bits, topology.degree, topology.port_width
    is_node, distance, neighbour, t_bits, entries = _reference_terms(z3, topology)
    circuit, decls, value = _circuit(z3, smt, {"here": n, "dest": n, "offered": degree,
                                                "escape": pw})
    here, dest, offered, escape = (value[name] for name in decls)
    d_here = distance(here, dest)
    minimal = [z3.And(here != dest,
                      distance(neighbour(here, z3.BitVecVal(p, pw)), dest) + 1 == d_here)
               for p in range(degree)]
    exact = z3.And(*[(z3.Extract(p, p, offered) == 1) == minimal[p] for p in range(degree)])
    wide = max(degree, pw)
    escape_offered = z3.Extract(0, 0, z3.LShR(z3.ZeroExt(wide - degree, offered),
                                              z3.ZeroExt(wide - pw, escape))) == 1
    good = z3.And(exact, (escape == degree) == (here == dest),
                  z3.Implies(here != dest, z3.And(z3.ULT(escape, degree), escape_offered)))
    solver = _solver(z3, timeout_s)
    solver.add(circuit)
    solver.add(is_node(here), is_node(dest), z3.Not(good))
    return _verdict(z3, solver, topology, unit, decls, len(t_bits), entries, start)


def _parent_term(z3, topology):
    """SMT term ``parent(w, s)``: the tree routing's port of ``w`` towards ``s``, from
    the model's trees of the representative sources ``s & ~T`` (``T``: the routing's
    translations, :func:`cubefab.topology.deadlock.translation_mask`), keyed by the
    bits ``s & ~T``, ``w & ~T`` and ``(w ^ s) & T``."""
    n = topology.address_bits
    T = _deadlock.translation_mask(topology)
    R = ((1 << n) - 1) & ~T
    t_bits, r_bits = _bits_of(T), _bits_of(R)
    nodes = topology.nodes()
    node_set = set(nodes.tolist())

    r, t = len(r_bits), len(t_bits)
    table = [0] * (1 << (2 * r + t))
    reps = sorted({a & R for a in node_set})
    for rep in reps:
        ports = parent_ports(topology, rep)
        for w in nodes.tolist():
            key = 0
            for i, b in enumerate(r_bits):
                key |= ((rep >> b) & 1) << i
                key |= ((w >> b) & 1) << (r + i)
            for i, b in enumerate(t_bits):
                key |= ((w >> b) & 1) << (2 * r + i)
            table[key] = int(ports[topology.index(w)])

    def parent(w, src):
        key = (_gather(z3, src, r_bits) + _gather(z3, w, r_bits)
               + _gather(z3, w ^ src, t_bits))
        return _lookup(z3, key, table, topology.port_width)

    return parent, len(table)


def prove_broadcast_children(topology, unit=None, workdir=None, timeout_s=600):
    """Prove that a broadcast children unit (default:
    :func:`~cubefab.hdl.route.broadcast.broadcast_children_unit` with address straps)
    equals the model's broadcast trees: for every pair of nodes ``here`` and
    ``source`` and every port ``p``, bit ``p`` of ``children`` is set exactly when the
    neighbour ``w`` through ``p`` has its tree parent through the inverse port of ``p``
    (the model's :func:`~cubefab.topology.broadcast_tree.parent_ports`), and every child
    is one hop farther from ``source`` than ``here`` (BFS distances), which makes the
    tree's depth the source's eccentricity.

    The parameters and the result are as for :func:`prove_minimal_route`; the
    counterexample holds ``here``, ``source`` and ``children``.
    """
    import z3

    start = time.monotonic()
    unit = _checked_unit(topology, unit, lambda: broadcast_children_unit(topology, None),
                         "prove_broadcast_children")
    smt = _smt_of(unit, workdir)
    n, degree, pw = topology.address_bits, topology.degree, topology.port_width
    is_node, distance, neighbour, t_bits, entries = _reference_terms(z3, topology)
    parent, parent_entries = _parent_term(z3, topology)
    circuit, decls, value = _circuit(z3, smt, {"here": n, "source": n, "children": degree})
    here, source, children = (value[name] for name in decls)
    back = back_ports(topology)
    checks = []
    for p in range(degree):
        w = neighbour(here, z3.BitVecVal(p, pw))
        bit = z3.Extract(p, p, children) == 1
        checks.append(bit == (parent(w, source) == back[p]))
        checks.append(z3.Implies(bit, distance(w, source) == distance(here, source) + 1))
    solver = _solver(z3, timeout_s)
    solver.add(circuit)
    solver.add(is_node(here), is_node(source), z3.Not(z3.And(*checks)))
    return _verdict(z3, solver, topology, unit, decls, len(t_bits), entries + parent_entries,
                    start)


def _next_port_term(z3, table):
    """SMT term ``next_port(u, t)`` of a :class:`~cubefab.topology.fault_routing.RouteTable`
    (its first hop's port, ``degree`` when ``u == t``), keyed like the distances by
    ``u & R``, ``t & R`` and ``(u ^ t) & T`` (``T`` the translations that keep the
    routing: checked against every pair of the table, ValueError if one differs)."""
    topology = table.topology
    n, degree = topology.address_bits, topology.degree
    T = _deadlock.translation_mask(topology)
    R = ((1 << n) - 1) & ~T
    t_bits, r_bits = _bits_of(T), _bits_of(R)
    nodes = table.nodes.astype(np.int64)
    first = np.where(table.length > 0, table.hop_port[:, :, 0] if table.hop_port.shape[2]
                     else degree, degree).astype(np.int64)

    def key_of(values, positions):
        key = np.zeros_like(values)
        for i, b in enumerate(positions):
            key |= ((values >> b) & 1) << i
        return key

    r, t = len(r_bits), len(t_bits)
    u, v = nodes[:, None], nodes[None, :]
    keys = (key_of(np.broadcast_to(u, first.shape), r_bits)
            | key_of(np.broadcast_to(v, first.shape), r_bits) << r
            | key_of(u ^ v, t_bits) << (2 * r))
    entries = np.full(1 << (2 * r + t), -1, dtype=np.int64)
    entries[keys.ravel()] = first.ravel()
    if not np.array_equal(entries[keys], first):
        raise ValueError(f"the {table.algorithm} routing of {topology.label} is not kept by "
                         f"its translations")
    entries[entries < 0] = 0

    def next_port(here, target):
        key = (_gather(z3, here, r_bits) + _gather(z3, target, r_bits)
               + _gather(z3, here ^ target, t_bits))
        return _lookup(z3, key, entries.tolist(), topology.port_width)

    return next_port, len(entries)


def prove_waypoint_route(topology, waypoints=1, algorithm=None, unit=None, workdir=None,
                         timeout_s=600):
    """Prove that a waypoint route unit (default:
    :class:`~cubefab.hdl.route.WaypointRoute` with address straps) equals
    :func:`~cubefab.topology.fault_routing.waypoint_step` on every input: for every node
    ``here`` and ``dest``, every header (``count <= W`` waypoints, each a node, and a
    ``phase <= count``), ``phase_out`` is the model's phase after passing the
    waypoints this node is, ``target`` is waypoint ``phase_out`` (``dest`` once
    ``phase_out == count``), ``advanced`` says whether the phase moved, and ``port`` is
    the reference routing's port from ``here`` toward ``target``
    (:class:`~cubefab.topology.fault_routing.RouteTable`; ``degree`` at the target).

    The parameters and the result are as for :func:`prove_minimal_route`, plus
    ``waypoints`` (``W``); the counterexample holds the unit's inputs and outputs.
    """
    import z3
    from ..hdl.route.waypoint import WaypointRoute
    from ..topology.fault_routing import route_table

    start = time.monotonic()
    unit = _checked_unit(topology, unit,
                         lambda: WaypointRoute(topology, waypoints, None, algorithm),
                         "prove_waypoint_route")
    W = unit.waypoints
    smt = _smt_of(unit, workdir)
    n, degree, pw = topology.address_bits, topology.degree, topology.port_width
    is_node, _, _, t_bits, entries = _reference_terms(z3, topology)
    next_port, port_entries = _next_port_term(z3, route_table(topology, algorithm))
    widths = {"here": n, "dest": n, "waypoint": n * W, "count": len(unit.count),
              "phase": len(unit.phase), "phase_out": len(unit.phase_out), "target": n,
              "advanced": 1, "port": pw}
    circuit, decls, value = _circuit(z3, smt, widths)
    here, dest, waypoint = value["here"], value["dest"], value["waypoint"]
    count, phase, phase_out = value["count"], value["phase"], value["phase_out"]
    target, advanced, port = value["target"], value["advanced"], value["port"]
    stops = [z3.Extract(n * (i + 1) - 1, n * i, waypoint) for i in range(W)]

    def stop(i):   # waypoint i of the header, i a term below count <= W
        chosen = stops[0]
        for j in range(1, W):
            chosen = z3.If(i == j, stops[j], chosen)
        return chosen

    # the model (waypoint_step): advance while phase < count and here is that waypoint,
    # at most W times; then the target and the reference port toward it
    p = phase
    for _ in range(W):   # (p < count <= W: p + 1 fits the phase's width)
        p = z3.If(z3.And(z3.ULT(p, count), stop(p) == here), p + 1, p)
    expected_target = z3.If(z3.ULT(p, count), stop(p), dest)
    expected_port = z3.If(here == expected_target, z3.BitVecVal(degree, pw),
                          next_port(here, expected_target))
    good = z3.And(phase_out == p, target == expected_target, port == expected_port,
                  (advanced == 1) == (p != phase))
    header = [z3.Implies(z3.ULT(i, count), is_node(stops[i])) for i in range(W)]
    solver = _solver(z3, timeout_s)
    solver.add(circuit)
    solver.add(is_node(here), is_node(dest), *header, z3.ULE(count, W), z3.ULE(phase, count),
               z3.Not(good))
    result = _verdict(z3, solver, topology, unit, decls, len(t_bits),
                      entries + port_entries, start)
    return result
