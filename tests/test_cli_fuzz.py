"""Every subcommand under hostile input (hypothesis).

Each example runs one command line whose options carry generated values - negative,
zero, huge, non-numeric, non-ASCII digits, NaN/inf, empty, random text, and output
paths that are directories, lie under a missing directory or a file, sit in a
read-only directory or are a user's existing file - in a fresh sandbox directory,
and asserts:

- the exit status is 0, 1 or 2 (never 3: an internal error), with no traceback;
- status 2 comes with exactly one ``error: ...`` line on stderr;
- nothing outside the output paths changed: the user's files are intact (unless
  ``--force`` named them), new files lie under the output paths, no temporary file
  is left behind;
- the call ends within a time limit.

The default run keeps a fast budget (in-process calls; commands whose work takes
seconds - simulation, Verilog of routers and fabrics, synthesis, boards, the demo -
always get at least one invalid value there, so only their validation runs) plus
the issue's size bombs in subprocesses under a memory cap. ``-m slow`` runs many
more examples, valid heavy runs included, and size bombs for every command.
"""

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from typing import NamedTuple

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from cubefab import files
from cubefab.cli import main

from tests.helpers import alarm_after


#: A line of the progress a long command reports on stderr (cubefab.progress): a stage
#: begun or done (``[2/4] yosys synth_ice40 ...``), a stage still running (indented),
#: a Verilator model being built.
PROGRESS_LINE = re.compile(r"\[\d+/\d+\] |  \S|building the Verilator model ")


# ---------------------------------------------------------------- value pools
INTS = ["-1", "0", "1", "2", "3", "-0", "+2", "64", "65", "4096", "99999999999999999999999",
        str(2 ** 64), "1e3", "0x10", "abc", "\u0663", "\uff13", "", " ", "nan", "inf",
        "-inf", "1.5", "1_000", "\u0661\u0662"]
FLOATS = ["-0.1", "0", "1", "0.5", "0.05", "1.0000001", "nan", "NaN", "inf", "-inf",
          "1e308", "1e-320", "", "abc", "\u0660.\u0665", "0x1p-2", "\u00bd", "-0"]
ADDRESSES = ["-1", "0", "1", "2", "0b1", "0x1", "0b", "0x", "ff", "9" * 30, "\u0663", "",
             "1_0", "0b102"]
NAMES = ["", " ", "x", "ecube", "minimal", "paper", "..", "-", "\u00e9", "a" * 300,
         "top", "1x", "\x00"]
LISTS = ["", ",", "1", "1,2", "0", "-1", "1,,2", "\u0663", "99999999", "a,b"]
LINKS = ["", "0-1", "0-3", "1-0", "0-1-2", "a-b", "-", "0-99999999", "\u0663-1"]
FAILING = ["", "0-1@5", "0-1", "0-1@", "0-1@-1", "0-3@2", "1-0@99999999", "a-b@1", "@3",
           "0-1@5,0-1@6", "\u0663-1@2"]
RATES = ["0.1", "0.1:0.2:0.1", "0:1:0", "0:inf:0.1", "0.1:1:1e-12", "nan", "", "1,2",
         "0.1,nan", "-0.1", "0.2:0.1:0.1", "a:b:c"]
#: (path kind, ext): how an output path is made in the sandbox (see _path).
FILE_KINDS = ["fresh", "adir", "missing", "user", "readonly", "empty", "under_file", "bad_ext"]
DIR_KINDS = ["fresh", "adir", "missing", "user_file", "readonly", "empty", "under_file",
             "claimed"]

# values that every option of the kind must reject (used to keep heavy commands fast)
SURE_BAD = {"int": ["", "abc", "\u0663", "nan", "-1", "1e999", "1.5"],
            "float": ["nan", "inf", "", "abc", "-1", "\u0660.\u0665"],
            "address": ["-1", "", "zz", "\u0663"],
            "name": ["", "\x00", "a" * 300],
            "file": ["adir", "empty", "under_file", "user"],
            "dir": ["user_file", "empty", "under_file"]}

POOLS = {"int": INTS, "float": FLOATS, "address": ADDRESSES, "name": NAMES,
         "list": LISTS, "links": LINKS, "failing": FAILING, "rates": RATES, "file": FILE_KINDS,
         "dir": DIR_KINDS}


class Spec(NamedTuple):
    """A command: its words, the families it takes, its required options (valid,
    cheap values), the options fuzzed (name -> kind, a kind of POOLS, "flag" or a
    list of choices) and its file extension for outputs; ``companions``: the
    extensions of files it may write beside a file output (``verilog``: the FuseSoC
    core ``TOP.core``)."""
    words: tuple
    families: tuple
    required: dict
    options: dict
    heavy: bool = False
    ext: str = ".txt"
    default_outputs: tuple = ()
    companions: tuple = ()


ALL = ("hypercube", "metacube", "dualcube", "dlh", "mcube")
ROUTER = {"--algorithm": "name", "--vcs": "int", "--depth": "int", "--vcs-per-class": "int",
          "--payload-width": "int", "--adaptive": "flag", "--adaptive-vcs": "int",
          "--header": ["every", "head", "x"]}
HW = dict(ROUTER, **{"--flit-width": "int", "--buffer": ["auto", "registers", "memory", "x"],
                     "--turns": ["reference", "all", ""], "--waypoints": "int",
                     "--broadcast-vcs": "int",
                     "--broadcast-model": ["all-port", "one-port", "x"]})
VERILOG = {"-o": "file", "--top": "name", "--json": "flag", "--force": "flag"}
ENDPOINTS = {"--interface": ["flits", "axi-stream", "x"], "--data-width": "int",
             "--max-beats": "int"}
SYNTH = {"--workdir": "dir", "--json": "flag", "--force": "flag"}
PNR = {"--device": ["hx8k", "up5k", "x"], "--seed": "int", "--no-pnr": "flag"}
SIM = dict(ROUTER, **{"--traffic": ["uniform", "hotspot", "transpose", "broadcast", "x"],
                      "--broadcast-fraction": "float", "--broadcast-vcs": "int",
                      "--multicast-group": "address",
                      "--broadcast-model": ["all-port", "one-port", "x"],
                      "--rate": "float", "--cycles": "int", "--packet-flits": "int",
                      "--seed": "int", "--hotspot": "address", "--hotspot-fraction": "float",
                      "--drain": "int", "--engine": ["amaranth", "verilator", "x"],
                      "--vcd": "file", "--json": "flag", "--force": "flag",
                      "--faults": "list", "--faulty-links": "links", "--waypoints": "int",
                      "--fail-link": "failing"}, **ENDPOINTS)

#: A result of the user's that ``plot`` draws (``compare --json``), in the sandbox.
RESULT = "result.json"
RESULT_SOURCE = os.path.join(os.path.dirname(__file__), "figures", "data",
                             "compare_nodes64.json")

SPECS = {
    "info": Spec(("info",), ALL, {}, {"--json": "flag"}),
    "edges": Spec(("edges",), ALL, {}, {}),
    "route": Spec(("route",), ALL, {"--src": "0", "--dst": "1"},
                  {"--src": "address", "--dst": "address", "--algorithm": "name",
                   "--json": "flag"}),
    "paths": Spec(("paths",), ALL, {"--src": "0", "--dst": "1"},
                  {"--src": "address", "--dst": "address", "--faults": "list",
                   "--faulty-links": "links", "--plot": "file", "--json": "flag",
                   "--force": "flag"}, ext=".png"),
    "broadcast": Spec(("broadcast",), ALL, {"--src": "0"},
                      {"--src": "address", "--model": ["one-port", "all-port", "x"],
                       "--algorithm": "name", "--plot": "file", "--json": "flag",
                       "--hardware": "flag", "--packet-flits": "int", "--unicasts": "flag",
                       "--subcube": "name", "--members": "list",
                       "--engine": ["auto", "amaranth", "verilator", "x"],
                       "--force": "flag"}, heavy=True, ext=".svg"),
    "deadlock": Spec(("deadlock",), ALL, {}, {"--algorithm": "name", "--vcs": "int",
                                              "--adaptive": "flag", "--adaptive-vcs": "int",
                                              "--broadcast": "flag", "--broadcast-vcs": "int",
                                              "--replication": ["buffered", "wormhole", "x"],
                                              "--model": ["all-port", "one-port", "x"],
                                              "--faults": "list", "--faulty-links": "links",
                                              "--waypoints": "int", "--json": "flag"}),
    "optical": Spec(("optical",), ("hypercube", "dlh"), {},
                    {"--plot": "file", "--highlight": "address", "--json": "flag",
                     "--force": "flag"}, ext=".png"),
    "mcube-report": Spec(("mcube-report",), ("mcube",), {},
                         {"--construction": ["hem", "algorithmic", "x"], "--json": "flag"}),
    "export booksim": Spec(("export", "booksim"), ALL, {"-o": "out"},
                           {"-o": "dir", "--traffic": ["uniform", "transpose", "x"],
                            "--rate": "float", "--packet-flits": "int", "--vcs": "int",
                            "--buffer": "int", "--seed": "int", "--json": "flag",
                            "--force": "flag"}),
    "verilog route": Spec(("verilog", "route"), ALL, {"--node": "0", "-o": "out.v"},
                          dict(VERILOG, **{"--node": "address", "--algorithm": "name"}),
                          ext=".v", companions=(".core",)),
    "verilog router": Spec(("verilog", "router"), ALL, {"--node": "0", "-o": "out.v"},
                           dict(VERILOG, **HW, **{"--node": "address"}), heavy=True,
                           ext=".v", companions=(".core",)),
    "verilog fabric": Spec(("verilog", "fabric"), ALL, {"-o": "out.v"},
                           dict(VERILOG, **HW, **ENDPOINTS), heavy=True, ext=".v",
                           companions=(".core",)),
    "synth route": Spec(("synth", "route"), ALL, {"--node": "0", "--workdir": "work"},
                        dict(SYNTH, **{"--node": "address", "--algorithm": "name"}),
                        heavy=True, default_outputs=("build",)),
    "synth router": Spec(("synth", "router"), ALL, {"--node": "0", "--workdir": "work"},
                         dict(SYNTH, **HW, **PNR, **{"--node": "address"}), heavy=True,
                         default_outputs=("build",)),
    "synth fabric": Spec(("synth", "fabric"), ALL, {"--workdir": "work"},
                         dict(SYNTH, **HW, **PNR, **ENDPOINTS, **{"--by-part": "flag"}),
                         heavy=True,
                         default_outputs=("build",)),
    "sim": Spec(("sim",), ALL, {"--cycles": "3"}, SIM, heavy=True, ext=".vcd"),
    "sweep": Spec(("sweep",), ALL, {"--rates": "0.1", "--engine": "amaranth",
                                    "--cycles": "5", "--warmup": "0"},
                  {"--rates": "rates", "--cycles": "int", "--warmup": "int", "--seed": "int",
                   "--packet-flits": "int", "--vcs": "int", "--depth": "int",
                   "--vcs-per-class": "int", "--hotspot-fraction": "float", "--jobs": "int",
                   "--engine": ["amaranth", "verilator", "x"], "--algorithm": "name",
                   "--adaptive": "name", "--adaptive-vcs": "int",
                   "--faults": "int", "--waypoints": "int",
                   "--plot": "file", "--json": "flag", "--force": "flag"},
                  heavy=True, ext=".png"),
    "board": Spec(("board",), ALL, {"--board": "icestick", "-o": "bits"},
                  {"-o": "dir", "--board": ["icestick", "icebreaker", "x"],
                   "--payload-width": "int", "--depth": "int", "--queue-depth": "int",
                   "--vcs": "int", "--rate": "float", "--seed": "int", "--json": "flag",
                   "--adaptive": "flag", "--adaptive-vcs": "int", "--algorithm": "name",
                   "--force": "flag", **ENDPOINTS}, heavy=True),
    "compare": Spec(("compare",), (), {"--nodes": "64"},
                    {"--nodes": "int", "--bfs-max-nodes": "int", "--walk-max-nodes": "int",
                     "--plot": "file", "--plot-max-nodes": "int", "--json": "flag",
                     "--force": "flag"}, heavy=True, ext=".png"),
    "demo": Spec(("demo",), (), {}, {"-o": "dir", "--json": "flag", "--force": "flag"},
                 heavy=True, default_outputs=("build",)),
    "modes": Spec(("modes",), (), {}, {"--json": "flag"}),
    "plot": Spec(("plot", RESULT), (), {"-o": "out.png"},
                 {"-o": "file", "--no-caption": "flag", "--json": "flag", "--force": "flag"},
                 heavy=True, ext=".png"),
}

#: Small networks, and the parameters of each family.
TOPOLOGIES = {"hypercube": [("-n", "2")], "metacube": [("-k", "1"), ("-m", "1")],
              "dualcube": [("-m", "1")], "dlh": [("-m", "2"), ("-d", "1")],
              "mcube": [("-k", "3")]}
#: Topology parameter values tried: small, invalid and too large for any command's work.
TOPOLOGY_VALUES = ["0", "1", "2", "3", "-1", "", "abc", "\u0663", "40", "62", "63",
                   "999999999999"]


# ---------------------------------------------------------------- the sandbox
USER_TEXT = "the user's precious data\n"



def _sandbox(root):
    """The files a user has: a directory of theirs, files of theirs with every output
    extension, a plain file, a read-only directory, a directory cubefab claimed."""
    os.makedirs(os.path.join(root, "adir"))
    with open(os.path.join(root, "adir", "keep.txt"), "w") as f:
        f.write(USER_TEXT)
    for ext in (".txt", ".png", ".svg", ".v", ".vcd"):
        with open(os.path.join(root, "user" + ext), "w") as f:
            f.write(USER_TEXT)
    with open(os.path.join(root, "file.txt"), "w") as f:
        f.write(USER_TEXT)
    shutil.copyfile(RESULT_SOURCE, os.path.join(root, RESULT))
    os.makedirs(os.path.join(root, "ro"))
    os.chmod(os.path.join(root, "ro"), 0o555)
    files.claim_directory(os.path.join(root, "claimed"))


def _path(kind, ext, is_dir):
    """The command-line value of an output path of ``kind`` (relative to the sandbox)."""
    return {"fresh": "outdir" if is_dir else "out" + ext,
            "adir": "adir",
            "missing": os.path.join("missing", "sub", "outdir" if is_dir else "out" + ext),
            "user": "user" + ext, "user_file": "file.txt",
            "readonly": os.path.join("ro", "outdir" if is_dir else "out" + ext),
            "empty": "", "under_file": os.path.join("file.txt", "out" + ext),
            "bad_ext": "out.bad", "claimed": "claimed"}[kind]


def _snapshot(root):
    state = {}
    for directory, dirs, names in os.walk(root):
        for name in dirs + names:
            path = os.path.join(directory, name)
            rel = os.path.relpath(path, root)
            if os.path.isdir(path):
                state[rel] = "dir"
            else:
                with open(path, "rb") as f:
                    state[rel] = hashlib.sha1(f.read()).hexdigest()
    return state


def _under(rel, prefix):
    prefix = os.path.normpath(prefix)
    return rel == prefix or rel.startswith(prefix + os.sep)


def _check_files(before, after, file_outputs, dir_outputs, default_outputs, forced,
                 companions=()):
    """Nothing but the outputs (and new files with a ``companions`` extension beside a
    file output) changed; the user's files are intact."""
    for rel, digest in before.items():
        if rel in file_outputs and forced:
            continue
        if digest == "dir":
            assert after.get(rel) == "dir", f"directory {rel} vanished"
            continue
        if rel.endswith(files.MANIFEST):
            continue
        assert after.get(rel) == digest, f"{rel} was changed or removed"
    ancestors = {os.path.dirname(p) for p in file_outputs} | set(dir_outputs)
    for rel in after.keys() - before.keys():
        name = os.path.basename(rel)
        assert ".tmp" not in name, f"temporary file {rel} left behind"
        allowed = (rel in file_outputs
                   or (os.path.splitext(name)[1] in companions
                       and os.path.dirname(rel) in {os.path.dirname(p) for p in file_outputs})
                   or (name == files.MANIFEST and os.path.dirname(rel) in ancestors)
                   or any(_under(rel, d) for d in dir_outputs + list(default_outputs))
                   or (after[rel] == "dir" and any(_under(a, rel) for a in ancestors)))
        assert allowed, f"{rel} was written outside the output paths"


# ---------------------------------------------------------------- one call
class _Timeout(BaseException):
    pass


def run_in_sandbox(spec_name, family, topology, options, limit):
    """Run the command line in a fresh sandbox (in-process, ``limit`` seconds) and
    check the contract; ``options`` is [(option, kind, raw value)]."""
    spec = SPECS[spec_name]
    with tempfile.TemporaryDirectory(prefix="cubefab-fuzz-") as root:
        _sandbox(root)
        values = dict(spec.required)
        file_outputs, dir_outputs = [], []
        for option, kind, value in options:
            if kind in ("file", "dir"):
                value = _path(value, spec.ext, kind == "dir")
            values[option] = value
        argv = list(spec.words) + ([family] + [x for p in topology for x in p]
                                   if family else [])
        for option, value in values.items():
            kind = spec.options.get(option)
            if kind == "flag":
                if value:
                    argv.append(option)
                continue
            argv += [option, value]
            if kind == "file" or (option == "-o" and spec.words[0] == "verilog"):
                file_outputs.append(os.path.normpath(value) if value else value)
            elif kind == "dir" or option in ("-o", "--workdir"):
                dir_outputs.append(os.path.normpath(value) if value else value)
        forced = bool(values.get("--force"))
        before = _snapshot(root)
        cwd = os.getcwd()
        timed_out = False
        os.chdir(root)
        try:
            with alarm_after(limit, _Timeout):
                status, out, err = _call(argv)
        except _Timeout:
            timed_out = True
        finally:
            os.chdir(cwd)
            os.chmod(os.path.join(root, "ro"), 0o755)
        assert not timed_out, f"cubefab {' '.join(argv)!r} ran past {limit} s"
        assert "ran past" not in err
        assert status in (0, 1, 2), f"exit {status} for {argv!r}:\n{err}"
        assert "Traceback" not in err, f"traceback for {argv!r}:\n{err}"
        if status == 2:
            # one error line, last; before it only the stages a long command reports
            lines = err.strip().splitlines()
            assert lines[-1].startswith("error: ") and all(
                PROGRESS_LINE.match(line) for line in lines[:-1]), \
                f"status 2 needs one error line for {argv!r}, got:\n{err}"
        after = _snapshot(root)
        _check_files(before, after, [p for p in file_outputs if p],
                     [d for d in dir_outputs if d], spec.default_outputs, forced,
                     spec.companions)


def _call(argv):
    """cubefab ARGV in-process: (status, stdout, stderr)."""
    import contextlib
    import io
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except _Timeout:
            raise
    text = err.getvalue()
    if status == 3 and "_Timeout" in text:
        raise _Timeout()
    return status, out.getvalue(), text


# ---------------------------------------------------------------- strategies
def _value(kind):
    if kind == "flag":
        return st.booleans()
    if isinstance(kind, list):
        return st.sampled_from(kind + ["", "\u00e9"])
    pool = st.sampled_from(POOLS[kind])
    if kind in ("file", "dir"):
        return pool
    return st.one_of(pool, st.text(max_size=6))


@st.composite
def command_lines(draw, spec_name, fast):
    spec = SPECS[spec_name]
    family = draw(st.sampled_from(spec.families)) if spec.families else None
    topology = list(TOPOLOGIES[family]) if family else []
    if family and spec_name != "info" and draw(st.integers(0, 3)) == 0:
        # a hostile topology parameter (info's own size limits: issue 21)
        i = draw(st.integers(0, len(topology) - 1))
        topology[i] = (topology[i][0], draw(st.sampled_from(TOPOLOGY_VALUES)))
    names = sorted(spec.options)
    chosen = draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True)) \
        if names else []
    options = []
    for option in chosen:
        kind = spec.options[option]
        options.append((option, kind, draw(_value(kind))))
    if fast and spec.heavy:
        # keep the work out of the default run: one value every command must refuse
        candidates = [o for o in names if isinstance(spec.options[o], str)
                      and spec.options[o] in SURE_BAD]
        option = draw(st.sampled_from(candidates))
        kind = spec.options[option]
        options = [o for o in options if o[0] != option and o[0] != "--force"]
        options.append((option, kind, draw(st.sampled_from(SURE_BAD[kind]))))
    return family, topology, options


FAST_EXAMPLES = {True: 4, False: 20}     # heavy, light (the long run below draws more)


def fuzz(spec_name, examples, fast, limit):
    """Run ``examples`` generated command lines of ``spec_name``."""
    # the default run draws the same examples every time (CI stays reproducible); the
    # long run under -m slow explores anew each time, but in CI (its slow shard), where
    # a run must be repeatable, it draws the same ones too
    @settings(max_examples=examples, deadline=None, database=None,
              derandomize=fast or bool(os.environ.get("CI")),
              suppress_health_check=list(HealthCheck))
    @given(command_lines(spec_name, fast=fast))
    def check(line):
        family, topology, options = line
        run_in_sandbox(spec_name, family, topology, options, limit=limit)
    check()


@pytest.mark.parametrize("spec_name", sorted(SPECS))
def test_hostile_options(spec_name):
    fuzz(spec_name, FAST_EXAMPLES[SPECS[spec_name].heavy], fast=True, limit=20)


#: Examples of the long run, and fewer for commands whose every valid run is long and
#: whose options are few: ``demo`` (three options, about a minute a run: 12 runs took
#: 1,072 s) and ``board`` (a valid run places and routes a bitstream: 150 runs ran past
#: 5,400 s); ``synth router`` and ``synth fabric`` place and route too (24 runs of
#: ``synth fabric`` took 1,235 s); ``plot`` draws a figure a run (about a second). No
#: command's run takes much over 10 minutes, so that a CI shard stays short.
LONG_EXAMPLES = 150
LONG_EXAMPLES_OF = {"demo": 6, "board": 12, "synth router": 24, "synth fabric": 12,
                    "plot": 40}

#: Seconds one command of the long run may take, and more for the synthesis commands:
#: a valid ``synth router dlh -m 2 -d 1 --adaptive`` fills 79 % of the HX8K, and
#: nextpnr clears its routing congestion in over 10 minutes on a loaded 2-core machine.
LONG_LIMIT = 600
LONG_LIMIT_OF = {"synth router": 1800, "synth fabric": 1800}


def long_fuzz_params():
    """The commands of the long run (a list of params), those with a longer limit with
    a timeout to match."""
    params = []
    for spec_name in sorted(SPECS):
        limit = LONG_LIMIT_OF.get(spec_name, LONG_LIMIT)
        marks = [pytest.mark.timeout(4 * limit)] if limit > LONG_LIMIT else []
        params.append(pytest.param(spec_name, limit, marks=marks, id=spec_name))
    return params


@pytest.mark.slow
@pytest.mark.parametrize(("spec_name", "limit"), long_fuzz_params())
def test_hostile_options_long(spec_name, limit):
    fuzz(spec_name, LONG_EXAMPLES_OF.get(spec_name, LONG_EXAMPLES), fast=False, limit=limit)


# ---------------------------------------------------------------- size bombs
MEMORY_CAP = 2 << 30
_CAPPED = ("import resource, sys\n"
           f"resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_CAP}, {MEMORY_CAP}))\n"
           "from cubefab.cli import main\n"
           "sys.exit(main(sys.argv[1:]))\n")


def run_capped(argv, cwd, limit=60):
    """cubefab ARGV in a subprocess under a memory cap: (status, stderr)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
        + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    result = subprocess.run([sys.executable, "-c", _CAPPED, *argv], cwd=cwd, env=env,
                            capture_output=True, text=True, timeout=limit)
    return result.returncode, result.stderr


#: The issue's examples: each must be refused at once, with the estimate and the limit.
SIZE_BOMBS = [
    "deadlock hypercube -n 30",
    "deadlock hypercube -n 16 --adaptive",
    "export booksim hypercube -n 24 -o out",
    "sim hypercube -n 16",
    "verilog router hypercube -n 40 --node 0 -o out.v",
    "verilog router hypercube -n 3 --node 0 --depth 100000 -o out.v",
    "verilog fabric hypercube -n 16 -o out.v",
    "sim hypercube -n 3 --vcs 99999999999999999999",
    "verilog router hypercube -n 3 --node 0 --payload-width 100000 -o out.v",
    "sweep hypercube -n 3 --rates 0.1 --packet-flits 0",
    "sweep hypercube -n 3 --rates 0.001:1:1e-15",
    "board hypercube -n 12 --board icestick -o bits",
    "synth fabric hypercube -n 12 --workdir work",
    # (the Mcube's routes are enumerated pair by pair: the analysis alone would take hours)
    "deadlock mcube -k 16",
    "sweep mcube -k 16 --rates 0.1",
    "sim mcube -k 14",
]


@pytest.mark.parametrize("line", SIZE_BOMBS)
def test_size_bombs_refused_under_a_memory_cap(line, tmp_path):
    status, err = run_capped(line.split(), tmp_path)
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1 and lines[0].startswith("error: "), err
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("line", ["info hypercube -n 40", "info dlh -m 20 -d 30"])
def test_info_on_huge_networks_under_a_memory_cap(line, tmp_path):
    """info answers by structure, or refuses: never a traceback or a death by memory."""
    status, err = run_capped(line.split(), tmp_path)
    assert status in (0, 2) and "Traceback" not in err, err


@pytest.mark.slow
@pytest.mark.parametrize("spec_name", sorted(n for n in SPECS
                                             if SPECS[n].families and n != "info"))
def test_large_networks_under_a_memory_cap(spec_name, tmp_path_factory):
    """Every command, on networks from small to huge, under the memory cap: it works
    or refuses; it never dies of memory."""
    spec = SPECS[spec_name]

    @settings(max_examples=15, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(spec.families),
           st.integers(1, 62), st.integers(1, 62))
    def check(family, a, b):
        root = tmp_path_factory.mktemp("capped")
        params = [x for (flag, _), v in zip(TOPOLOGIES[family], (a, b))
                  for x in (flag, str(v))]
        argv = list(spec.words) + [family] + params
        for option, value in spec.required.items():
            argv += [option, value]
        status, err = run_capped(argv, root, limit=600)
        assert status in (0, 1, 2), f"exit {status} for {argv!r}:\n{err}"
        assert "Traceback" not in err
    check()
