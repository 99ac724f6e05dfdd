"""The router being elaborated, as its stages see it: one value passed to each."""

from dataclasses import dataclass

from amaranth.hdl import C, Module, Mux

from ...topology.deadlock import lane_bits, wrap_ports


__all__ = ["Frame", "flow_lane"]


def flow_lane(flit, bits):
    """flow_lane of ``flit``: ``src ^ dest`` XOR-folded to ``bits`` bits (a 0-bit
    value for ``bits == 0``)."""
    flow = flit.src ^ flit.dest
    lane = C(0, 0)
    if not bits:
        return lane
    for at in range(0, len(flow), bits):
        lane = lane ^ flow[at:at + bits]
    return lane


@dataclass(frozen=True)
class Frame:
    """What every stage of one router's ``elaborate`` reads: the module the stages add
    their logic to (``m``) and the router component (``router``: its configuration,
    node and ports). The stages add statements to ``m`` and return what they built;
    nothing is stored on the router.

    Its properties read the router: ``config`` (the RouterConfig), ``topology``,
    ``node`` (the constant address, or None: strapped), ``layout`` (the FlitLayout of
    its links), ``degree`` (network ports; the local port is numbered ``degree``) and
    ``here`` (its address: the ``here`` strap, or the constant node).

    The link inputs the stages read are ``links`` (a
    :class:`~cubefab.hdl.router.link_stage.LinkInputs`: behind the link stages'
    registers), through :meth:`arrival` and :meth:`credits_in`.

    Parameters
    ----------
    m : Module
    router : Router
    links : LinkInputs
    """

    m: Module
    router: object
    links: object

    def arrival(self, p):
        """The flit arriving on network port ``p`` (``valid``, ``payload``), as the
        router's logic sees it: ``link_in[p].flit`` behind the link stages."""
        return self.links.flits[p]

    def credits_in(self, o):
        """The credits returned to network output ``o`` (a bit per VC), as the
        router's logic sees them: ``link_out[o].credit`` behind the link stages."""
        return self.links.credits[o]

    @property
    def config(self):
        return self.router.config

    @property
    def topology(self):
        return self.router.config.topology

    @property
    def node(self):
        return self.router.node

    @property
    def layout(self):
        return self.router.layout

    @property
    def degree(self):
        return self.router.config.topology.degree

    @property
    def here(self):
        return self.router.here if self.node is None else self.node

    def lanes(self):
        """Bits of a VC number that pick the VC within its class."""
        return lane_bits(self.config.vcs_per_class)

    def wraps(self):
        """Per network port, ``wrap(here, port)``: a constant or a strap bit."""
        if self.node is None:
            return [self.router.wrap_mask[o] for o in range(self.degree)]
        return wrap_ports(self.topology, self.node)

    def queues(self):
        """The input queues, (input port, VC): every VC of every network port, then
        those of ``local_in`` (one; an adaptive replicating router's two, the unicast
        FIFO and the replicating queue of broadcasts)."""
        network = [(p, v) for p in range(self.degree) for v in range(self.config.link_vcs)]
        return network + [(self.degree, v) for v in range(self.local_queues())]

    def local_queues(self):
        """The number of injection queues: a FIFO (:meth:`fifo_vcs`), and a
        replicating queue with broadcast VCs; 1 or 2."""
        return self.config.fifo_vcs(local=True) + bool(self.config.broadcast)

    def shared_injection(self, p):
        """Whether input port ``p`` is the local one and its one injection queue, a
        replicating queue, holds unicast packets too."""
        return p == self.degree and self.config.broadcast and self.local_queues() == 1

    def injects(self, bcast):
        """Whether an injection queue takes the flit on ``local_in``: all of them
        where it is the only one; else the replicating queue (``bcast``) its
        broadcasts and the FIFO the rest."""
        if self.local_queues() == 1:
            return self.router.local_in.valid
        flag = self.router.local_in.payload.bcast
        return self.router.local_in.valid & (flag if bcast else ~flag)

    def fifo_vcs(self, p):
        """VCs of input port ``p`` buffered in FIFOs (the first ones; a replicating
        router keeps its broadcast VCs and injection queue in replicating queues)."""
        return self.config.fifo_vcs(local=p == self.degree)

    def in_heads(self, is_head, value, kept):
        """``value``, for a header field the router writes (or clears); with
        ``config.header == "head"`` only heads carry header fields, so a body flit
        (``is_head`` 0) keeps ``kept``, its data bits there."""
        if self.config.header != "head" or not len(value):
            return value
        return Mux(is_head, value, kept)[:len(value)]

    def class_of(self, flit):
        """The escape class ``flit`` carries (a 0-bit value without a ``cls`` field)."""
        return flit.cls if self.config.class_width else C(0, 0)
