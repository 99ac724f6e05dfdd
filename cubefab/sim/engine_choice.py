"""Which engine a run uses by default: the one that finishes it first.

Both engines simulate the same self-checking fabric, so the choice changes how long a
run takes, never its result. The Amaranth simulator needs no build but is slow; the
Verilator engine runs about a thousand times faster but first compiles the node
(once per design and machine). :func:`choose_engine` compares the Amaranth simulator's
estimated time with a Verilator build, using the figures below, measured with
``benchmarks/engine_choice.py``. It decides by the design and the run alone, never by
what happens to be cached on the machine, so the same command picks the same engine
everywhere; a cached build only makes the Verilator engine start sooner.
"""

__all__ = ["AMARANTH_ROUTER_CYCLES_PER_SECOND", "AMARANTH_ELABORATION_SECONDS",
           "VERILATOR_BUILD_SECONDS", "AUTO_RULE", "amaranth_seconds", "choose_engine"]


#: Router-cycles per second of the Amaranth simulator on the self-checking fabric with
#: every check on (measured 261 per CPU second on MC(1,2), 49 on DLH(4,3):
#: ``benchmarks/sim_speed.py``).
AMARANTH_ROUTER_CYCLES_PER_SECOND = 250

#: Seconds the Amaranth engine spends per node before its first cycle (elaboration;
#: measured 0.3).
AMARANTH_ELABORATION_SECONDS = 0.3

#: Seconds of an uncached Verilator build of the self-checking node (measured 7-27 s
#: on two shared cores, growing with the node's ports and VCs).
VERILATOR_BUILD_SECONDS = 20

#: The rule, for help texts.
AUTO_RULE = (f"verilator when the Amaranth simulator would need longer than a "
             f"Verilator build (nodes x "
             f"({AMARANTH_ELABORATION_SECONDS:g} s + cycles / "
             f"{AMARANTH_ROUTER_CYCLES_PER_SECOND}) > {VERILATOR_BUILD_SECONDS} s); "
             f"amaranth otherwise, or when make or a C++ compiler is missing")


def amaranth_seconds(nodes, cycles):
    """Estimated seconds of an Amaranth run of ``nodes`` routers for ``cycles`` cycles."""
    return nodes * (AMARANTH_ELABORATION_SECONDS + cycles / AMARANTH_ROUTER_CYCLES_PER_SECOND)


def choose_engine(nodes, cycles, *, available):
    """``(engine, why)``: the faster engine for a run (see :data:`AUTO_RULE`), and the
    reason as a phrase.

    The choice depends on the run's size and on the tools installed, not on the
    machine's build cache.

    Parameters
    ----------
    nodes, cycles : int
        Routers simulated and cycles run.
    available : bool
        Whether Verilator, ``make`` and a C++ compiler are installed.
    """
    if not available:
        return "amaranth", "Verilator cannot build here"
    estimate = amaranth_seconds(nodes, cycles)
    if estimate > VERILATOR_BUILD_SECONDS:
        return "verilator", (f"Amaranth would need ~{estimate:.0f} s, a build "
                             f"~{VERILATOR_BUILD_SECONDS} s")
    return "amaranth", (f"Amaranth needs ~{estimate:.0f} s, less than a Verilator build "
                        f"(~{VERILATOR_BUILD_SECONDS} s)")
