"""Progress reporting on standard error for long work."""

import contextlib
import sys
import threading
import time


__all__ = ["Progress", "working"]


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
