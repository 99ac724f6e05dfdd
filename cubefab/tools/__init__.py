"""Wrappers of the external tools that simulation and the build flow both use:
finding and running Yosys and nextpnr (:mod:`.process`), the FPGA devices and their
families (:mod:`.devices`), netlists synthesised for simulation (:mod:`.netlist`) and
Verilator builds (:mod:`.verilator`). ``cubefab.sim`` and ``cubefab.build`` import
these, never each other."""
