"""metacube.txt Table 2 reproduced: docs/topology.md's table of exact average distances and
diameters of MC(k, m), k = 1..4, m = 1..8, recomputed cell by cell."""

import re
from fractions import Fraction
from pathlib import Path

import pytest

from cubefab.topology import Metacube, properties
from cubefab.topology.structure import metacube_average_with_self


DOC = Path(__file__).resolve().parents[2] / "docs" / "topology.md"

HEADER = ("| k | m | n | diameter (m+1)2^k | diameter exact | avg. distance, paper | formula "
          "| avg. distance, exact | = decimal | paper - exact |")


def _rows():
    lines = DOC.read_text().splitlines()
    start = lines.index(HEADER) + 2
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def _paper_average(k, m):
    """Table 2's average-distance formula of the row that covers MC(k, m)."""
    n = k + m * 2 ** k
    if k == 1:
        return Fraction(n, 2) + 1 - Fraction(1, 2 ** ((n - 1) // 2)), "n/2+1-1/2^((n-1)/2)"
    if k == 2:
        return Fraction(n, 2) + 3, "n/2+3"
    return Fraction(m * 2 ** k, 2) + 2 ** k, "m2^k/2+2^k"


def _exact(text):
    numerator, _, power = text.partition("/2^")
    return Fraction(int(numerator), 2 ** int(power or 0))


def test_table_covers_k_1_to_4_and_m_1_to_8():
    assert [(int(r[0]), int(r[1])) for r in _rows()] == \
        [(k, m) for k in range(1, 5) for m in range(1, 9)]


@pytest.mark.parametrize("row", _rows(), ids=lambda r: f"MC({r[0]},{r[1]})")
def test_row_reproduced(row):
    k, m, n = int(row[0]), int(row[1]), int(row[2])
    p = properties(Metacube(k, m))
    assert p["method"] == "structure" and p["address_bits"] == n
    assert int(row[3]) == (m + 1) * 2 ** k == p["paper"]["diameter"]["value"]
    assert int(row[4]) == p["diameter"]
    exact = Fraction(p["average_distance_with_self_exact"])
    assert _exact(row[7]) == exact == metacube_average_with_self(k, m)
    assert float(row[8]) == pytest.approx(float(exact), abs=1e-10)
    paper, formula = _paper_average(k, m)
    assert row[6] == formula
    assert float(row[5]) == pytest.approx(float(paper), abs=1e-9)
    assert float(row[9]) == pytest.approx(float(paper - exact), abs=1e-10)
    # Theorem 2's bound holds for every k; it is the average only for k = 1
    assert exact <= Fraction(m * 2 ** k, 2) + 2 ** k
    assert (paper == exact) == (k == 1)
