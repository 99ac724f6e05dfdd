"""BookSim2 interoperability: the same network, router and routing as BookSim2 input.

:mod:`.export` writes the ``anynet`` network, a configuration of the router that
cubefab's sweeps simulate and cubefab's routing as a next-hop table, read by a
routing function that ``cubefab_table_routing.patch`` (shipped here) adds to
BookSim2; :mod:`.minroute` reproduces BookSim's own ``min`` routes to weigh their
channels; :mod:`.run` runs a BookSim2 binary and reads its statistics.
"""

from .export import (BOOKSIM_ROUTER, BOOKSIM_TRAFFIC, MAX_TABLE_ROUTERS, PATCH_NAME,
                     ROUTINGS, anynet_text, booksim_config, booksim_ports, booksim_router,
                     next_port_table, patch_text, table_text, write_booksim)
from .minroute import min_channel_loads, min_parents
from .run import parse_booksim_output, run_booksim


__all__ = ["BOOKSIM_ROUTER", "BOOKSIM_TRAFFIC", "MAX_TABLE_ROUTERS", "PATCH_NAME",
           "ROUTINGS", "anynet_text", "booksim_config", "booksim_ports", "booksim_router",
           "next_port_table", "patch_text", "table_text", "write_booksim",
           "min_channel_loads", "min_parents", "parse_booksim_output", "run_booksim"]
