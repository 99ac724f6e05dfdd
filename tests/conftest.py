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
