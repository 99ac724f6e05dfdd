"""Running a BookSim2 binary on an exported configuration and reading its results.

BookSim2's ``main`` returns ``-1`` when the simulation ran to the end (exit status
255) and ``0`` when it gave up because the network did not reach a steady state
("Simulation unstable", an offered load beyond saturation) or when the command line
was unusable; errors in the configuration or network files also exit with 255 (or 1,
from the ``cubefab_table`` routing of the patch). A run is therefore judged by its
output, not its status alone: :func:`run_booksim` accepts status 255 with the final
statistics, or status 0 with "Simulation unstable", and raises otherwise.
"""

import re
import os
import subprocess
import threading


__all__ = ["parse_booksim_output", "run_booksim"]


_FLOAT = r"([-+0-9.eE]+|nan|inf|-nan)"
_PATTERNS = {
    "avg_latency": re.compile(r"^Packet latency average = " + _FLOAT, re.M),
    "network_latency": re.compile(r"^Network latency average = " + _FLOAT, re.M),
    "accepted_flit_rate": re.compile(r"^Accepted flit rate average = " + _FLOAT, re.M),
    "injected_flit_rate": re.compile(r"^Injected flit rate average = " + _FLOAT, re.M),
    "avg_hops": re.compile(r"^Hops average = " + _FLOAT, re.M),
}
_CYCLES = re.compile(r"^Time taken is (\d+) cycles", re.M)
_SECONDS = re.compile(r"^Total run time " + _FLOAT, re.M)
_DEADLOCK = "WARNING: Possible network deadlock"


def parse_booksim_output(text):
    """The overall statistics of a BookSim2 run's standard output.

    Returns
    -------
    dict
        ``avg_latency`` (packet latency, from creation, cycles), ``network_latency``
        (from injection), ``accepted_flit_rate`` and ``injected_flit_rate`` (flits per
        node per cycle), ``avg_hops`` (routers traversed): the values of the final
        "Overall Traffic Statistics" block (None where absent); ``cycles`` simulated
        and ``seconds`` of simulation (BookSim's "Time taken" and "Total run time",
        None where absent); ``unstable`` (BookSim gave up: the offered load is beyond
        saturation).
    """
    marker = text.rfind("Overall Traffic Statistics")
    block = text[marker:] if marker >= 0 else ""
    result = {}
    for key, pattern in _PATTERNS.items():
        found = pattern.findall(block)
        result[key] = float(found[-1]) if found else None
    cycles = _CYCLES.findall(text)
    seconds = _SECONDS.findall(text)
    result["cycles"] = sum(int(c) for c in cycles) if cycles else None
    result["seconds"] = float(seconds[-1]) if seconds else None
    result["unstable"] = "Simulation unstable" in text or result["avg_latency"] is None
    return result


def run_booksim(binary, config_file, timeout=600, **overrides):
    """Run BookSim2 ``binary`` on ``config_file`` with ``key=value`` overrides.

    Returns :func:`parse_booksim_output` of its output plus ``deadlocked``: BookSim
    printed "Possible network deadlock" (no flit left the network for
    ``deadlock_warn_timeout`` cycles while some were in it), and the run was stopped
    there, since BookSim would wait for the network to drain forever. BookSim runs
    in ``config_file``'s directory, where :func:`write_booksim`'s configuration names
    its network and table files. Raises
    RuntimeError, with the tail of the output, unless the run ended normally
    (status 255 and statistics), as unstable (status 0 and "Simulation unstable") or
    deadlocked, or when it runs longer than ``timeout`` seconds.
    """
    directory, name = os.path.split(os.path.abspath(config_file))
    args = [os.path.abspath(binary) if os.sep in binary else binary, name] + [
        f"{key}={value}" for key, value in overrides.items()]
    lines, deadlocked = [], False
    # in the configuration's directory: write_booksim names the files it reads there
    with subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, cwd=directory) as proc:
        expired = threading.Event()

        def stop():
            expired.set()
            proc.kill()

        timer = threading.Timer(timeout, stop)
        timer.start()
        try:
            for line in proc.stdout:
                lines.append(line)
                if line.startswith(_DEADLOCK):
                    deadlocked = True
                    proc.kill()
                    break
            status = proc.wait()
        finally:
            timer.cancel()
    text = "".join(lines)
    if expired.is_set():
        raise RuntimeError(f"booksim ran longer than {timeout} s:\n{text[-2000:]}")
    result = parse_booksim_output(text)
    result["deadlocked"] = deadlocked
    finished = status == 255 and "Overall Traffic Statistics" in text
    gave_up = status == 0 and "Simulation unstable" in text
    if not (finished or gave_up or deadlocked):
        raise RuntimeError(f"booksim exited with status {status}:\n{text[-2000:]}")
    return result
