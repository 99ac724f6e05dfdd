"""Progress reporting on standard error for long work."""

import contextlib
import sys
import threading
import time


__all__ = ["Progress", "working", "build_stages"]


class Progress:
    """A one-line progress bar on stderr, drawn only when stderr is a terminal
    (or ``force`` is set), so pipes, ``--json`` and CI logs stay clean.

    Parameters
    ----------
    label : str
        What is being done.
    unit : str
        What ``done`` and ``total`` count.
    """

    def __init__(self, label, unit="", force=False, stream=None):
        self.label = label
        self.unit = unit
        self.stream = stream or sys.stderr
        self.enabled = force or self.stream.isatty()
        self._last = 0.0
        self._start = time.monotonic()
        self._drawn = False

    def update(self, done, total=None):
        """Report ``done`` out of ``total`` units (redraws at most 10 times a second)."""
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.1 and (total is None or done < total):
            return
        self._last = now
        if total:
            width = 30
            filled = int(width * done / total)
            bar = "#" * filled + "-" * (width - filled)
            text = f"{self.label} [{bar}] {done}/{total} {self.unit}"
        else:
            text = f"{self.label} {done} {self.unit}"
        self.stream.write(f"\r{text} {now - self._start:5.1f}s\x1b[K")
        self.stream.flush()
        self._drawn = True

    def close(self):
        """Finish the line."""
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False


@contextlib.contextmanager
def working(label, estimate=None, stream=None):
    """Show, while the block runs, the seconds spent (against the ``estimate`` in
    seconds when given) for work that reports no progress of its own, such as a
    Verilog conversion. Drawn like :class:`Progress`, only on a terminal."""
    bar = Progress(label, unit="s (estimate)" if estimate else "s", stream=stream)
    if not bar.enabled:
        yield
        return
    done = threading.Event()

    def tick():
        start = time.monotonic()
        while not done.wait(0.5):
            elapsed = int(time.monotonic() - start)
            total = max(int(estimate), elapsed + 1) if estimate else None
            bar.update(elapsed, total)

    thread = threading.Thread(target=tick, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        bar.close()


#: What each stage of a Verilator build does (``VerilatorModel.build``'s stages).
BUILD_STAGES = {"verilog": "converting the design to Verilog",
                "verilate": "running Verilator",
                "compile": "compiling the C++ model (the longest part)"}


def build_stages(what, cache, stream=None):
    """A ``build_progress(stage)`` callback for the Verilator build of ``what``: one
    line on stderr per stage, whether stderr is a terminal or not (a build is rare and
    takes a minute or less, which should never pass in silence), the first saying that
    the model is kept in ``cache`` for the next runs. Nothing is written when the model
    is found in the cache (no stage is reported)."""
    said = []

    def report(stage):
        out = stream or sys.stderr
        if out.isatty():          # over a progress bar's line, if one is drawn
            out.write("\r\x1b[K")
        if not said:
            out.write(f"building the Verilator model of {what} (once: it is kept in "
                      f"{cache} for later runs)\n")
            said.append(stage)
        out.write(f"  {BUILD_STAGES.get(stage, stage)}...\n")
        out.flush()
    return report
