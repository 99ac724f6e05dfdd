"""A whole network: one router per node, links wired per the conventions' ports."""

from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..topology.deadlock import DeadlockError, check_deadlock_free
from ..topology.turns import inverse_ports
from .router import Router, configure_router


__all__ = ["Fabric", "configure_fabric", "connect_links"]


def configure_fabric(obj, topology, payload_width, vcs, depth, algorithm, check,
                     vcs_per_class=1, *, buffer="registers", turns="reference"):
    """:func:`~cubefab.hdl.router.configure_router` for a whole network, then (when
    ``check``) prove it deadlock-free: sets ``deadlock_report`` on ``obj`` and raises
    :class:`DeadlockError` if the channel dependency graph has a cycle."""
    configure_router(obj, topology, payload_width, vcs, depth, algorithm, buffer, turns,
                     vcs_per_class=vcs_per_class)
    obj.deadlock_report = None
    if check:
        # the VCs of a class are interchangeable: the class-level graph decides
        obj.deadlock_report = check_deadlock_free(topology, obj.algorithm, obj.vc_classes)
        if not obj.deadlock_report.deadlock_free:
            obj._MustUse__used = True   # refused, not forgotten: no unused warning
            raise DeadlockError(obj.deadlock_report)


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
    """One :class:`~cubefab.hdl.router.Router` per node of ``topology``, every link
    wired (``link_out[p]`` of ``u`` to ``link_in[q]`` of ``neighbor(u, p)``, ``q`` the
    port leading back).

    Parameters
    ----------
    topology : Topology
    payload_width, vcs, depth, algorithm, vcs_per_class, buffer, turns
        Router parameters (see :class:`~cubefab.hdl.router.Router`); ``vcs`` defaults
        to what the VC-assignment function needs. Every router gets them (with
        ``turns="reference"``, the turns reference routes make at its node: all that
        the fabric needs).
    check : bool
        Prove the configuration deadlock-free first (default True).

    Raises
    ------
    DeadlockError
        If the channel dependency graph of the configuration has a cycle; the message
        shows it.

    Members
    -------
    local_in : In(stream.Signature(layout)).array(num_nodes)
    local_out : Out(stream.Signature(layout)).array(num_nodes)
        The injection and ejection ports of every node, indexed by dense node index
        (``topology.index(address)``).
    """

    def __init__(self, topology, *, payload_width=16, vcs=None, depth=4, algorithm=None,
                 vcs_per_class=1, buffer="registers", turns="reference", check=True):
        try:
            configure_fabric(self, topology, payload_width, vcs, depth, algorithm, check,
                             vcs_per_class, buffer=buffer, turns=turns)
        except (TypeError, ValueError):
            self._MustUse__silence = True      # refused, not forgotten: no unused warning
            raise
        n = topology.num_nodes
        #: list of Router, in dense node order (``routers[topology.index(address)]``)
        self.routers = [Router(topology, int(node), **self.router_params())
                        for node in topology.nodes()]
        super().__init__({
            "local_in": In(stream.Signature(self.layout)).array(n),
            "local_out": Out(stream.Signature(self.layout)).array(n),
        })

    def router_params(self):
        """The keyword arguments every router of the fabric is built with."""
        return {"payload_width": self.payload_width, "vcs": self.vcs, "depth": self.depth,
                "algorithm": self.algorithm, "vcs_per_class": self.vcs_per_class,
                "buffer": self.buffer, "turns": self.turns}

    def elaborate(self, platform):
        m = Module()
        for i, node in enumerate(int(a) for a in self.topology.nodes()):
            r = m.submodules[f"router_{node}"] = self.routers[i]
            wiring.connect(m, wiring.flipped(self.local_in[i]), r.local_in)
            wiring.connect(m, r.local_out, wiring.flipped(self.local_out[i]))
        connect_links(m, self.topology, self.routers)
        return m
