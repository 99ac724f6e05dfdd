"""A self-checking fabric in Verilator as one compiled node and a C++ netlist.

Every node of a :class:`~cubefab.hdl.selfcheck.SelfCheckingFabric` can be the same
module, the address-strapped node of
:meth:`~cubefab.hdl.selfcheck.SelfCheckConfig.node_verilog`, with its node-dependent
constants on an input port. :class:`VerilatorFabricModel` compiles that module alone,
once, and runs the fabric from a C++ main (``cxx/fabric_main.cpp``, package data) that
creates one model of it per node, ties each node's straps to its constants, copies
every link from its sender to its receiver each cycle, adds the nodes' event outputs
into the fabric's counters, exactly as :meth:`SelfCheckingFabric.elaborate` wires
them, and applies the harness checks of :mod:`cubefab.sim.checks` (``cxx/checks.h``).
Python generates only ``fabric.h`` (the netlist, the node's port names, the flit
fields and the tables of the reference rules) and ``rules.h``, which includes the C++
headers of the router mode's reference rules (their ``cxx_rule``,
:mod:`cubefab.topology.references`). The build takes the time of one node
whatever the fabric's size, and the simulation runs one copy of the node's code (it
stays in the processor's caches) instead of one per node.

This is correct because a node's link outputs are registers: they never depend on
its inputs in the same cycle (the main checks it every cycle and stops with an error
otherwise), so each cycle is "inputs from the others' outputs, settle, clock edge"
node by node.

The main leaves quiet nodes alone (``cxx/node_activity.h``): a node whose registers
did not change at its last clock edge, with no event and no flit sent, is not
evaluated again until a neighbour's output or a run input changes or its generator
draws a packet, which the main foresees by stepping the generator's random state itself
(the node's ``random_*`` ports, :meth:`~cubefab.hdl.selfcheck.SelfCheckConfig.node`;
every node evaluated checks that foresight). Which members of the verilated node are
registers, ``node_state.h``, is read from the C++ Verilator writes
(:func:`register_members`). Fabrics of fault-tolerant or replicating routers evaluate
every node (their generators stand still in configuration cycles or draw from a second
random state).
"""

import glob
import os
import re
import tempfile

from amaranth.hdl import Shape

from ..hdl.selfcheck import NODE_MODULE, SelfCheckConfig
from ..hdl.traffic_gen import RATE_BITS
from ..topology.base import check_int
from ..topology.references import RouteReference
from ..topology.turns import inverse_ports
from .checks import FlitFields, references
from ..tools.verilator import VerilatorModel, cxx_array, cxx_name, input_setters


__all__ = ["VerilatorFabricModel", "fabric_header", "rule_headers", "fault_file_text",
           "cxx_array", "link_sources", "link_accessors", "netlist_preamble",
           "register_members", "node_state_header", "skips_quiet_nodes"]


#: The harness's C++ sources (package data).
CXX_DIRECTORY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cxx")

#: The C++ headers of the package's reference rules (``cxx/rule_*.h``): compiled into
#: every build, so that a build's cache key covers them.
RULE_HEADERS = tuple(sorted(name for name in os.listdir(CXX_DIRECTORY)
                            if name.startswith("rule_") and name.endswith(".h")))


def fault_file_text(faults):
    """The fault configuration file of ``cxx/faults.h`` for a
    :class:`~cubefab.sim.selfcheck_run.FaultConfiguration`: the configuration writes,
    the reference of the fault set (faulty nodes and channels by dense index, the
    headers of the pairs routed through waypoints, the refused pairs); then the links
    failing mid-run, each with its cycle, its two channels, the writes that change and
    the reference of the new fault set; then the flood of fault-tolerant replicating
    routers (``T``: its configuration writes; ``B``: the broadcast VC, the copies a
    broadcast of each source makes and the flood's children per source and node, by
    dense index; none without broadcast VCs)."""
    lines = [f"W {len(faults.writes)}"]
    lines += [f"{n} {d} {e}" for n, d, e in faults.writes]
    lines += _reference_lines(faults.routing)
    lines.append(f"X {len(faults.failures)}")
    degree = faults.routing.topology.degree
    for (cycle, _, channels, changes), routing in zip(faults.failures, faults.routings[1:]):
        ends = " ".join(f"{c // degree} {c % degree}" for c in channels)
        lines.append(f"{cycle} {ends} {len(changes)}")
        lines += [f"{n} {d} {e}" for n, d, e in changes]
        lines += _reference_lines(routing)
    lines += _flood_lines(faults)
    return "\n".join(lines) + "\n"


def _flood_lines(faults):
    """The flood section of the fault file (:func:`fault_file_text`)."""
    lines = [f"T {len(faults.flood_writes)}"]
    lines += [f"{n} {k} {v}" for n, k, v in faults.flood_writes]
    flood = faults.flood
    if flood is None:
        return lines
    topo = faults.routing.topology
    copies = [len(flood.receivers.get(int(a), ())) for a in topo.nodes()]
    lines.append(f"B {flood.first} " + " ".join(map(str, copies)))
    lines += [" ".join(map(str, row)) for row in flood.children.tolist()]
    return lines


def _reference_lines(routing):
    """The misrouted check's reference of one fault set's routing (``faults.h``)."""
    topo = routing.topology
    bad_nodes = set(routing.faults.nodes)
    bad_links = {frozenset(x) for x in routing.faults.links}
    channels = [(topo.index(int(a)), p) for a in topo.nodes() for p in range(topo.degree)
                if int(a) in bad_nodes or topo.neighbor(int(a), p) in bad_nodes
                or frozenset((int(a), topo.neighbor(int(a), p))) in bad_links]
    headers = sorted(routing.waypoints.items())
    refused = sorted(routing.cut_off + routing.unroutable)
    lines = [f"F {len(bad_nodes)} " + " ".join(str(topo.index(a))
                                                for a in sorted(bad_nodes))]
    lines.append(f"C {len(channels)}")
    lines += [f"{i} {p}" for i, p in channels]
    lines.append(f"H {len(headers)}")
    lines += [" ".join(map(str, (s, t, len(ws), *ws))) for (s, t), ws in headers]
    lines.append(f"R {len(refused)}")
    lines += [f"{s} {t}" for s, t in refused]
    return lines


def _words(value, count):
    return [(value >> (32 * w)) & 0xFFFFFFFF for w in range(count)]


def link_sources(topology):
    """``SOURCE[i][p]``, the ``[node, port]`` (dense node index) whose ``link_out``
    drives ``link_in[p]`` of node ``i``, as :func:`~cubefab.hdl.fabric.connect_links`
    wires a fabric."""
    degree, back = topology.degree, inverse_ports(topology)
    sources = [[None] * degree for _ in range(topology.num_nodes)]
    for i, address in enumerate(int(a) for a in topology.nodes()):
        for p in range(degree):
            j = topology.index(topology.neighbor(address, p))
            sources[j][back[p]] = (i, p)
    return sources


def netlist_preamble(generator, topology, module, contents, includes=()):
    """The first lines of a generated C++ netlist header: what wrote it and what it
    holds (``contents``), the includes (``<cstdint>``, ``<cstdlib>``, ``includes``, the
    Verilator model of ``module``, called ``Node``), ``N`` and ``D`` (nodes, degree)
    and ``SOURCE`` (:func:`link_sources`)."""
    return [
        f"// Generated by {generator} for {topology.label}: {contents}.",
        "#pragma once",
        "#include <cstdint>",
        "#include <cstdlib>",
        *(f"#include {name}" for name in includes),
        f'#include "V{module}.h"',
        f"using Node = V{module};",
        f"static const int N = {topology.num_nodes};",
        f"static const int D = {topology.degree};",
        "// SOURCE[i][p]: (node, port) whose link_out drives link_in[p] of node i.",
        cxx_array("SOURCE", "int", link_sources(topology)),
    ]


def link_accessors(model, degree):
    """C++ accessors ``in_payload``, ``in_valid``, ``in_credit``, ``out_payload``,
    ``out_valid``, ``out_credit`` ``(model* n, int p)``: pointers to the members of
    ``link_in[p]`` and ``link_out[p]`` of a Verilator model with a router's network
    ports (for a generated header)."""
    def accessor(kind, member):
        cases = " ".join(f"case {p}: return &n->{cxx_name(member.format(p))};"
                         for p in range(degree))
        return (f"static inline auto* {kind}({model}* n, int p) "
                f"{{ switch (p) {{ {cases} }} std::abort(); }}")
    return "\n".join(accessor(f"{side}_{what}", f"link_{side}__{{}}__{member}")
                     for side in ("in", "out")
                     for what, member in (("payload", "flit__payload"),
                                          ("valid", "flit__valid"), ("credit", "credit")))


def skips_quiet_nodes(config, node):
    """Whether the main leaves the quiet nodes of the fabric ``config`` alone: its
    strapped ``node`` has the random ports and one random state that steps every cycle
    (no fault-tolerant, no replicating routers)."""
    return (node.generator.random_input and not config.router.fault_waypoints
            and not config.router.broadcast)


def register_members(obj):
    """The members of a verilated model's root object that hold its state, from the C++
    Verilator wrote in ``obj``: those its static and initial functions set (every
    register has an initial value) and the unpacked arrays (memories), but Verilator's
    own (``__V...``, ``vlSymsp``) and the generator's random state (``random_state``, which the
    main steps itself)."""
    found = set()
    for path in sorted(glob.glob(os.path.join(obj, "*___024root*.cpp"))):
        with open(path) as f:
            text = f.read()
        for body in re.findall(r"___eval_(?:static|initial)\w*\([^)]*\) \{(.*?)\n\}", text,
                               re.S):
            found.update(re.findall(r"vlSelf(?:Ref\.|->)(\w+)", body))
    for path in glob.glob(os.path.join(obj, "*___024root.h")):
        with open(path) as f:
            found.update(re.findall(r"VlUnpacked<.*>\s+(\w+);", f.read()))
    return sorted(name for name in found if not name.startswith("__V")
                  and name not in ("vlSymsp", "vlNamep")
                  and not name.endswith("__DOT__generator__DOT__state")
                  and name != "random_state")


def node_state_header(module, members):
    """``node_state.h``: ``node_registers(root, add)`` calls ``add(&member, size)`` for
    each of ``members`` (:func:`register_members`) of the root object of the verilated
    ``module`` (none: an empty ``members``, for a main that evaluates every node)."""
    root = f"V{module}___024root"
    calls = "".join(f"    add(&r->{m}, sizeof r->{m});\n" for m in members)
    return ("// Generated by cubefab.sim.verilator_fabric: the registers of the verilated node.\n"
            "#pragma once\n"
            f'#include "{root}.h"\n'
            f"template <typename F> static inline void node_registers({root}* r, F add) {{\n"
            f"    (void)r; (void)add;\n{calls}}}\n")


def fabric_header(config, node, rules=None):
    """``fabric.h`` of the fabric ``config`` (a
    :class:`~cubefab.hdl.selfcheck.SelfCheckConfig`) whose strapped node is ``node``:
    the preamble (:func:`netlist_preamble`), then the sections of
    :func:`_strap_lines`, :func:`_counter_lines`, :func:`_node_lines`,
    :func:`_quiet_lines`, :func:`_flit_lines` and :func:`_rule_lines` (of ``rules``,
    the run's route and copy rules: by default the fault-free ones,
    :func:`~cubefab.sim.checks.references`)."""
    topo = config.topology
    rules = references(config) if rules is None else rules
    lines = [
        *netlist_preamble("cubefab.sim.verilator_fabric", topo, NODE_MODULE,
                          "the netlist, the node's ports, the flit fields, the reference "
                          "rules' tables", includes=("<string>",)),
        *_strap_lines(topo, node),
        link_accessors("Node", topo.degree),
        *_counter_lines(config),
        *_node_lines(config),
        *_quiet_lines(config, node),
        *_flit_lines(config),
        *_rule_lines(config.router, rules),
    ]
    return "\n".join(lines) + "\n"


def rule_headers(rules):
    """The generated ``rules.h``, which includes the C++ header each of ``rules``
    names (its ``cxx_rule``: a file of ``cxx/``, or the path of a header elsewhere),
    and ``{file name: text}`` of the headers from elsewhere (written into the build
    beside it)."""
    lines = ["// Generated by cubefab.sim.verilator_fabric: the router mode's reference "
             "rules (checks.h).", "#pragma once", '#include "flit.h"']
    extra = {}
    for rule in rules:
        name = os.path.basename(str(rule.cxx_rule))
        if name != str(rule.cxx_rule):   # a header outside the package
            with open(rule.cxx_rule) as f:
                extra[name] = f.read()
        elif name not in RULE_HEADERS:
            raise ValueError(f"Reference rule header must be one of "
                             f"{', '.join(RULE_HEADERS)} or a path, not {name!r}")
        lines.append(f'#include "{name}"')
    return "\n".join(lines) + "\n", extra


def _strap_lines(topology, node):
    """``STRAP_WORDS`` and ``STRAPS[i]``, the straps of the node of dense index ``i``
    (:meth:`~cubefab.hdl.selfcheck_node.SelfCheckingNode.strap_values` of the strapped
    ``node``) in 32-bit words, at least two."""
    strap_bits = Shape.cast(node.strap_layout).width
    strap_words = max(2, -(-strap_bits // 32))
    straps = [_words(node.strap_layout.const(node.strap_values(a)).as_value().value,
                     strap_words) for a in (int(a) for a in topology.nodes())]
    return [f"static const int STRAP_WORDS = {strap_words};",
            cxx_array("STRAPS", "uint32_t", straps)]


def _counter_lines(config):
    """The counters of ``fabric.h``: their names and masks, the indices of those the
    checks read (``-1`` for the lost-packet counters of a fabric without them), the
    events and the counter each adds to (``EVENT_COUNTER``), and ``node_events``, which
    adds a node's events of a cycle."""
    members = config.counter_members()
    counters = list(members)
    masks = [(1 << Shape.cast(members[c].shape).width) - 1 for c in counters]
    events = list(config.events()) + ["latency"]
    event_counter = [counters.index(e) for e in config.events()] + [counters.index("latency_sum")]
    return [
        f"static const int COUNTERS = {len(counters)};",
        "static const char* const COUNTER_NAMES[COUNTERS] = {"
        + ", ".join(f'"{c}"' for c in counters) + "};",
        cxx_array("COUNTER_MASKS", "uint64_t", [f"{m}ULL" for m in masks]),
        f"static const int IDX_CREATED = {counters.index('created')};",
        f"static const int IDX_DELIVERED = {counters.index('delivered')};",
        "// the counters of packets lost to a failed link (-1: none)",
        f"static const int IDX_DROPPED = {counters.index('dropped') if 'dropped' in counters else -1};",
        f"static const int IDX_CUT = {counters.index('cut') if 'cut' in counters else -1};",
        f"static const int EVENTS = {len(events)};",
        cxx_array("EVENT_COUNTER", "int", event_counter),
        "static inline void node_events(Node* n, uint64_t* e) { "
        + " ".join(f"e[{k}] += n->{cxx_name(e)};" for k, e in enumerate(events)) + " }",
    ]


def _node_lines(config):
    """A node's inputs and link status in ``fabric.h``: the run-setting setters
    (:func:`~cubefab.tools.verilator.input_setters`), ``node_defaults``, ``link_down``
    and ``dropped_ports`` (no-ops for routers without a link status, ``link_up``:
    :meth:`~cubefab.hdl.modes.Routing.router_members`)."""
    router = config.router
    faults = "link_up" in router.routing.router_members(router)
    return [
        input_setters("Node", config.inputs()),
        "// a node's inputs besides the run settings: its links up (fault-tolerant routers)",
        "static inline void node_defaults(Node* n) { "
        + (f"n->link_up = {(1 << config.topology.degree) - 1}; " if faults else "")
        + "}",
        "// a link failing: port p of node n goes down; the ports whose payload register",
        "// holds a flit dropped at a failed link (fault-tolerant routers; else none)",
        "static inline void link_down(Node* n, int p) { "
        + ("n->link_up &= ~(1u << p); " if faults else "(void)n; (void)p; ")
        + "}",
        "static inline uint64_t dropped_ports(Node* n) { "
        + ("return n->dropped_ports; " if faults else "(void)n; return 0; ")
        + "}",
    ]


def _quiet_lines(config, node):
    """What the main needs to leave quiet nodes alone in ``fabric.h``: ``SKIP_QUIET``
    (:func:`skips_quiet_nodes`), ``RANDOM_RATE_BITS``, ``node_idle`` (no event this
    cycle), ``node_draws`` (a packet drawn: created or refused), ``load_random`` and
    ``random_state`` (the random ports; no-ops without them)."""
    skip = skips_quiet_nodes(config, node)
    ports = node.generator.random_input
    idle = " | ".join(f"n->{cxx_name(e)}" for e in config.events())
    return [
        "// leaving quiet nodes alone (fabric_main.cpp)",
        f"static const bool SKIP_QUIET = {'true' if skip else 'false'};",
        f"static const int RANDOM_RATE_BITS = {RATE_BITS};",
        f"static inline bool node_idle(Node* n) {{ return !({idle}); }}",
        "static inline bool node_draws(Node* n) { return "
        + ("n->created | n->refused; }" if skip else "(void)n, false; }"),
        "static inline void load_random(Node* n, bool load, uint64_t value) { "
        + ("n->random_load = load; n->random_value = value; }" if ports
           else "(void)n; (void)load; (void)value; }"),
        "static inline uint64_t random_state(Node* n) { return "
        + ("n->random_state; }" if ports else "(void)n, 0; }"),
    ]


def _flit_lines(config):
    """The flit fields of ``fabric.h``: the timestamp and address widths, the offsets of
    the header fields, of the waypoint fields (:class:`~.checks.FlitFields`; 0
    ``WAYPOINTS`` without fault-tolerant routers), the class and broadcast fields."""
    layout, fmt = config.layout, config.fmt
    lines = [
        f"static const uint64_t NOW_MASK = {(1 << fmt.timestamp_bits) - 1}ULL;",
        f"static const int TIMESTAMP_BITS = {fmt.timestamp_bits};",
        f"static const int ADDRESS_BITS = {config.topology.address_bits};",
        "// the header in the head flit only: body flits are checked by their head's",
        f"static const bool HEAD_ONLY = {'true' if layout.header == 'head' else 'false'};",
    ]
    for name in ("head", "tail", "vc", "dest", "src", "payload"):
        lines.append(f"static const int {name.upper()}_LO = {layout[name].offset};")
    fields = FlitFields(layout, fmt.timestamp_bits)
    offsets = fields.offsets
    cls_lo, cls_width = offsets["cls"]
    lines += [
        "// the timestamp: its low HEAD_STAMP_BITS in the head's payload, the rest in the",
        "// next flits' data (from DATA_LO, STAMP_DATA_BITS each) up to flit STAMP_FLIT",
        f"static const int HEAD_STAMP_BITS = {fields.head_stamp_bits};",
        f"static const int STAMP_FLIT = {fields.stamp_flit};",
        f"static const int DATA_LO = {fields.data_lo};",
        f"static const int STAMP_DATA_BITS = {min(fields.data_bits, fmt.timestamp_bits)};",
    ]
    lines += [
        "// fault-tolerant routers (faults.h): waypoints in the header, 0 without",
        f"static const int WAYPOINTS = {fields.waypoints};",
        f"static const int WAYPOINT_COUNT_LO = {offsets['waypoint_count'][0]};",
        f"static const int PHASE_LO = {offsets['phase'][0]};",
        f"static const int WAYPOINT_FIELD_WIDTH = {offsets['phase'][1]};",
        f"static const int WAYPOINT_LO = {offsets['waypoint'][0]};",
        f"static const int CUT_LO = {offsets['cut'][0]};",
        f"static const int CLS_LO = {cls_lo};",
        f"static const int CLS_WIDTH = {cls_width};",
        f"static const int BCAST_LO = {offsets['bcast'][0]};",
        f"static const int BCAST_WIDTH = {offsets['bcast'][1]};",
        f"static const int VC_WIDTH = {layout['vc'].shape.width};",
    ]
    return lines


def _rule_lines(router, rules):
    """The tables of the reference rules in ``fabric.h``: the network's
    (:meth:`~cubefab.topology.references.RouteReference.network_constants`, of
    ``router``), then each of ``rules``' own (its ``cxx_constants()``)."""
    constants = RouteReference.of(router).network_constants()
    for rule in rules:
        constants += rule.cxx_constants()
    lines = ["// the reference rules' tables (rules.h): the network's, then each rule's"]
    for ctype, name, value in constants:
        if isinstance(value, (list, tuple)):
            lines.append(cxx_array(name, ctype, value))
        elif isinstance(value, bool):
            lines.append(f"static const {ctype} {name} = {'true' if value else 'false'};")
        else:
            lines.append(f"static const {ctype} {name} = {int(value)};")
    return lines


class VerilatorFabricModel(VerilatorModel):
    """A :class:`~cubefab.hdl.selfcheck.SelfCheckingFabric` compiled as one node
    model and run by a C++ netlist (see the module's description).

    Same interface, caching and output as
    :class:`~cubefab.tools.verilator.VerilatorModel`; ``factory()`` must return
    the fabric's :class:`~cubefab.hdl.selfcheck.SelfCheckConfig` (only its strapped
    node is built). :meth:`run` adds the harness checks to the counters it returns:
    ``misrouted``, ``reordered``, ``duplicated``, ``waiting_overtaken``, ``waiting``
    and ``latency_histogram`` (``[[latency, packets], ...]`` of the measured window).

    Parameters
    ----------
    factory, config, opt, jobs
        As for :class:`~cubefab.tools.verilator.VerilatorModel`.
    threads : int
        Threads that simulate the nodes, each a contiguous share of them, meeting at
        two barriers a cycle (settled, clock edge): worth it from a few hundred nodes
        a thread (a barrier costs microseconds), up to the number of cores. Results do
        not depend on it.
    """

    main_files = ("fabric_main.cpp", "flit.h", "checks.h", "faults.h", "run_arguments.h",
                  "words.h", "node_activity.h") + RULE_HEADERS

    #: bool: the node has the random ports, and the main leaves quiet nodes alone
    #: where :func:`skips_quiet_nodes` allows
    random_input = True

    def __init__(self, factory, config, *, opt="-O2", jobs=None, threads=1):
        super().__init__(factory, config, name=NODE_MODULE, opt=opt, jobs=jobs)
        self.threads = check_int("Threads", threads, 1)
        self._fault_file = None
        self._every = False
        self._skips = False

    def _run_options(self):
        return [f"threads={self.threads}"] + (["skip=0"] if self._every else []) + (
            [f"faults={self._fault_file}"] if self._fault_file else [])

    def run(self, cycles, *, faults=None, every=False, **options):
        """:meth:`VerilatorModel.run`; ``faults``: a
        :class:`~cubefab.sim.selfcheck_run.FaultConfiguration` of a fabric of
        fault-tolerant routers, loaded through the configuration port before the run
        (and followed by the misrouted check); ``every``: evaluate every node in every
        cycle (the same results, slower: for checks). :attr:`evaluations` counts the
        nodes evaluated."""
        self._every = bool(every)
        try:
            if faults is None:
                final = super().run(cycles, **options)
            else:
                with tempfile.NamedTemporaryFile("w", suffix=".faults") as handle:
                    handle.write(fault_file_text(faults))
                    handle.flush()
                    self._fault_file = handle.name
                    final = super().run(cycles, **options)
        finally:
            self._fault_file, self._every = None, False
        #: int: node evaluations in the cycles of the last run (nodes times cycles, but
        #: for the quiet nodes left alone)
        self.evaluations = final.pop("evaluations")
        return final

    def _compile(self, work):
        """:meth:`VerilatorModel._compile`, after writing ``node_state.h``
        (:func:`node_state_header`: the node's registers when the main leaves quiet
        nodes alone, else none)."""
        members = register_members(os.path.join(work, "obj")) if self._skips else []
        with open(os.path.join(work, "node_state.h"), "w") as f:
            f.write(node_state_header(self.name, members))
        super()._compile(work)

    def _sources(self, design):
        if not isinstance(design, SelfCheckConfig):
            raise TypeError(f"Factory must return a SelfCheckConfig, not {design!r}")
        node = design.node(None, random_input=self.random_input)
        self._skips = skips_quiet_nodes(design, node)
        files = {NODE_MODULE + ".v": design.node_verilog(node)}
        ports = {"inputs": list(design.inputs()),
                 "counters": list(design.counter_members())}
        rules = references(design)
        included, extra = rule_headers(rules)
        return files, {"fabric.h": fabric_header(design, node, rules), "rules.h": included,
                       **extra}, ports
