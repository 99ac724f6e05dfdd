"""The simulator of ``cubefab broadcast --hardware``: ``--engine auto|amaranth|verilator``,
checked against the network's size and the routers before anything is built."""

from math import isqrt

from ..hdl.options import ONE_PORT
from ..cli import CliError
from ..hdl.config import RouterConfig
from ..hdl.route.one_port import OnePortSends
from ..sim.broadcast_run import ENGINES
from .limits import check_channel_graph, check_fabric, check_router_cycles
from .sim import check_engine


__all__ = ["MAX_HARDWARE_NODES", "add_engine_option", "hardware_engine"]


#: Largest network ``cubefab broadcast --hardware`` simulates with Amaranth's simulator
#: (the Verilator engine runs larger ones).
MAX_HARDWARE_NODES = 128
#: Largest network of one-port or multicast routers in either engine: with address
#: straps (Verilator) their units tabulate every (node, source) pair
#: (:func:`~cubefab.hdl.router.check_strapped`).
MAX_TABULATED_NODES = min(MAX_HARDWARE_NODES, isqrt(OnePortSends.MAX_ENTRIES))


def add_engine_option(parser):
    """Add ``--engine`` to ``cubefab broadcast``."""
    parser.add_argument("--engine", choices=("auto",) + ENGINES, default="auto",
                        help=f"--hardware: the simulator (default auto: amaranth up to "
                             f"{MAX_HARDWARE_NODES} nodes, verilator above; one-port and "
                             f"multicast routers up to {MAX_TABULATED_NODES} nodes)")


def hardware_engine(args, topology, model, algorithm):
    """The engine of ``cubefab broadcast --hardware`` (``--engine auto``: amaranth up to
    :data:`MAX_HARDWARE_NODES` nodes, verilator above) for the routers' broadcast
    ``model`` and unicast ``algorithm``; CliError for what it cannot run and, for
    verilator, for what would not fit or would run too long (before anything is
    built)."""
    multicast = ("--subcube" if args.subcube is not None else
                 "--members" if args.members is not None else None)
    tabulated = model == ONE_PORT or multicast is not None
    if tabulated and topology.num_nodes > MAX_TABULATED_NODES:
        raise CliError(f"{topology.label} has {topology.num_nodes} nodes; --hardware "
                       f"simulates {multicast or '--model one-port'} on networks up to "
                       f"{MAX_TABULATED_NODES} nodes")
    engine = args.engine
    if engine == "auto":
        engine = "amaranth" if topology.num_nodes <= MAX_HARDWARE_NODES else "verilator"
    if engine == "amaranth" and topology.num_nodes > MAX_HARDWARE_NODES:
        raise CliError(f"{topology.label} has {topology.num_nodes} nodes; --hardware "
                       f"simulates networks up to {MAX_HARDWARE_NODES} nodes with "
                       f"--engine amaranth")
    if engine == "verilator":
        check_engine(engine)
        # cycles: the broadcast's (a few per address bit: hops), the unicasts' (the
        # source's injection port sends N - 1 packets one after another)
        hops = 8 * topology.address_bits + args.packet_flits
        cycles = hops + args.unicasts * (hops + (topology.num_nodes - 1) * args.packet_flits)
        check_router_cycles(f"the simulation of the {topology.label} fabric",
                            topology.num_nodes, cycles)
        # the deadlock proof of the fabric walks the channel graph; its routers have the
        # unicast and the broadcast VCs (at most as many: a generous estimate)
        check_channel_graph(topology, 1)
        algorithm = topology.check_algorithm(algorithm)
        vcs = RouterConfig.default_vcs(topology, algorithm)
        check_fabric(f"the {topology.label} fabric",
                     RouterConfig(topology, algorithm=algorithm, vcs=2 * vcs), engine)
    return engine
