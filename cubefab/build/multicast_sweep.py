"""Exhaustive check of an address-strapped subcube multicast children unit in Verilator.

:func:`~cubefab.build.formal.prove_multicast_children` proves the strapped unit
(:class:`~cubefab.hdl.route.multicast.MulticastChildren` ``(topology, None,
"subcube")``) with z3, which gives no answer on the largest networks the straps take
(DLH(4,3), 128 nodes). Its inputs are few enough to try them all instead: every source
and ``here`` that are nodes (the unit's outputs are defined there only, as in the proof)
and every ``value`` and ``mask`` of ``address_bits`` bits, ``num_nodes ** 2 * 4 **
address_bits`` cases (2^30 for DLH(4,3)).

:class:`MulticastSweep` compiles the unit's Verilog with Verilator together with a C++
main (``cubefab/sim/cxx/multicast_sweep.cpp``) and a generated header of the model's
data: per (source, here, port) the node vector of the subtree of the child through that
port in :func:`~cubefab.topology.broadcast_tree.broadcast_tree` ``(topology, source)``,
the source removed (zero when the neighbour is not a child; :func:`subtree_vectors`),
as in the proof. The main computes the members of ``(value, mask)`` from the node
addresses (``x & mask == value & mask``) and expects child bit ``p`` exactly when the
subtree through ``p`` holds a member: ``multicast_tree(topology, source,
subcube_members(topology, value, mask)).children[here]``. The unit's own tables are
never read. Builds are cached as :class:`~cubefab.tools.verilator.VerilatorModel`
builds are (a unit given by the caller is keyed by its Verilog).
"""

import hashlib
import resource
import subprocess
import time
from dataclasses import dataclass, field

import numpy as np

from ..hdl.route.multicast import SUBCUBE
from ..hdl.route.multicast import MulticastChildren
from ..tools.verilator import VerilatorError, VerilatorModel
from ..tools.verilator import cxx_array
from ..topology.base import Topology
from ..topology.broadcast_tree import broadcast_tree
from .verilog import verilog_text


__all__ = ["SweepResult", "subtree_vectors", "sweep_header", "MulticastSweep",
           "sweep_multicast_children"]

#: The Verilog top module of a sweep build.
TOP = "multicast_unit"


@dataclass
class SweepResult:
    """Outcome of :func:`sweep_multicast_children`: ``cases`` evaluated (every one when
    ``complete``), ``mismatches`` and the first few (dicts of ``source``, ``here``,
    ``value``, ``mask``, the unit's ``children`` and the model's ``expected``),
    ``seconds`` of sweeping (``cpu_seconds``: the CPU time of its threads together;
    ``build_seconds`` of building) and ``chunks``: per run of the binary, ``(first here
    index, last + 1, seconds)``."""
    topology: str
    cases: int
    mismatches: int
    complete: bool
    first: list = field(default_factory=list)
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    build_seconds: float = 0.0
    threads: int = 1
    chunks: list = field(default_factory=list)

    @property
    def passed(self):
        """Every case was tried and none differs from the model."""
        return self.complete and self.mismatches == 0


def _words(rows, words):
    """Bool rows (dense node order) as ``words`` little-endian uint64 words per row."""
    packed = np.packbits(rows, axis=-1, bitorder="little")
    padded = np.zeros(rows.shape[:-1] + (8 * words,), dtype=np.uint8)
    padded[..., :packed.shape[-1]] = packed
    return padded.view("<u8")


def subtree_vectors(topology):
    """The model's reference data of a sweep: ``vectors[s, h, p]`` is the node vector
    (``ceil(num_nodes / 64)`` uint64 words, bit ``i`` of the whole the node of dense
    index ``i``) of the subtree of the child through port ``p`` of the node of dense
    index ``h`` in the broadcast tree of the node of dense index ``s``, without ``s``
    (the source is never a member); zero when that neighbour is not a child.

    Returns
    -------
    numpy.ndarray
        uint64, shape ``(num_nodes, num_nodes, degree, words)``.
    """
    n, degree = topology.num_nodes, topology.degree
    words = (n + 63) // 64
    nodes = topology.nodes()
    through = np.stack([topology.index_array(topology.neighbor_array(nodes, p))
                        for p in range(degree)], axis=1)          # [h, p]: neighbour index
    vectors = np.zeros((n, n, degree, words), dtype=np.uint64)
    for s in range(n):
        tree = broadcast_tree(topology, int(nodes[s]))
        inside = tree.subtrees()
        inside[:, s] = False
        is_child = (tree.children[:, None] >> np.arange(degree)) & 1 == 1   # [h, p]
        rows = inside[through] & is_child[..., None]
        vectors[s] = _words(rows, words)
    return vectors


def sweep_header(topology):
    """``multicast_sweep.h``: the model's data of ``topology`` for the C++ main (see
    ``cubefab/sim/cxx/multicast_sweep.cpp``)."""
    vectors = subtree_vectors(topology)
    degree, words = vectors.shape[2:]
    hexes = np.char.add(np.char.add("0x", np.char.mod("%016x", vectors.reshape(-1))), "ULL")
    body = hexes.reshape(vectors.shape).tolist()
    return "\n".join([
        f"// Generated by cubefab.build.multicast_sweep for {topology.label}: the unit's "
        f"model and the reference subtrees.",
        "#pragma once",
        "#include <cstdint>",
        f'#include "V{TOP}.h"',
        f"using Unit = V{TOP};",
        f"static const int A = {topology.address_bits};",
        f"static const int N = {topology.num_nodes};",
        f"static const int D = {degree};",
        f"static const int W = {words};",
        cxx_array("NODES", "uint64_t", topology.nodes().tolist()),
        "// SUBTREE[s][h][p]: subtree of the child through port p of node h, tree of s",
        cxx_array("SUBTREE", "uint64_t", body),
    ]) + "\n"


def _checked(topology, unit):
    """``unit`` (None for the package's) after checking that it is the strapped
    subcube unit of ``topology``."""
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")
    if unit is None:
        return None
    if not isinstance(unit, MulticastChildren):
        raise TypeError(f"Unit must be a MulticastChildren, not {unit!r}")
    if unit.topology != topology or unit.node is not None or unit.members != SUBCUBE:
        raise ValueError("Unit must be built for this topology with node=None (straps) "
                         "and members='subcube'")
    return unit


class MulticastSweep(VerilatorModel):
    """The strapped subcube multicast children unit of ``topology`` compiled by
    Verilator with the sweep's main and the model's tables (see the module's
    description).

    Parameters
    ----------
    topology : Topology
        Its strapped unit must be buildable (:meth:`MulticastChildren.check`).
    unit : MulticastChildren, optional
        The unit to check (strapped, ``"subcube"``, of ``topology``); default the
        package's. Its build is cached under a key of its Verilog.
    opt, jobs
        As for :class:`~cubefab.tools.verilator.VerilatorModel`.
    """

    main_files = ("multicast_sweep.cpp",)

    def __init__(self, topology, unit=None, *, opt="-O2", jobs=None):
        unit = _checked(topology, unit)
        MulticastChildren.check(topology, None, SUBCUBE)
        self.topology = topology
        key = {"design": "MulticastSweep", "family": topology.name,
               "params": dict(topology.params)}
        self._verilog = None
        if unit is not None:
            self._verilog = verilog_text(unit, TOP)
            key["verilog"] = hashlib.sha256(self._verilog.encode()).hexdigest()
        super().__init__(lambda: MulticastChildren(topology, None, SUBCUBE)
                         if unit is None else unit, key,
                         name=TOP, opt=opt, jobs=jobs)

    def _sources(self, unit):
        text = self._verilog or verilog_text(unit, TOP)
        return ({TOP + ".v": text}, {"multicast_sweep.h": sweep_header(self.topology)},
                {"inputs": [], "counters": []})

    def _run(self, args, stdin=None, timeout=None):
        """Build if needed, run the binary with ``args``; its standard output."""
        self.build()
        proc = subprocess.run([self.binary, *args], input=stdin, capture_output=True,
                              text=True, timeout=timeout)
        if proc.returncode:
            raise VerilatorError(f"sweep binary failed ({proc.returncode}): "
                                 f"{proc.stderr[-2000:]}")
        return proc.stdout

    def sweep(self, first, last, threads=1, timeout=None):
        """Every source, every ``here`` of dense index ``first`` to ``last - 1``, every
        ``value`` and ``mask``: ``(cases, mismatches, first mismatches)``."""
        out = self._run(["sweep", str(first), str(last), str(threads)], timeout=timeout)
        shown, total = [], None
        for line in out.splitlines():
            fields = line.split()
            if fields[0] == "M":
                shown.append(dict(zip(("source", "here", "value", "mask", "children",
                                       "expected"), map(int, fields[1:]))))
            elif fields[0] == "done":
                total = int(fields[1]), int(fields[2])
        if total is None:
            raise VerilatorError(f"sweep binary printed no total:\n{out[-2000:]}")
        return total[0], total[1], shown

    def query(self, cases, timeout=None):
        """The unit's ``children`` and the C++ reference's for each ``(source, here,
        value, mask)`` of ``cases`` (addresses): a list of ``(children, expected)``."""
        text = "".join(f"{s} {h} {v} {m}\n" for s, h, v, m in cases)
        out = self._run(["query"], stdin=text, timeout=timeout)
        rows = [tuple(map(int, line.split()[5:7])) for line in out.splitlines()
                if line.startswith("Q ")]
        if len(rows) != len(cases):
            raise VerilatorError(f"query answered {len(rows)} of {len(cases)} cases")
        return rows


def _children_cpu():
    """CPU seconds of this process's finished children (user and system)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def sweep_multicast_children(topology, unit=None, *, threads=2, chunk=None, heres=None,
                             progress=None, timeout=None):
    """Check the strapped subcube multicast children unit of ``topology`` (or ``unit``)
    against the model on every input (see the module's description).

    Parameters
    ----------
    topology : Topology
    unit : MulticastChildren, optional
        Strapped, ``"subcube"``; default the package's unit.
    threads : int
        Threads of the sweep (a Verilator model each).
    chunk : int, optional
        ``here`` nodes per run of the binary (default all in one run); each run's
        seconds are in :attr:`SweepResult.chunks`.
    heres : (int, int), optional
        Dense indices ``(first, last + 1)`` of the ``here`` nodes to sweep (default
        all; the result is not ``complete`` otherwise).
    progress : callable, optional
        ``progress(done_heres, all_heres, seconds)`` after each chunk.
    timeout : float, optional
        Seconds each run may take.

    Returns
    -------
    SweepResult
    """
    start = time.monotonic()
    n = topology.num_nodes
    first, last = (0, n) if heres is None else heres
    if not 0 <= first < last <= n:
        raise ValueError(f"Here indices must be a range within [0, {n}], not {heres!r}")
    for name, count in (("Threads", threads), ("Chunk", 1 if chunk is None else chunk)):
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(f"{name} must be a positive integer, not {count!r}")
    model = MulticastSweep(topology, unit)
    model.build()
    built, cpu = time.monotonic(), _children_cpu()
    step = last - first if chunk is None else chunk
    result = SweepResult(topology.label, 0, 0, (first, last) == (0, n), threads=threads)
    for lo in range(first, last, step):
        hi = min(lo + step, last)
        t0 = time.monotonic()
        cases, mismatches, shown = model.sweep(lo, hi, threads, timeout)
        result.chunks.append((lo, hi, time.monotonic() - t0))
        result.cases += cases
        result.mismatches += mismatches
        result.first += shown[:max(0, 10 - len(result.first))]
        if progress:
            progress(hi - first, last - first, time.monotonic() - built)
    result.complete = result.complete and result.cases == n * n << 2 * topology.address_bits
    result.build_seconds = built - start
    result.seconds = time.monotonic() - built
    result.cpu_seconds = _children_cpu() - cpu
    return result
