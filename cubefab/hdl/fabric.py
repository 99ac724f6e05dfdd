"""A whole network: one router per node, links wired per the conventions' ports."""

from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..topology.fault_broadcast import healthy_tree
from ..topology.turns import inverse_ports
from .config import FabricConfig
from .route.flood import flood_value
from .router import Router


__all__ = ["Fabric", "connect_links"]


def connect_links(m, topology, nodes):
    """Wire ``link_out[p]`` of ``nodes[i]`` to ``link_in[q]`` of the neighbour through
    ``p`` (``q`` the port leading back), for every node (in dense order) and port.
    ``nodes`` are routers or anything with their ``link_in``/``link_out`` members."""
    back = inverse_ports(topology)
    addresses = [int(a) for a in topology.nodes()]
    for i, node in enumerate(addresses):
        for p in range(topology.degree):
            j = topology.index(topology.neighbor(node, p))
            wiring.connect(m, nodes[i].link_out[p], nodes[j].link_in[back[p]])


class Fabric(wiring.Component):
    """One :class:`~cubefab.hdl.router.Router` per node of the topology, every link
    wired (``link_out[p]`` of ``u`` to ``link_in[q]`` of ``neighbor(u, p)``, ``q`` the
    port leading back).

    Parameters
    ----------
    config : FabricConfig
        The topology and the configuration every router gets (with
        ``turns="reference"``, the turns reference routes make at its node: all that
        the fabric needs); a :class:`FabricConfig` that checks deadlock freedom
        (the default) has proved the configuration deadlock-free.
    strapped : bool
        Build address-strapped routers (``node=None``), each held at its node's
        straps (:meth:`Router.strap_values`, and
        :meth:`Router.broadcast_strap_values` for replicating routers): the design a
        simulator compiles once for every node. Default False: a router per node
        address.
    tree : HealthyTree, optional
        Only for routers that flood broadcasts (``config.router.floods``: fault
        waypoints and broadcast VCs): the spanning tree of the healthy network
        (:func:`~cubefab.topology.fault_broadcast.healthy_tree`) whose flood
        configuration (:func:`~cubefab.hdl.route.flood.flood_value`) every router
        holds; default the fault-free network's.

    Members
    -------
    local_in : In(stream.Signature(layout)).array(num_nodes)
    local_out : Out(stream.Signature(layout)).array(num_nodes)
        The injection and ejection ports of every node, indexed by dense node index
        (``topology.index(address)``).
    """

    def __init__(self, config, *, strapped=False, tree=None):
        if not isinstance(config, FabricConfig):
            raise TypeError(f"Fabric configuration must be a FabricConfig, not {config!r}")
        topology = config.topology
        if tree is not None and not config.router.floods:
            raise ValueError("A flood tree needs routers with fault waypoints and "
                             "broadcast VCs")
        if config.router.floods and tree is None:
            tree = healthy_tree(topology)
        if tree is not None and tree.topology != topology:
            raise ValueError(f"Flood tree must be one of {topology.label}, not {tree!r}")
        #: HealthyTree or None: the tree the routers flood
        self.tree = tree
        #: FabricConfig: what this fabric is built from
        self.config = config
        self.topology = topology
        #: FlitLayout: the flits of its links
        self.layout = config.router.layout
        #: list of Router, in dense node order (``routers[topology.index(address)]``)
        self.strapped = bool(strapped)
        self.routers = [Router(config.router, None if strapped else int(node))
                        for node in topology.nodes()]
        n = topology.num_nodes
        super().__init__({
            "local_in": In(stream.Signature(self.layout)).array(n),
            "local_out": Out(stream.Signature(self.layout)).array(n),
        })

    def elaborate(self, platform):
        m = Module()
        for i, node in enumerate(int(a) for a in self.topology.nodes()):
            r = m.submodules[f"router_{node}"] = self.routers[i]
            wiring.connect(m, wiring.flipped(self.local_in[i]), r.local_in)
            wiring.connect(m, r.local_out, wiring.flipped(self.local_out[i]))
            if self.strapped:
                straps = Router.straps_of(self.config.router, node)
                m.d.comb += [getattr(r, name).eq(value) for name, value in straps.items()]
            if self.tree is not None:
                m.d.comb += r.flood.eq(flood_value(self.tree, node,
                                                   bool(self.config.router.multicast)))
        connect_links(m, self.topology, self.routers)
        return m
