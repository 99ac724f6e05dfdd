"""Route unit of the Mcube: Mroute's routing tables as constant logic, e-cube default."""

from amaranth.hdl import Cat, Mux, Signal

from ...topology.mcube import Mcube
from .base import RouteUnit
from .escape import SeparateEscapePolicy
from .logic import first_true


__all__ = ["McubeRoute", "McubeEscape"]


class McubeRoute(RouteUnit):
    """Mroute (or plain e-cube) of :class:`~cubefab.topology.mcube.Mcube` as logic.

    Parameters
    ----------
    topology : Mcube
        A k-Mcube, ``k <= 12`` (``k <= 7`` when ``node`` is ``None``).
    node : int or None
        This node's address, or ``None`` to read it from the ``here`` input.
    algorithm : str or None
        ``"mroute"`` (default) or ``"ecube"``.

    The default port is the e-cube link of the most significant bit in which ``dest``
    and this node differ (``degree`` when they are equal). For ``mroute`` the node's
    tables RT1/RT2 (mcube.txt Figure 6, :meth:`Mcube.tables`) override it: a
    destination listed in RT2 (the other lateral) goes out on link 0, one listed in
    RT1 on the link the entry names. The tables are constant logic: one ``Switch`` on
    ``dest`` (on ``Cat(dest, here)`` when ``node`` is ``None``) whose cases are the
    entries grouped by link. See :class:`RouteUnit` for the members.
    """

    topology_class = Mcube

    #: Largest k for constant-address units and for units with a ``here`` input.
    MAX_K = 12
    MAX_K_STRAPS = 7

    @classmethod
    def check_parameters(cls, topology, algorithm, node):
        if algorithm == "ecube":
            return
        if node is None and topology.k > cls.MAX_K_STRAPS:
            raise ValueError(f"McubeRoute with a 'here' input holds every node's tables; "
                             f"it is built for k <= {cls.MAX_K_STRAPS}, not k = "
                             f"{topology.k} (give a constant node)")
        if topology.k > cls.MAX_K:
            raise ValueError(f"McubeRoute mroute holds 2**(k-1) - k table entries per "
                             f"node; it is built for k <= {cls.MAX_K}, not k = {topology.k}")

    def _entries(self):
        """{link: [switch keys]} of the table entries (keys as in the docstring)."""
        topo = self.topology
        bits = topo.address_bits
        heres = range(topo.num_nodes) if self.node is None else [self.node]
        groups = {}
        for here in heres:
            prefix = 0 if self.node is not None else here << bits
            rt1, rt2 = topo.tables(here)
            for dest in rt2:
                groups.setdefault(0, []).append(prefix | dest)
            for dest, link in rt1.items():
                groups.setdefault(link, []).append(prefix | dest)
        return groups

    def elaborate_port(self, m):
        topo = self.topology
        k = topo.k
        diff = self.dest ^ self.here_value()
        # e-cube default: priority encoder from the most significant differing bit
        default = first_true([(diff[j], j) for j in reversed(range(k))], topo.degree)
        if self.algorithm == "ecube":
            m.d.comb += self.port.eq(default)
            return
        # Mroute's exceptions to the default, from the node's tables
        hit = Signal()
        link = Signal(range(max(k, 2)))
        key = self.dest if self.node is not None else Cat(self.dest, self.here)
        groups = self._entries()
        if groups:
            with m.Switch(key):
                for value, keys in sorted(groups.items()):
                    with m.Case(*keys):
                        m.d.comb += [hit.eq(1), link.eq(value)]
        m.d.comb += self.port.eq(Mux(hit, link, default))


class McubeEscape(SeparateEscapePolicy):
    """Escape policy of an adaptive Mcube router routing Mroute over its e-cube escape
    (:func:`~cubefab.topology.adaptive.needs_adaptive`): as
    :class:`~cubefab.hdl.route.escape.SeparateEscapePolicy`, and the stream rule: an
    injected head takes e-cube first, on the escape VC while it is uncontested and
    has room, for a packet that loses no hop on it (its e-cube route as short as
    Mroute's, ``route.short``, the adaptive route unit's ``ecube_short``) and for a
    packet to the previous injected packet's destination (a stream): a stream keeps
    one route, in order, and a complement permutation's e-cube routes share no
    link."""

    def steer(self, choice, port, port_vc, calm_escape):
        m, p, v, head, route = choice.m, choice.p, choice.v, choice.head, choice.route
        last_dest = Signal(len(head.dest), name=f"last_dest_p{p}_vc{v}")
        any_last = Signal(name=f"any_last_p{p}_vc{v}")   # (none since reset)
        stream = any_last & (head.dest == last_dest)
        ecube_first = choice.named("ecube_first", 1,
                                   (route.short | stream) & calm_escape.any())
        port = Mux(ecube_first, calm_escape, port)
        port_vc = Mux(ecube_first, route.vc, port_vc)
        with m.If(~choice.active & choice.fifo.r_en):
            m.d.sync += [last_dest.eq(head.dest), any_last.eq(1)]
        return port, port_vc


#: The route unit of the family (found by :func:`~cubefab.hdl.route.factory.route_unit`).
ROUTE_UNIT = McubeRoute

#: The escape policy of its adaptive routers routing Mroute (found by
#: :func:`~cubefab.hdl.route.factory.escape_policy`).
ESCAPE_POLICY = McubeEscape
