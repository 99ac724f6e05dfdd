"""The router options: one module adds them to every command that builds routers and
turns them into a RouterConfig (cubefab.commands.router_options)."""

import copy

import pytest

from cubefab.build.verilog import verilog_text
from cubefab.cli import CliError, build_parser, topology_from_args
from cubefab.commands.router_options import router_config
from cubefab.hdl.config import (BOARD_DEFAULTS, HARDWARE_DEFAULTS, SIMULATION_DEFAULTS,
                                RouterDefaults)
from cubefab.hdl.router import Router
from cubefab.hdl.selfcheck import SelfCheckConfig
from cubefab.topology import Hypercube


def parse(*argv):
    """``argv`` parsed as the command line does, and its topology."""
    args = build_parser().parse_args([str(a) for a in argv])
    return args, topology_from_args(args)


#: Every command that builds routers, as far as its topology, and the defaults it states.
ROUTER_COMMANDS = [
    (("verilog", "router", "hypercube"), HARDWARE_DEFAULTS),
    (("verilog", "fabric", "hypercube"), HARDWARE_DEFAULTS),
    (("synth", "router", "hypercube"), HARDWARE_DEFAULTS),
    (("synth", "fabric", "hypercube"), HARDWARE_DEFAULTS),
    (("sim", "hypercube"), SIMULATION_DEFAULTS),
    (("sweep", "hypercube"), SIMULATION_DEFAULTS),
    (("board", "hypercube"), BOARD_DEFAULTS),
]


@pytest.mark.parametrize("command, defaults", ROUTER_COMMANDS,
                         ids=lambda c: " ".join(c) if isinstance(c, tuple) else None)
def test_help_states_the_defaults_of_its_kind_of_design(cli, command, defaults):
    text = " ".join(cli(*command, "--help").out.split())
    assert f"in flits (default {defaults.depth})" in text
    assert f"payload bits per flit (default {defaults.payload_width}" in text


@pytest.mark.parametrize("command, defaults", ROUTER_COMMANDS,
                         ids=lambda c: " ".join(c) if isinstance(c, tuple) else None)
def help_entries(text):
    """``{option: its help, on one line}`` of a ``--help`` text."""
    entries, option = {}, None
    for line in text.splitlines():
        if line.startswith("  -"):
            option, _, rest = line.strip().partition(" ")
            entries[option.rstrip(",")] = rest
        elif line.startswith("    ") and option is not None:
            entries[option.rstrip(",")] += " " + line.strip()
        else:
            option = None
    return {k: " ".join(v.split()) for k, v in entries.items()}


ROUTER_OPTIONS = ("--algorithm", "--vcs", "--depth", "--vcs-per-class", "--payload-width",
                  "--header", "--hop", "--adaptive", "--adaptive-vcs", "--buffer",
                  "--turns", "--waypoints", "--broadcast-vcs", "--broadcast-model",
                  "--flit-width")


@pytest.mark.parametrize("command, defaults", ROUTER_COMMANDS,
                         ids=lambda c: " ".join(c) if isinstance(c, tuple) else None)
def test_help_states_a_default_for_every_router_option(cli, command, defaults):
    entries = help_entries(cli(*command, "--help").out)
    stated = [option for option in ROUTER_OPTIONS if option in entries]
    assert {"--algorithm", "--vcs", "--depth", "--payload-width"} <= set(stated)
    for option in stated:
        assert "default" in entries[option], (option, entries[option])


@pytest.mark.parametrize("argv, message", [
    (["--broadcast-vcs", "2", "--waypoints", "1"],
     "--broadcast-vcs cannot be combined with --waypoints"),
    (["--broadcast-model", "one-port"], "--broadcast-model one-port needs --broadcast-vcs"),
], ids=lambda a: " ".join(a) if isinstance(a, list) else None)
def test_a_conflict_names_the_options_typed(cli, tmp_path, argv, message):
    r = cli("verilog", "router", "hypercube", "-n", "2", "--node", "0", *argv,
            "-o", tmp_path / "r.v")
    assert r.status == 2 and r.err.startswith(f"error: {message}"), r.err
    assert len(r.err.splitlines()) == 1 and "adaptive_vcs" not in r.err


def test_an_option_another_option_implies_is_named_as_typed(cli):
    r = cli("sim", "hypercube", "-n", "2", "--broadcast-vcs", "2", "--faults", "1")
    assert r.status == 2
    assert r.err.startswith("error: --broadcast-vcs cannot be combined with --faults")


def test_router_config_reads_the_arguments_without_changing_them():
    args, topology = parse("verilog", "router", "hypercube", "-n", "3", "--node", "0",
                           "--flit-width", "24", "--waypoints", "1", "-o", "r.v")
    before = copy.deepcopy(vars(args))
    config = router_config(args, topology)
    assert vars(args) == before
    assert config.layout.size == 24 and config.fault_waypoints == 1


def test_flit_width_and_payload_width_together_are_refused():
    args, topology = parse("verilog", "router", "hypercube", "-n", "2", "--node", "0",
                           "--flit-width", "24", "--payload-width", "8", "-o", "r.v")
    with pytest.raises(CliError, match="give --flit-width or --payload-width, not both"):
        router_config(args, topology)


def test_the_defaults_of_the_command_fill_what_is_left_out():
    args, topology = parse("sim", "hypercube", "-n", "2")
    config = router_config(args, topology)
    assert (config.depth, config.vcs_per_class, config.payload_width) == (
        SIMULATION_DEFAULTS.depth, SIMULATION_DEFAULTS.vcs_per_class,
        SIMULATION_DEFAULTS.payload_width)


@pytest.mark.parametrize("sim_options", [(), ("--adaptive", "--header", "head"),
                                         ("--hop", "lookahead", "--packet-flits", "2"),
                                         ("--broadcast-vcs", "1",)],
                         ids=lambda o: " ".join(o) or "defaults")
def test_verilog_router_writes_the_router_sim_simulates(cli, tmp_path, sim_options):
    """What ``verilog router --help`` promises: sim's router options (the same
    defaults: one router) and the buffer sim reports give that router, byte for
    byte."""
    router_options = [o for o in sim_options if o not in ("--packet-flits", "2")]
    doc = cli("sim", "hypercube", "-n", "2", "--cycles", "10", "--engine", "amaranth",
              *sim_options, "--json").json()
    keys = ("algorithm", "vcs", "depth", "vcs_per_class", "payload_width", "adaptive_vcs",
            "header", "hop", "broadcast_vcs")
    design = SelfCheckConfig.of(Hypercube(2), **{k: doc[k] for k in keys if k in doc})
    simulated = verilog_text(Router(design.router, 1), "cubefab_q2_router_n1")
    out = tmp_path / "r.v"
    r = cli("verilog", "router", "hypercube", "-n", "2", "--node", "1", *router_options,
            "--buffer", doc["buffer"], "-o", out)
    assert r.status == 0, r.err
    assert without_header(out.read_text()) == without_header(simulated)


def without_header(verilog):
    """Generated Verilog without its header comment (which names the command line or
    the library call that made it)."""
    assert verilog.startswith("// Generated by cubefab ")
    return verilog[verilog.index("\n\n"):]


def test_router_defaults_are_validated():
    with pytest.raises(ValueError, match="power of two"):
        RouterDefaults(vcs_per_class=3)
    with pytest.raises(ValueError, match="Buffer depth"):
        RouterDefaults(depth=0)
