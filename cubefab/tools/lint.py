"""Linting Verilog the way users' flows do: ``verilator --lint-only -Wall`` and slang.

Each linter returns its findings as a list of :class:`Finding` (code, location,
message); an empty list is a clean file. The suite runs both on every kind of top
cubefab generates (tests/hdl/test_emit_lint.py), and ``benchmarks/lint_counts.py``
prints their counts beside those of Amaranth's own Verilog.
"""

import os
import re
import subprocess
from dataclasses import dataclass

from .verilator import verilator_env, verilator_executable, verilator_missing_reason


__all__ = ["Finding", "verilator_lint", "slang_lint", "slang_missing_reason",
           "verilator_lint_missing_reason"]


@dataclass(frozen=True)
class Finding:
    """One warning or error a linter reports: its ``code`` (``WIDTHEXPAND``,
    ``ArithOpMismatch`` ...), ``location`` (``file:line:column``) and ``message``."""
    code: str
    location: str
    message: str

    def __str__(self):
        return f"{self.location}: [{self.code}] {self.message}"


_VERILATOR_LINE = re.compile(r"^%(Warning|Error)(?:-([A-Z0-9_]+))?: ([^:]+:\d+:\d+): (.*)$",
                             re.MULTILINE)


def verilator_lint_missing_reason():
    """None when Verilator can lint, else why not (one line)."""
    return None if verilator_executable() else verilator_missing_reason()


def verilator_lint(path, top, timeout=None):
    """The findings of ``verilator --lint-only -Wall --top-module top path``: every
    ``%Warning``/``%Error`` line (Verilator's own exit status is not read: findings
    are the verdict)."""
    command = [verilator_executable(), "--lint-only", "-Wall", "--top-module", top,
               os.path.abspath(path)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                            env=verilator_env())
    findings = [Finding(code or kind.upper(), location, message)
                for kind, code, location, message
                in _VERILATOR_LINE.findall(result.stdout + result.stderr)]
    if result.returncode != 0 and not findings:
        raise RuntimeError(f"verilator --lint-only failed (exit {result.returncode}): "
                           + (result.stderr or result.stdout).strip()[-500:])
    return findings


def slang_missing_reason():
    """None when pyslang is importable, else what to install (one line)."""
    try:
        import pyslang  # noqa: F401
    except ImportError:
        return "pyslang is not installed (pip install pyslang)"
    return None


def slang_lint(path, top):
    """The diagnostics slang gives ``path`` with ``top`` as the top module: those of
    elaboration and of its analysis pass (drivers, unused code), as the ``slang``
    command line reports them with its default warnings."""
    from pyslang import DiagnosticEngine, driver
    slang = driver.Driver()
    slang.addStandardArgs()
    if not slang.parseCommandLine(f"slang {os.path.abspath(path)} --top {top}",
                                  driver.CommandLineOptions()):
        raise RuntimeError(f"slang refused its command line for {path!r}")
    if not (slang.processOptions() and slang.parseAllSources()):
        raise RuntimeError(f"slang could not read {path!r}")
    compilation = slang.createCompilation()
    diagnostics = list(compilation.getAllDiagnostics())
    diagnostics += list(slang.runAnalysis(compilation).getDiagnostics())
    text = DiagnosticEngine.reportAll(slang.sourceManager, diagnostics)
    return [Finding(code or severity, location, message)
            for location, severity, message, code in re.findall(
                r"^(\S+:\d+:\d+): (warning|error): (.*?)(?: \[-W([\w-]+)\])?$", text,
                re.MULTILINE)]
