"""The source's fault configuration table: written at run time, read back, the node's
own entry its health; the writes of a fault set from the model."""

from amaranth.lib import data

from cubefab.hdl.source_table import SourceTable, entry_layout, table_writes
from cubefab.topology import DLH, Hypercube
from cubefab.topology.fault_routing import FaultSet, plan_waypoints
from tests.helpers import run_clocked


def decode(layout, value):
    view = data.Const(layout, value)
    return bool(view.refused), [int(w) for w in view.waypoint][:int(view.count)]


def test_entries_written_are_read_back_and_the_own_entry_is_the_health():
    topo = Hypercube(3)
    table = SourceTable(topo, 2, node=None)
    layout = table.layout
    writes = {5: {"refused": 0, "count": 2, "waypoint": [4, 6]},
              6: {"refused": 1, "count": 0, "waypoint": [0, 0]}}
    seen = {}

    async def bench(ctx):
        ctx.set(table.here, 3)
        assert ctx.get(table.healthy)
        for dest, entry in writes.items():
            ctx.set(table.write, 1)
            ctx.set(table.write_dest, dest)
            ctx.set(table.write_entry, entry)
            await ctx.tick()
        ctx.set(table.write, 0)
        assert ctx.get(table.healthy)
        for dest in range(8):
            ctx.set(table.dest, dest)
            seen[dest] = ctx.get(table.entry)
        ctx.set(table.write, 1)
        ctx.set(table.write_dest, 3)   # its own entry refused: the node is faulty
        ctx.set(table.write_entry, writes[6])
        await ctx.tick()
        ctx.set(table.write, 0)
        assert not ctx.get(table.healthy)

    run_clocked(table, bench)
    assert seen[5].count == 2 and list(seen[5].waypoint) == [4, 6] and not seen[5].refused
    assert seen[6].refused
    assert all(seen[d].count == 0 and not seen[d].refused for d in (0, 1, 2, 3, 4, 7))
    assert layout.size == 1 + 2 + 2 * 3


def test_the_writes_of_a_fault_set_are_the_model_tables():
    topo = DLH(2, 1)
    routing = plan_waypoints(topo, FaultSet(topo, [0, 1, 12]), 2)
    layout = entry_layout(topo.address_bits, 2)
    writes = table_writes(routing, 2)
    got = {}
    for node, dest, value in writes:
        assert (node, dest) not in got
        got[node, dest] = decode(layout, value)
    for src in (int(a) for a in topo.nodes()):
        if src in (0, 1, 12):
            assert got[src, src] == (True, [])    # the node is faulty
            continue
        for dest in (int(a) for a in topo.nodes()):
            if dest == src:
                assert (src, dest) not in got
            elif dest in (0, 1, 12):
                assert got[src, dest] == (True, [])
            else:
                want = routing.header(src, dest)
                # a direct pair needs no write: the table starts all direct
                assert got.get((src, dest), (False, [])) == (want is None, list(want or ()))
    assert (4, 8) in got and got[4, 8] == (False, [13, 9])
