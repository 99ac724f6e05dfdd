"""``cubefab deadlock TOPO ...``: the channel dependency graph check (Dally & Seitz)."""

from ..cli import add_topology_command, emit, format_table, int_range, input_errors
from ..progress import working
from ..topology.deadlock import check_deadlock_free
from .limits import MAX_VCS, check_channel_graph, default_vcs


__all__ = ["register"]


#: Measured: about 15 us per channel to build and search the graph.
SECONDS_PER_CHANNEL = 15e-6


def _options(parser):
    parser.add_argument("--algorithm", default=None, metavar="NAME",
                        help="routing algorithm (default: the topology's first)")
    parser.add_argument("--vcs", type=int_range(1, MAX_VCS), default=None, metavar="N",
                        help="virtual channels (default: what the VC assignment needs)")
    parser.add_argument("--json", action="store_true")


def _deadlock(args, topology):
    with input_errors():
        topology.check_algorithm(args.algorithm)
    check_channel_graph(topology, 1)      # what finding the VCs needed takes
    vcs = default_vcs(topology, args.algorithm, args.vcs)
    check_channel_graph(topology, vcs)
    channels = topology.num_nodes * topology.degree * vcs
    with working(f"channel dependency graph of {topology.label}",
                 channels * SECONDS_PER_CHANNEL):
        report = check_deadlock_free(topology, args.algorithm, args.vcs)
    doc = report.as_dict()
    rows = [["channels (link, VC)", report.channels], ["dependencies", report.dependencies],
            ["VCs checked", report.vcs], ["VCs needed", report.required_vcs],
            ["seconds", f"{report.seconds:.2f}"]]
    verdict = ("deadlock-free: the channel dependency graph is acyclic"
               if report.deadlock_free else
               f"CAN DEADLOCK: dependency cycle {report.describe_cycle()}")
    emit(args, doc, f"{topology.label}, {report.algorithm} routing\n"
         + format_table(["", "value"], rows) + "\n" + verdict)
    return 0 if report.deadlock_free else 1


def register(sub):
    add_topology_command(sub, "deadlock", "prove a routing + VC configuration deadlock-free "
                         "(channel dependency graph)", _deadlock, _options)
