"""``cubefab sim TOPO ...``: a self-checking fabric under synthetic load, every flit checked."""

import contextlib
import os

from ..hdl.options import describe
from ..cli import (add_json_option, CliError, add_topology_command, emit, format_table, int_range,
                   fraction, parse_address, add_force_option, input_errors)
from .. import files
from ..hdl.config import HARDWARE_DEFAULTS
from ..hdl.flit import DEFAULT_HEADER
from ..hdl.selfcheck import SelfCheckConfig
from ..progress import Progress, build_stages
from ..sim.engine_choice import AUTO_RULE, choose_engine
from ..sim.run_spec import ENGINES, Engine, Faults, Schedule, SelfCheckRun, Stimulus
from ..sim.selfcheck_run import CHECKS, run_selfcheck
from ..tools.verilator import (VerilatorUnavailable, cache_root,
                                    verilator_missing_reason)
from ..sim.verilator_netlist import Netlist, run_differences
from ..tools.devices import DEVICES
from ..tools.netlist import simulation_synth_command
from ..build.pnr import ToolFailed, ToolMissing
from ..hdl.selfcheck import NODE_MODULE
from .fpga import check_tools
from ..topology.patterns import PATTERNS
from .fault_options import add_fault_options, failing_link_list
from .endpoint_options import add_interface_options, endpoint_interface, endpoint_parameters
from .limits import MAX_CYCLES, check_fabric
from .router_options import PARTS, add_router_options, router_config
from .router_targets import add_sizing_device_option, auto_settings
from .sim_trace import add_trace_options, run_trace_command, trace_given
from .run_options import (SIM_LENGTH, add_hotspot_fraction_option, add_length_options,
                          add_packet_flits_option, add_seed_option, add_traffic_option,
                          packet_flits)


__all__ = ["register", "check_engine", "escape_name", "sizing_device"]

#: The router parts ``cubefab sim`` builds (the self-checking fabric keeps its own
#: buffers, with every turn its routes make).
SIM_PARTS = tuple(part for part in PARTS if part != "storage")


def check_engine(name):
    """CliError when the engine ``name`` cannot run here (Verilator, make or a C++
    compiler missing, or a build cache that cannot be written)."""
    if name == "verilator":
        reason = verilator_missing_reason()
        if reason:
            raise CliError(f"--engine verilator cannot run: {reason}; "
                           f"use --engine amaranth")
        check_cache()


def check_cache():
    """CliError unless the build cache (``$CUBEFAB_CACHE``, else ``~/.cache/cubefab``)
    is a directory this process can create and write in."""
    import tempfile
    root = cache_root()
    where = ("CUBEFAB_CACHE" if os.environ.get("CUBEFAB_CACHE")
             else "the default under $HOME")
    try:
        if os.path.lexists(root) and not os.path.isdir(root):
            raise OSError(0, "it exists and is not a directory")
        os.makedirs(root, exist_ok=True)
        with tempfile.TemporaryFile(dir=root):
            pass
    except (OSError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise CliError(f"the Verilator build cache {root} ({where}) is not a writable "
                       f"directory: {why}; set CUBEFAB_CACHE to one, or use --engine "
                       f"amaranth") from None


def _options(parser):
    add_traffic_option(parser, PATTERNS + ("broadcast",), "broadcast: every packet a "
                       "broadcast, replicated by the routers")
    parser.add_argument("--broadcast-fraction", type=fraction, default=0.0, metavar="F",
                        help="share of packets that are broadcasts, mixed into the "
                             "pattern (default 0); counters then count copies")
    parser.add_argument("--multicast-group", type=parse_address, default=None,
                        metavar="MASK",
                        help="broadcasts go only to their source's group: the nodes "
                             "sharing the source's address bits under MASK (a subcube; "
                             "multicast routers; verilator up to 128 nodes)")
    parser.add_argument("--rate", type=fraction, default=0.1, metavar="R",
                        help="offered load, flits per node per cycle, 0..1 (default 0.1)")
    add_length_options(parser, SIM_LENGTH)
    add_packet_flits_option(parser, fields=True)
    add_seed_option(parser)
    parser.add_argument("--hotspot", type=parse_address, default=None, metavar="A",
                        help="hot node of --traffic hotspot (default: dense index 0)")
    add_hotspot_fraction_option(parser)
    parser.add_argument("--drain", type=int_range(0, MAX_CYCLES), default=None, metavar="N",
                        help="most cycles to wait for outstanding packets afterwards "
                             "(default 20 x nodes + 2000; the run ends once all arrived)")
    parser.add_argument("--engine", default="auto", choices=("auto",) + ENGINES,
                        help="simulation engine; both simulate the same design and give "
                             f"the same results. auto (default) picks {AUTO_RULE}, and "
                             "amaranth for --vcd")
    parser.add_argument("--vcd", default=None, metavar="FILE",
                        help="write a VCD waveform (amaranth engine)")
    parser.add_argument("--netlist", default=None, choices=sorted(DEVICES),
                        metavar="DEVICE",
                        help="also run the same traffic on each node's post-synthesis "
                             "netlist for DEVICE (yosys synth_<family>, the family's cell "
                             "models; verilator engine) and require counters and latency "
                             "histogram identical to the RTL run's (exit 1 otherwise); "
                             "DEVICE: " + ", ".join(sorted(DEVICES)))
    add_fault_options(parser, nodes_help="faulty nodes: fault-tolerant routers route "
                      "around them by waypoints (tables loaded at run time); traffic only "
                      "between healthy nodes")
    parser.add_argument("--fail-link", type=failing_link_list, action="extend", default=[],
                        metavar="U-V@CYCLE", dest="fail_links",
                        help="a link that fails while traffic runs, before run cycle "
                             "CYCLE (from the first warm-up cycle; repeatable, or a comma "
                             "list; fault-tolerant routers): the table entries that "
                             "change are rewritten, what it drops or cuts is counted")
    add_router_options(parser, HARDWARE_DEFAULTS, SIM_PARTS,
                       payload_help="the router verilog and synth build; a packet's "
                                    "24-bit creation timestamp, 8-bit sequence number and "
                                    "check bits fill its first data bits")
    add_sizing_device_option(parser, default=None,
                             default_help="the --netlist DEVICE, else hx8k")
    # the generators' packets through AXI4-Stream endpoints (docs/endpoints.md)
    add_interface_options(parser, default_max_beats=None)
    add_json_option(parser)
    add_force_option(parser)
    add_trace_options(parser)


def _fmt(value, digits=4):
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


#: The rows of the text table of ``cubefab sim``.
ROWS = ("injected", "delivered", "in_flight", "unroutable") + CHECKS + (
    "avg_latency", "p50_latency", "p90_latency", "p99_latency", "max_latency",
    "offered", "throughput", "drain_cycles", "cycles_per_second")


#: The rows a run with links failing mid-run adds.
FAILURE_ROWS = ("lost_to_fault", "dropped", "cut", "table_changes", "reaction_cycles",
                "late_losses", "last_lost_created")


def _check_traffic_options(args):
    """The traffic options against each other (CliError)."""
    if args.traffic == "broadcast" and args.broadcast_fraction:
        raise CliError("--broadcast-fraction mixes broadcasts into a unicast pattern; "
                       "--traffic broadcast is broadcasts only")
    broadcasts = args.traffic == "broadcast" or args.broadcast_fraction > 0
    if args.broadcast_model is not None and not broadcasts and args.broadcast_vcs is None:
        raise CliError("--broadcast-model needs broadcasts (--traffic broadcast, "
                       "--broadcast-fraction or --broadcast-vcs)")
    if args.multicast_group is not None and not broadcasts:
        raise CliError("--multicast-group needs broadcasts to send to the groups "
                       "(--traffic broadcast or --broadcast-fraction)")
    return broadcasts


def _check_interface_options(args, broadcasts):
    """``(data_width, max_beats or None)`` of ``--interface axi-stream`` (None for
    flits), against the traffic and fault options (CliError)."""
    endpoints = endpoint_parameters(args, default_max_beats=None)
    if endpoints is None:
        return None
    given = [option for option, said in (
        ("--traffic broadcast", args.traffic == "broadcast"),
        ("--broadcast-fraction", args.broadcast_fraction > 0),
        ("--broadcast-vcs", args.broadcast_vcs is not None),
        ("--broadcast-model", args.broadcast_model is not None),
        ("--multicast-group", args.multicast_group is not None)) if said]
    if broadcasts or given:
        raise CliError(f"--interface axi-stream sends unicast messages only: leave out "
                       f"{', '.join(given)}")
    given = [option for option, said in (
        ("--waypoints", args.waypoints is not None), ("--faults", bool(args.faults)),
        ("--faulty-links", bool(args.faulty_links)),
        ("--fail-link", bool(args.fail_links))) if said]
    if given:
        raise CliError(f"--interface axi-stream needs deterministic or adaptive routing "
                       f"(the endpoints fill no waypoint headers): leave out "
                       f"{', '.join(given)}")
    return endpoints


def _router(args, topology, broadcasts):
    """The routers' configuration the options describe (CliError)."""
    said = {"broadcast_vcs": "--traffic broadcast" if args.traffic == "broadcast"
            else "--broadcast-fraction"} if broadcasts and args.broadcast_vcs is None else {}
    if args.fail_links and args.waypoints is None:
        said["fault_waypoints"] = "--fail-link"
    elif (args.faults or args.faulty_links) and args.waypoints is None:
        said["fault_waypoints"] = "--faults" if args.faults else "--faulty-links"
    return router_config(args, topology, routers=topology.num_nodes,
                         broadcasts=broadcasts,
                         multicast=args.multicast_group is not None,
                         fault_tolerant=bool(args.fail_links), said=said,
                         **auto_settings(args))


def _check_flood_options(args, topology):
    """The fault options of fault-tolerant routers that broadcast (CliError): no link
    fails mid-run, and the faults leave the healthy network connected (its spanning
    tree is what broadcasts flood)."""
    from ..topology.fault_broadcast import healthy_tree
    from ..topology.fault_routing import FaultSet
    if args.fail_links:
        raise CliError("--fail-link cannot be combined with broadcasts (--broadcast-vcs, "
                       "--broadcast-fraction): a copy dropped at a failed link takes its "
                       "subtree's copies with it, and the flooded tree is not rebuilt "
                       "mid-run")
    try:
        faults = FaultSet(topology, args.faults, args.faulty_links)
    except ValueError:   # (the run's own checks name the option)
        return
    try:
        healthy_tree(topology, faults)
    except ValueError as error:
        options = " and ".join(o for o, given in (("--faults", args.faults),
                                                  ("--faulty-links", args.faulty_links))
                               if given)
        raise CliError(f"{options} leave the healthy network disconnected, so broadcasts "
                       f"cannot flood it: {error}") from None


def sizing_device(args):
    """The device ``sim`` sizes its routers for: ``--device``, else ``--netlist``'s (the
    netlist run simulates what ``synth --device`` of that device builds), else
    ``hx8k``."""
    return args.device or args.netlist or "hx8k"


def _sim(args, topology):
    args.device = sizing_device(args)
    if trace_given(args):
        return run_trace_command(args, topology)
    design, router, drain = _sim_design(args, topology)
    engine, engine_choice = _sim_engine(args, topology, design, router)
    run = _sim_runner(args, topology, design, engine, drain)
    doc = run()
    netlist_line = None
    if args.netlist:
        doc, netlist_line = _netlist_check(args, doc, run)
    doc["engine_choice"] = engine_choice
    doc["router"] = design.router.as_dict()
    emit(args, doc, _sim_text(args, topology, router, doc, engine_choice, netlist_line))
    return 0 if doc["ok"] and not doc.get("netlist_check", {}).get("differences") else 1


def _sim_design(args, topology):
    """``(design, router, drain)`` of ``cubefab sim``'s arguments: the
    :class:`~cubefab.hdl.selfcheck.SelfCheckConfig`, the routers' configuration it
    builds (through endpoints, the one ``synth`` builds beside them) and the
    drain limit (by default ``20 N + 2000`` cycles), every option checked first (the
    engine named, traffic, interface, hot spot, VCD file, flood, one router's cost),
    then the design's own checks.

    Raises
    ------
    CliError
        For an option or design that cannot run.
    """
    check_engine(args.engine)
    broadcasts = _check_traffic_options(args)
    endpoints = _check_interface_options(args, broadcasts)
    if args.hotspot is not None:
        with input_errors():
            topology.check_node(args.hotspot, "--hotspot")
    if args.vcd is not None:
        files.check_output(args.vcd)
    drain = 20 * topology.num_nodes + 2000 if args.drain is None else args.drain
    router = _router(args, topology, broadcasts)
    if router.floods:
        _check_flood_options(args, topology)
    # the cost of the fabric in the cheapest engine it may run in, before the design's
    # own checks (its deadlock proof grows with the network)
    check_fabric(f"the {topology.label} self-checking fabric", router,
                 "amaranth" if args.engine == "amaranth" else "verilator")
    every_broadcast = args.traffic == "broadcast"
    flits = packet_flits(args, router.layout)
    interface = endpoint_interface(endpoints, router, flits, f"{flits}-flit packets")
    with input_errors():        # the design's own checks (deadlock, pattern, groups)
        design = SelfCheckConfig(router, pattern="uniform" if every_broadcast else args.traffic,
                                 packet_flits=flits, hotspot=args.hotspot,
                                 multicast_group=args.multicast_group,
                                 **({"interface": interface} if interface else {}))
    return design, design.router, drain


def _sim_engine(args, topology, design, router):
    """``(engine, engine_choice)``: the engine that runs ``design`` (``--engine``, the
    automatic choice, or the netlist's) and how it was chosen, for the report.

    Raises
    ------
    CliError
        If that engine cannot run here or cannot run the design, or the fabric is too
        large for it.
    """
    engine, engine_choice = args.engine, "--engine " + args.engine
    if engine == "auto":
        with input_errors():
            engine, why = _auto_engine(args, topology, design)
        engine_choice = f"auto: {why}"
        check_engine(engine)
    if args.netlist:
        engine, engine_choice = _netlist_engine(args, engine, engine_choice)
    reason = Engine(engine).refusal(design)
    if reason:
        raise CliError(f"--engine {engine} cannot run this design: {reason}; use "
                       f"--engine amaranth")
    check_fabric(f"the {topology.label} self-checking fabric", router, engine)
    return engine, engine_choice


def _sim_runner(args, topology, design, engine, drain):
    """``run(netlist=None)``: runs ``design`` in ``engine`` as the arguments say (with
    ``netlist``, a :class:`~cubefab.sim.verilator_netlist.Netlist`, its post-synthesis
    netlist) with a progress bar, and returns :func:`~cubefab.sim.selfcheck_run.run_selfcheck`'s
    result; the run's own refusals, a missing Verilator and a failing synthesis
    become CliErrors."""
    stimulus = Stimulus(args.rate, args.seed, args.hotspot_fraction,
                        1.0 if args.traffic == "broadcast" else args.broadcast_fraction)

    def run(netlist=None):
        label = f"sim {topology.label}" + (f" netlist {args.netlist}" if netlist else "")
        progress = Progress(label, unit="cycles")
        try:
            # the run's checks (faults the routers cannot take around) are the user's
            with files.output_path(args.vcd) if args.vcd else contextlib.nullcontext() \
                    as vcd, input_errors():
                value = SelfCheckRun(design, Schedule(args.cycles, args.warmup, drain),
                                     stimulus,
                                     Faults(args.faults, args.faulty_links, args.fail_links),
                                     Engine(engine, vcd=vcd, netlist=netlist))
                return run_selfcheck(value, progress=progress.update,
                                     build_progress=build_stages(
                                         f"the {topology.label} node", cache_root()))
        except VerilatorUnavailable as exc:
            raise CliError(f"{exc}; or use --engine amaranth") from None
        except (ToolMissing, ToolFailed) as exc:
            raise CliError(f"--netlist {args.netlist}: {str(exc).splitlines()[0]}") \
                from None
        finally:
            progress.close()

    return run


def _sim_text(args, topology, router, doc, engine_choice, netlist_line):
    """The text report of a ``cubefab sim`` run's result ``doc``: what ran
    (:func:`_sim_routing`, :func:`_sim_through`), the engine, the table of measures
    (:func:`_sim_rows`), the verdict (:func:`_sim_verdict`) and the netlist
    comparison's line, if any."""
    return "\n".join([
        f"{topology.label}, {_sim_routing(topology, router, doc)}, "
        f"{doc['payload_width']}-bit payloads; {args.traffic} traffic at "
        f"{args.rate} flits/node/cycle, {doc['packet_flits']}-flit packets"
        f"{_sim_through(doc)}, {args.cycles} cycles",
        f"engine: {doc['engine']} ({engine_choice})",
        format_table(["measure", "value"], _sim_rows(doc)), _sim_verdict(doc, router)]
        + ([netlist_line] if netlist_line else []))


def _sim_rows(doc):
    """The rows ``[measure, value]`` of the report's table: :data:`ROWS`, with
    :data:`FAILURE_ROWS` for links failing mid-run and the broadcast figures for runs
    with broadcasts."""
    rows = [[key, _fmt(doc[key])] for key in ROWS]
    if "fail_links" in doc:   # what the links failing mid-run cost, and the reaction
        rows += [[key, _fmt(doc[key])] for key in FAILURE_ROWS]
    if "broadcasts" in doc:
        rows += [["broadcasts", _fmt(doc["broadcasts"])],
                 ["copies_delivered", _fmt(doc["copies_delivered"])]]
        rows += [[f"broadcast_latency {k}", _fmt(v)]
                 for k, v in doc["broadcast_latency"].items()]
    return rows


def _sim_verdict(doc, router):
    """The report's verdict line: ``ok: ...``, what was checked (through endpoints,
    under failing links, for multicasts, broadcasts, waypoint, reference or adaptive
    routes), or ``FAILED: ...``, the problems found."""
    problems = [f"{doc[k]} {k}" for k in ("checker_errors",) + CHECKS
                + (("late_losses",) if "fail_links" in doc else ()) if doc[k]]
    adaptive = doc["adaptive_vcs"] > 0
    if doc["ok"] and "interface" in doc:
        # (the endpoints keep each pair's order whatever the routing)
        return ("ok: every packet delivered once, intact, in order, through the "
                "endpoints, on "
                + ("ports and VCs the adaptive rule allows" if adaptive else
                   "its reference route and VCs"))
    if doc["ok"] and "fail_links" in doc:
        return (f"ok: every packet delivered once, intact, on a waypoint route of its "
                f"fault set (before or after a failure) and VCs, or lost to a failed "
                f"link and counted: {doc['dropped']} dropped whole, {doc['cut']} cut "
                f"({doc['lost_to_fault']} flits); none created after a failure's cycle "
                f"lost ({doc['unroutable']} refused at their source as unroutable)")
    if doc["ok"]:
        return ("ok: every packet and multicast copy delivered once, intact, in order, "
                "on its reference route (a copy: its tree pruned to its group) and VCs"
                if doc.get("multicast_group") is not None else
                "ok: every packet and broadcast copy delivered once, intact, in order, "
                "on its reference route (a copy: its tree) and VCs"
                if "broadcasts" in doc else
                f"ok: every packet delivered once, intact, in order, on its "
                f"{'waypoint' if router.fault_waypoints else 'reference'} route and VCs"
                + (f" ({doc['unroutable']} refused at their source as unroutable)"
                   if router.fault_waypoints else "") if not adaptive else
                f"ok: every packet delivered once, intact, on ports and VCs the adaptive "
                f"rule allows ({doc['reordered']} delivered out of order)")
    return "FAILED: " + (", ".join(problems) if problems else
                         f"{doc['undelivered']} packets undelivered after the drain")


def _sim_routing(topology, router, doc):
    """The report's description of the routing: the algorithm (and escape routing), the
    router in the words of every report (:func:`~cubefab.hdl.options.describe`), then
    what this run adds: the waypoints' faults (and links failing mid-run), the header
    in every flit, the multicast groups."""
    routing = f"{doc['algorithm']} routing"
    if doc["adaptive_vcs"] > 0:
        routing += f" {escape_name(topology, doc)}"
    routing += f", {describe(router)}"
    if router.fault_waypoints:
        count = len(doc["faulty_nodes"]) + len(doc["faulty_links"])
        routing += (f", around nodes {doc['faulty_nodes']} and links {doc['faulty_links']} "
                    f"({count} fault(s), guarantee <= {doc['guarantee']}; "
                    f"{doc['pairs_detoured']} pairs through waypoints, "
                    f"{doc['pairs_cut_off'] + doc['pairs_unroutable']} refused)")
        if "fail_links" in doc:
            routing += ", failing mid-run: " + ", ".join(
                f"{u}-{v} at cycle {c}" for u, v, c in doc["fail_links"])
    if doc.get("header", DEFAULT_HEADER) == "every":
        routing += ", header in every flit"
    if doc.get("multicast_group") is not None:
        routing += f", multicast to groups of mask {doc['multicast_group']}"
    return routing


def _sim_through(doc):
    """The report's note of the AXI4-Stream endpoints the traffic ran through (empty
    without)."""
    if "interface" not in doc:
        return ""
    return (f", through AXI4-Stream endpoints ({doc['data_width']}-bit tdata, "
            f"messages of up to {doc['max_beats']} beats"
            + (f", {doc['message_window']} unacknowledged per destination"
               if doc.get("message_window", 1) > 1 else "")
            + (f", {doc['packing']} packing" if doc.get("packing", "auto") != "auto" else "")
            + ")")


def _netlist_check(args, rtl, run):
    """Run the netlist of ``--netlist`` (``run(Netlist)``) and compare it with the RTL
    run ``rtl``: the netlist run's result with ``netlist_check``, and the line that
    says how they compare."""
    device = DEVICES[args.netlist]
    doc = run(Netlist(args.netlist))
    differences = run_differences(rtl, doc)
    doc["netlist_check"] = {
        "device": args.netlist, "family": device.family.name,
        "synthesis": "yosys " + simulation_synth_command(args.netlist, NODE_MODULE)[0],
        "models": list(device.family.cells_sim), "identical": not differences,
        "differences": differences}
    if differences:
        line = (f"FAILED: the {args.netlist} netlist differs from the RTL in "
                + ", ".join(differences))
    else:
        line = (f"netlist ({device.family.name} {args.netlist}, "
                f"{doc['netlist_check']['synthesis']}): counters and latency histogram "
                f"identical to the RTL run's")
    return doc, line


def escape_name(topology, doc):
    """The escape routing of a run's (or curve's) adaptive ``algorithm``, as text (and
    why it runs adaptively when it must)."""
    from ..topology.adaptive import escape_algorithm, needs_adaptive
    text = f"adaptive over {escape_algorithm(topology, doc['algorithm'])} escape VCs"
    if needs_adaptive(topology, doc["algorithm"]):
        text += f" (the only deadlock-free way to run {doc['algorithm']})"
    return text


def _netlist_engine(args, engine, engine_choice):
    """The verilator engine, which ``--netlist`` needs (CliError otherwise)."""
    if args.engine == "amaranth" or args.vcd:
        raise CliError("--netlist runs the verilator engine: leave out --engine amaranth "
                       "and --vcd")
    check_tools("yosys")
    if engine != "verilator":
        engine_choice = "--netlist: the verilator engine"
    return "verilator", engine_choice


def _auto_engine(args, topology, design):
    """``(engine, why)``: the engine ``--engine auto`` runs
    (:func:`~cubefab.sim.engine_choice.choose_engine`): amaranth for a VCD, which only
    it writes, and for a design Verilator cannot run
    (:meth:`~cubefab.sim.run_spec.Engine.refusal`: one-port or multicast replicating
    routers of more nodes than their straps tabulate); else by the run's size, never
    by the machine's cache."""
    if args.vcd is not None:
        return "amaranth", "only it writes a VCD"
    if Engine("verilator").refusal(design):
        return "amaranth", ("only it runs one-port and multicast routers of constant "
                            "node addresses, which this network's size needs")
    return choose_engine(topology.num_nodes, args.warmup + args.cycles,
                         available=verilator_missing_reason() is None)


def register(sub):
    add_topology_command(sub, "sim", "simulate a self-checking router fabric under load "
                         "and check every flit", _sim, _options)
