"""The plumbing the provers of :mod:`cubefab.build.formal` share (package-private).

A unit's design (Amaranth's own Verilog of it) goes through yosys ``write_smt2``; its ports become z3 terms
(:func:`_circuit`); the reference model's tables become SMT lookup trees
(:func:`_lookup`); a solver that looks for a counterexample is turned into a
:class:`ProofResult` (:func:`_verdict`).
"""

import os
import tempfile
import time
from dataclasses import dataclass, field

from ..hdl.route import RouteUnit
from ..topology.base import Topology
from .pnr import run_tool
from .verilog import design_verilog


__all__ = ["ProofResult", "route_unit_smt2"]

#: Most nodes of a network whose units a prover enumerates.
MAX_PROOF_NODES = 1 << 16


@dataclass
class ProofResult:
    """Outcome of a prover of :mod:`cubefab.build.formal`.

    ``proved`` is True when no counterexample exists; otherwise
    ``counterexample`` holds the unit's inputs and outputs there (for
    :func:`~cubefab.build.formal.prove_minimal_route`: ``here``, ``dest`` (and
    ``src``), the unit's ``port`` and the reference distance).
    """
    topology: str
    algorithm: str
    proved: bool
    counterexample: dict = field(default_factory=dict)
    seconds: float = 0.0
    translation_bits: int = 0
    table_entries: int = 0


def route_unit_smt2(unit, workdir):
    """SMT-LIB text (yosys ``write_smt2``) of ``unit``'s design (a route unit, or any
    combinational component: adaptive route, broadcast, multicast, one-port units):
    Amaranth's Verilog of it (:func:`~cubefab.build.verilog.design_verilog`), written and
    run in ``workdir`` (``top.v``, ``top.smt2``, ``formal.log``)."""
    os.makedirs(workdir, exist_ok=True)
    text = design_verilog(unit, "top", omit=("request",) if isinstance(unit, RouteUnit)
                          else ())
    with open(os.path.join(workdir, "top.v"), "w") as f:
        f.write(text)
    # prep turns case statements into ROM cells (proc_rom); memory_map makes them logic,
    # as write_smt2 does not model ROM contents as the simulators do
    script = ("read_verilog top.v; prep -top top; flatten; memory_map; opt_clean; "
              "write_smt2 -wires top.smt2")
    run_tool("yosys", ["-q", "-l", "formal.log", "-p", script], workdir, "formal.log",
             outputs=["top.smt2"])
    with open(os.path.join(workdir, "top.smt2")) as f:
        return f.read()


def _smt_of(unit, workdir):
    if workdir is not None:
        return route_unit_smt2(unit, workdir)
    with tempfile.TemporaryDirectory(prefix="cubefab-formal-") as tmp:
        return route_unit_smt2(unit, tmp)


def _checked_unit(topology, unit, make, what, node=None):
    """Check the topology's size and ``unit`` (``make()`` when None): built for this
    topology with address straps (``node`` None) or for the constant address ``node``."""
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    if topology.num_nodes > MAX_PROOF_NODES:
        raise ValueError(f"{what} enumerates the network; {topology.label} has "
                         f"{topology.num_nodes} nodes, more than {MAX_PROOF_NODES}")
    if node is not None:
        node = topology.check_node(node, "node")
    if unit is None:
        unit = make()
    if unit.topology != topology or unit.node != node:
        if node is None:
            raise ValueError("Unit must be built for this topology with node=None (straps)")
        raise ValueError(f"Unit must be built for this topology and node {node}, not "
                         f"{unit.topology.label} node {unit.node}")
    return unit


def _circuit(z3, smt, widths):
    """The unit of ``smt`` in one state, its ports named by ``widths`` (name -> bits):
    ``(assertions, decls, values)``; ``decls`` are the z3 variables of the ports (a
    1-bit port is a Bool, as ``write_smt2`` models it), ``values`` the same as bit
    vectors."""
    decls = {name: z3.Bool(name) if width == 1 else z3.BitVec(name, width)
             for name, width in widths.items()}
    glue = ["(declare-fun s () |top_s|)"] + [f"(assert (= {name} (|top_n {name}| s)))"
                                             for name in decls]
    assertions = z3.parse_smt2_string(smt + "\n".join(glue), decls=decls)
    values = {name: _as_bits(z3, var) for name, var in decls.items()}
    return assertions, decls, values


def _as_bits(z3, var):
    """A Bool as a 1-bit vector; a bit vector as it is."""
    return z3.If(var, z3.BitVecVal(1, 1), z3.BitVecVal(0, 1)) if z3.is_bool(var) else var


def _verdict(z3, solver, topology, unit, decls, translation_bits, entries, start,
             algorithm=None):
    """Run ``solver`` (its assertions: a counterexample exists) into a ProofResult whose
    counterexample holds the values of ``decls``; ``algorithm`` defaults to the
    unit's."""
    outcome = solver.check()
    if outcome == z3.unknown:
        raise RuntimeError(f"z3 gave no answer for {topology.label}: {solver.reason_unknown()}")
    result = ProofResult(topology=topology.label,
                         algorithm=unit.algorithm if algorithm is None else algorithm,
                         proved=outcome == z3.unsat, translation_bits=translation_bits,
                         table_entries=entries)
    if outcome == z3.sat:
        model = solver.model()
        result.counterexample = {name: _as_int(z3, model.eval(var, model_completion=True))
                                 for name, var in decls.items()}
    result.seconds = time.monotonic() - start
    return result


def _as_int(z3, value):
    """A model's value of a bit vector or (a 1-bit wire) a Bool, as an int."""
    return int(z3.is_true(value)) if z3.is_bool(value) else value.as_long()


def _solver(z3, timeout_s):
    solver = z3.Solver()
    solver.set("timeout", int(timeout_s * 1000))
    return solver


def _bits_of(mask):
    return [b for b in range(mask.bit_length()) if mask >> b & 1]


def _compose(positions, values):
    """The word whose bits at ``positions`` are the bits of ``values``, LSB first."""
    word = 0
    for i, b in enumerate(positions):
        word |= ((values >> i) & 1) << b
    return word


def _lookup(z3, key_bits, table, width):
    """SMT term ``table[key]`` for ``key`` given by 1-bit terms (LSB first): a tree
    of if-then-else on the key bits, sharing equal sub-tables."""
    memo = {}

    def build(level, start):
        size = 1 << level
        entries = tuple(table[start:start + size])
        if entries in memo:
            return memo[entries]
        if len(set(entries)) == 1:
            term = z3.BitVecVal(entries[0], width)
        else:
            half = size >> 1
            low, high = build(level - 1, start), build(level - 1, start + half)
            term = z3.If(key_bits[level - 1] == 1, high, low)
        memo[entries] = term
        return term

    return build(len(key_bits), 0)


def _gather(z3, value, bits):
    """1-bit terms of ``value`` at the given bit positions."""
    return [z3.Extract(b, b, value) for b in bits]


def _node_term(z3, topology, translations=0):
    """SMT predicate ``is_node(u)`` from the model's node set, keyed by the address bits
    outside ``translations`` (a mask of bits whose flips map nodes to nodes)."""
    n = topology.address_bits
    r_bits = _bits_of(((1 << n) - 1) & ~translations)
    classes = {int(a) & ~translations for a in topology.nodes()}
    table = [int(_compose(r_bits, i) in classes) for i in range(1 << len(r_bits))]

    def is_node(u):
        return _lookup(z3, _gather(z3, u, r_bits), table, 1) == 1

    return is_node
