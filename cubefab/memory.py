"""The memory one command may use: one rule, defined here, for every size check.

Work whose memory estimate (from the sizes it was given, before anything is
allocated) is over :func:`memory_limit` is refused with :func:`check_memory`'s one
message, the estimate and the limit in MiB; the command line prints it as one
``error:`` line (exit status 2). The rule (docs/cli.md states it): 2,048 MiB
(:data:`MEMORY_LIMIT`), or the MiB that the environment variable
``CUBEFAB_MEMORY_LIMIT_MB`` gives instead, and at most three quarters of the memory
the machine has available and half the process's address-space limit (``ulimit -v``).

Every layer may use this module (tests/test_imports.py): the command line's checks
(:mod:`cubefab.commands.limits`) and the library's own
(:func:`cubefab.topology.properties.check_bfs_size`) say the same thing.
"""

import math
import os


__all__ = ["MEMORY_LIMIT", "LIMIT_VARIABLE", "MemoryLimitError", "memory_limit",
           "check_memory", "refusal"]

#: Default memory limit of one command (bytes).
MEMORY_LIMIT = 2 << 30
#: The environment variable that sets another limit, in MiB.
LIMIT_VARIABLE = "CUBEFAB_MEMORY_LIMIT_MB"

_MIB = 1 << 20


class MemoryLimitError(ValueError):
    """Work whose memory estimate is over :func:`memory_limit` (or a bad
    ``CUBEFAB_MEMORY_LIMIT_MB``)."""


def _available():
    """Bytes of memory available now (Linux ``MemAvailable``), or None."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        import psutil
        return psutil.virtual_memory().available
    except Exception:     # no psutil, or no figure on this system
        return None


def _address_space_cap():
    """This process's address-space limit (``ulimit -v``) in bytes, or None."""
    try:
        import resource
        cap = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, OSError, ValueError):
        return None
    return None if cap == resource.RLIM_INFINITY else cap


def memory_limit():
    """The memory one command may use (bytes), by the rule of this module.

    Raises
    ------
    MemoryLimitError
        If ``CUBEFAB_MEMORY_LIMIT_MB`` is set and not a positive integer.
    """
    limit = MEMORY_LIMIT
    text = os.environ.get(LIMIT_VARIABLE, "").strip()
    if text:
        if not (text.isascii() and text.isdigit() and 0 < len(text) <= 9 and int(text)):
            raise MemoryLimitError(f"{LIMIT_VARIABLE} must be a positive integer (MiB), "
                                   f"not {text!r}")
        limit = int(text) * _MIB
    available = _available()
    if available is not None:
        limit = min(limit, available * 3 // 4)
    cap = _address_space_cap()
    if cap is not None:
        limit = min(limit, cap // 2)
    return limit


def refusal(what, estimate, limit, hint=""):
    """The one message that refuses ``what``, whose ``estimate`` (bytes) is over
    ``limit`` (bytes)."""
    return (f"{what} would need about {math.ceil(estimate / _MIB):,} MiB of memory; the "
            f"limit is {limit // _MIB:,} MiB of memory" + (f" ({hint})" if hint else ""))


def check_memory(what, estimate, hint=""):
    """Raise :class:`MemoryLimitError` (:func:`refusal`'s message) when ``what``'s
    ``estimate`` (bytes) is over :func:`memory_limit`."""
    limit = memory_limit()
    if estimate > limit:
        raise MemoryLimitError(refusal(what, estimate, limit, hint))
