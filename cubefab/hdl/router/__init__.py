"""The wormhole virtual-channel router of one node, made of parts.

:class:`Router` composes them, each a module of plain functions and small classes
that add their logic to the router's own module (one Amaranth module: the Python
simulator runs it much faster than many small ones, and the Verilog stays flat):

- :mod:`~cubefab.hdl.router.frame`: what every stage reads (the module, the
  configuration, the router's ports);
- :mod:`~cubefab.hdl.router.input_unit`: arrival, cut tails, input buffers, bypass,
  held routes;
- :mod:`~cubefab.hdl.router.route_stage`: the route stage of each routing and hop;
- :mod:`~cubefab.hdl.router.vc_choice`: the VC of the next link;
- :mod:`~cubefab.hdl.router.replication`: replicating queues and their copies;
- :mod:`~cubefab.hdl.router.switch`: switch allocation and crossbar;
- :mod:`~cubefab.hdl.router.adaptive`: adaptive selection, with the escape policy of
  :mod:`cubefab.hdl.route.escape`;
- :mod:`~cubefab.hdl.router.output_unit`: output VCs, credits, output registers;
- :mod:`~cubefab.hdl.router.latency`: zero-load latency.
"""

from ..config import RouterConfig  # noqa: F401  (importable from here, as before)
from .component import Router
from .replication import check_strapped
from .latency import (HOP_LATENCY, ROUTER_LATENCY, HOP_LATENCIES, ROUTER_LATENCIES,
                      zero_load_latency)


__all__ = ["Router", "check_strapped", "HOP_LATENCY", "ROUTER_LATENCY", "HOP_LATENCIES", "ROUTER_LATENCIES",
           "zero_load_latency"]
