"""The network, routing and router of a cubefab fabric as BookSim2 input files.

BookSim2's ``anynet`` topology reads a network file with one line per router::

    router R node R router A router B ...

(router ``R`` attached to terminal node ``R`` and linked to routers ``A``, ``B``, ...;
links are made bidirectional by the reader; routers and nodes are numbered from 0).
cubefab numbers router and node ``i`` by the dense index of the node (equal to the
address for hypercubes and metacubes; for DLH see ``nodes.txt``).

BookSim numbers the ports of an anynet router itself, whatever the order of the
line: port 0 is the terminal, then one port per neighbouring router by ascending
router id (``AnyNet::_BuildNet`` walks a ``std::map`` keyed by neighbour id), for
inputs and outputs alike. :func:`booksim_ports` gives that numbering.

Two routings:

``table`` (the default)
    cubefab's own routing and VC assignment, from a next-hop table
    (:func:`table_text`) read by the routing function ``cubefab_table`` of
    ``cubefab_table_routing.patch`` (our C++, shipped beside this module; apply it
    to BookSim2 and rebuild). The patch also adds the traffic ``uniform_other``:
    uniform over the other nodes, as cubefab's ``uniform``. Both simulators then
    route every packet on the same links and VCs.
``min``
    stock BookSim2: Dijkstra over the anynet graph, ties broken towards low router
    ids (the same hop counts as cubefab's minimal algorithms but other links, and
    so other channel loads), every VC allowed on every hop (no VC classes: it may
    deadlock near saturation where cubefab's routers cannot), and BookSim's
    ``uniform`` traffic, which includes self-traffic.

The router modelled has cubefab's defaults, those of ``cubefab sim`` and ``sweep``
(:data:`~cubefab.hdl.config.SIMULATION_DEFAULTS`): the VCs that deadlock freedom
needs times ``vcs_per_class``, ``depth``-flit buffers per VC;
:data:`BOOKSIM_ROUTER` sets BookSim's input-queued router to its shortest pipeline
(lookahead routing, speculative VC and switch allocation, one crossbar input per
VC, one-cycle credits).
"""

import os
from importlib import resources

import numpy as np

from ... import files
from ...topology.base import Topology, check_int
from ...topology.deadlock import lane_bits, required_vcs, translation_mask, wrap_array
from ...hdl.config import SIMULATION_DEFAULTS


__all__ = ["BOOKSIM_TRAFFIC", "BOOKSIM_ROUTER", "ROUTINGS", "MAX_TABLE_ROUTERS",
           "PATCH_NAME", "patch_text", "booksim_router", "booksim_ports", "anynet_text",
           "next_port_table", "table_text", "booksim_config", "write_booksim"]


#: cubefab pattern -> BookSim2 traffic name, where both mean the same on node indices.
#: ``uniform`` maps to the patch's ``uniform_other`` with the table routing, else to
#: BookSim's ``uniform`` (self-traffic included).
BOOKSIM_TRAFFIC = {"uniform": "uniform", "bitcomp": "bitcomp", "transpose": "transpose",
                   "shuffle": "shuffle"}

#: BookSim2 routings an export can select (see the module documentation).
ROUTINGS = ("table", "min")

#: BookSim's input-queued router at its shortest pipeline: lookahead routing
#: (``routing_delay = 0``), VC and switch allocation in one speculative cycle,
#: ``input_speedup`` = VCs (set by :func:`booksim_config`), credits back in a cycle.
BOOKSIM_ROUTER = {
    "router": "iq",
    "routing_delay": 0,
    "speculative": 1,
    "vc_alloc_delay": 1,
    "sw_alloc_delay": 1,
    "credit_delay": 1,
    "output_speedup": 1,
    "internal_speedup": 1.0,
    "vc_allocator": "separable_input_first",
    "sw_allocator": "separable_input_first",
    "alloc_iters": 1,
    "wait_for_tail_credit": 0,
}

#: Largest network whose next-hop table (routers x routers entries) is written.
MAX_TABLE_ROUTERS = 4096

#: The BookSim2 patch adding ``routing_function = cubefab_table``.
PATCH_NAME = "cubefab_table_routing.patch"


def patch_text():
    """The text of :data:`PATCH_NAME` (our C++ for BookSim2, shipped with cubefab)."""
    return resources.files(__package__).joinpath(PATCH_NAME).read_text()


def _check_topology(topology):
    if not isinstance(topology, Topology):
        raise TypeError(f"Topology must be a cubefab Topology, not {topology!r}")


def booksim_router(topology, algorithm=None, *, vcs=None, depth=None, vcs_per_class=None):
    """The router both simulators model: cubefab's defaults where not given.

    Returns
    -------
    dict
        ``vcs``, ``classes``, ``vcs_per_class``, ``depth`` and a one-line ``label``.
    """
    _check_topology(topology)
    algorithm = topology.check_algorithm(algorithm)
    per = SIMULATION_DEFAULTS.vcs_per_class if vcs_per_class is None else vcs_per_class
    lane_bits(per)
    depth = check_int("Buffer depth", SIMULATION_DEFAULTS.depth if depth is None else depth, 1)
    if vcs is None:
        vcs = required_vcs(topology, algorithm) * per
    vcs = check_int("Number of VCs", vcs, per)
    if vcs % per:
        raise ValueError(f"Number of VCs must be a multiple of the VCs per class ({per}), "
                         f"not {vcs!r}")
    classes = vcs // per
    return {"vcs": vcs, "classes": classes, "vcs_per_class": per, "depth": depth,
            "label": f"{vcs} VCs ({classes} class{'es' if classes > 1 else ''} x {per} "
                     f"per class), {depth}-flit buffer per VC"}


def _neighbour_indices(topology):
    nodes = topology.nodes()
    nb = np.stack([topology.index_array(topology.neighbor_array(nodes, p))
                   for p in range(topology.degree)], axis=1)
    ordered = np.sort(nb, axis=1)
    if topology.degree > 1 and np.any(ordered[:, 1:] == ordered[:, :-1]):
        raise ValueError(f"{topology.label} has parallel links, which anynet cannot describe")
    return nb


def booksim_ports(topology):
    """``ports[i, p]``: BookSim's output (and input) port of router ``i`` for cubefab's
    port ``p`` (1 + the rank of that neighbour's id among router ``i``'s neighbours;
    BookSim's port 0 is the terminal, cubefab's local port ``degree``)."""
    _check_topology(topology)
    nb = _neighbour_indices(topology)
    return 1 + np.argsort(np.argsort(nb, axis=1, kind="stable"), axis=1, kind="stable")


def anynet_text(topology):
    """The BookSim2 ``anynet`` network file of ``topology`` (router i = node i, dense).

    Each router line lists its neighbours in cubefab's port order; BookSim numbers the
    ports by ascending neighbour id regardless (:func:`booksim_ports`).
    """
    _check_topology(topology)
    lines = [f"router {i} node {i} " + " ".join(f"router {int(j)}" for j in row)
             for i, row in enumerate(_neighbour_indices(topology))]
    return "\n".join(lines) + "\n"


def _check_table_size(topology):
    if topology.num_nodes > MAX_TABLE_ROUTERS:
        raise ValueError(f"the next-hop table of {topology.label} would have "
                         f"{topology.num_nodes}^2 entries; the table routing takes at most "
                         f"{MAX_TABLE_ROUTERS} routers (use BookSim's min routing)")


def next_port_table(topology, algorithm=None):
    """``table[i, j]``: cubefab's output port at node index ``i`` for a packet to node
    index ``j`` (:meth:`~cubefab.topology.base.Topology.next_port`; ``degree`` when
    ``i == j``), for an algorithm that reads only the router and the destination.

    Only the destinations with zero translation bits are routed from every node; the
    other columns follow by the topology's XOR translations, which map routes onto
    routes (:func:`~cubefab.topology.deadlock.translation_mask`).
    """
    _check_topology(topology)
    algorithm = topology.check_algorithm(algorithm)
    if topology.header_fields.get(algorithm):
        raise ValueError(f"{algorithm} routing reads {', '.join(topology.header_fields[algorithm])}"
                         f" from the header; a next-hop table per router and destination "
                         f"cannot express it")
    _check_table_size(topology)
    nodes = topology.nodes()
    n = len(nodes)
    whole = topology.whole_port_table(algorithm)
    if whole is not None:   # tabulated whole (the Mcube's Mroute tables)
        index = topology.index_array(nodes)
        table = np.empty((n, n), dtype=np.int16)
        table[np.ix_(index, index)] = whole[np.ix_(nodes, nodes)]
        return table
    mask = translation_mask(topology)
    table = np.empty((n, n), dtype=np.int16)
    for rep in nodes[(nodes & mask) == 0]:
        rep = int(rep)
        column = np.array([topology.next_port(int(a), rep, algorithm) for a in nodes],
                          dtype=np.int16)
        for x in range(mask + 1):
            table[:, topology.index(rep ^ x)] = column[topology.index_array(nodes ^ x)]
    return table


def table_text(topology, algorithm=None, *, vcs_per_class=1, classes=1):
    """The next-hop table file that the patch's ``cubefab_table`` routing reads.

    Header ``cubefab_table 1 ROUTERS VCS_PER_CLASS CLASSES LANE_BITS``, then the
    address of every router, then one row per router ``r`` with, for every
    destination ``d``, ``2 * port + wrap``: ``port`` is BookSim's output port of
    cubefab's next hop (0: eject) and ``wrap`` marks a hop that moves the packet up
    one VC class (:func:`~cubefab.topology.deadlock.wrap_array`).
    """
    algorithm = topology.check_algorithm(algorithm)
    bits = lane_bits(vcs_per_class)
    classes = check_int("Number of VC classes", classes, 1)
    ports = next_port_table(topology, algorithm)
    nodes = topology.nodes()
    n, degree = len(nodes), topology.degree
    wraps = np.stack([wrap_array(topology, nodes, p) for p in range(degree)], axis=1)
    network = ports < degree
    hop = np.where(network, ports, 0)
    rows = np.arange(n)[:, None]
    entry = np.where(network, 2 * booksim_ports(topology)[rows, hop] + wraps[rows, hop], 0)
    head = [f"# next-hop table of {topology.label}, {algorithm} routing, written by cubefab "
            f"export booksim", "# header, addresses of routers 0.., then per router r and "
            "destination d: 2 * BookSim output port + VC-class wrap",
            f"cubefab_table 1 {n} {vcs_per_class} {classes} {bits}",
            " ".join(str(int(a)) for a in nodes)]
    body = [" ".join(map(str, row)) for row in entry.tolist()]
    return "\n".join(head + body) + "\n"


def booksim_config(topology, network_file="anynet_file", *, routing="table",
                   table_file="cubefab_table", algorithm=None, traffic="uniform",
                   injection_rate=0.1, packet_size=1, vcs=None, depth=None,
                   vcs_per_class=None, sample_period=10000, seed=1):
    """A BookSim2 configuration of ``topology`` with cubefab's router and routing.

    ``injection_rate`` is in flits per node per cycle (``injection_rate_uses_flits``),
    the unit of cubefab's offered load; ``vcs``, ``depth`` and ``vcs_per_class``
    default as in :func:`booksim_router`. Every value can be overridden on BookSim's
    command line (``booksim CONFIG injection_rate=0.3``).
    """
    _check_topology(topology)
    algorithm = topology.check_algorithm(algorithm)
    if routing not in ROUTINGS:
        raise ValueError(f"BookSim routing must be one of {', '.join(ROUTINGS)}, "
                         f"not {routing!r}")
    if traffic not in BOOKSIM_TRAFFIC:
        raise ValueError(f"BookSim traffic must be one of {', '.join(BOOKSIM_TRAFFIC)}, "
                         f"not {traffic!r}")
    if traffic != "uniform" and not np.array_equal(topology.nodes(),
                                                   np.arange(topology.num_nodes)):
        raise ValueError(f"{traffic} traffic acts on addresses, but {topology.label}'s "
                         f"BookSim node numbers are dense indices; only uniform matches")
    if isinstance(injection_rate, bool) or not isinstance(injection_rate, (int, float)) \
            or not 0 <= injection_rate <= 1:
        raise ValueError(f"Injection rate must be a number in [0, 1], not {injection_rate!r}")
    check_int("Packet size", packet_size, 1)
    check_int("Sample period", sample_period, 1)
    check_int("Seed", seed, 0)
    router = booksim_router(topology, algorithm, vcs=vcs, depth=depth,
                            vcs_per_class=vcs_per_class)
    if routing == "table":
        _check_table_size(topology)
        name = "uniform_other" if traffic == "uniform" else BOOKSIM_TRAFFIC[traffic]
        routing_lines = [
            f"// routing: cubefab's {algorithm} routing and VC classes from a next-hop",
            f"// table; needs BookSim2 with {PATCH_NAME} applied.",
            "routing_function = cubefab_table;",
            f"cubefab_table_file = {table_file};"]
        traffic_lines = ["// uniform_other (from the patch) = cubefab's uniform: no self-traffic."
                         ] if traffic == "uniform" else []
    else:
        name = BOOKSIM_TRAFFIC[traffic]
        routing_lines = [
            "// routing: BookSim's min (shortest paths, ties towards low router ids,",
            f"// any VC on any hop), not cubefab's {algorithm} routing.",
            "routing_function = min;"]
        traffic_lines = ["// BookSim's uniform includes self-traffic (cubefab's does not)."
                         ] if traffic == "uniform" else []
    settings = {**BOOKSIM_ROUTER, "num_vcs": router["vcs"], "vc_buf_size": router["depth"],
                "input_speedup": router["vcs"]}
    return "\n".join([
        f"// BookSim2 configuration of {topology.label} written by cubefab export booksim.",
        f"// {topology.num_nodes} routers, router i <-> node i (dense index, see nodes.txt).",
        f"// Router modelled: cubefab's default router (of sim and sweep), {router['label']};",
        "// BookSim's input-queued router at its shortest pipeline (lookahead routing,",
        "// speculative allocation, a crossbar input per VC, one-cycle credits).",
        "topology = anynet;",
        f"network_file = {network_file};",
        *routing_lines,
        *traffic_lines,
        f"traffic = {name};",
        "use_read_write = 0;",
        f"packet_size = {packet_size};",
        "injection_rate_uses_flits = 1;",
        f"injection_rate = {injection_rate};",
        *(f"{key} = {value};" for key, value in settings.items()),
        "sim_type = latency;",
        "// no flit delivered for this many cycles: BookSim warns of a deadlock",
        "deadlock_warn_timeout = 1000;",
        f"sample_period = {sample_period};",
        "warmup_periods = 3;",
        "max_samples = 10;",
        f"seed = {seed};",
        "",
    ])


def write_booksim(topology, directory, *, force=None, **config):
    """Write the BookSim2 input files of ``topology`` into ``directory``.

    ``anynet_file``, ``booksim_config`` and ``nodes.txt``; with the table routing
    (``routing="table"``, the default) also ``cubefab_table`` and the patch
    :data:`PATCH_NAME`. ``config`` are :func:`booksim_config` keywords. Every file is
    generated and checked before any is written, and written atomically; a file that
    cubefab did not write is replaced only with ``force`` (None: the command line's
    ``--force``, see :mod:`cubefab.files`).

    Returns
    -------
    dict
        ``network_file``, ``config_file``, ``nodes_file`` (and ``table_file``,
        ``patch_file``): the paths written.

    Raises
    ------
    cubefab.files.OutputRefused
        If a file to write exists, cubefab did not write it and ``force`` is false, or
        the directory cannot be written.
    """
    _check_topology(topology)
    names = {"network_file": "anynet_file", "config_file": "booksim_config",
             "nodes_file": "nodes.txt"}
    table = config.get("routing", "table") == "table"
    if table:
        names.update(table_file="cubefab_table", patch_file=PATCH_NAME)
    paths = {key: os.path.join(directory, name) for key, name in names.items()}
    # BookSim opens the files it reads relative to its working directory: the
    # configuration names them as they are in ``directory``, so that the directory
    # can be moved or shared, and BookSim runs in it (run_booksim)
    config_text = booksim_config(topology, names["network_file"],
                                 table_file=names.get("table_file", ""), **config)
    texts = {"network_file": anynet_text(topology), "config_file": config_text,
             "nodes_file": "# booksim_index cubefab_address\n" + "".join(
                 f"{i} {int(a)}\n" for i, a in enumerate(topology.nodes()))}
    if table:
        router = booksim_router(topology, config.get("algorithm"), vcs=config.get("vcs"),
                                depth=config.get("depth"),
                                vcs_per_class=config.get("vcs_per_class"))
        texts["table_file"] = table_text(topology, config.get("algorithm"),
                                         vcs_per_class=router["vcs_per_class"],
                                         classes=router["classes"])
        texts["patch_file"] = patch_text()
    for path in paths.values():     # every file may be written, before any is
        files.check_output(path, force)
    for key, path in paths.items():
        files.write_text(path, texts[key], force)
    return paths
