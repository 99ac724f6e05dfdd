"""Which engine a run uses by default: the one that finishes it first.

Both engines simulate the same self-checking fabric, so the choice changes how long a
run takes, never its result. The Amaranth simulator needs no build but is slow; the
Verilator engine runs about a thousand times faster but first compiles the node
(once per design and machine: a cached build costs nothing). :func:`choose_engine`
compares the Amaranth simulator's estimated time with a Verilator build, using the
figures below, measured with ``benchmarks/engine_choice.py``.
"""

__all__ = ["AMARANTH_ROUTER_CYCLES_PER_SECOND", "AMARANTH_ELABORATION_SECONDS",
           "VERILATOR_BUILD_SECONDS", "AUTO_RULE", "amaranth_seconds", "choose_engine"]


#: Router-cycles per second of the Amaranth simulator on the self-checking fabric
#: (measured 977-1100 on Q(3) and MC(1,2)).
AMARANTH_ROUTER_CYCLES_PER_SECOND = 1000

#: Seconds the Amaranth engine spends per node before its first cycle (elaboration;
#: measured 0.3).
AMARANTH_ELABORATION_SECONDS = 0.3

#: Seconds of an uncached Verilator build of the self-checking node (measured 7-27 s
#: on two shared cores, growing with the node's ports and VCs).
VERILATOR_BUILD_SECONDS = 20

#: The rule, for help texts.
AUTO_RULE = (f"verilator when its build of this design is cached or when the Amaranth "
             f"simulator would need longer than a Verilator build (nodes x "
             f"({AMARANTH_ELABORATION_SECONDS:g} s + cycles / "
             f"{AMARANTH_ROUTER_CYCLES_PER_SECOND}) > {VERILATOR_BUILD_SECONDS} s); "
             f"amaranth otherwise, or when make or a C++ compiler is missing")


def amaranth_seconds(nodes, cycles):
    """Estimated seconds of an Amaranth run of ``nodes`` routers for ``cycles`` cycles."""
    return nodes * (AMARANTH_ELABORATION_SECONDS + cycles / AMARANTH_ROUTER_CYCLES_PER_SECOND)


def choose_engine(nodes, cycles, *, cached, available):
    """``(engine, why)``: the faster engine for a run (see :data:`AUTO_RULE`).

    Parameters
    ----------
    nodes, cycles : int
        Routers simulated and cycles run.
    cached : bool
        Whether a Verilator build of the design exists.
    available : bool
        Whether Verilator, ``make`` and a C++ compiler are installed.
    """
    if not available:
        return "amaranth", "Verilator cannot build here"
    if cached:
        return "verilator", "its build is cached"
    estimate = amaranth_seconds(nodes, cycles)
    if estimate > VERILATOR_BUILD_SECONDS:
        return "verilator", (f"Amaranth would need ~{estimate:.0f} s, a build "
                             f"~{VERILATOR_BUILD_SECONDS} s")
    return "amaranth", (f"Amaranth needs ~{estimate:.0f} s, less than a Verilator build "
                        f"(~{VERILATOR_BUILD_SECONDS} s)")
