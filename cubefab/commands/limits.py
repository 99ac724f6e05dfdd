"""What the commands accept: fixed ceilings of the numeric options, and memory
estimates checked before anything is allocated.

A command estimates the memory its work takes from the sizes it was given (the
models below were measured on Amaranth 0.5 and CPython 3.11 and err on the high
side) and refuses, with the estimate and the limit in one ``error:`` line, when
the estimate is over :func:`~cubefab.memory.memory_limit`, the one rule of
:mod:`cubefab.memory` (``CUBEFAB_MEMORY_LIMIT_MB`` sets another limit).
"""

import math

from .. import memory
from ..cli import check_size, input_errors
from ..hdl.options import MAX_DEPTH, MAX_FLIT_WIDTH, MAX_PAYLOAD_WIDTH, MAX_VCS


__all__ = ["MAX_VCS", "MAX_DEPTH", "MAX_PAYLOAD_WIDTH", "MAX_FLIT_WIDTH",
           "MAX_PACKET_FLITS", "MAX_QUEUE_DEPTH", "MAX_CYCLES", "MAX_JOBS", "MAX_SEED",
           "TIME_LIMIT", "check_memory", "check_time", "router_cost",
           "check_hardware", "check_fabric", "check_router_cycles",
           "check_channel_graph", "check_flow_paths"]

# The ceilings of the router options (virtual channels per link, flits per input-VC
# buffer, payload bits per flit, and bits of a whole flit) are declared with the options.
#: Flits per packet.
MAX_PACKET_FLITS = 1024
#: Packets a board's traffic generator queues.
MAX_QUEUE_DEPTH = 64
#: Simulated cycles of one run.
MAX_CYCLES = 10 ** 8
#: Parallel processes.
MAX_JOBS = 256
#: Seeds (what numpy's and the hardware generators' seeds hold).
MAX_SEED = 2 ** 32 - 1

#: Longest estimated run of work that shows no progress bar (seconds).
TIME_LIMIT = 300

# Cost models. Amaranth elaboration and conversion of a router grows with the cube
# of its ports (crossbar and arbiters, per VC): about 40 KB and 4.5 ms per port^3
# and VC, plus 0.23 ms per (input VCs)^3 (VC allocation), plus 6 KB and 0.1 ms
# per flip-flop bit of a register buffer (64 bytes and 5 us per bit of a memory
# buffer); a fabric costs that per router. The seconds are a least-squares fit, on
# the high side, of: the Q(16) router, 17 ports: 23 s, 230 MB; the Q(2) router with 16
# VCs: 29 s; the Q(6) fabric, 64 routers: 53 s, 680 MB; and the CPU seconds of
# `cubefab verilog fabric` (register buffers): Q(4) 14 s; Q(4), 2 VCs x 8 flits x 51
# bits 28 s; Q(3), 2 x 16 x 73, 8.7 s; Q(2), 8 VCs x 8 x 49, 10.6 s; DLH(2,1) with 2
# broadcast VCs, 6 VCs x 8 x 54, 51 s (estimated 174 s: replicating queues cost less
# than the model's FIFOs).
_PER_PORT3 = 40_000
_SECONDS_PER_PORT3 = 0.0045
_SECONDS_PER_VC_CUBE = 0.00023
_PER_REGISTER_BIT = 6_000
_SECONDS_PER_REGISTER_BIT = 0.0001
_PER_MEMORY_BIT = 64
_SECONDS_PER_MEMORY_BIT = 0.000005
# The channel dependency graph: about 48 bytes per dependency, (degree + 1) per channel.
_PER_DEPENDENCY = 48
# Enumerating the reference routes evaluates a routing decision per node and
# representative destination (cubefab.topology.deadlock.route_evaluations): the
# slowest, Mroute's table walk on the Mcube, took 5.2 us per decision (Mcube(12), 16.8
# million decisions in 87 s on a shared core; e-cube 0.45 us).
_SECONDS_PER_ROUTE_DECISION = 6e-6
# ... and held 150 bytes per decision at its peak (Mcube(12), Mroute: 2.5 GB; Mcube(10)
# measured with tracemalloc: 89 MB for the channel dependency graph's 1 million).
_BYTES_PER_ROUTE_DECISION = 150
# Disjoint paths by minimum-cost flow (cubefab.topology.paths.flow_disjoint_paths, a
# networkx graph of two vertices per node): about 18 KB and 1.6 ms per node (measured
# with /usr/bin/time on `cubefab paths mcube -k K`: K = 12, 4096 nodes, 5.7 s, 100 MB;
# K = 13, 13.2 s, 145 MB).
_PER_FLOW_NODE = 18_000
_SECONDS_PER_FLOW_NODE = 0.0016


def check_memory(what, estimate, hint="use a smaller network or smaller parameters"):
    """Refuse ``what`` when its ``estimate`` (bytes) is over
    :func:`~cubefab.memory.memory_limit` (CliError, :mod:`cubefab.memory`'s message)."""
    with input_errors():
        memory.check_memory(what, estimate, hint)


def router_cost(config, routers):
    """Estimated (bytes, seconds) to elaborate and convert ``routers`` routers of the
    :class:`~cubefab.hdl.config.RouterConfig` ``config`` (its buffers in the storage
    the ``auto`` rule picks for that many routers)."""
    from ..hdl.config import auto_storage
    from ..hdl.options import DISTRIBUTED, MEMORY
    ports = config.topology.degree + 1
    vcs = config.link_vcs
    bits = ports * vcs * config.depth * config.layout.size
    storage = (auto_storage(config.depth, routers * config.block_rams,
                            config.block_ram_budget, config.memory_depth,
                            config.distributed_depth)
               if config.buffer_auto else config.storage)
    memory = storage in (MEMORY, DISTRIBUTED)   # both a lib.memory.Memory
    port3 = ports ** 3 * vcs
    size = routers * (_PER_PORT3 * port3
                      + (_PER_MEMORY_BIT if memory else _PER_REGISTER_BIT) * bits)
    seconds = routers * (_SECONDS_PER_PORT3 * port3
                         + _SECONDS_PER_VC_CUBE * (ports * vcs) ** 3 + bits * (
        _SECONDS_PER_MEMORY_BIT if memory else _SECONDS_PER_REGISTER_BIT))
    return size, seconds


def check_time(what, seconds, hint="use a smaller network or smaller parameters"):
    """Refuse ``what`` when it would run longer than :data:`TIME_LIMIT` seconds."""
    check_size(what, math.ceil(seconds), TIME_LIMIT, "s of work", hint)


_HARDWARE_HINT = "use a smaller network, fewer VCs, shallower buffers or narrower flits"


def check_hardware(what, config, routers):
    """Refuse hardware of ``routers`` routers of ``config`` whose elaboration would not
    fit in memory or take longer than :data:`TIME_LIMIT` (CliError); returns the
    estimated seconds."""
    size, seconds = router_cost(config, routers)
    check_memory(what, size, _HARDWARE_HINT)
    check_time(what, seconds, _HARDWARE_HINT)
    return seconds


# The Verilator engine elaborates one address-strapped node, whatever the fabric's size,
# and keeps a compiled model of it per node: about 5 bytes per bit of router state
# (Verilator rounds signals up to bytes and words and keeps next-state copies) plus 4 KB
# per node. (Measured with /usr/bin/time on Q(6), Q(8), Mcube(6) and DLH(4,3), 2 VCs
# per class, 8-flit buffers.) Its runs show progress, so their length is not limited.
_VERILATOR_PER_BIT = 5
_VERILATOR_PER_NODE = 4096


def check_fabric(what, config, engine):
    """Refuse a self-checking fabric of routers of ``config`` run in ``engine`` that
    would not fit (CliError); returns the estimated seconds of its elaboration.

    The Amaranth engine elaborates every router (:func:`check_hardware` of
    ``num_nodes`` routers); the Verilator engine one node, then holds a compiled model
    of it per node (both checked)."""
    nodes = config.topology.num_nodes
    if engine == "amaranth":
        return check_hardware(what, config, nodes)
    seconds = check_hardware(f"{what}'s node", config, 1)
    bits = ((config.topology.degree + 1) * config.link_vcs * config.depth
            * config.layout.size)
    check_memory(what, nodes * (_VERILATOR_PER_NODE + _VERILATOR_PER_BIT * bits),
                 _HARDWARE_HINT)
    return seconds


# The Verilator engine of one broadcast (cubefab.sim.verilator_broadcast) evaluates every
# router twice a cycle and reports nothing until it ends: about 14 us per router and
# cycle (measured: MC(2,2), 1024 routers of 8 VCs, 4117 cycles in 57 s on a shared core).
_VERILATOR_SECONDS_PER_ROUTER_CYCLE = 2e-5


def check_router_cycles(what, routers, cycles):
    """Refuse a Verilator run of ``routers`` routers for ``cycles`` cycles, which shows
    no progress, when it would take longer than :data:`TIME_LIMIT`."""
    check_time(what, routers * cycles * _VERILATOR_SECONDS_PER_ROUTER_CYCLE,
               "use a smaller network, or leave --unicasts out")


def check_channel_graph(topology, vcs, what=None):
    """Refuse a channel dependency graph (or the reference routes' turns, which
    enumerate the same hops) that would not fit in memory, or whose routes would take
    longer than :data:`TIME_LIMIT` to enumerate."""
    from ..topology.deadlock import route_evaluations
    channels = topology.num_nodes * topology.degree * vcs
    what = what or (f"the channel dependency graph of {topology.label} ({channels:,} "
                    f"channels)")
    decisions = route_evaluations(topology)
    check_memory(what, channels * (topology.degree + 1) * _PER_DEPENDENCY
                 + decisions * _BYTES_PER_ROUTE_DECISION)
    check_time(what, decisions * _SECONDS_PER_ROUTE_DECISION, "use a smaller network")


def check_flow_paths(topology):
    """Refuse disjoint paths by minimum-cost flow on ``topology`` that would not fit in
    memory (CliError); returns the estimated seconds (they show progress)."""
    check_memory(f"disjoint paths by flow on {topology.label} ({topology.num_nodes:,} "
                 f"nodes)", topology.num_nodes * _PER_FLOW_NODE)
    return topology.num_nodes * _SECONDS_PER_FLOW_NODE
