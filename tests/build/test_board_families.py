"""Boards of the ECP5 and Gowin families: their platforms, the DFU suffix of the
OrangeCrab, and bitstreams (slow)."""

import struct
import zlib

import pytest

from cubefab.build.board import BOARDS, BoardTop, build_bitstream, selfcheck_board_top
from cubefab.tools.devices import DEVICES
from cubefab.build.dfu import add_suffix, dfu_suffix
from cubefab.topology import Hypercube
from tests.build.test_board import _Counter
from tests.helpers import needs_board


@pytest.mark.parametrize("name", ["ulx3s", "orangecrab", "tang-nano-9k"])
def test_board_platform_is_the_device_it_names(name):
    board = BOARDS[name]
    platform = board.platform()
    part = DEVICES[board.device].part
    # amaranth's Lattice platforms name the device, its Gowin platforms the part
    assert getattr(platform, "part", None) == part or platform.device == part


def test_bitstream_suffix_follows_the_family():
    assert [BOARDS[b].bitstream_suffix for b in ("icestick", "ulx3s", "tang-nano-9k")] \
        == ["bin", "bit", "fs"]


def test_dfu_suffix_fields(tmp_path):
    suffix = dfu_suffix(b"bitstream", vendor=0x1209, product=0x5AF0)
    device, product, vendor, bcd, signature, length = struct.unpack("<HHHH3sB",
                                                                   suffix[:12])
    assert (device, product, vendor, bcd, signature, length) == \
        (0xFFFF, 0x5AF0, 0x1209, 0x0100, b"UFD", 16)


def test_dfu_suffix_crc_leaves_a_zero_residue(tmp_path):
    # a CRC-32 register (initial all ones, no final inversion) that reads a message
    # and then its CRC, least significant byte first, ends at zero: zlib's CRC (which
    # inverts at the end) of the whole file is then all ones
    path = tmp_path / "top.bit"
    path.write_bytes(bytes(range(256)) * 7)
    add_suffix(str(path), 0x1209, 0x5AF0)
    data = path.read_bytes()
    assert len(data) == 256 * 7 + 16
    assert zlib.crc32(data) == 0xFFFFFFFF


def test_dfu_suffix_rejects_bad_ids():
    with pytest.raises(ValueError, match="Vendor ID"):
        dfu_suffix(b"", vendor=0x10000, product=1)


def check_bitstream(result, size):
    with open(result["bitstream"], "rb") as f:
        assert len(f.read()) > size
    assert result["fmax_mhz"] >= result["clock_mhz"]
    assert 0 < result["logic_cells"] <= result["logic_cells_available"]


@pytest.mark.slow
@needs_board("orangecrab")
def test_orangecrab_bitstream_has_the_dfu_suffix(tmp_path):
    top = BoardTop(_Counter(), "orangecrab", lambda d: (d.errors, d.delivered))
    result = build_bitstream(top, "orangecrab", str(tmp_path))
    check_bitstream(result, 50000)
    data = open(result["bitstream"], "rb").read()
    assert data[-8:-5] == b"UFD" and zlib.crc32(data) == 0xFFFFFFFF
    assert result["load"].startswith("dfu-util -a 0 -D ")


@pytest.mark.slow
@needs_board("ulx3s")
def test_ulx3s_bitstream_of_the_self_checking_fabric(tmp_path):
    top = selfcheck_board_top(Hypercube(2), "ulx3s")
    check_bitstream(build_bitstream(top, "ulx3s", str(tmp_path)), 100000)


@pytest.mark.slow
@needs_board("tang-nano-9k")
def test_tang_nano_9k_bitstream_of_the_self_checking_fabric(tmp_path):
    top = selfcheck_board_top(Hypercube(2), "tang-nano-9k")
    check_bitstream(build_bitstream(top, "tang-nano-9k", str(tmp_path)), 100000)
