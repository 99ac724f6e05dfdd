"""Verilog from a process whose address space is limited (``ulimit -v``): the
WebAssembly Yosys runs with a small reservation, and writes the same text."""

import subprocess
import sys

from cubefab.hdl.emit import emit_verilog
from cubefab.hdl.route import route_unit
from cubefab.topology.hypercube import Hypercube

#: Verilog of node 1's route unit of Q(3), in a process limited to 2 GiB of address
#: space (less than wasmtime's default reservation for the WebAssembly memory).
CAPPED = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
from cubefab.hdl._emit_yosys import yosys_command
from cubefab.hdl.emit import emit_verilog
from cubefab.hdl.route import route_unit
from cubefab.topology.hypercube import Hypercube
assert yosys_command()[-1].endswith("_emit_yosys.py"), yosys_command()
unit = route_unit(Hypercube(3), 1)
sys.stdout.write(emit_verilog(unit, "unit", [unit.dest, unit.port]))
"""


def _body(text):
    return text.split("\n", 2)[2]      # (the provenance header names the command)


def test_a_limited_address_space_gets_the_same_verilog():
    capped = subprocess.run([sys.executable, "-c", CAPPED], capture_output=True,
                            text=True, check=True).stdout
    unit = route_unit(Hypercube(3), 1)
    assert _body(capped) == _body(emit_verilog(unit, "unit", [unit.dest, unit.port]))
