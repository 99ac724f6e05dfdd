"""How long synthesis and place and route take: the estimates that ``cubefab synth
router|fabric`` and ``cubefab board`` print with their stages.

The model was fitted to measured runs (:data:`MODEL`, from
``benchmarks/results/run_times.json``, made by ``benchmarks/run_times.py``):

- the Verilog (a board's RTLIL): ``a + b * E`` seconds, E the estimated seconds of
  the design's elaboration (:func:`~cubefab.commands.limits.router_cost`, a model of
  the routers alone);
- yosys ``synth_<family>``: ``a + b * MB`` seconds, MB the size of the design's
  Verilog in megabytes (a board's RTLIL counts :data:`RTLIL_PER_VERILOG` times less:
  the same design's RTLIL is that much larger than its Verilog), ``b`` the same on
  every family;
- nextpnr: ``a + c * device kLUT + b * kcells ** p`` seconds, kcells the synthesised
  netlist's LUT4s, flip-flops, carry cells and block RAMs in thousands (before
  synthesis ends, ``cells_per_mb * MB`` of them): placing and routing grows faster
  than the design (``p``, the same on every family, between 1 and 2.5);
- the bitstream packer: ``a + c * device kLUT`` seconds;

each with coefficients of the device's family, fitted so that the estimates are off
by as small a factor as can be (least squares of the logarithm of estimate / measured
seconds). These are the seconds of a machine with a core to spare; on a busy one a tool
gets a share of a core, and the estimates are multiplied by :func:`load_factor` (the
one-minute load average per core, at least 1), as the measured seconds were divided by
it before the fit.
"""

import os

from ..progress import Stage
from ..tools.devices import check_device


__all__ = ["MODEL", "RTLIL_PER_VERILOG", "load_factor", "design_megabytes", "verilog_seconds", "synthesis_seconds",
           "cells_estimate", "pnr_seconds", "pack_seconds", "implementation_stages",
           "board_stages", "expect_synthesis", "expect_pnr", "fit", "estimate_runs"]


#: The fitted coefficients (see the module docstring): ``verilog`` (a, b); by family,
#: ``synthesis`` (a, b), ``cells_per_mb`` (of Verilog, of RTLIL), ``pnr`` (a, c, b, p)
#: and ``pack`` (a, c). From ``python
#: benchmarks/run_times.py --save run_times`` (benchmarks/results/run_times.json, which
#: holds the runs and the machine's load; tests/tools/test_run_time.py checks that the
#: two agree).
MODEL = {
    "verilog": [0.191172, 0.476109],
    "synthesis": {"ECP5": [1.087359, 4.79958],
                  "Gowin": [0.558334, 4.79958],
                  "iCE40": [2.402994, 4.79958]},
    "cells_per_mb": {"ECP5": [10.402878, 4.235196],
                     "Gowin": [8.561116, 3.317296],
                     "iCE40": [6.53226, 3.493559]},
    "pnr": {"ECP5": [2.095481, 0.034375, 0.2159, 2.3],
            "Gowin": [0.0, 0.660784, 0.416948, 2.3],
            "iCE40": [0.0, 0.127431, 0.952024, 2.3]},
    "pack": {"ECP5": [0.003133, 0.013806],
             "Gowin": [1e-06, 0.173934],
             "iCE40": [0.048783, 0.006404]},
}


#: Bytes of Amaranth's RTLIL of a design per byte of its Verilog (a Q(2) router
#: 170,309 / 97,785, the Q(2) fabric 704,800 / 421,637, each in a timing harness).
RTLIL_PER_VERILOG = 1.7


def load_factor(load=None, cores=None):
    """How many times longer a tool takes than with a core to itself: the one-minute
    ``load`` average (the machine's now by default) per core (``cores``: this
    machine's by default), at least 1 (1 where the load is not known)."""
    if load is None:
        try:
            load = os.getloadavg()[0]
        except OSError:
            return 1.0
    return max(1.0, load / (cores or os.cpu_count() or 1))


def design_megabytes(size):
    """Megabytes of a design of ``size`` bytes."""
    return size / 1e6


def _family(device):
    part = check_device(device)
    return part, part.family.name


def verilog_seconds(elaboration, model=MODEL):
    """Estimated seconds of the Verilog (or a board's RTLIL) of a design whose
    elaboration :func:`~cubefab.commands.limits.router_cost` estimates at
    ``elaboration`` seconds (that model leaves out what every design costs)."""
    a, b = model["verilog"]
    return a + b * elaboration


def synthesis_seconds(megabytes, device, rtlil=False, model=MODEL):
    """Estimated seconds of yosys on a design of ``megabytes`` of Verilog (of RTLIL, a
    board's, when ``rtlil``) for ``device``."""
    _, family = _family(device)
    a, b = model["synthesis"][family]
    return a + b * megabytes / (RTLIL_PER_VERILOG if rtlil else 1)


def cells_estimate(megabytes, device, rtlil=False, model=MODEL):
    """Estimated cells of the synthesised netlist of a design of ``megabytes`` of
    Verilog (of RTLIL when ``rtlil``)."""
    _, family = _family(device)
    return 1000 * model["cells_per_mb"][family][1 if rtlil else 0] * megabytes


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
    a, c, b, p = model["pnr"][family]
    return a + c * part.luts / 1000 + b * _kcells(cells) ** p


def pack_seconds(device, model=MODEL):
    """Estimated seconds of the bitstream packer of ``device``."""
    part, family = _family(device)
    a, c = model["pack"][family]
    return a + c * part.luts / 1000


#: The hierarchical synthesis of ``--by-part`` against the flattened one: the Q(4)
#: AXI4-Stream fabric, W = 32, on the LFE5U-25F took 301 s against 198 s.
PARTS_SYNTHESIS = 1.5


def implementation_stages(device, elaboration, pnr=True, parts=False):
    """The :class:`~cubefab.progress.Stage`\\ s of ``cubefab synth router|fabric`` on
    ``device``: the Verilog (:func:`verilog_seconds` of ``elaboration``), yosys,
    when ``pnr`` nextpnr, and with ``parts`` (``--by-part``) the second, hierarchical
    yosys run (estimated from the Verilog's size: :func:`expect_synthesis`)."""
    family = check_device(device).family
    factor = load_factor()
    stages = {"verilog": Stage("Verilog", factor * verilog_seconds(elaboration),
                               {"elaboration": round(elaboration, 3),
                                "load_factor": round(factor, 2)}),
              "synthesis": Stage(f"yosys {family.synth}")}
    if pnr:
        stages["pnr"] = Stage(f"{family.nextpnr} place and route")
    if parts:
        stages["parts"] = Stage(f"yosys {family.synth} -noflatten of each part")
    return stages


def board_stages(device, elaboration, packer):
    """The :class:`~cubefab.progress.Stage`\\ s of ``cubefab board`` on ``device``:
    the design's files (:func:`verilog_seconds` of ``elaboration``), yosys, nextpnr
    and the bitstream ``packer``."""
    stages = implementation_stages(device, elaboration)
    stages["verilog"].label = "RTLIL"
    factor = load_factor()
    stages["pack"] = Stage(f"{packer} bitstream", factor * pack_seconds(device),
                           {"load_factor": round(factor, 2)})
    return stages


def expect_synthesis(stages, size, device, rtlil=False):
    """Set the estimates of the ``synthesis`` and ``pnr`` stages (when there) of
    ``stages`` (:class:`~cubefab.progress.Stages`) for a design of ``size`` bytes of
    Verilog (of RTLIL when ``rtlil``) on ``device``."""
    megabytes, factor = design_megabytes(size), load_factor()
    basis = {"megabytes": round(megabytes, 4), "rtlil": rtlil,
             "load_factor": round(factor, 2)}
    seconds = factor * synthesis_seconds(megabytes, device, rtlil)
    stages.estimate("synthesis", seconds, basis)
    if "parts" in stages.stages:
        stages.estimate("parts", PARTS_SYNTHESIS * seconds,
                        dict(basis, of_synthesis=PARTS_SYNTHESIS))
    if "pnr" in stages.stages:
        cells = round(cells_estimate(megabytes, device, rtlil))
        stages.estimate("pnr", factor * pnr_seconds(cells, device),
                        {"cells_estimated": cells, "load_factor": round(factor, 2)})


def expect_parts(stages):
    """Set the estimate of the ``parts`` stage of ``stages`` (``--by-part``) from the
    seconds the flattened synthesis took (:data:`PARTS_SYNTHESIS` times them)."""
    seconds = stages.stages["synthesis"].seconds
    stages.estimate("parts", PARTS_SYNTHESIS * seconds,
                    {"synthesis_seconds": seconds, "of_synthesis": PARTS_SYNTHESIS})


def expect_pnr(stages, cells, device):
    """Set the estimate of the ``pnr`` stage of ``stages`` from the synthesised
    netlist's ``cells`` (:func:`pnr_seconds`)."""
    factor = load_factor()
    stages.estimate("pnr", factor * pnr_seconds(cells, device),
                    {"cells": round(_kcells(cells) * 1000), "load_factor": round(factor, 2)})


def _fit_rows(rows, cost=False):
    """The non-negative coefficients x that make ``features . x`` closest to
    ``seconds`` over ``rows`` (``(features, seconds)``) by the least squares of the
    logarithms of their ratios: over- and underestimates count alike (``cost``: also
    that sum of squares)."""
    import numpy
    from scipy.optimize import least_squares, nnls
    a = numpy.array([features for features, _ in rows], dtype=float)
    y = numpy.array([seconds for _, seconds in rows], dtype=float)
    start, _ = nnls(a / y[:, None], numpy.ones(len(rows)))   # relative least squares

    def residuals(x):
        return numpy.log(numpy.maximum(a @ x, 1e-3)) - numpy.log(y)
    solution = least_squares(residuals, numpy.maximum(start, 1e-6),
                             bounds=(0, numpy.inf)).x
    values = [round(float(v), 6) for v in solution]
    return (values, float(numpy.sum(residuals(numpy.array(values)) ** 2))) if cost \
        else values


#: The exponents of cells that :func:`fit` tries for nextpnr.
_EXPONENTS = [1 + i / 20 for i in range(31)]


def _fit_pnr(runs, families):
    """``{family: [a, c, b, p]}`` of nextpnr fitted to ``runs``: the exponent ``p`` of
    :data:`_EXPONENTS` whose fits of every family are the closest."""
    fits = []
    for p in _EXPONENTS:
        by_family = {family: _fit_rows(
            [([1.0, check_device(r["device"]).luts / 1000, _kcells(r["cells"]) ** p],
              _idle(r, "pnr")) for r in runs.values() if "pnr" in r["seconds"]
             and check_device(r["device"]).family.name == family], cost=True)
            for family in families}
        fits.append((sum(cost for _, cost in by_family.values()),
                     {family: [*values, p] for family, (values, _) in by_family.items()}))
    return min(fits, key=lambda fit: fit[0])[1]


def _by_family(runs):
    out = {}
    for run in runs.values():
        out.setdefault(check_device(run["device"]).family.name, []).append(run)
    return out


def _idle(run, stage):
    """The seconds stage ``stage`` of ``run`` would have taken with a core to spare:
    measured / :func:`load_factor` of its ``load_average`` and ``cores``."""
    return run["seconds"][stage] / load_factor(run["load_average"], run["cores"])


def _fit_synthesis(runs, families):
    """``{family: [a, b]}`` of yosys fitted to ``runs``: ``a`` by family, ``b`` one."""
    rows = [([float(check_device(r["device"]).family.name == family) for family in families]
             + [r["megabytes"] / (RTLIL_PER_VERILOG if r["rtlil"] else 1)],
             _idle(r, "synthesis")) for r in runs.values()]
    values = _fit_rows(rows)
    return {family: [a, values[-1]] for family, a in zip(families, values)}


def fit(runs):
    """The :data:`MODEL` fitted to ``runs`` (``benchmarks/run_times.py``: name ->
    ``seconds`` by stage, ``elaboration``, ``megabytes``, ``rtlil``, ``cells``,
    ``device``, ``load_average`` and ``cores``)."""
    families = sorted(_by_family(runs))
    model = {"verilog": _fit_rows([([1.0, r["elaboration"]], _idle(r, "verilog"))
                                   for r in runs.values()]),
             "synthesis": _fit_synthesis(runs, families), "cells_per_mb": {},
             "pnr": _fit_pnr(runs, families), "pack": {}}
    for family, measured in sorted(_by_family(runs).items()):
        model["cells_per_mb"][family] = [
            _fit_rows([([r["megabytes"]], _kcells(r["cells"])) for r in measured
                       if r["rtlil"] == rtlil])[0] for rtlil in (False, True)]
        model["pack"][family] = _fit_rows(
            [([1.0, check_device(r["device"]).luts / 1000], _idle(r, "pack"))
             for r in measured if "pack" in r["seconds"]])
    return model


def estimate_runs(runs, model=MODEL):
    """Add to each of ``runs`` its ``estimate`` by stage at its load (``pnr`` from the
    netlist's cells, ``pnr_before_synthesis`` from the Verilog's size) and the
    ``ratio`` estimate / measured seconds of each."""
    for run in runs.values():
        device, mb, rtlil = run["device"], run["megabytes"], run["rtlil"]
        factor = load_factor(run["load_average"], run["cores"])
        estimate = {"verilog": verilog_seconds(run["elaboration"], model),
                    "synthesis": synthesis_seconds(mb, device, rtlil, model)}
        if "pnr" in run["seconds"]:
            estimate["pnr"] = pnr_seconds(run["cells"], device, model)
            estimate["pnr_before_synthesis"] = pnr_seconds(
                cells_estimate(mb, device, rtlil, model), device, model)
        if "pack" in run["seconds"]:
            estimate["pack"] = pack_seconds(device, model)
        run["estimate"] = {k: round(factor * v, 2) for k, v in estimate.items()}
        run["ratio"] = {k: round(v / run["seconds"][k.split("_before")[0]], 2)
                        for k, v in run["estimate"].items()}
    return runs
