"""FIFOs with the :class:`amaranth.lib.fifo.SyncFIFO` contract for router buffers.

All behave like ``SyncFIFO`` cycle for cycle (tests/hdl/test_fifo.py checks
them against it: an entry written in one cycle is readable in the next, ``r_data``
is valid whenever ``r_rdy``); they differ in where ``r_data`` comes from, which is
what decides a router's clock rate and size:

* :class:`RegisterFIFO`: a shift register whose first slot is always the oldest
  entry, so that all of ``r_data`` comes straight from flip-flops. Each slot takes
  the slot after it or the entry being written, a choice made by the fill level
  alone (a read only enables the slots), so every flip-flop has a 2-input
  multiplexer in front of it: on the iCE40 the two share a logic cell, where a
  register file's flip-flops, written straight from ``w_data``, would each take a
  logic cell of their own beside its read multiplexer. Router buffers are a few
  flits deep, where registers are what synthesis builds anyway, and Amaranth's
  ``SyncFIFO`` keeps its storage in a ``Memory``, which the Python simulator updates
  every cycle at a high cost (about ten times the simulation time of this FIFO,
  measured on an idle fabric).
* :class:`MemoryFIFO`: storage in a ``lib.memory.Memory`` with a synchronous read
  port, which iCE40 synthesis maps to block RAM (``SB_RAM40_4K``): no flip-flops or
  multiplexer per stored bit, at the cost of the simulator speed above.
* :class:`MemoryLutRamHeadFIFO`: a :class:`MemoryFIFO` that keeps its entries' head
  bits (the routes a router's allocator reads) in LUT RAM, for the families that have
  it: a register file of them, with its read multiplexer, grows with the depth
  (docs/router-design.md, "Which buffer per family").
* :class:`DistributedFIFO`: storage in a ``lib.memory.Memory`` with an asynchronous
  (combinational) read port, which synthesis maps to the LUT RAM of the families
  that have it (ECP5 ``TRELLIS_DPR16X4``, Gowin ``RAM16SDP4``: 16 entries of 4 bits
  in a few LUTs) and to flip-flops and a multiplexer elsewhere (iCE40).

With ``head=n``, the low ``n`` bits of the oldest entry come straight from flip-flops
and are zero while the FIFO is empty, so that logic reading them starts a clock cycle
with no multiplexer in front of it: :class:`RegisterFIFO`'s first slot, or a register
of their own in the others, loaded with the next entry's head bits, which
:class:`MemoryFIFO` keeps in registers and :class:`MemoryLutRamHeadFIFO` and
:class:`DistributedFIFO` in a LUT RAM of their own (read at the next entry's row).
"""

from amaranth.hdl import Module, Signal, Array, Mux, Cat, C, Elaboratable
from amaranth.lib.fifo import FIFOInterface
from amaranth.lib.memory import Memory

from ..topology.base import check_int


__all__ = ["RegisterFIFO", "MemoryFIFO", "MemoryLutRamHeadFIFO", "DistributedFIFO",
           "register_fifo_logic", "memory_fifo_logic", "memory_lut_ram_head_fifo_logic",
           "distributed_fifo_logic"]


class _FIFO(Elaboratable, FIFOInterface):
    """Base of the FIFOs here: checked parameters, logic from :attr:`_logic`."""

    def __init__(self, *, width, depth, head=0):
        width = check_int("FIFO width", width, 0)
        depth = check_int("FIFO depth", depth, 1)
        self.head = check_int("FIFO head width", head, 0, width)
        super().__init__(width=width, depth=depth)

    def elaborate(self, platform):
        m = Module()
        type(self)._logic(m, self, head=self.head)
        return m


class RegisterFIFO(_FIFO):
    """Synchronous first-word-fall-through FIFO in registers: a shift register whose
    first slot is the oldest entry.

    Parameters
    ----------
    width : int
        Bits per entry (>= 0).
    depth : int
        Entries (>= 1).
    head : int
        The low ``head`` bits of ``r_data`` are zero while the FIFO is empty
        (0 <= head <= width; default 0; all of ``r_data`` comes from flip-flops).

    Attributes are those of :class:`amaranth.lib.fifo.FIFOInterface` (``w_data``,
    ``w_en``, ``w_rdy``, ``w_level``, ``r_data``, ``r_en``, ``r_rdy``, ``r_level``),
    with the timing of :class:`amaranth.lib.fifo.SyncFIFO`: an entry written in one
    cycle is readable in the next; ``r_data`` is valid whenever ``r_rdy``. ``w_rdy``
    and ``r_rdy`` are register outputs.
    """

    _logic = staticmethod(lambda m, fifo, head: register_fifo_logic(m, fifo, head=head))


class MemoryFIFO(_FIFO):
    """A FIFO with the timing of :class:`RegisterFIFO` whose entries (but for the
    ``head`` bits) are stored in a :class:`amaranth.lib.memory.Memory` (block RAM on
    FPGAs).

    Parameters and attributes are those of :class:`RegisterFIFO`; the other bits of
    ``r_data`` are the output of the memory's synchronous read port. The entries'
    ``head`` bits are kept in registers, read at the row after the read pointer into
    the head register (:class:`MemoryLutRamHeadFIFO` keeps them in LUT RAM).
    """

    _logic = staticmethod(lambda m, fifo, head: memory_fifo_logic(m, fifo, head=head))


class MemoryLutRamHeadFIFO(_FIFO):
    """A :class:`MemoryFIFO` whose entries' ``head`` bits are kept in a second memory
    read asynchronously (LUT RAM on ECP5 and Gowin), read at the row after the read
    pointer into the head register, instead of in registers.

    Parameters and attributes are those of :class:`RegisterFIFO`.
    """

    _logic = staticmethod(lambda m, fifo, head: memory_lut_ram_head_fifo_logic(m, fifo,
                                                                              head=head))


class DistributedFIFO(_FIFO):
    """A FIFO with the timing of :class:`RegisterFIFO` whose entries (but for the
    ``head`` bits) are stored in a :class:`amaranth.lib.memory.Memory` read
    asynchronously (LUT RAM on the FPGAs that have it: ECP5, Gowin).

    Parameters and attributes are those of :class:`RegisterFIFO`; the other bits of
    ``r_data`` are the memory's row at the read pointer.
    The entries' ``head`` bits are kept in a second memory (LUT RAM too), read at the
    row after the read pointer into the head register.
    """

    _logic = staticmethod(lambda m, fifo, head: distributed_fifo_logic(m, fifo, head=head))


def register_fifo_logic(m, fifo, name="fifo", *, head=0):
    """Build the logic of :class:`RegisterFIFO` for the ``fifo`` interface (an
    :class:`~amaranth.lib.fifo.FIFOInterface`) in module ``m``: a router builds
    its buffers inline, which the Python simulator runs much faster than many
    small modules.

    Slot ``i`` holds an entry while the level is over ``i``; slot 0 is ``r_data``.
    A slot takes the slot after it while that one holds an entry, else the entry
    being written (its head bits zero unless one is written, so that a read that
    empties the FIFO leaves them zero): the level alone chooses, so that the read
    enable (which comes late, from the grant) reaches no multiplexer. A read
    enables every slot that holds an entry but the last slot (each takes its
    successor's, the last one holding an entry the entry being written); a write
    enables the first free slot (with a read, that slot is still free after it)."""
    do_write, do_read = _level_logic(m, fifo, name)
    level = fifo.r_level
    incoming = Cat(fifo.w_data[:head] & do_write.replicate(head), fifo.w_data[head:])
    slots = [Signal(fifo.width, name=f"{name}_slot{i}") for i in range(fifo.depth)]
    for i, slot in enumerate(slots[:-1]):
        with m.If((do_read & (level > i)) | (do_write & (level == i))):
            m.d.sync += slot.eq(Mux(level > i + 1, slots[i + 1], incoming))
    # the last slot is written alone: a read of a full FIFO comes without a write,
    # and frees it (of a FIFO of one slot, that empties it: its head bits are zeroed)
    last = len(slots) - 1
    enable = do_write & (level == last)
    if not last:
        enable |= do_read
    with m.If(enable):
        m.d.sync += slots[last].eq(incoming)
    m.d.comb += fifo.r_data.eq(slots[0])


def memory_fifo_logic(m, fifo, name="fifo", *, head=0):
    """Build the logic of :class:`MemoryFIFO` for the ``fifo`` interface in module
    ``m`` (the memory becomes submodule ``{name}_storage``)."""
    _block_ram_logic(m, fifo, name, head, _register_rows)


def memory_lut_ram_head_fifo_logic(m, fifo, name="fifo", *, head=0):
    """Build the logic of :class:`MemoryLutRamHeadFIFO` for the ``fifo`` interface in
    module ``m`` (the memories become submodules ``{name}_storage`` and
    ``{name}_head_storage``)."""
    _block_ram_logic(m, fifo, name, head, _lut_ram_rows)


def _block_ram_logic(m, fifo, name, head, head_rows):
    """The logic of a FIFO whose entries but for their ``head`` bits are in block RAM
    (:class:`MemoryFIFO`), those kept by ``head_rows``."""
    stored = _memory_logic(m, fifo, name, head, {"ram_style": "block"}, head_rows)
    if stored is None:
        return
    storage, write, do_read, consume, head_data = stored
    # The read port reads, at every clock edge, the row that will be the oldest
    # entry after it, and sees a write to that row at the same edge (transparency):
    # its registered output is then always the oldest entry.
    read = storage.read_port(transparent_for=(write,))
    m.d.comb += [
        read.addr.eq(Mux(do_read, _next(consume, fifo.depth), consume)),
        read.en.eq(1),
        fifo.r_data.eq(Cat(head_data, read.data)),
    ]


def distributed_fifo_logic(m, fifo, name="fifo", *, head=0):
    """Build the logic of :class:`DistributedFIFO` for the ``fifo`` interface in module
    ``m`` (the memory becomes submodule ``{name}_storage``)."""
    stored = _memory_logic(m, fifo, name, head, {}, _lut_ram_rows)
    if stored is None:
        return
    storage, _, _, consume, head_data = stored
    # an entry written at a clock edge is readable after it, as in a RegisterFIFO
    read = storage.read_port(domain="comb")
    m.d.comb += [
        read.addr.eq(consume),
        fifo.r_data.eq(Cat(head_data, read.data)),
    ]


def _memory_logic(m, fifo, name, head, attrs, head_rows):
    """The pointers and head register of a FIFO whose other bits are kept in a
    ``lib.memory.Memory`` (submodule ``{name}_storage``, with ``attrs``), and the memory
    with its write port. ``head_rows``: where the head bits of the entries are kept
    (:func:`_register_rows` or :func:`_lut_ram_rows`). Returns ``(memory, write port,
    do_read, consume, head data)``; None, with ``r_data`` the head register, when the
    head is every bit."""
    do_write, do_read, produce, consume = _pointer_logic(m, fifo, name)
    head_data = _head_logic(m, fifo, head, do_write, do_read, produce, consume, name,
                            head_rows)
    if fifo.width == head:
        m.d.comb += fifo.r_data.eq(head_data)
        return None
    storage = m.submodules[f"{name}_storage"] = Memory(
        shape=fifo.width - head, depth=fifo.depth, init=[], attrs=attrs)
    write = storage.write_port()
    m.d.comb += [
        write.addr.eq(produce),
        write.data.eq(fifo.w_data[head:]),
        write.en.eq(do_write),
    ]
    return storage, write, do_read, consume, head_data


def _next(pointer, depth):
    return Mux(pointer == depth - 1, 0, pointer + 1)


def _pointer_logic(m, fifo, name):
    """The fill level of ``fifo`` (:func:`_level_logic`) and the write and read
    pointers; returns ``(do_write, do_read, produce, consume)``."""
    depth = fifo.depth
    produce = Signal(range(depth), name=f"{name}_produce")
    consume = Signal(range(depth), name=f"{name}_consume")
    do_write, do_read = _level_logic(m, fifo, name, pointers=(produce, consume))
    return do_write, do_read, produce, consume


def _level_logic(m, fifo, name, pointers=()):
    """The fill level of ``fifo`` (``w_level``, ``r_level``), ``w_rdy`` and ``r_rdy``
    as flip-flops (so that a read or write enable is one gate from them); with
    ``pointers`` (``(produce, consume)``), the write and read pointers advanced on a
    write and a read. Returns ``(do_write, do_read)``."""
    depth = fifo.depth
    not_empty = Signal(name=f"{name}_not_empty")
    if depth == 1:
        # the level is the "not empty" flip-flop, "not full" its complement
        m.d.comb += [fifo.w_rdy.eq(~not_empty), fifo.r_rdy.eq(not_empty),
                     fifo.w_level.eq(not_empty), fifo.r_level.eq(not_empty)]
        do_write = fifo.w_en & ~not_empty
        do_read = fifo.r_en & not_empty
        with m.If(do_write | do_read):
            m.d.sync += not_empty.eq(do_write)
        return do_write, do_read
    level = Signal(range(depth + 1), name=f"{name}_level")
    not_full = Signal(init=1, name=f"{name}_not_full")
    m.d.comb += [fifo.w_rdy.eq(not_full), fifo.r_rdy.eq(not_empty),
                 fifo.w_level.eq(level), fifo.r_level.eq(level)]
    do_write = fifo.w_en & not_full
    do_read = fifo.r_en & not_empty
    for pointer, advance in zip(pointers, (do_write, do_read)):
        with m.If(advance):
            m.d.sync += pointer.eq(_next(pointer, depth))
    with m.If(do_write & ~do_read):
        m.d.sync += [level.eq(level + 1), not_empty.eq(1), not_full.eq(level != depth - 1)]
    with m.Elif(do_read & ~do_write):
        m.d.sync += [level.eq(level - 1), not_full.eq(1), not_empty.eq(level != 1)]
    return do_write, do_read


def _register_rows(m, incoming, do_write, produce, after, depth, name):
    """The head bits of ``depth`` entries in registers (written with ``incoming`` at
    row ``produce`` on ``do_write``); returns the row at ``after``."""
    slots = Array(Signal(len(incoming), name=f"{name}_head_slot{i}") for i in range(depth))
    with m.If(do_write):
        m.d.sync += slots[produce].eq(incoming)
    return slots[after]


def _lut_ram_rows(m, incoming, do_write, produce, after, depth, name):
    """As :func:`_register_rows`, the rows in a memory of their own read
    asynchronously (submodule ``{name}_head_storage``: LUT RAM, whose LUTs replace the
    registers' read multiplexer)."""
    rows = m.submodules[f"{name}_head_storage"] = Memory(shape=len(incoming), depth=depth,
                                                         init=[])
    write = rows.write_port()
    read = rows.read_port(domain="comb")
    m.d.comb += [write.addr.eq(produce), write.data.eq(incoming), write.en.eq(do_write),
                 read.addr.eq(after)]
    return read.data


def _head_logic(m, fifo, head, do_write, do_read, produce, consume, name, rows):
    """The low ``head`` bits of the oldest entry, from a register (zero while empty);
    the entries' head bits are kept by ``rows`` (:func:`_register_rows` or
    :func:`_lut_ram_rows`)."""
    if not head:
        return C(0, 0)
    depth = fifo.depth
    register = Signal(head, name=f"{name}_head")
    incoming = fifo.w_data[:head]
    if depth == 1:
        # the one entry is the oldest: the register is all the storage it needs
        # (a write finds the FIFO empty, a read leaves it so)
        with m.If(do_write):
            m.d.sync += register.eq(incoming)
        with m.Elif(do_read):
            m.d.sync += register.eq(0)
        return register
    after = rows(m, incoming, do_write, produce, _next(consume, depth), depth, name)
    # The register changes when the oldest entry leaves or the FIFO is empty. Its next
    # value is the entry after the oldest (read before this cycle's grant is known),
    # or, when nothing older remains, the entry being written (or zero): the read
    # enable only chooses between them.
    empty = ~fifo.r_rdy
    nothing_after = Mux(do_read, fifo.r_level == 1, empty)
    with m.If(do_read | empty):
        m.d.sync += register.eq(Mux(nothing_after, Mux(do_write, incoming, 0),
                                    after))
    return register
