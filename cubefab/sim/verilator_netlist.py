"""The self-checking fabric with its node as the post-synthesis netlist of an FPGA
family, in Verilator: the check that synthesis kept the behaviour the RTL simulations
verified.

:class:`NetlistFabricModel` is a
:class:`~cubefab.sim.verilator_fabric.VerilatorFabricModel` whose compiled node is not
the node's RTL but what yosys made of it for a device
(:func:`cubefab.tools.netlist.synthesize_for_simulation`: ``synth_<family>``, then
``write_verilog``) together with the family's cell simulation models. The C++ netlist,
the traffic, the counters and the checks are the RTL run's, so a run of the same seed
must give the same counters and latency histograms.
"""

import os
import shutil
import tempfile
from dataclasses import dataclass

from ..tools import devices, netlist
from ..tools.netlist import synthesize_for_simulation
from ..hdl.selfcheck import NODE_MODULE
from ..tools.verilator import _run_build_step, _VERILATOR_FLAGS, verilator_executable
from .verilator_fabric import VerilatorFabricModel


__all__ = ["Netlist", "NetlistFabricModel", "TIMING_KEYS", "run_differences"]


#: Keys of a run's result that measure the machine, not the design.
TIMING_KEYS = ("seconds", "cpu_seconds", "build_seconds", "cycles_per_second",
               "router_cycles_per_second", "router_cycles_per_cpu_second", "threads",
               "netlist")


def run_differences(rtl, netlist):
    """The keys of two :func:`~cubefab.sim.selfcheck_run.run_selfcheck` results (the
    RTL's and the netlist's, same arguments) whose values differ, but for
    :data:`TIMING_KEYS`: ``{key: [rtl value, netlist value]}`` (empty when the
    counters, checks and latency histogram are identical)."""
    keys = (set(rtl) | set(netlist)) - set(TIMING_KEYS)
    return {key: [rtl.get(key), netlist.get(key)] for key in sorted(keys)
            if rtl.get(key) != netlist.get(key)}


@dataclass(frozen=True)
class Netlist:
    """Which netlist a self-checking run simulates instead of the RTL: that of
    ``device`` (a key of :data:`~cubefab.tools.devices.DEVICES`), with LUT number
    ``mutate`` inverted when it is not None, its synthesis files kept in ``workdir``
    when given."""
    device: str
    mutate: int = None
    workdir: str = None

    def __post_init__(self):
        devices.check_device(self.device)
        if self.mutate is not None and (isinstance(self.mutate, bool)
                                        or not isinstance(self.mutate, int)
                                        or self.mutate < 0):
            raise ValueError(f"Mutated LUT must be a non-negative integer, not "
                             f"{self.mutate!r}")

    def model(self, factory, config, opt="-O2", threads=1):
        """The :class:`NetlistFabricModel` of a run of ``config``."""
        return NetlistFabricModel(factory, config, self.device, mutate=self.mutate,
                                  workdir=self.workdir, opt=opt, threads=threads)


class NetlistFabricModel(VerilatorFabricModel):
    """A self-checking fabric whose nodes run the post-synthesis netlist for
    ``device``.

    Parameters
    ----------
    factory, config, opt, jobs, threads
        As for :class:`~cubefab.sim.verilator_fabric.VerilatorFabricModel`.
    device : str
        A key of :data:`~cubefab.tools.devices.DEVICES`: the family synthesised for.
    mutate : int, optional
        Invert one LUT of the netlist (:func:`~cubefab.tools.netlist.invert_lut`): a
        netlist that no longer matches its RTL, for tests of the check.
    workdir : str, optional
        Keep the synthesis files (netlist, logs) there; a temporary directory
        otherwise.
    """

    #: the netlist of the node as it is, without the random ports: every node is evaluated
    random_input = False

    def __init__(self, factory, config, device, *, mutate=None, workdir=None, opt="-O2",
                 jobs=None, threads=1):
        self.device = device
        self.mutate = mutate
        self.workdir = workdir
        self.synthesis = None
        super().__init__(factory, dict(config, netlist=device, mutate=mutate), opt=opt,
                         jobs=jobs, threads=threads)

    def _generator_source(self):
        # the synthesis flow is part of what the build depends on
        text = [super()._generator_source()]
        for module in (netlist, devices):
            text.append(_read(module.__file__))
        return "\0".join(text)

    def _sources(self, design):
        files, headers, ports = super()._sources(design)
        work = self.workdir or tempfile.mkdtemp(prefix="cubefab-netlist-")
        try:
            self.synthesis = synthesize_for_simulation(
                files[NODE_MODULE + ".v"], NODE_MODULE, self.device, work, self.mutate)
            files = {NODE_MODULE + ".v": _read(self.synthesis["netlist"])}
            for index, path in enumerate(self.synthesis["models"]):
                files[f"cells_sim_{index}.v"] = _read(path)
        finally:
            if self.workdir is None:
                shutil.rmtree(work, ignore_errors=True)
        return files, headers, ports

    def _verilate(self, work, files):
        include = os.path.dirname(self.synthesis["models"][0])
        _run_build_step([verilator_executable(), "--cc", "--exe", "--top-module", self.name,
                         *_VERILATOR_FLAGS, f"-I{include}", "--Mdir", "obj", *files,
                         self.main_files[0]], work, "verilator")


def _read(path):
    with open(path) as f:
        return f.read()
