"""emit_verilog writes lint-clean Verilog by construction: no Verilator ``-Wall``
warning and no slang diagnostic on any kind of generated top, as generated; and the
Verilog it writes is the design Amaranth's own Verilog backend writes (Yosys
equivalence)."""

import re

import pytest

from cubefab.hdl.emit import emit_verilog
from cubefab.hdl.route import route_unit
from cubefab.topology.hypercube import Hypercube

from tests.helpers import refused
from tests.hdl.emit_helpers import (equivalence_status, slang_diagnostics, top_params,
                                    top_text, verilator_warnings)


@pytest.mark.parametrize("top", top_params())
def test_verilator_lint_finds_nothing(top):
    problems = verilator_warnings(top_text(top), top)
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("top", top_params())
def test_slang_finds_nothing_but_the_unread_input_ports_the_file_names(top):
    """Every diagnostic slang has (all of them, as under -Weverything) but
    ``unused-port`` on an input the file says the design does not read (the
    interface keeps it; Verilator's waiver covers the same declaration)."""
    text = top_text(top)
    unread = set(re.findall(r"// (\w+) (?:is|has bits [\d:, ]+) not read by this design", text))
    diagnostics = [d for d in slang_diagnostics(text, top)
                   if not re.search(r"\[unused-port\] unused port signal '(\w+)'", d)
                   or re.search(r"'(\w+)'", d)[1] not in unread]
    assert diagnostics == [], "\n".join(diagnostics)


@pytest.mark.parametrize("top", ["route_q3", "router_q4", "axis_q2"])
def test_no_case_statement_and_no_waiver_but_unread_input_ports(top):
    text = top_text(top)
    assert not re.search(r"\bcase[zx]?\b", text)
    waived = re.findall(r"lint_off (\w+) \*/\n  input ", text)
    assert len(waived) == text.count("lint_off") and set(waived) <= {"UNUSEDSIGNAL"}


def test_every_declaration_has_a_positive_width():
    text = top_text("axis_q2")
    widths = re.findall(r"\b(?:wire|reg) \[(-?\d+):(-?\d+)\]", text)
    assert widths
    for high, low in widths:
        assert int(high) > int(low) == 0, (high, low)


def test_a_port_no_logic_reads_is_declared_with_a_reasoned_waiver():
    text = top_text("route_paper")
    assert ("  // src has bits 7:0 not read by this design; the port stays for the "
            "interface\n  /* verilator lint_off UNUSEDSIGNAL */\n"
            "  input [9:0] src;\n  /* verilator lint_on UNUSEDSIGNAL */\n") in text


def test_a_register_keeps_the_name_of_its_signal():
    text = top_text("router_q3")
    assert re.search(r"^  reg \[2:0\] credit_p0_vc0;$", text, re.MULTILINE)
    assert "initial credit_p0_vc0 = 3'h" in text


def test_a_net_holding_some_bits_of_a_signal_says_which():
    text = top_text("axis_q2")
    assert re.search(r"^  reg \[\d+:0\] fabric__eject_0__ahead;  // bits [\d:, ]+ of "
                     r"fabric\.eject_0\.ahead$", text, re.MULTILINE)


def test_yosys_errors_name_the_module():
    from cubefab.hdl.emit import VerilogEmitError
    with refused(ValueError, match="Module name must be a Verilog identifier"):
        emit_verilog(route_unit(Hypercube(3), 1), "1top", [])
    assert issubclass(VerilogEmitError, RuntimeError)


# -- equivalence with Amaranth's Verilog ---------------------------------------------

def test_a_long_chain_is_cut_into_wires():
    """No statement holds more than CHAIN_LIMIT ``?:`` terms; the rest of the chain is
    in wires of its own (the equivalence test below proves the cut chain equal)."""
    from cubefab.hdl._emit_cells import CHAIN_LIMIT
    statements = top_text("long_chain").split(";")
    assert max(s.count("?") for s in statements) == CHAIN_LIMIT
    assert sum("assign value_rest" in s for s in statements) == 200 // CHAIN_LIMIT


@pytest.mark.parametrize("top", ["route_paper", "route_straps", "router_q3",
                                 pytest.param("router_q4", marks=pytest.mark.slow),
                                 "router_q2_lut_ram", "long_chain", "multicast_q3"])
def test_emitted_verilog_is_equivalent_to_amaranths(top):
    status, init_mismatches = equivalence_status(top)
    assert "Equivalence successfully proven!" in status, status[-3000:]
    assert init_mismatches == []
