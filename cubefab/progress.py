"""Progress reporting on standard error for long work."""

import contextlib
import dataclasses
import sys
import threading
import time


__all__ = ["Progress", "working", "build_stages", "Stage", "Stages", "in_stage", "duration"]


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


def duration(seconds):
    """``seconds`` in words: ``"45 s"``, ``"3 min 10 s"``, ``"1 h 05 min"``."""
    if seconds < 1:
        return "under 1 s"
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


@dataclasses.dataclass
class Stage:
    """One stage of a :class:`Stages` run: its ``label`` (what it does, in words), its
    ``estimate`` in seconds (None: not known yet), what the estimate was made from
    (``basis``: name -> value) and, once it ended, the ``seconds`` it took."""
    label: str
    estimate: float = None
    basis: dict = None
    seconds: float = None


class Stages:
    """The stages of a long run (the Verilog, yosys, nextpnr, the bitstream packer),
    each reported on stderr as it starts and ends with the time it took and an
    estimate of the time left, whether stderr is a terminal or not: a run of many
    minutes never passes in silence, in a terminal or in a CI log.

    On a terminal the running stage's line is redrawn twice a second with its elapsed
    time; elsewhere a plain line says how long it has run every ``every`` seconds.

    Parameters
    ----------
    what : str
        What is being built (``"the Q(3) fabric on lfe5u-85f"``).
    stages : dict
        Stage name -> :class:`Stage`, in the order they run. Estimates may be revised
        as the run learns more (:meth:`estimate`).
    stream : file, optional
        Where to write (stderr by default).
    every : float
        Seconds between the plain lines of a running stage (not a terminal).
    """

    def __init__(self, what, stages, stream=None, every=60.0):
        if not stages:
            raise ValueError("Stages must name at least one stage")
        if not every > 0:
            raise ValueError(f"Seconds between progress lines must be positive, not "
                             f"{every!r}")
        self.what = what
        self.stages = dict(stages)
        self.stream = stream
        self.every = every
        self._start = time.monotonic()

    def estimate(self, name, seconds, basis=None):
        """Set stage ``name``'s estimate to ``seconds`` (None: not known), made from
        ``basis`` (name -> value, for the report)."""
        self.stages[name].estimate = seconds
        self.stages[name].basis = basis

    def skip(self, name):
        """Leave stage ``name`` out: it will not run (e.g. no place and route of a
        design larger than the device)."""
        del self.stages[name]

    def say(self, text):
        """Report ``text``, a line of its own between stages (why a stage runs
        again)."""
        self._say(text)

    def left(self, name=None, elapsed=0.0):
        """Estimated seconds left in the run while stage ``name`` has run ``elapsed``
        seconds (None: every stage not ended), or None when a stage to come has no
        estimate or stage ``name`` has run longer than its own."""
        total = 0.0
        for key, stage in self.stages.items():
            if stage.seconds is not None:
                continue
            if stage.estimate is None or (key == name and elapsed > stage.estimate):
                return None
            total += stage.estimate - elapsed if key == name else stage.estimate
        return total

    def _out(self):
        return self.stream or sys.stderr

    def _say(self, text):
        out = self._out()
        if out.isatty():          # over the redrawn line
            out.write("\r\x1b[K")
        out.write(text + "\n")
        out.flush()

    def _left_text(self, name=None, elapsed=0.0):
        left = self.left(name, elapsed)
        if left is None:
            return "time left unknown"
        return "almost done" if left < 1 else f"about {duration(left)} left"

    def _running_text(self, name, elapsed):
        stage = self.stages[name]
        if stage.estimate is None:
            return f"  {stage.label}: {duration(elapsed)}"
        over = "" if elapsed <= stage.estimate else ", longer than estimated"
        return (f"  {stage.label}: {duration(elapsed)} of an estimated "
                f"{duration(stage.estimate)}{over}; {self._left_text(name, elapsed)}")

    def _watch(self, name, done):
        """Redraw (terminal) or repeat (not a terminal) the running stage's line until
        ``done`` is set."""
        start = time.monotonic()
        tty = self._out().isatty()
        while not done.wait(0.5 if tty else self.every):
            text = self._running_text(name, time.monotonic() - start)
            out = self._out()
            out.write(f"\r{text}\x1b[K" if tty else text + "\n")
            out.flush()

    @contextlib.contextmanager
    def stage(self, name):
        """Run stage ``name`` in the block: its lines before, during and after."""
        stage = self.stages[name]
        number = list(self.stages).index(name) + 1
        estimate = ("no estimate" if stage.estimate is None else
                    f"estimate {duration(stage.estimate)}")
        self._say(f"[{number}/{len(self.stages)}] {stage.label} of {self.what} "
                  f"({estimate}; {self._left_text()})")
        done = threading.Event()
        thread = threading.Thread(target=self._watch, args=(name, done), daemon=True)
        start = time.monotonic()
        thread.start()
        try:
            yield stage
        finally:
            done.set()
            thread.join()
            if self._out().isatty():      # no half line before an error message
                self._out().write("\r\x1b[K")
        seconds = time.monotonic() - start
        # a stage run again (a netlist synthesised again to place) counts both runs
        stage.seconds = round((stage.seconds or 0) + seconds, 2)
        self._say(f"[{number}/{len(self.stages)}] {stage.label} done in "
                  f"{duration(seconds)}"
                  + ("" if self.left() == 0 else f"; {self._left_text()}"))

    def summary(self):
        """``{stage: {"seconds": ..., "estimate": ..., "from": ...}}`` of the stages
        that ran (the estimates rounded to 0.1 s; ``from`` their basis), for a JSON
        report."""
        return {name: {"seconds": s.seconds,
                       "estimate": None if s.estimate is None else round(s.estimate, 1),
                       "from": dict(s.basis or {})}
                for name, s in self.stages.items() if s.seconds is not None}


def in_stage(stages, name):
    """``stages.stage(name)`` of a :class:`Stages`, or a block that reports nothing
    when ``stages`` is None or has no stage ``name``."""
    if stages is None or name not in stages.stages:
        return contextlib.nullcontext()
    return stages.stage(name)
