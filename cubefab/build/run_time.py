"""How long synthesis and place and route take: the estimates that ``cubefab synth
router|fabric`` and ``cubefab board`` print with their stages.

The model was fitted to measured runs (:data:`MODEL`, from
``benchmarks/results/run_times.json``, made by ``benchmarks/run_times.py``):

- yosys ``synth_<family>``: ``a + b * MB`` seconds, MB the size of the design's
  Verilog in megabytes (a board's RTLIL counts :data:`RTLIL_PER_VERILOG` times less:
  the same design's RTLIL is that much larger than its Verilog);
- nextpnr: ``a + c * device kLUT + b * kcells`` seconds, kcells the synthesised
  netlist's LUT4s, flip-flops, carry cells and block RAMs in thousands (before
  synthesis ends, ``cells_per_mb * MB`` of them);
- the bitstream packer: ``a + c * device kLUT`` seconds.

Each with coefficients of the device's family. The tools' run times vary with the
machine and its load; the benchmark states the load it measured under.
"""

from ..progress import Stage
from ..tools.devices import check_device


__all__ = ["MODEL", "RTLIL_PER_VERILOG", "design_megabytes", "verilog_seconds",
           "synthesis_seconds", "cells_estimate", "pnr_seconds", "pack_seconds",
           "implementation_stages", "board_stages", "expect_synthesis", "expect_pnr",
           "fit", "estimate_runs"]


#: Bytes of Amaranth's RTLIL of a design per byte of its Verilog (a Q(2) router
#: 170,309 / 97,785, the Q(2) fabric 704,800 / 421,637, each in a timing harness).
RTLIL_PER_VERILOG = 1.7

#: The fitted coefficients, family -> values (see the module docstring):
#: ``synthesis`` (a, b), ``cells_per_mb``, ``pnr`` (a, c, b), ``pack`` (a, c); and
#: ``verilog`` (a, b) of :func:`verilog_seconds`.
#: From ``python benchmarks/run_times.py --save run_times``
#: (benchmarks/results/run_times.json, which holds the runs and their load).
MODEL = {
    "verilog": [0.5, 1.0],
    "synthesis": {"iCE40": [2.0, 20.0], "ECP5": [2.0, 20.0], "Gowin": [2.0, 20.0]},
    "cells_per_mb": {"iCE40": 10.0, "ECP5": 10.0, "Gowin": 10.0},
    "pnr": {"iCE40": [1.0, 0.1, 5.0], "ECP5": [5.0, 0.1, 10.0], "Gowin": [5.0, 0.1, 10.0]},
    "pack": {"iCE40": [0.2, 0.01], "ECP5": [1.0, 0.05], "Gowin": [1.0, 0.05]},
}

def design_megabytes(size, rtlil=False):
    """Megabytes of Verilog that a design of ``size`` bytes of Verilog (of RTLIL when
    ``rtlil``) counts as."""
    return size / (RTLIL_PER_VERILOG if rtlil else 1.0) / 1e6


def _family(device):
    part = check_device(device)
    return part, part.family.name


def verilog_seconds(elaboration, model=MODEL):
    """Estimated seconds of the Verilog (or a board's RTLIL) of a design whose
    elaboration :func:`~cubefab.commands.limits.router_cost` estimates at
    ``elaboration`` seconds (that model leaves out what every design costs)."""
    a, b = model["verilog"]
    return a + b * elaboration


def synthesis_seconds(megabytes, device, model=MODEL):
    """Estimated seconds of yosys on a design of ``megabytes`` (:func:`design_megabytes`)
    for ``device``."""
    _, family = _family(device)
    a, b = model["synthesis"][family]
    return a + b * megabytes


def cells_estimate(megabytes, device, model=MODEL):
    """Estimated cells of the synthesised netlist of a design of ``megabytes``."""
    _, family = _family(device)
    return 1000 * model["cells_per_mb"][family] * megabytes


def _kcells(cells):
    """Thousands of cells: ``cells`` a count, or a dict with ``lut4``, ``ff``,
    ``carry`` and ``ram``."""
    if isinstance(cells, dict):
        cells = sum(cells[key] for key in ("lut4", "ff", "carry", "ram"))
    return cells / 1000


def pnr_seconds(cells, device, model=MODEL):
    """Estimated seconds of nextpnr placing and routing ``cells`` (a count or
    :func:`~cubefab.build.pnr.count_cells`' dict) on ``device``."""
    part, family = _family(device)
    a, c, b = model["pnr"][family]
    return a + c * part.luts / 1000 + b * _kcells(cells)


def pack_seconds(device, model=MODEL):
    """Estimated seconds of the bitstream packer of ``device``."""
    part, family = _family(device)
    a, c = model["pack"][family]
    return a + c * part.luts / 1000


def implementation_stages(device, elaboration, pnr=True):
    """The :class:`~cubefab.progress.Stage`\\ s of ``cubefab synth router|fabric`` on
    ``device``: the Verilog (:func:`verilog_seconds` of ``elaboration``), yosys and,
    when ``pnr``, nextpnr (estimated from the Verilog's size:
    :func:`expect_synthesis`)."""
    family = check_device(device).family
    stages = {"verilog": Stage("Verilog", verilog_seconds(elaboration),
                               {"elaboration": round(elaboration, 3)}),
              "synthesis": Stage(f"yosys {family.synth}")}
    if pnr:
        stages["pnr"] = Stage(f"{family.nextpnr} place and route")
    return stages


def board_stages(device, elaboration, packer):
    """The :class:`~cubefab.progress.Stage`\\ s of ``cubefab board`` on ``device``:
    the design's files (:func:`verilog_seconds` of ``elaboration``), yosys, nextpnr
    and the bitstream ``packer``."""
    stages = implementation_stages(device, elaboration)
    stages["verilog"].label = "RTLIL"
    stages["pack"] = Stage(f"{packer} bitstream", pack_seconds(device), {})
    return stages


def expect_synthesis(stages, size, device, rtlil=False):
    """Set the estimates of the ``synthesis`` and ``pnr`` stages (when there) of
    ``stages`` (:class:`~cubefab.progress.Stages`) for a design of ``size`` bytes of
    Verilog (of RTLIL when ``rtlil``) on ``device``."""
    megabytes = design_megabytes(size, rtlil)
    stages.estimate("synthesis", synthesis_seconds(megabytes, device),
                    {"megabytes": round(megabytes, 4)})
    if "pnr" in stages.stages:
        cells = round(cells_estimate(megabytes, device))
        stages.estimate("pnr", pnr_seconds(cells, device), {"cells_estimated": cells})


def expect_pnr(stages, cells, device):
    """Set the estimate of the ``pnr`` stage of ``stages`` from the synthesised
    netlist's ``cells`` (:func:`pnr_seconds`)."""
    stages.estimate("pnr", pnr_seconds(cells, device), {"cells": round(_kcells(cells) * 1000)})


def _nnls_rows(rows):
    """Non-negative least squares of ``rows`` (``(features, seconds)``), each weighted
    by 1/seconds: the fit with the smallest relative errors."""
    import numpy
    from scipy.optimize import nnls
    a = numpy.array([[x / y for x in features] for features, y in rows])
    solution, _ = nnls(a, numpy.ones(len(rows)))
    return [round(float(v), 6) for v in solution]


def _by_family(runs):
    out = {}
    for run in runs.values():
        out.setdefault(check_device(run["device"]).family.name, []).append(run)
    return out


def fit(runs):
    """The :data:`MODEL` fitted to ``runs`` (``benchmarks/run_times.py``: name ->
    ``seconds`` by stage, ``megabytes``, ``cells``, ``device``)."""
    model = {"verilog": _nnls_rows([([1.0, r["elaboration"]], r["seconds"]["verilog"])
                                    for r in runs.values()]),
             "synthesis": {}, "cells_per_mb": {}, "pnr": {}, "pack": {}}
    for family, measured in sorted(_by_family(runs).items()):
        model["synthesis"][family] = _nnls_rows(
            [([1.0, r["megabytes"]], r["seconds"]["synthesis"]) for r in measured])
        model["cells_per_mb"][family] = _nnls_rows(
            [([r["megabytes"]], _kcells(r["cells"])) for r in measured])[0]
        placed = [r for r in measured if "pnr" in r["seconds"]]
        model["pnr"][family] = _nnls_rows(
            [([1.0, check_device(r["device"]).luts / 1000, _kcells(r["cells"])],
              r["seconds"]["pnr"]) for r in placed])
        packed = [r for r in measured if "pack" in r["seconds"]]
        model["pack"][family] = _nnls_rows(
            [([1.0, check_device(r["device"]).luts / 1000], r["seconds"]["pack"])
             for r in packed]) if packed else [0.0, 0.0]
    return model


def estimate_runs(runs, model=MODEL):
    """Add to each of ``runs`` its ``estimate`` by stage (``pnr`` from the netlist's
    cells, ``pnr_before_synthesis`` from the Verilog's size) and the ``ratio``
    estimate / measured seconds of each."""
    for run in runs.values():
        device, mb = run["device"], run["megabytes"]
        estimate = {"verilog": verilog_seconds(run["elaboration"], model),
                    "synthesis": synthesis_seconds(mb, device, model)}
        if "pnr" in run["seconds"]:
            estimate["pnr"] = pnr_seconds(run["cells"], device, model)
            estimate["pnr_before_synthesis"] = pnr_seconds(
                cells_estimate(mb, device, model), device, model)
        if "pack" in run["seconds"]:
            estimate["pack"] = pack_seconds(device, model)
        run["estimate"] = {k: round(v, 2) for k, v in estimate.items()}
        run["ratio"] = {k: round(v / run["seconds"][k.split("_before")[0]], 2)
                        for k, v in estimate.items()}
    return runs
