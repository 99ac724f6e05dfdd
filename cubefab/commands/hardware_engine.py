"""The simulator of ``cubefab broadcast --hardware``: ``--engine auto|amaranth|verilator``,
checked against the network's size and the routers before anything is built."""

from ..cli import CliError
from ..hdl.config import RouterConfig
from ..sim.broadcast_run import ENGINES
from .limits import check_channel_graph, check_fabric, check_router_cycles
from .sim import check_engine


__all__ = ["MAX_HARDWARE_NODES", "add_engine_option", "hardware_engine"]


#: Largest network ``cubefab broadcast --hardware`` simulates with Amaranth's simulator
#: (the Verilator engine runs larger ones).
MAX_HARDWARE_NODES = 128


def add_engine_option(parser):
    """Add ``--engine`` to ``cubefab broadcast``."""
    parser.add_argument("--engine", choices=("auto",) + ENGINES, default="auto",
                        help=f"--hardware: the simulator (default auto: amaranth up to "
                             f"{MAX_HARDWARE_NODES} nodes, verilator above; one-port and "
                             f"multicast routers run on amaranth only)")


def hardware_engine(args, topology, model, algorithm):
    """The engine of ``cubefab broadcast --hardware`` (``--engine auto``: amaranth up to
    :data:`MAX_HARDWARE_NODES` nodes, verilator above) for the routers' broadcast
    ``model`` and unicast ``algorithm``; CliError for what it cannot run and, for
    verilator, for what would not fit or would run too long (before anything is
    built)."""
    multicast = ("--subcube" if args.subcube is not None else
                 "--members" if args.members is not None else None)
    strapped = model == "all-port" and multicast is None
    engine = args.engine
    if engine == "auto":
        engine = "amaranth" if topology.num_nodes <= MAX_HARDWARE_NODES or not strapped \
            else "verilator"
    if engine == "verilator" and not strapped:
        raise CliError(f"--engine verilator runs address-strapped routers; "
                       f"{multicast or '--model one-port'} "
                       f"needs constant node addresses: use --engine amaranth")
    if engine == "amaranth" and topology.num_nodes > MAX_HARDWARE_NODES:
        raise CliError(f"{topology.label} has {topology.num_nodes} nodes; --hardware "
                       f"simulates networks up to {MAX_HARDWARE_NODES} nodes with "
                       f"--engine amaranth"
                       + ("" if strapped else " (one-port and multicast routers need it)"))
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
