"""The figures the guides state are their benchmarks' saved results
(docs/refresh_figures.py): a marked value that differs from its result fails, so does a
marker naming a result or key that is not saved, and a result without the command,
the tool versions and the date that made it. Also: no guide over 600 lines, and the
guides tell what the tool does, not how the work went (that is CHANGELOG.md's)."""

import datetime
import functools
import importlib.util
import json
import pathlib
import re

import pytest


ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
RESULTS = ROOT / "benchmarks" / "results"

_spec = importlib.util.spec_from_file_location("refresh_figures", DOCS / "refresh_figures.py")
figures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(figures)

#: The longest a guide may be.
MAX_LINES = 600


def result_files():
    return sorted(RESULTS.glob("*.json"))


@functools.lru_cache(maxsize=1)
def saved_results():
    """Every saved result, read once for all the pages."""
    return figures.load_results()


@pytest.mark.parametrize("page", figures.pages(), ids=lambda p: p.name)
def test_every_marked_figure_is_its_saved_result(page):
    problems = figures.check_text(page.read_text(), saved_results())
    assert not problems, "\n".join(f"{page.name}:{line}: {message}"
                                   for line, message in problems)


@pytest.mark.parametrize("path", result_files(), ids=lambda p: p.stem)
def test_a_saved_result_says_how_it_was_made(path):
    result = json.loads(path.read_text())
    assert figures.result_problems(path.stem, result) == []
    datetime.datetime.fromisoformat(result["date"])
    assert result["command"].startswith("python benchmarks/")
    assert (ROOT / result["command"].split()[1]).exists()


#: A marked figure written right after another's marker: the page would show the two
#: values as one (``89.098.1``).
RUN_TOGETHER = re.compile(r"-->[\w.,+-]+<!-- fig ")


@pytest.mark.parametrize("page", figures.pages(), ids=lambda p: p.name)
def test_marked_figures_do_not_run_together(page):
    assert not RUN_TOGETHER.findall(page.read_text())


#: The least marked figures of each page whose tables come from saved results.
MARKED = {"router.md": 20, "measurements.md": 50, "cli.md": 3, "faults.md": 150,
          "endpoints.md": 150, "simulation.md": 20, "route_units.md": 60, "compare.md": 30}


def test_the_migrated_tables_are_marked():
    """The FPGA cost tables, the simulations' and the proofs' tables come from saved
    results."""
    marked = {name: len(figures.MARKER.findall((DOCS / name).read_text()))
              for name in MARKED}
    assert all(marked[name] >= least for name, least in MARKED.items()), marked
    used = {m["result"] for page in figures.pages()
            for m in figures.MARKER.finditer(page.read_text())}
    assert used == {p.stem for p in result_files()}, "a saved result no page quotes"


#: The benchmarks whose results are simulations, which must record the router they ran.
SIMULATIONS = ("sim_commands.py", "fault_sim.py", "sim_speed.py", "saturation.py")


@pytest.mark.parametrize("path", [p for p in result_files() if json.loads(p.read_text())[
    "command"].split()[1].endswith(SIMULATIONS)], ids=lambda p: p.stem)
def test_a_saved_simulation_names_its_router(path):
    """So that a result measured before a change of the default router can be told
    from one measured after it."""
    result = json.loads(path.read_text())
    assert '"router": {' in json.dumps(result["figures"]), "no router in the figures"


def test_a_wrong_figure_fails_the_check():
    results = {"r": {"command": "python benchmarks/x.py", "versions": {"cubefab": "1",
                                                                       "amaranth": "1"},
                     "date": "2026-12-06T00:00:00+00:00",
                     "figures": {"a": {"lut4": 611, "fmax_mhz": 100.63}}}}
    good = "611<!-- fig r:a.lut4 --> LUT4 at 100.6<!-- fig r:a.fmax_mhz --> MHz"
    assert figures.check_text(good, results) == []
    assert figures.check_text(good.replace("611", "589"), results) == [
        (1, "states '589' where r:a.lut4 holds '611'")]
    assert figures.check_text("1<!-- fig r:a.ff -->", results) == [
        (1, "result r has no figure a.ff")]
    assert figures.check_text("1<!-- fig s:a.ff -->", results)[0][1].startswith(
        "no saved result s")
    assert figures.check_text("0.101<!-- fig r:a.fmax_mhz .3f -->", results) == [
        (1, "states '0.101' where r:a.fmax_mhz holds '100.630'")]
    text, problems = figures.refresh_text(good.replace("611", "589"), results)
    assert text == good and problems == []
    text, _ = figures.refresh_text(good, results, strip=True)
    assert text == "611 LUT4 at 100.6 MHz"
    undated = dict(results["r"], date="")
    assert figures.result_problems("r", undated) == ["result r has no date"]


@pytest.mark.parametrize("page", [ROOT / "README.md", *sorted(DOCS.glob("*.md"))],
                         ids=lambda p: p.name)
def test_no_guide_is_over_600_lines(page):
    assert len(page.read_text().splitlines()) <= MAX_LINES


#: Phrases of a work log, which belongs in CHANGELOG.md and the commit messages.
HISTORY = re.compile(r"before this work|earlier versions|measured at commit|we tried|"
                     r"session notes|before issue \d+|since issue \d+|this page used to",
                     re.IGNORECASE)


@pytest.mark.parametrize("page", sorted(DOCS.glob("*.md")), ids=lambda p: p.name)
def test_the_guides_hold_no_history(page):
    found = [line for line in page.read_text().splitlines() if HISTORY.search(line)]
    assert not found, found
