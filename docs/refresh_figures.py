"""The figures the guides state, from the benchmarks' saved results.

    python docs/refresh_figures.py [--check] [PAGE ...]

A figure in a page (docs/*.md, README.md, CHANGELOG.md is history and has none) is
followed by a marker naming the saved result and the key it comes from::

    611<!-- fig fpga_ice40:goal.lut4 -->
    100.6<!-- fig fpga_ice40:goal.fmax_mhz .1f -->

``fpga_ice40`` is ``benchmarks/results/fpga_ice40.json`` (written by a benchmark run
with ``--save fpga_ice40``: its ``command``, the tools' ``versions``, the ``date`` and
the ``figures``), ``goal.lut4`` a dotted path into its ``figures``, and the optional
last word a Python format spec (default: ``d`` for whole numbers, ``.1f`` for the
others, text as it is). The marker is an HTML comment, so the page reads the same on
GitHub; the Sphinx build (docs/conf.py) puts the saved values in and drops the
markers.

This script rewrites every marked value from its saved result in place;
``--check`` changes nothing and exits 1 when a value differs from its result, or a
marker names a result or key that is not saved, or a result lacks its command,
versions or date (``tests/test_docs_figures.py`` runs the same check).
"""

import argparse
import json
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
RESULTS = ROOT / "benchmarks" / "results"

#: The fields every saved result has (``benchmarks/saved_results.py``).
REQUIRED = ("command", "versions", "date", "figures")

#: A marked figure: the value, then ``<!-- fig RESULT:KEY [SPEC] -->``.
MARKER = re.compile(r"(?P<value>[\w.,+-]*)<!-- fig (?P<result>[\w-]+):(?P<key>[\w.-]+)"
                    r"(?: (?P<spec>[^\s>]+))? -->")


def pages():
    """The pages that may state figures: README.md and docs/*.md."""
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def load_results(directory=RESULTS):
    """``{name: result}`` of every saved result."""
    return {path.stem: json.loads(path.read_text())
            for path in sorted(pathlib.Path(directory).glob("*.json"))}


def result_problems(name, result):
    """What a saved result lacks: its command, versions, date or figures."""
    problems = [f"result {name} has no {field}" for field in REQUIRED
                if not result.get(field)]
    versions = result.get("versions") or {}
    problems += [f"result {name}'s versions lack {tool}" for tool in ("cubefab", "amaranth")
                 if tool not in versions]
    return problems


def lookup(result, key):
    """The value at the dotted ``key`` of ``result["figures"]`` (KeyError if absent)."""
    value = result["figures"]
    for part in key.split("."):
        if not isinstance(value, dict) or part not in value:
            raise KeyError(key)
        value = value[part]
    if isinstance(value, (dict, list)):
        raise KeyError(key)
    return value


def formatted(value, spec=None):
    """A saved value as the page states it."""
    if spec:
        return format(value, spec)
    if isinstance(value, (bool, str)):
        return str(value)
    return format(value, "d" if isinstance(value, int) else ".1f")


def expected(match, results):
    """The text a marked figure should read, or raises ``LookupError`` with what is
    missing."""
    name, key = match["result"], match["key"]
    if name not in results:
        raise LookupError(f"no saved result {name} (benchmarks/results/{name}.json)")
    try:
        value = lookup(results[name], key)
    except KeyError:
        raise LookupError(f"result {name} has no figure {key}") from None
    return formatted(value, match["spec"])


def refresh_text(text, results, strip=False):
    """``text`` with every marked value replaced by its saved result's (and, with
    ``strip``, the markers removed); returns ``(text, problems)``."""
    problems = []

    def replace(match):
        try:
            value = expected(match, results)
        except LookupError as error:
            problems.append(str(error))
            value = match["value"]
        return value if strip else f"{value}{match.group(0)[len(match['value']):]}"
    return MARKER.sub(replace, text), problems


def check_text(text, results):
    """Every disagreement of ``text``'s marked figures with the saved results, as
    ``(line, message)``."""
    found = []
    for match in MARKER.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        try:
            value = expected(match, results)
        except LookupError as error:
            found.append((line, str(error)))
            continue
        if match["value"] != value:
            found.append((line, f"states {match['value']!r} where "
                                f"{match['result']}:{match['key']} holds {value!r}"))
    return found


def check(paths=None, results=None):
    """Every problem of the marked figures of ``paths`` (default: :func:`pages`) and of
    the saved results they name, as strings."""
    results = load_results() if results is None else results
    problems = []
    for name, result in results.items():
        problems += result_problems(name, result)
    for path in paths or pages():
        for line, message in check_text(pathlib.Path(path).read_text(), results):
            problems.append(f"{pathlib.Path(path).relative_to(ROOT)}:{line}: {message}")
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 on a figure that differs from its result")
    parser.add_argument("pages", nargs="*", type=pathlib.Path, metavar="PAGE")
    args = parser.parse_args(argv)
    paths = [p.resolve() for p in args.pages] or pages()
    results = load_results()
    if args.check:
        problems = check(paths, results)
        for problem in problems:
            print(problem, file=sys.stderr)
        return 1 if problems else 0
    status = 0
    for path in paths:
        text = path.read_text()
        new, problems = refresh_text(text, results)
        for problem in problems:
            print(f"{path.relative_to(ROOT)}: {problem}", file=sys.stderr)
            status = 1
        if new != text:
            path.write_text(new)
            print(f"refreshed {path.relative_to(ROOT)}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
