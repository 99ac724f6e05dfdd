"""Simulation: the self-checking fabric in two engines, its checks, statistics,
sweeps and performance analysis.

:func:`cubefab.sim.selfcheck_run.run_selfcheck` simulates a
:class:`~cubefab.hdl.selfcheck.SelfCheckingFabric` in Amaranth's simulator (the
reference, with waveforms) or compiled by Verilator (:mod:`cubefab.sim.verilator_fabric`),
with the same checks (:mod:`cubefab.sim.checks`) and identical results.
"""
