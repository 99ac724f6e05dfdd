"""Formal proofs of the replication units of one node (package-private; the public names
are :func:`cubefab.build.formal.prove_multicast_children` and
:func:`cubefab.build.formal.prove_one_port_sends`).

The units have a constant node address, or read it from their ``here`` input (address
straps: one unit for every node), and answer for every ``source``; the proofs quantify
over every source that is a node (and every ``here`` that is one) and every other input
(member set, send index), and compare the unit's outputs with terms built from the
reference model's data (:mod:`cubefab.topology.broadcast_tree`): per source (and node),
lookup trees keyed by the address bits of the source (then of ``here``). The unit's own
tables are never read.
"""

import time

import numpy as np

from ..hdl.route.multicast import SUBCUBE, VECTOR
from ..hdl.route.multicast import MEMBER_MODES, MulticastChildren
from ..hdl.route.one_port import OnePortSends
from ..topology.broadcast_tree import (broadcast_tree, one_port_sends, one_port_tree,
                                       tree_algorithm)
from ._formal_smt import (_checked_unit, _circuit, _gather, _lookup, _node_term, _smt_of,
                          _solver, _verdict)


__all__ = ["prove_multicast_children", "prove_one_port_sends"]


def _source_tables(topology, make_row, node):
    """Lookup tables keyed by the source address (and, for the strapped unit, ``node``
    None, by ``here`` above it): ``tables[i][source | here << address_bits]`` is
    ``make_row(source, here)[i]`` for each pair of nodes (``here`` is ``node`` when it
    is given), 0 for the other addresses."""
    nodes = topology.nodes().tolist()
    n = topology.address_bits
    heres = nodes if node is None else [node]
    rows = {s | (0 if node is not None else h << n): make_row(s, h)
            for h in heres for s in nodes}
    size = 1 << (n if node is not None else 2 * n)
    tables = [[0] * size for _ in next(iter(rows.values()))]
    for key, row in rows.items():
        for table, entry in zip(tables, row):
            table[key] = entry
    return tables


def _node_key(z3, topology, value):
    """The lookup key of a unit's ``source`` (and ``here``, when strapped) and the
    assumption that they are nodes."""
    n, is_node = topology.address_bits, _node_term(z3, topology)
    key, nodes = _gather(z3, value["source"], range(n)), [is_node(value["source"])]
    if "here" in value:
        key += _gather(z3, value["here"], range(n))
        nodes.append(is_node(value["here"]))
    return key, nodes


def _as_word(bits):
    """A dense bool vector as an int (bit ``i`` = entry ``i``)."""
    return int.from_bytes(np.packbits(bits, bitorder="little").tobytes(), "little")


def _concat_bits(z3, bits):
    """One bit vector of the 1-bit terms ``bits`` (entry ``i`` at bit ``i``)."""
    return bits[0] if len(bits) == 1 else z3.Concat(*reversed(bits))


def prove_multicast_children(topology, node, members=SUBCUBE, unit=None, workdir=None,
                             timeout_s=600):
    """Prove that a multicast children unit (default:
    :class:`~cubefab.hdl.route.multicast.MulticastChildren` of ``node``) equals the
    model's multicast trees: for every node ``source`` and every member set (every
    ``value`` and ``mask`` in ``"subcube"`` mode, every ``member_vector`` in
    ``"vector"`` mode), bit ``p`` of ``children`` is set exactly when the neighbour
    ``w`` through ``p`` is a child of ``node`` in ``broadcast_tree(source)`` and the
    subtree of ``w`` holds a member other than ``source``, i.e. ``children ==
    multicast_tree(topology, source, members).children[node]``. With ``node`` None the
    unit is the strapped one, and the proof holds for every node ``here`` as well (in
    ``"vector"`` mode with ``is_member`` the member bit of ``here``).

    The reference terms come from the model: per source and port, the subtree of the
    child as a constant node vector
    (:meth:`~cubefab.topology.broadcast_tree.BroadcastTree.subtrees`, the source
    removed; zero when the neighbour is not a child), looked up by the source's
    address; in ``"subcube"`` mode the member vector is the model's
    :func:`~cubefab.topology.broadcast_tree.subcube_members` written as one
    comparator ``x & mask == value & mask`` per node ``x``.

    Parameters
    ----------
    topology : Topology
        At most :attr:`MulticastChildren.MAX_NODES` nodes.
    node : int or None
        The unit's node address; None for the unit with address straps.
    members : {"subcube", "vector"}
        How the unit receives the member set.
    unit : MulticastChildren, optional
        A unit of ``topology``, ``node`` and ``members``.
    workdir : str, optional
        Where yosys runs; a temporary directory when None.
    timeout_s : float
        z3's time limit (RuntimeError when it gives no answer).

    Returns
    -------
    ProofResult
        ``algorithm`` is the tree routing; the counterexample holds ``source`` (and
        ``here``), the member set (``value`` and ``mask``, or ``member_vector``) and
        ``children`` (and ``is_member``).
    """
    import z3

    start = time.monotonic()
    if members not in MEMBER_MODES:
        raise ValueError(f"Multicast members must be one of {', '.join(MEMBER_MODES)}, "
                         f"not {members!r}")
    unit = _checked_unit(topology, unit, lambda: MulticastChildren(topology, node, members),
                         "prove_multicast_children", node=node)
    if unit.members != members:
        raise ValueError(f"Unit must take its members as {members!r}, not {unit.members!r}")
    smt = _smt_of(unit, workdir)
    tables = _subtree_tables(topology, unit.node)
    circuit, decls, value = _circuit(z3, smt, _multicast_widths(topology, unit.node, members))
    are_nodes, good = _multicast_goals(z3, topology, value, members, tables)
    solver = _solver(z3, timeout_s)
    solver.add(circuit)
    solver.add(*are_nodes, z3.Not(z3.And(*good)))
    return _verdict(z3, solver, topology, unit, decls, 0, len(tables) * len(tables[0]), start,
                    algorithm=tree_algorithm(topology))


def _subtree_tables(topology, node):
    """The reference of :func:`prove_multicast_children`: per port ``p``, the table by
    source (:func:`_source_tables`, for the unit's ``node``, None: every node) of the
    subtree of the neighbour through ``p`` in the source's broadcast tree, as a node
    vector without the source (:func:`_as_word`; 0 where the neighbour is no child)."""
    degree = topology.degree

    def subtree_words(source, here):
        tree = broadcast_tree(topology, source)
        inside = tree.subtrees()
        inside[:, topology.index(source)] = False       # the source is never a member
        kids = int(tree.children[topology.index(here)])
        return [_as_word(inside[topology.index(topology.neighbor(here, p))])
                if kids >> p & 1 else 0 for p in range(degree)]

    return _source_tables(topology, subtree_words, node)


def _multicast_widths(topology, node, members):
    """The ports of a multicast children unit and their widths, in the order of
    :func:`_circuit`: ``source`` (and ``here`` for the strapped unit, ``node`` None),
    the member set (``value`` and ``mask``, or ``member_vector``), ``children`` (and
    ``is_member`` for a strapped unit in ``"vector"`` mode)."""
    n = topology.address_bits
    widths = {"source": n} if node is not None else {"source": n, "here": n}
    widths.update({"value": n, "mask": n} if members == SUBCUBE
                  else {"member_vector": topology.num_nodes})
    widths["children"] = topology.degree
    if node is None and members == VECTOR:
        widths["is_member"] = 1
    return widths


def _multicast_goals(z3, topology, value, members, tables):
    """``(are_nodes, good)``: the terms that the unit's ``source`` (and ``here``) are
    nodes (:func:`_node_key`), and what the proof asserts: bit ``p`` of ``children`` is
    set exactly when the member vector (the subcube's comparators, or
    ``member_vector``) meets ``tables[p]`` of the source, and ``is_member`` (where the
    unit has it) is the member bit of ``here``."""
    n, nodes = topology.address_bits, topology.nodes().tolist()
    if members == SUBCUBE:
        bits = [z3.If(z3.BitVecVal(x, n) & value["mask"] == value["value"] & value["mask"],
                      z3.BitVecVal(1, 1), z3.BitVecVal(0, 1)) for x in nodes]
        member = _concat_bits(z3, bits)
    else:
        member = value["member_vector"]
    key, are_nodes = _node_key(z3, topology, value)
    zero = z3.BitVecVal(0, len(nodes))
    good = [(z3.Extract(p, p, value["children"]) == 1)
            == (member & _lookup(z3, key, tables[p], len(nodes)) != zero)
            for p in range(topology.degree)]
    if "is_member" in value:
        good += [z3.Implies(value["here"] == x, value["is_member"] == z3.Extract(i, i, member))
                 for i, x in enumerate(nodes)]
    return are_nodes, good


def prove_one_port_sends(topology, node, unit=None, workdir=None, timeout_s=600):
    """Prove that a one-port send order unit (default:
    :class:`~cubefab.hdl.route.one_port.OnePortSends` of ``node``) equals the model's
    one-port schedules: for every node ``source`` and every ``index`` from 0 to the most
    sends of ``node`` over all sources, ``(step, port)`` is send ``index`` of
    :func:`~cubefab.topology.broadcast_tree.one_port_sends` ``(topology, source, node)``
    (``port == degree`` and ``step == 0`` past the last send), and ``children`` has a
    bit for each port of those sends.

    The reference terms are the model's sends as lookup trees keyed by ``index`` and the
    source's address (and ``here``'s; the unit's own tables are not read).

    Parameters
    ----------
    topology : Topology
        At most :attr:`OnePortSends.MAX_NODES` nodes.
    node : int or None
        The unit's node address; None for the unit with address straps.
    unit : OnePortSends, optional
        A unit of ``topology`` and ``node``; its ``index`` must count to the model's
        most sends (ValueError otherwise).
    workdir, timeout_s
        As for :func:`prove_multicast_children`.

    Returns
    -------
    ProofResult
        ``algorithm`` is the schedule's; the counterexample holds ``source`` (and
        ``here``), ``index``, ``port``, ``step`` and ``children``.
    """
    import z3

    start = time.monotonic()
    unit = _checked_unit(topology, unit, lambda: OnePortSends(topology, node),
                         "prove_one_port_sends", node=node)
    n, degree, pw = topology.address_bits, topology.degree, topology.port_width
    nodes = topology.nodes().tolist()
    heres = nodes if unit.node is None else [unit.node]
    # key: the source, and with straps the node above it
    sends = {s | (h << n if unit.node is None else 0): one_port_sends(topology, s, h)
             for h in heres for s in nodes}
    most = max(len(v) for v in sends.values())
    last_step = max((step for v in sends.values() for step, _ in v), default=0)
    iw, sw = len(unit.index), len(unit.step)
    if most >= 1 << iw:
        who = "a node" if unit.node is None else f"node {unit.node}"
        raise ValueError(f"Unit's index has {iw} bits; {who} sends up to {most} copies")
    smt = _smt_of(unit, workdir)
    widths = {"source": n, **({"here": n} if unit.node is None else {}), "index": iw,
              "port": pw, "step": sw, "children": degree}
    circuit, decls, value = _circuit(z3, smt, widths)
    key_bits = n if unit.node is not None else 2 * n
    # key (index bits, source bits, here bits), LSB first
    ports, steps = [degree] * (1 << (iw + key_bits)), [0] * (1 << (iw + key_bits))
    for s, v in sends.items():
        for i, (step, port) in enumerate(v):
            ports[i | s << iw], steps[i | s << iw] = port, step
    (children,) = _source_tables(
        topology, lambda s, h: [sum(1 << p for _, p in sends[s | (h << n if unit.node is None
                                                                  else 0)])],
        unit.node)
    node_key, are_nodes = _node_key(z3, topology, value)
    key = _gather(z3, value["index"], range(iw)) + node_key
    wide = max(sw, last_step.bit_length(), 1)
    good = z3.And(value["port"] == _lookup(z3, key, ports, pw),
                  z3.ZeroExt(wide - sw, value["step"]) == _lookup(z3, key, steps, wide),
                  value["children"] == _lookup(z3, key[iw:], children, degree))
    solver = _solver(z3, timeout_s)
    solver.add(circuit)
    solver.add(*are_nodes, z3.ULE(value["index"], most), z3.Not(good))
    return _verdict(z3, solver, topology, unit, decls, 0,
                    len(ports) + len(steps) + len(children), start,
                    algorithm=one_port_tree(topology, heres[0]).algorithm)
