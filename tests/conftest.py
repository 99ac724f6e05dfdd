"""Shared test helpers."""

import json

import pytest

from cubefab.cli import main


class CliResult:
    def __init__(self, status, out, err):
        self.status = status
        self.out = out
        self.err = err

    def json(self):
        return json.loads(self.out)


@pytest.fixture
def cli(capsys):
    """Run ``cubefab ARGS...`` in-process; returns a CliResult (status, out, err, json())."""
    def run(*args):
        status = main([str(a) for a in args])
        captured = capsys.readouterr()
        return CliResult(status, captured.out, captured.err)
    return run


def pytest_collection_modifyitems(config, items):
    """Exhaustive ``slow`` tests may run for hours: lift the default per-test timeout
    (pyproject.toml) from them unless they set their own."""
    for item in items:
        if item.get_closest_marker("slow") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(0))
