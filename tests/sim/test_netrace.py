"""The netrace reader against the traces' published contents (the table of the traces'
README, and shrtex packet by packet) and against damaged files."""

import bz2
import pathlib
import struct

import pytest

from cubefab.sim.netrace import MAGIC, NetraceError, read_trace


DATA = pathlib.Path(__file__).parent / "data" / "netrace"

#: The traces' README: benchmark name, nodes, regions, cycles, packets.
PUBLISHED = {
    "shrtex": ("short example trace", 64, 1, 221, 12),
    "example": ("read-resp-delay-test", 64, 1, 6820, 175),
    "multiregion": ("multiregion-test", 64, 5, 324_247, 22_968),
}

#: shrtex, packet by packet, as its README lists it: id, cycle, src, dst, type,
#: the packets that depend on it.
SHRTEX = [
    (0, 0, 4, 42, "UpgradeReq", (1, 3)),
    (1, 24, 42, 16, "UpgradeReq", (2,)),
    (2, 174, 16, 42, "UpgradeResp", (3,)),
    (3, 198, 42, 4, "UpgradeResp", ()),
    (4, 215, 11, 42, "UpgradeReq", (5, 6, 9)),
    (5, 215, 42, 32, "InvalidateReq", ()),
    (6, 215, 42, 16, "UpgradeReq", ()),
    (7, 215, 12, 42, "ReadReq", (10,)),
    (8, 215, 10, 42, "ReadExReq", (11,)),
    (9, 218, 42, 11, "UpgradeResp", ()),
    (10, 221, 42, 12, "ReadRespWithInvalidate", ()),
    (11, 221, 42, 10, "ReadExResp", ()),
]


def trace_file(name):
    return DATA / f"{name}.tra.bz2"


@pytest.mark.parametrize("name", PUBLISHED)
def test_header_is_the_published_one(name):
    trace = read_trace(trace_file(name))
    assert (trace.benchmark, trace.nodes, len(trace.regions), trace.cycles,
            trace.packet_count) == PUBLISHED[name]


def test_shrtex_packets_are_the_published_ones():
    packets = [(p.id, p.cycle, p.src, p.dst, p.type_name, p.dependents)
               for p in read_trace(trace_file("shrtex")).packets()]
    assert packets == SHRTEX


def test_packet_sizes_follow_their_type():
    sizes = {p.type_name: p.size for p in read_trace(trace_file("example")).packets()}
    assert sizes["ReadReq"] == 8 and sizes["ReadResp"] == 72


def test_regions_partition_the_packets():
    trace = read_trace(trace_file("multiregion"))
    whole = [p.id for p in trace.packets()]
    by_region = [[p.id for p in trace.packets(r.index)] for r in trace.regions]
    assert [len(ids) for ids in by_region] == [r.packets for r in trace.regions]
    assert sum(by_region, []) == whole
    assert len(whole) == trace.packet_count


def test_region_packets_lie_in_the_region():
    trace = read_trace(trace_file("multiregion"))
    for region in trace.regions:
        cycles = [p.cycle for p in trace.packets(region.index)]
        assert cycles == sorted(cycles)
        assert all(region.first_cycle <= c <= region.first_cycle + region.cycles
                   for c in cycles)


def test_unknown_region_is_refused_naming_the_count():
    trace = read_trace(trace_file("shrtex"))
    with pytest.raises(ValueError, match=r"from 0 to 0 \(.* has 1\), not 3"):
        list(trace.packets(3))


def write_bz2(path, data):
    path.write_bytes(bz2.compress(data))
    return path


def test_file_that_is_not_bzip2_is_refused(tmp_path):
    path = tmp_path / "plain.tra.bz2"
    path.write_bytes(b"not a trace at all")
    with pytest.raises(NetraceError, match="no bzip2-compressed netrace trace"):
        read_trace(path)


def test_wrong_magic_is_refused(tmp_path):
    data = bz2.decompress(trace_file("shrtex").read_bytes())
    path = write_bz2(tmp_path / "magic.tra.bz2", struct.pack("<I", MAGIC + 1) + data[4:])
    with pytest.raises(NetraceError, match="magic number"):
        read_trace(path)


def test_other_version_is_refused(tmp_path):
    data = bz2.decompress(trace_file("shrtex").read_bytes())
    path = write_bz2(tmp_path / "v2.tra.bz2", data[:4] + struct.pack("<f", 2.0) + data[8:])
    with pytest.raises(NetraceError, match="version 2"):
        read_trace(path)


def test_truncated_packets_are_refused(tmp_path):
    data = bz2.decompress(trace_file("shrtex").read_bytes())
    path = write_bz2(tmp_path / "cut.tra.bz2", data[:-3])
    trace = read_trace(path)
    with pytest.raises(NetraceError, match="truncated|ends"):
        list(trace.packets())


def test_truncated_header_is_refused(tmp_path):
    data = bz2.decompress(trace_file("shrtex").read_bytes())
    with pytest.raises(NetraceError, match="ends inside its header"):
        read_trace(write_bz2(tmp_path / "short.tra.bz2", data[:40]))


def test_node_beyond_the_trace_is_refused(tmp_path):
    data = bytearray(bz2.decompress(trace_file("shrtex").read_bytes()))
    data[38] = 8   # the node count: packet 0 goes 4 -> 42
    trace = read_trace(write_bz2(tmp_path / "nodes.tra.bz2", bytes(data)))
    with pytest.raises(NetraceError, match="destination node 42; the trace has 8"):
        list(trace.packets())
