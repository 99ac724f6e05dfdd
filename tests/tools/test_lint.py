"""The linters of cubefab.tools.lint find what they should, and nothing in clean
Verilog (the suite's lint checks of generated tops rely on both)."""

import pytest

from cubefab.tools.lint import (slang_lint, slang_missing_reason, verilator_lint,
                                verilator_lint_missing_reason)

needs_verilator = pytest.mark.skipif(verilator_lint_missing_reason() is not None,
                                     reason=verilator_lint_missing_reason() or "")
needs_slang = pytest.mark.skipif(slang_missing_reason() is not None,
                                 reason=slang_missing_reason() or "")

CLEAN = """module clean(a, b, y);
  input [3:0] a;
  wire [3:0] a;
  input [3:0] b;
  wire [3:0] b;
  output [3:0] y;
  wire [3:0] y;
  assign y = a + b;
endmodule
"""

#: A 4-bit operand compared with a 1-bit one, and added to it.
MIXED_WIDTHS = CLEAN.replace("module clean", "module mixed").replace(
    "input [3:0] b;\n  wire [3:0] b;", "input b;\n  wire b;").replace(
    "assign y = a + b;", "assign y = (a == b) ? a : a + b;")


def _write(tmp_path, text, top):
    path = tmp_path / f"{top}.v"
    path.write_text(text)
    return path


@needs_verilator
def test_verilator_finds_nothing_in_clean_verilog(tmp_path):
    assert verilator_lint(_write(tmp_path, CLEAN, "clean"), "clean") == []


@needs_verilator
def test_verilator_finds_a_width_mismatch(tmp_path):
    findings = verilator_lint(_write(tmp_path, MIXED_WIDTHS, "mixed"), "mixed")
    assert [f.code for f in findings] == ["WIDTHEXPAND"]
    assert "mixed.v:8:" in findings[0].location


@needs_slang
def test_slang_finds_nothing_in_clean_verilog(tmp_path):
    assert slang_lint(_write(tmp_path, CLEAN, "clean"), "clean") == []


@needs_slang
def test_slang_finds_a_width_mismatch(tmp_path):
    findings = slang_lint(_write(tmp_path, MIXED_WIDTHS, "mixed"), "mixed")
    assert [f.code for f in findings] == ["arith-op-mismatch"]
