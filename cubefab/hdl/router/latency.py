"""Zero-load latency of the router: cycles per hop and per router by hop mode."""

from ..options import BUFFERED, LOOKAHEAD
from ..config import RouterConfig


__all__ = ["HOP_LATENCY", "ROUTER_LATENCY", "HOP_LATENCIES", "ROUTER_LATENCIES",
           "zero_load_latency"]


#: Cycles a head flit takes per hop with no contention: one in the input buffer, one
#: in the output register (``link_out[p].flit`` is a register).
HOP_LATENCY = 2

#: Cycles from a flit accepted on ``local_in`` to it appearing on ``local_out`` of the
#: same router (a packet to itself); a packet of ``L`` flits over ``h`` hops has
#: latency ``ROUTER_LATENCY + h * HOP_LATENCY + L - 1`` from its head's acceptance to
#: its tail's appearance, with no contention.
ROUTER_LATENCY = 2

#: :data:`HOP_LATENCY` by ``RouterConfig.hop``: with ``"lookahead"`` a head flit that
#: finds its input VC empty and its output free goes from the link to the output
#: register in the cycle it arrives.
HOP_LATENCIES = {BUFFERED: HOP_LATENCY, LOOKAHEAD: 1}

#: :data:`ROUTER_LATENCY` by ``RouterConfig.hop`` (the injection queue is bypassed
#: too, but for a replicating router's: a :class:`~cubefab.hdl.replicate.ReplicatingQueue`
#: takes :data:`ROUTER_LATENCY`).
ROUTER_LATENCIES = {BUFFERED: ROUTER_LATENCY, LOOKAHEAD: 1}


def zero_load_latency(config, hops, flits):
    """Cycles from a packet's head accepted on ``local_in`` to its tail on
    ``local_out`` with no contention, for routers of ``config`` (a RouterConfig):
    ``ROUTER_LATENCIES[hop] + hops * (HOP_LATENCIES[hop] + link_stages) + flits - 1``
    (buffered: ``2 + 2 * hops + flits - 1``; lookahead: ``hops + flits``, and ``1 + hops
    + flits`` for a deterministic replicating router, whose unicasts share the
    replicating injection queue, which is not bypassed; each link stage a cycle more a
    hop)."""
    if not isinstance(config, RouterConfig):
        raise TypeError(f"Router configuration must be a RouterConfig, not {config!r}")
    if not isinstance(hops, int) or hops < 0:
        raise ValueError(f"Hops must be a non-negative integer, not {hops!r}")
    if not isinstance(flits, int) or flits < 1:
        raise ValueError(f"Packet length in flits must be a positive integer, not {flits!r}")
    shared = config.fifo_vcs(local=True) == 0   # unicasts in the replicating queue
    router = ROUTER_LATENCY if shared else ROUTER_LATENCIES[config.hop]
    return router + hops * (HOP_LATENCIES[config.hop] + config.link_stages) + flits - 1
