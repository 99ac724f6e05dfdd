"""A fabric of address-strapped routers in Verilator, fed a scripted injection.

:class:`VerilatorRouterFabric` compiles one address-strapped
:class:`~cubefab.hdl.router.Router` (``node=None``) of a
:class:`~cubefab.hdl.config.FabricConfig`, once, and runs the fabric from a C++ main
(``cxx/broadcast_main.cpp``, package data) that creates one model of it per node, ties
each one's straps (:meth:`Router.strap_values`, :meth:`Router.broadcast_strap_values`)
to its node's values and copies every link from its sender to its receiver each cycle,
as :class:`~cubefab.hdl.fabric.Fabric` wires them (the link outputs are registers; see
:mod:`cubefab.sim.verilator_fabric`). The main offers a given list of flits at one
node's ``local_in`` from cycle 0, keeps every ``local_out`` ready, and reports what
:func:`cubefab.sim.broadcast_run.hardware_broadcast` measures: the cycle of every tail
ejected, the first cycle a flit (and a head flit) crossed each link, the cycle the
last flit entered. Python generates only ``router_fabric.h``: the netlist, the straps,
the port accessors and the flit fields.

Multicast and one-port replicating routers with straps tabulate the model's decisions
for every (node, source) pair (:func:`~cubefab.hdl.router.check_strapped`): this engine
runs them on networks of at most 128 nodes.
"""

import os
import subprocess
import tempfile

from amaranth.lib.wiring import In

from ..hdl.config import FabricConfig
from ..hdl.ports import reset_less_verilog
from ..hdl.route.flood import flood_layout, flood_value
from ..hdl.router import Router, check_strapped
from ..topology.fault_broadcast import healthy_tree
from ..topology.base import check_int
from ..tools.verilator import VerilatorError, VerilatorModel, cxx_name
from .verilator_fabric import cxx_array, link_accessors, netlist_preamble


__all__ = ["ROUTER_MODULE", "VerilatorRouterFabric", "router_fabric_header",
           "check_strappable"]


#: Verilog module name of the compiled address-strapped router.
ROUTER_MODULE = "cubefab_router"


def check_strappable(config):
    """Raise ValueError unless the routers of ``config`` (a
    :class:`~cubefab.hdl.config.FabricConfig`) can be address-strapped
    (:func:`~cubefab.hdl.router.check_strapped`: one-port and multicast routers up to
    128 nodes; a lookahead router's neighbour addresses in one 64-bit strap)."""
    try:
        check_strapped(config.router)
    except ValueError as error:
        raise ValueError(f"the verilator engine runs address-strapped routers, and "
                         f"{error}: use the amaranth engine") from None
    topology = config.topology
    if config.router.lookahead and topology.degree * topology.address_bits > 64:
        raise ValueError(f"the verilator engine runs address-strapped routers, and "
                         f"lookahead routers of {topology.label} need "
                         f"{topology.degree * topology.address_bits} bits of neighbour "
                         f"addresses, more than its 64-bit straps: use the amaranth "
                         f"engine")


def _strap_values(config, address, tree=None):
    """The strap inputs of node ``address``'s router; the inputs its routing adds
    (:meth:`~cubefab.hdl.modes.Routing.router_members`) held at their initial value
    (``link_up``: every link up, as the fabric's start) and, with ``tree`` (routers
    that flood it), its ``flood`` input at the tree's configuration."""
    values = Router.straps_of(config.router, address)
    router = config.router
    for name, member in router.routing.router_members(router).items():
        if member.flow == In and name != "flood":
            values[name] = member.init
    if tree is not None:
        values["flood"] = flood_value(tree, address,
                                      bool(config.router.multicast)).as_value().value
    return values


def _flit_words(layout):
    """32-bit words of a flit in the flits file (two at least: a port of up to 64 bits
    is written from two, ``words.h``)."""
    return max(2, -(-layout.size // 32))


def router_fabric_header(config, tree=None):
    """``router_fabric.h`` of the fabric ``config`` (a
    :class:`~cubefab.hdl.config.FabricConfig`): the router model, the netlist, each
    node's straps (and, with ``tree``, its flood configuration), the link port
    accessors and the flit fields the main reads."""
    topo = config.topology
    addresses = [int(a) for a in topo.nodes()]
    names = list(_strap_values(config, addresses[0], tree))
    straps = [[f"{_strap_values(config, a, tree)[name]}ULL" for name in names]
              for a in addresses]
    layout = config.router.layout
    setters = " ".join(f"n->{cxx_name(name)} = STRAPS[i][{k}];"
                       for k, name in enumerate(names))
    return "\n".join([
        *netlist_preamble("cubefab.sim.verilator_broadcast", topo, ROUTER_MODULE,
                          "the netlist, the straps, the router's ports, the flit fields"),
        f"// STRAPS[i]: {', '.join(names)} of node i",
        cxx_array("STRAPS", "uint64_t", straps),
        f"static inline void set_straps(Node* n, int i) {{ {setters} }}",
        link_accessors("Node", topo.degree),
        *(f"static inline auto& {port}_{member}(Node* n) "
          f"{{ return n->{cxx_name(f'{port}__{member}')}; }}"
          for port in ("local_in", "local_out") for member in ("payload", "valid", "ready")),
        f"static const int HEAD_LO = {layout['head'].offset};",
        f"static const int TAIL_LO = {layout['tail'].offset};",
        f"static const int FLIT_WORDS = {_flit_words(layout)};",
    ]) + "\n"


class VerilatorRouterFabric(VerilatorModel):
    """A :class:`~cubefab.hdl.fabric.Fabric` compiled as one address-strapped router
    and run by a C++ netlist that injects a list of flits at one node (see the module's
    description).

    Parameters
    ----------
    config : FabricConfig
        The fabric; its routers must be strappable (:func:`check_strappable`).
    opt, jobs
        As for :class:`~cubefab.tools.verilator.VerilatorModel` (the build is
        cached by the topology and the router configuration).
    """

    main_files = ("broadcast_main.cpp", "router_netlist.h", "words.h")

    def __init__(self, config, *, opt="-O2", jobs=None, tree=None):
        if not isinstance(config, FabricConfig):
            raise TypeError(f"Fabric configuration must be a FabricConfig, not {config!r}")
        check_strappable(config)
        topo = config.topology
        if "flood" in config.router.routing.router_members(config.router):
            tree = healthy_tree(topo) if tree is None else tree
            width = flood_layout(topo, bool(config.router.multicast)).size
            if width > 64:
                raise ValueError(f"the verilator engine holds a router's flood "
                                 f"configuration in one 64-bit strap, and "
                                 f"{topo.label}'s takes {width} bits: use the amaranth "
                                 f"engine")
        elif tree is not None:
            raise ValueError("A flood tree needs routers with fault waypoints and "
                             "broadcast VCs")
        #: HealthyTree or None: the tree the routers flood
        self.tree = tree
        key = {"design": "RouterFabric", "family": topo.name, "params": dict(topo.params),
               **config.router.as_dict(),
               **({"flood": sorted(tree.ports.items())} if tree is not None else {})}
        super().__init__(lambda: config, key, name=ROUTER_MODULE, opt=opt, jobs=jobs)
        #: FabricConfig: the fabric simulated
        self.fabric_config = config

    def _sources(self, config):
        files = {ROUTER_MODULE + ".v": reset_less_verilog(Router(config.router, None),
                                                           ROUTER_MODULE)}
        return files, {"router_fabric.h": router_fabric_header(config, self.tree)}, \
            {"inputs": [], "counters": []}

    def run(self, source, packets, *, expected, limit, timeout=None):
        """Offer ``packets`` at ``source``'s ``local_in`` from cycle 0 and run until
        ``expected`` tails have left the ``local_out`` ports and every flit has entered,
        or for ``limit`` cycles.

        Parameters
        ----------
        source : int
            Node address.
        packets : list of dict
            The flits in order, as dicts of the flit layout's fields (others 0).
        expected : int
            Tails to eject in all.
        limit : int
            Most cycles to run.
        timeout : float, optional
            Seconds the simulation binary may take.

        Returns
        -------
        dict
            ``tails`` (address -> the cycles its ``local_out`` ejected a tail),
            ``links`` (the ``(sender, receiver)`` links a flit crossed), ``heads``
            (link -> first cycle a head flit crossed it), ``injected`` (cycles taken
            to inject every flit; None if they did not all enter).
        """
        topo = self.fabric_config.topology
        k = topo.index(topo.check_node(source, "source"))
        expected = check_int("Expected tails", expected, 0)
        limit = check_int("Cycle limit", limit, 1)
        layout = self.fabric_config.router.layout
        words = _flit_words(layout)
        self.build()
        nodes = [int(a) for a in topo.nodes()]
        state = {"tails": {}, "links": set(), "heads": {}, "injected": None}
        with tempfile.NamedTemporaryFile("w", suffix=".flits", delete=False) as handle:
            for flit in packets:
                value = layout.const(flit).as_value().value
                handle.write(" ".join(str((value >> (32 * w)) & 0xFFFFFFFF)
                                      for w in range(words)) + "\n")
        try:
            proc = subprocess.run([self.binary, handle.name, str(k), str(expected),
                                   str(limit)], capture_output=True, text=True,
                                  timeout=timeout)
        finally:
            os.unlink(handle.name)
        if proc.returncode:
            raise VerilatorError(f"simulation binary failed ({proc.returncode}): "
                                 f"{proc.stderr[-2000:]}")
        for line in proc.stdout.splitlines():
            kind, *values = line.split()
            values = [int(v) for v in values]
            if kind == "T":
                state["tails"].setdefault(nodes[values[1]], []).append(values[0])
            elif kind in ("L", "H"):
                cycle, i, p = values
                link = (nodes[i], topo.neighbor(nodes[i], p))
                if kind == "L":
                    state["links"].add(link)
                else:
                    state["heads"].setdefault(link, cycle)
            elif kind == "I":
                state["injected"] = values[0] + 1
        return state
