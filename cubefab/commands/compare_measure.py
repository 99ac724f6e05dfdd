"""The measured columns of ``cubefab compare``: with ``--simulate`` the saturation
throughput of each network's self-checking fabric under uniform traffic (the fabric sweep
of ``cubefab sweep``, on Dask), with ``--synth`` the LUT4s and Fmax of its router (yosys
and nextpnr, as ``cubefab synth router``). Both measure the one router the router options
describe; a network too large for either gets no figure and a note saying why."""

import os

from .. import files
from ..build.harness import TimingHarness
from ..build.pnr import DEVICES, implement
from ..cli import CliError
from ..hdl.config import HARDWARE_DEFAULTS
from ..hdl.router import Router
from ..hdl.selfcheck import SelfCheckConfig
from ..sim.run_spec import Engine, Schedule, SelfCheckRun
from ..sim.selfcheck_run import ENGINES
from ..sim.sweep import parse_rates, sweep_runs
from ..progress import build_stages
from ..tools.verilator import VerilatorUnavailable, cache_root
from .limits import check_fabric, check_hardware
from .router_options import add_router_options, router_config
from .tool_runs import add_timeout_option, deadline, tool_errors
from .run_options import (SWEEP_LENGTH, add_cluster_options, add_length_options,
                          check_cluster_options)


__all__ = ["add_measure_options", "check_measure_options", "simulate_row", "synth_row",
           "DEFAULT_RATES", "COMPARE_PARTS"]

#: The router options ``compare`` takes (each network keeps its family's routing).
COMPARE_PARTS = ("vcs-per-class", "adaptive", "header", "hop")

#: Offered loads of ``--simulate`` (flits/node/cycle).
DEFAULT_RATES = "0.1:1:0.1"


def add_measure_options(parser):
    """Add ``--simulate`` and ``--synth`` with their options, and the router options."""
    add_router_options(parser, HARDWARE_DEFAULTS, COMPARE_PARTS,
                       payload_help="the router verilog and synth build; the "
                                    "self-checking packets are as many flits as their "
                                    "timestamp and sequence number take")
    parser.add_argument("--simulate", action="store_true",
                        help="also measure saturation throughput: the self-checking "
                             "fabric of every network under uniform traffic at --rates "
                             "(as cubefab sweep; default: no simulation)")
    parser.add_argument("--rates", default=DEFAULT_RATES, metavar="A:B:STEP",
                        help=f"--simulate: offered loads, a:b:step or r1,r2,... "
                             f"(default {DEFAULT_RATES})")
    add_length_options(parser, SWEEP_LENGTH, prefix="--simulate")
    parser.add_argument("--engine", default="verilator", choices=ENGINES,
                        help="--simulate: the engine (default %(default)s)")
    add_cluster_options(parser, prefix="--simulate")
    parser.add_argument("--synth", action="store_true",
                        help="also measure each network's router (node 0's): LUT4s and "
                             "Fmax after yosys and nextpnr on --device (default: no "
                             "synthesis)")
    parser.add_argument("--device", default="hx8k", choices=sorted(DEVICES),
                        help="--synth: the FPGA device (default %(default)s; any of cubefab synth --device)")
    parser.add_argument("--no-pnr", action="store_true",
                        help="--synth: synthesis only, no Fmax (default: place and route)")
    add_timeout_option(parser, "one network's synthesis and place and route", "--synth: ")


def check_measure_options(args):
    """The measuring options against each other (CliError); returns the offered loads of
    ``--rates`` (None without ``--simulate``)."""
    measure_only = {"--rates": args.rates != DEFAULT_RATES, "--jobs": args.jobs is not None,
                    "--scheduler": args.scheduler is not None}
    for option, given in measure_only.items():
        if given and not args.simulate:
            raise CliError(f"{option} sets up --simulate: it needs --simulate")
    for option, given in {"--no-pnr": args.no_pnr, "--timeout": args.timeout}.items():
        if given and not args.synth:
            raise CliError(f"{option} sets up --synth: it needs --synth")
    check_cluster_options(args)
    if args.simulate or args.synth:   # options that conflict do so on any network
        from ..topology import Hypercube
        router_config(args, Hypercube(2))
    if not args.simulate:
        return None
    if args.engine == "verilator":
        from .sim import check_engine
        check_engine(args.engine)
    try:
        return parse_rates(args.rates)
    except ValueError as exc:
        raise CliError(f"--rates: {exc}") from None


def simulate_row(args, topology, rates, client=None, progress=None):
    """The ``simulated`` entry of a row: the fabric sweep's saturation throughput, or
    ``{"note": why not}`` when the fabric would not fit here."""
    what = f"the {topology.label} self-checking fabric"
    try:
        config = router_config(args, topology, routers=topology.num_nodes)
        check_fabric(what, config, args.engine)
    except CliError as exc:
        return {"note": f"not simulated: {exc}"}
    run = SelfCheckRun(SelfCheckConfig(config), Schedule(args.cycles, args.warmup),
                       engine=Engine(args.engine))
    try:
        curve, = sweep_runs([run], rates, client=client, progress=progress,
                            build_progress=build_stages(f"the {topology.label} node",
                                                        cache_root()))
    except VerilatorUnavailable as exc:
        raise CliError(f"{exc}; or use --engine amaranth") from None
    return {"engine": args.engine, "rates": rates, "cycles": args.cycles,
            "warmup": args.warmup, "router": config.as_dict(),
            **{key: curve[key] for key in ("saturated", "saturation_throughput",
                                           "saturation_rate", "max_throughput",
                                           "fraction_of_bound", "ok")},
            "errors": sum(point["errors"] for point in curve["points"])}


def synth_row(args, topology):
    """The ``synthesized`` entry of a row: LUT4s, flip-flops, block RAMs and Fmax of the
    router of the first node, or ``{"note": why not}`` when it would not fit here."""
    what = f"the {topology.label} router"
    try:
        config = router_config(args, topology,
                               **DEVICES[args.device].auto_settings)
        check_hardware(what, config, 1)
    except CliError as exc:
        return {"note": f"not synthesized: {exc}"}
    node = int(topology.nodes()[0])
    limit = deadline(args)
    from amaranth.back import verilog as amaranth_verilog
    text = amaranth_verilog.convert(TimingHarness(Router(config, node)), name="top")
    params = "_".join(f"{k}{v}" for k, v in topology.params.items())
    workdir = os.path.join("build", "compare", f"{topology.name}_{params}_{args.device}")
    files.claim_directory(workdir)
    with tool_errors(args):
        report = implement(text, "top", args.device, workdir, seed=1, pnr=not args.no_pnr,
                           submodule="dut", deadline=limit)
    return {"device": args.device, "node": node, "router": config.as_dict(),
            "lut4": report.lut4, "ff": report.ff, "ram": report.ram,
            "fits": report.fits, "fmax_mhz": report.fmax_mhz, "workdir": workdir}
