"""A tool that fails is named with the end of what it said: its log when it wrote one,
else its output, and a YoWASP tool refused its memory by an address-space limit says so."""

import stat

import pytest

from cubefab.tools.process import DoesNotFit, ToolFailed, run_tool


def _failing_tool(tmp_path, monkeypatch, says, log=None):
    """Make ``yosys`` an executable that prints ``says``, writes ``log`` (unless
    ``None``) to ``tool.log`` and exits 1."""
    path = tmp_path / "failing-tool"
    writes = "" if log is None else f"echo '{log}' > tool.log\n"
    path.write_text(f"#!/bin/sh\necho '{says}'\n{writes}exit 1\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("YOSYS", str(path))


def test_a_failure_quotes_the_log_it_names(tmp_path, monkeypatch):
    _failing_tool(tmp_path, monkeypatch, "said", log="ERROR: in the log")
    with pytest.raises(ToolFailed, match=r"failed \(exit 1\); see .*tool.log:\nERROR: in"):
        run_tool("yosys", [], str(tmp_path), "tool.log")


def test_a_failure_without_a_log_names_none(tmp_path, monkeypatch):
    _failing_tool(tmp_path, monkeypatch, "ERROR: on the output")
    with pytest.raises(ToolFailed) as caught:
        run_tool("yosys", [], str(tmp_path), "tool.log")
    assert str(caught.value) == "yosys failed (exit 1):\nERROR: on the output"


def test_a_refused_reservation_names_the_address_space_limit(tmp_path, monkeypatch):
    _failing_tool(tmp_path, monkeypatch, "WasmtimeError: mmap failed to reserve 0x1 bytes")
    with pytest.raises(ToolFailed, match=r"reserve its memory.*\(ulimit -v\)"):
        run_tool("yosys", [], str(tmp_path), "tool.log")


@pytest.mark.parametrize("says", [
    "ERROR: no BELs remaining",
    # nextpnr-ecp5's analytic placer at 101 % of the logic cells
    "ERROR: Unable to find legal placement for all cells, design is probably at "
    "utilisation limit."])
def test_a_design_too_large_is_does_not_fit(tmp_path, monkeypatch, says):
    _failing_tool(tmp_path, monkeypatch, "", log=says)
    with pytest.raises(DoesNotFit, match="does not fit the device; see"):
        run_tool("yosys", [], str(tmp_path), "tool.log")
