"""BookSim2 interoperability: the same network as an ``anynet`` description.

BookSim2's ``anynet`` topology reads a network file with one line per router::

    router R node R router A router B ...

(router ``R`` attached to terminal node ``R`` and linked to routers ``A``, ``B``, ...;
links are made bidirectional by the reader; routers and nodes are numbered from 0).
cubefab numbers router and node ``i`` by the dense index of the node (equal to the
address for hypercubes and metacubes; for DLH see ``nodes.txt``). BookSim's
``min`` routing function picks a shortest path by Dijkstra: the same hop counts as
cubefab's minimal algorithms, possibly different channels (and so different
channel loads), and no dateline or class-walk virtual-channel discipline, so with
``num_vcs`` > 1 it may deadlock near saturation where cubefab's routers cannot.
"""

import os
import re
import subprocess

import numpy as np

from .. import files
from ..topology.base import Topology


__all__ = ["anynet_text", "booksim_config", "write_booksim", "parse_booksim_output",
           "run_booksim", "BOOKSIM_TRAFFIC"]


#: cubefab pattern -> BookSim2 traffic name, where both mean the same on node indices.
BOOKSIM_TRAFFIC = {"uniform": "uniform", "bitcomp": "bitcomp", "transpose": "transpose",
                   "shuffle": "shuffle"}


def _check_topology(topology):
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")


def anynet_text(topology):
    """The BookSim2 ``anynet`` network file of ``topology`` (router i = node i, dense).

    Every router line lists its neighbours in port order, so BookSim's output port
    ``1 + p`` of router ``i`` is cubefab's port ``p`` (port 0 is the terminal).
    """
    _check_topology(topology)
    nodes = topology.nodes()
    neighbours = np.stack([topology.index_array(topology.neighbor_array(nodes, p))
                           for p in range(topology.degree)], axis=1)
    lines = []
    for i, row in enumerate(neighbours):
        lines.append(f"router {i} node {i} " + " ".join(f"router {int(j)}" for j in row))
    return "\n".join(lines) + "\n"


def booksim_config(topology, network_file="anynet_file", *, traffic="uniform",
                   injection_rate=0.1, packet_size=1, num_vcs=2, vc_buf_size=4,
                   sample_period=10000, seed=1):
    """A BookSim2 configuration for ``topology`` described by ``network_file``.

    ``injection_rate`` is in flits per node per cycle (``injection_rate_uses_flits``),
    the unit of cubefab's offered load. Every value can be overridden on BookSim's
    command line (``booksim CONFIG injection_rate=0.3``).
    """
    _check_topology(topology)
    if traffic not in BOOKSIM_TRAFFIC:
        raise ValueError(f"BookSim traffic must be one of {', '.join(BOOKSIM_TRAFFIC)}, "
                         f"not {traffic!r}")
    if traffic != "uniform" and not np.array_equal(topology.nodes(),
                                                   np.arange(topology.num_nodes)):
        raise ValueError(f"{traffic} traffic acts on addresses, but {topology.label}'s "
                         f"BookSim node numbers are dense indices; only uniform matches")
    if not isinstance(injection_rate, (int, float)) or not 0 <= injection_rate <= 1:
        raise ValueError(f"Injection rate must be a number in [0, 1], not {injection_rate!r}")
    for name, value in (("Packet size", packet_size), ("Number of VCs", num_vcs),
                        ("VC buffer size", vc_buf_size), ("Sample period", sample_period)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive integer, not {value!r}")
    return "\n".join([
        f"// BookSim2 configuration of {topology.label} written by cubefab export booksim.",
        f"// {topology.num_nodes} routers, router i <-> node i (dense index, see nodes.txt);",
        f"// cubefab routing {topology.algorithms[0]} vs BookSim min (a shortest path).",
        "topology = anynet;",
        f"network_file = {network_file};",
        "routing_function = min;",
        f"traffic = {BOOKSIM_TRAFFIC[traffic]};",
        "use_read_write = 0;",
        f"packet_size = {packet_size};",
        "injection_rate_uses_flits = 1;",
        f"injection_rate = {injection_rate};",
        f"num_vcs = {num_vcs};",
        f"vc_buf_size = {vc_buf_size};",
        "wait_for_tail_credit = 0;",
        "vc_allocator = separable_input_first;",
        "sw_allocator = separable_input_first;",
        "alloc_iters = 1;",
        "routing_delay = 0;",
        "vc_alloc_delay = 1;",
        "sw_alloc_delay = 1;",
        "credit_delay = 1;",
        "input_speedup = 1;",
        "output_speedup = 1;",
        "internal_speedup = 1.0;",
        "sim_type = latency;",
        f"sample_period = {sample_period};",
        "warmup_periods = 3;",
        "max_samples = 10;",
        f"seed = {seed};",
        "",
    ])


def write_booksim(topology, directory, **config):
    """Write ``anynet_file``, ``booksim_config`` and ``nodes.txt`` into ``directory``.

    Files are written atomically and replace only files that cubefab wrote (or any,
    under ``files.policy(force=True)``): see :mod:`cubefab.files`.

    Returns
    -------
    dict
        ``network_file``, ``config_file``, ``nodes_file``: the paths written.
    """
    _check_topology(topology)
    paths = {"network_file": os.path.join(directory, "anynet_file"),
             "config_file": os.path.join(directory, "booksim_config"),
             "nodes_file": os.path.join(directory, "nodes.txt")}
    # BookSim opens network_file relative to its working directory: give it absolute.
    texts = {"network_file": anynet_text(topology),
             "config_file": booksim_config(topology, os.path.abspath(paths["network_file"]),
                                           **config),
             "nodes_file": "# booksim_index cubefab_address\n" + "".join(
                 f"{i} {int(a)}\n" for i, a in enumerate(topology.nodes()))}
    for path in paths.values():     # every file may be written, before any is
        files.check_output(path)
    for key, path in paths.items():
        files.write_text(path, texts[key])
    return paths


_FLOAT = r"([-+0-9.eE]+|nan|inf|-nan)"
_PATTERNS = {
    "avg_latency": re.compile(r"^Packet latency average = " + _FLOAT, re.M),
    "accepted_flit_rate": re.compile(r"^Accepted flit rate average = " + _FLOAT, re.M),
    "injected_flit_rate": re.compile(r"^Injected flit rate average = " + _FLOAT, re.M),
    "avg_hops": re.compile(r"^Hops average = " + _FLOAT, re.M),
}


def parse_booksim_output(text):
    """The overall statistics of a BookSim2 run's standard output.

    Returns
    -------
    dict
        ``avg_latency`` (cycles), ``accepted_flit_rate`` and ``injected_flit_rate``
        (flits per node per cycle), ``avg_hops``: the values of the final "Overall
        Traffic Statistics" block (None where absent), and ``unstable`` (BookSim gave
        up: the offered load is beyond saturation).
    """
    marker = text.rfind("Overall Traffic Statistics")
    block = text[marker:] if marker >= 0 else ""
    result = {}
    for key, pattern in _PATTERNS.items():
        found = pattern.findall(block)
        result[key] = float(found[-1]) if found else None
    result["unstable"] = "Simulation unstable" in text or result["avg_latency"] is None
    return result


def run_booksim(binary, config_file, timeout=600, **overrides):
    """Run BookSim2 ``binary`` on ``config_file`` with ``key=value`` overrides.

    BookSim exits with status 255 after a normal run (and 0 in some versions); any
    other status raises RuntimeError with the tail of its output.
    """
    args = [binary, config_file] + [f"{key}={value}" for key, value in overrides.items()]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    if proc.returncode not in (0, 255):
        tail = (proc.stdout + proc.stderr)[-2000:]
        raise RuntimeError(f"booksim exited with status {proc.returncode}:\n{tail}")
    return parse_booksim_output(proc.stdout)
