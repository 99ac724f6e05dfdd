"""FIFOs with the :class:`amaranth.lib.fifo.SyncFIFO` contract for router buffers.

All three behave like ``SyncFIFO`` cycle for cycle (tests/hdl/test_fifo.py checks
them against it: an entry written in one cycle is readable in the next, ``r_data``
is valid whenever ``r_rdy``); they differ in where ``r_data`` comes from, which is
what decides a router's clock rate and size:

* :class:`RegisterFIFO`: a register file read through a multiplexer. Router buffers
  are a few flits deep, where registers are what synthesis builds anyway, and
  Amaranth's ``SyncFIFO`` keeps its storage in a ``Memory``, which the Python
  simulator updates every cycle at a high cost (about ten times the simulation time
  of this FIFO, measured on an idle fabric).
* :class:`HeadRegisterFIFO`: the oldest entry sits in a register of its own
  (``r_data`` comes straight from flip-flops, and is zero while empty), so logic
  reading it starts a clock cycle with no multiplexer in front of it.
* :class:`MemoryFIFO`: storage in a ``lib.memory.Memory`` with a synchronous read
  port, which iCE40 synthesis maps to block RAM (``SB_RAM40_4K``): no flip-flops or
  multiplexer per stored bit, at the cost of the simulator speed above.
"""

from amaranth.hdl import Module, Signal, Array, Mux, Elaboratable
from amaranth.lib.fifo import FIFOInterface
from amaranth.lib.memory import Memory

from ..topology.base import check_int


__all__ = ["RegisterFIFO", "HeadRegisterFIFO", "MemoryFIFO", "register_fifo_logic",
           "head_register_fifo_logic", "memory_fifo_logic"]


class _FIFO(Elaboratable, FIFOInterface):
    """Base of the FIFOs here: checked parameters, logic from :attr:`_logic`."""

    def __init__(self, *, width, depth):
        try:
            width = check_int("FIFO width", width, 0)
            depth = check_int("FIFO depth", depth, 1)
        except (TypeError, ValueError):
            self._MustUse__silence = True      # a refused FIFO is not an unused one
            raise
        super().__init__(width=width, depth=depth)

    def elaborate(self, platform):
        m = Module()
        type(self)._logic(m, self)
        return m


class RegisterFIFO(_FIFO):
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

    _logic = staticmethod(lambda m, fifo: register_fifo_logic(m, fifo))


class HeadRegisterFIFO(_FIFO):
    """A :class:`RegisterFIFO` whose oldest entry is held in a register of its own.

    Parameters and attributes are those of :class:`RegisterFIFO`, with the same
    timing; in addition ``r_data`` and ``r_rdy`` are register outputs and ``r_data``
    is zero while the FIFO is empty.
    """

    _logic = staticmethod(lambda m, fifo: head_register_fifo_logic(m, fifo))


class MemoryFIFO(_FIFO):
    """A FIFO with the timing of :class:`RegisterFIFO` whose entries are stored in a
    :class:`amaranth.lib.memory.Memory` (block RAM on FPGAs).

    Parameters and attributes are those of :class:`RegisterFIFO`; ``r_data`` is the
    output of the memory's synchronous read port.
    """

    _logic = staticmethod(lambda m, fifo: memory_fifo_logic(m, fifo))


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
    m.d.comb += fifo.r_data.eq(slots[consume])
    do_write, do_read = _level_logic(m, fifo, level, name)
    with m.If(do_write):
        m.d.sync += [slots[produce].eq(fifo.w_data),
                     produce.eq(Mux(produce == depth - 1, 0, produce + 1))]
    with m.If(do_read):
        m.d.sync += consume.eq(Mux(consume == depth - 1, 0, consume + 1))


def _level_logic(m, fifo, level, name):
    """The fill ``level`` of ``fifo``, its ``w_level``/``r_level``, and ``w_rdy``/``r_rdy``,
    both flip-flops (so that a read or write enable is one gate from them); returns
    the accepted ``(do_write, do_read)``."""
    depth = fifo.depth
    not_full = Signal(init=1, name=f"{name}_not_full")
    not_empty = Signal(name=f"{name}_not_empty")
    m.d.comb += [fifo.w_rdy.eq(not_full), fifo.r_rdy.eq(not_empty),
                 fifo.w_level.eq(level), fifo.r_level.eq(level)]
    do_write = fifo.w_en & not_full
    do_read = fifo.r_en & not_empty
    with m.If(do_write & ~do_read):
        m.d.sync += [level.eq(level + 1), not_empty.eq(1), not_full.eq(level != depth - 1)]
    with m.Elif(do_read & ~do_write):
        m.d.sync += [level.eq(level - 1), not_full.eq(1), not_empty.eq(level != 1)]
    return do_write, do_read


def _next(pointer, depth):
    return Mux(pointer == depth - 1, 0, pointer + 1)


def head_register_fifo_logic(m, fifo, name="fifo"):
    """Build the logic of :class:`HeadRegisterFIFO` for the ``fifo`` interface in
    module ``m`` (see :func:`register_fifo_logic`)."""
    depth, width = fifo.depth, fifo.width
    # The head register holds the oldest entry; the other depth - 1 entries wait in
    # a register file behind it. A write goes straight to the head when the head is
    # free after this cycle and nothing waits; the read multiplexer of the register
    # file then feeds the head register, not the logic that reads the FIFO.
    head = Signal(width, name=f"{name}_head")
    head_valid = Signal(name=f"{name}_head_valid")
    level = Signal(range(depth + 1), name=f"{name}_level")
    m.d.comb += fifo.r_data.eq(head)
    # (the level logic's r_rdy flip-flop equals head_valid)
    do_write, do_read = _level_logic(m, fifo, level, name)
    m.d.comb += head_valid.eq(fifo.r_rdy)
    free = ~head_valid | do_read      # the head register is free after this cycle
    if depth == 1:
        with m.If(free):
            m.d.sync += head.eq(Mux(do_write, fifo.w_data, 0))
        return
    waiting = depth - 1
    slots = Array(Signal(width, name=f"{name}_slot{i}") for i in range(waiting))
    produce = Signal(range(waiting), name=f"{name}_produce")
    consume = Signal(range(waiting), name=f"{name}_consume")
    stored = Signal(range(waiting + 1), name=f"{name}_stored")
    none_stored = stored == 0
    to_store = do_write & ~(free & none_stored)
    from_store = free & ~none_stored
    with m.If(free):
        m.d.sync += head.eq(Mux(none_stored, Mux(do_write, fifo.w_data, 0), slots[consume]))
    # slot `produce` is free whenever a write is accepted: it is written even when
    # the entry goes to the head, so that its enable does not wait for the read
    with m.If(do_write):
        m.d.sync += slots[produce].eq(fifo.w_data)
    with m.If(to_store):
        m.d.sync += produce.eq(_next(produce, waiting))
    with m.If(from_store):
        m.d.sync += consume.eq(_next(consume, waiting))
    with m.If(to_store & ~from_store):
        m.d.sync += stored.eq(stored + 1)
    with m.Elif(from_store & ~to_store):
        m.d.sync += stored.eq(stored - 1)


def memory_fifo_logic(m, fifo, name="fifo"):
    """Build the logic of :class:`MemoryFIFO` for the ``fifo`` interface in module
    ``m`` (the memory becomes submodule ``{name}_storage``)."""
    depth = fifo.depth
    storage = m.submodules[f"{name}_storage"] = Memory(shape=fifo.width, depth=depth, init=[],
                                                       attrs={"ram_style": "block"})
    write = storage.write_port()
    # The read port reads, at every clock edge, the row that will be the oldest
    # entry after it, and sees a write to that row at the same edge (transparency):
    # its registered output is then always the oldest entry.
    read = storage.read_port(transparent_for=(write,))
    produce = Signal(range(depth), name=f"{name}_produce")
    consume = Signal(range(depth), name=f"{name}_consume")
    level = Signal(range(depth + 1), name=f"{name}_level")
    m.d.comb += fifo.r_data.eq(read.data)
    do_write, do_read = _level_logic(m, fifo, level, name)
    m.d.comb += [
        write.addr.eq(produce),
        write.data.eq(fifo.w_data),
        write.en.eq(do_write),
        read.addr.eq(Mux(do_read, _next(consume, depth), consume)),
        read.en.eq(1),
    ]
    with m.If(do_write):
        m.d.sync += produce.eq(_next(produce, depth))
    with m.If(do_read):
        m.d.sync += consume.eq(_next(consume, depth))
