"""A register-file FIFO with the :class:`amaranth.lib.fifo.SyncFIFO` contract.

Router input buffers are a few flits deep, where registers are what synthesis builds
anyway. Amaranth's ``SyncFIFO`` keeps its storage in a ``Memory``, which the Python
simulator updates every cycle at a high cost (about ten times the simulation time of
this FIFO, measured on an idle fabric); this FIFO behaves identically cycle for cycle
(tests/hdl/test_fifo.py checks it against ``SyncFIFO``) and keeps fabrics simulable.
"""

from amaranth.hdl import Module, Signal, Array, Mux, Elaboratable
from amaranth.lib.fifo import FIFOInterface

from ..topology.base import check_int


__all__ = ["RegisterFIFO", "register_fifo_logic"]


class RegisterFIFO(Elaboratable, FIFOInterface):
    """Synchronous first-word-fall-through FIFO in registers.

    Parameters
    ----------
    width : int
        Bits per entry (>= 0).
    depth : int
        Entries (>= 1).

    Attributes are those of :class:`amaranth.lib.fifo.FIFOInterface` (``w_data``,
    ``w_en``, ``w_rdy``, ``w_level``, ``r_data``, ``r_en``, ``r_rdy``, ``r_level``),
    with the timing of :class:`amaranth.lib.fifo.SyncFIFO`: an entry written in one
    cycle is readable in the next; ``r_data`` is valid whenever ``r_rdy``.
    """

    def __init__(self, *, width, depth):
        width = check_int("FIFO width", width, 0)
        depth = check_int("FIFO depth", depth, 1)
        super().__init__(width=width, depth=depth)

    def elaborate(self, platform):
        m = Module()
        register_fifo_logic(m, self)
        return m


def register_fifo_logic(m, fifo, name="fifo"):
    """Build the logic of :class:`RegisterFIFO` for the ``fifo`` interface (an
    :class:`~amaranth.lib.fifo.FIFOInterface`) in module ``m``: a router builds
    its buffers inline, which the Python simulator runs much faster than many
    small modules."""
    depth = fifo.depth
    slots = Array(Signal(fifo.width, name=f"{name}_slot{i}") for i in range(depth))
    produce = Signal(range(depth), name=f"{name}_produce")
    consume = Signal(range(depth), name=f"{name}_consume")
    level = Signal(range(depth + 1), name=f"{name}_level")
    m.d.comb += [
        fifo.w_rdy.eq(level != depth),
        fifo.r_rdy.eq(level != 0),
        fifo.w_level.eq(level),
        fifo.r_level.eq(level),
        fifo.r_data.eq(slots[consume]),
    ]
    do_write = fifo.w_en & fifo.w_rdy
    do_read = fifo.r_en & fifo.r_rdy
    with m.If(do_write):
        m.d.sync += [slots[produce].eq(fifo.w_data),
                     produce.eq(Mux(produce == depth - 1, 0, produce + 1))]
    with m.If(do_read):
        m.d.sync += consume.eq(Mux(consume == depth - 1, 0, consume + 1))
    with m.If(do_write & ~do_read):
        m.d.sync += level.eq(level + 1)
    with m.Elif(do_read & ~do_write):
        m.d.sync += level.eq(level - 1)
