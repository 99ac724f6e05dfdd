"""How long synthesis and place and route take: the estimates that ``cubefab synth
router|fabric`` and ``cubefab board`` print with their stages.

The model was fitted to measured runs (:data:`MODEL`, from
``benchmarks/results/run_times.json``, made by ``benchmarks/run_times.py``):

- the Verilog (a board's RTLIL): ``a + b * E`` seconds, E the estimated seconds of
  the design's elaboration (:func:`~cubefab.commands.limits.router_cost`, a model of
  the routers alone);
- yosys ``synth_<family>``: ``a + b * MB ** q`` seconds, MB the size of the design's
  Verilog in megabytes (a board's RTLIL counts :data:`RTLIL_PER_VERILOG` times less:
  the same design's RTLIL is that much larger than its Verilog), ``b`` and ``q`` the
  same on every family: yosys grows faster than the design (``q`` between 1 and 2.5);
- nextpnr: ``a + c * device kLUT + b * kcells ** p`` seconds, kcells the synthesised
  netlist's LUT4s, flip-flops, carry cells and block RAMs in thousands (before
  synthesis ends, ``k * MB ** s`` of them, ``k`` by family for Verilog and for RTLIL,
  ``s`` the same on every family: a larger design has fewer cells per megabyte):
  placing and routing grows faster than the design (``p``, the same on every family,
  between 1 and 2.5);
- the bitstream packer: ``a + c * device kLUT`` seconds;

each with coefficients of the device's family, fitted so that the estimates are off
by as small a factor as can be (least squares of the logarithm of estimate / measured
seconds; the exponents the best of a grid). These are the seconds of a machine with a
core to spare; on a busy one a tool gets a share of a core, and the estimates are
multiplied by :func:`load_factor`: the one-minute load average per core, at least 1,
to the power ``load`` (fitted with the rest: the measured seconds were divided by
that factor of the load when they were measured). A power below 1 says that the load
average overstates how much of a core a tool loses: it counts whatever was runnable
when it was read, and moves a minute behind the machine.
"""

import math
import os

from ..progress import Stage
from ..tools.devices import check_device


__all__ = ["MODEL", "RTLIL_PER_VERILOG", "load_factor", "design_megabytes", "verilog_seconds", "synthesis_seconds",
           "cells_estimate", "pnr_seconds", "pack_seconds", "implementation_stages",
           "board_stages", "expect_synthesis", "expect_pnr", "fit", "estimate_runs",
           "worst_ratio", "measured_seconds"]


#: The fitted coefficients (see the module docstring): ``verilog`` (a, b); by family,
#: ``synthesis`` (a, b, q), ``cells`` (k of Verilog, k of RTLIL, s), ``pnr``
#: (a, c, b, p) and ``pack`` (a, c); ``load``, the power of the load per core. From
#: ``python benchmarks/run_times.py --save run_times``
#: (benchmarks/results/run_times.json, which holds the runs and the machine's load;
#: tests/tools/test_run_time.py checks that the two agree).
MODEL = {
    "verilog": [0.445379, 0.688251],
    "synthesis": {"ECP5": [1.986239, 9.777506, 1.4],
                  "Gowin": [1.371375, 9.777506, 1.4],
                  "iCE40": [4.453912, 9.777506, 1.4]},
    "cells": {"ECP5": [4.775553, 2.755769, 0.95],
              "Gowin": [5.944134, 3.255622, 0.95],
              "iCE40": [6.351615, 3.470886, 0.95]},
    "pnr": {"ECP5": [1.34881, 0.013006, 2.975957, 1.5],
            "Gowin": [0.441119, 0.003872, 5.253923, 1.5],
            "iCE40": [0.0, 0.162967, 2.342955, 1.5]},
    "pack": {"ECP5": [1.751419, 0.017165],
             "Gowin": [1e-06, 0.306372],
             "iCE40": [0.1288, 0.04]},
    "load": 1.0,
}


#: Bytes of Amaranth's RTLIL of a design per byte of its Verilog (a Q(2) router
#: 170,309 / 97,785, the Q(2) fabric 704,800 / 421,637, each in a timing harness).
RTLIL_PER_VERILOG = 1.7


def load_factor(load=None, cores=None, exponent=None):
    """How many times longer a tool takes than with a core to itself: the one-minute
    ``load`` average (the machine's now by default) per core (``cores``: this
    machine's by default), at least 1, to the power ``exponent`` (the model's
    ``load`` by default); 1 where the load is not known."""
    if load is None:
        try:
            load = os.getloadavg()[0]
        except OSError:
            return 1.0
    exponent = MODEL["load"] if exponent is None else exponent
    return max(1.0, load / (cores or os.cpu_count() or 1)) ** exponent


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


def _verilog_megabytes(megabytes, rtlil):
    """The megabytes of Verilog of a design of ``megabytes`` (of RTLIL when ``rtlil``)."""
    return megabytes / (RTLIL_PER_VERILOG if rtlil else 1)


def synthesis_seconds(megabytes, device, rtlil=False, model=MODEL):
    """Estimated seconds of yosys on a design of ``megabytes`` of Verilog (of RTLIL, a
    board's, when ``rtlil``) for ``device``."""
    _, family = _family(device)
    a, b, q = model["synthesis"][family]
    return a + b * _verilog_megabytes(megabytes, rtlil) ** q


def cells_estimate(megabytes, device, rtlil=False, model=MODEL):
    """Estimated cells of the synthesised netlist of a design of ``megabytes`` of
    Verilog (of RTLIL when ``rtlil``)."""
    _, family = _family(device)
    *per_megabyte, exponent = model["cells"][family]
    return 1000 * per_megabyte[1 if rtlil else 0] * megabytes ** exponent


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


#: The exponents that :func:`fit` tries: of the megabytes of Verilog for yosys, of
#: the cells for nextpnr.
_EXPONENTS = [1 + i / 20 for i in range(31)]


#: The exponents of the load per core that :func:`fit` tries.
_LOAD_EXPONENTS = [i / 4 for i in range(1, 6)]


def _closest(fit_at, exponents=_EXPONENTS):
    """The ``(cost, fit)`` pair of the exponent of ``exponents`` whose
    ``fit_at(exponent)``, such a pair, costs the least."""
    return min((fit_at(exponent) for exponent in exponents), key=lambda f: f[0])


def _fit_pnr(runs, families, p):
    """``(cost, {family: [a, c, b, p]})`` of nextpnr fitted to ``runs`` at the exponent
    ``p`` of the cells (the families of ``families`` with a run placed and routed)."""
    rows = {family: [([1.0, check_device(r["device"]).luts / 1000,
                       _kcells(r["cells"]) ** p], _idle(r, "pnr"))
                     for r in runs.values() if "pnr" in r["seconds"]
                     and check_device(r["device"]).family.name == family]
            for family in families}
    by_family = {family: _fit_rows(family_rows, cost=True)
                 for family, family_rows in rows.items() if family_rows}
    return (sum(cost for _, cost in by_family.values()),
            {family: [*values, p] for family, (values, _) in by_family.items()})


def _by_family(runs):
    out = {}
    for run in runs.values():
        out.setdefault(check_device(run["device"]).family.name, []).append(run)
    return out


def _idle(run, stage):
    """The seconds stage ``stage`` of ``run`` would have taken with a core to spare
    (:func:`_at_load`)."""
    return run["idle"][stage]


def _at_load(runs, exponent):
    """``runs``, each with its ``idle`` seconds by stage: measured /
    :func:`load_factor` of its ``load_average`` and ``cores`` at the load ``exponent``."""
    return {name: dict(run, idle={stage: seconds / load_factor(
        run["load_average"], run["cores"], exponent) for stage, seconds
        in run["seconds"].items()}) for name, run in runs.items()}


#: The exponents of the megabytes that :func:`fit` tries for the cells.
_CELL_EXPONENTS = [0.5 + i / 20 for i in range(11)]


def _fit_cells(runs, families, s):
    """``(cost, {family: [k of Verilog, k of RTLIL, s]})`` of the netlists' thousands
    of cells fitted to ``runs`` at the exponent ``s`` of the megabytes."""
    kinds = [(family, rtlil) for family in families for rtlil in (False, True)]
    values, cost = _fit_rows(
        [([float((check_device(r["device"]).family.name, r["rtlil"]) == kind)
           * r["megabytes"] ** s for kind in kinds], _kcells(r["cells"]))
         for r in runs.values()], cost=True)
    return cost, {family: [*values[2 * i:2 * i + 2], s] for i, family in enumerate(families)}


def _fit_synthesis(runs, families, q):
    """``(cost, {family: [a, b, q]})`` of yosys fitted to ``runs`` at the exponent
    ``q``: ``a`` by family, ``b`` the same on every family."""
    rows = [([float(check_device(r["device"]).family.name == family) for family in families]
             + [_verilog_megabytes(r["megabytes"], r["rtlil"]) ** q],
             _idle(r, "synthesis")) for r in runs.values()]
    values, cost = _fit_rows(rows, cost=True)
    return cost, {family: [a, values[-1], q] for family, a in zip(families, values)}


def fit(runs):
    """The :data:`MODEL` fitted to ``runs`` (``benchmarks/run_times.py``: name ->
    ``seconds`` by stage, ``elaboration``, ``megabytes``, ``rtlil``, ``cells``,
    ``device``, ``load_average`` and ``cores``): the exponent of the load of
    :data:`_LOAD_EXPONENTS` whose fits of the Verilog, yosys and nextpnr together are
    the closest. A family has nextpnr's and the packer's coefficients only where
    ``runs`` placed and routed, or packed, a design of it."""
    return _closest(lambda exponent: _fit_at_load(_at_load(runs, exponent), exponent),
                    _LOAD_EXPONENTS)[1]


def _fit_at_load(runs, exponent):
    """``(cost, model)`` of the model fitted to ``runs`` (with their ``idle`` seconds,
    :func:`_at_load`) at the load ``exponent``."""
    families = sorted(_by_family(runs))
    verilog, verilog_cost = _fit_rows([([1.0, r["elaboration"]], _idle(r, "verilog"))
                                       for r in runs.values()], cost=True)
    synthesis_cost, synthesis = _closest(lambda q: _fit_synthesis(runs, families, q))
    pnr_cost, pnr = _closest(lambda p: _fit_pnr(runs, families, p))
    model = {"verilog": verilog, "synthesis": synthesis,
             "cells": _closest(lambda s: _fit_cells(runs, families, s),
                               _CELL_EXPONENTS)[1],
             "pnr": pnr, "pack": {}, "load": exponent}
    for family, measured in sorted(_by_family(runs).items()):
        packed = [([1.0, check_device(r["device"]).luts / 1000], _idle(r, "pack"))
                  for r in measured if "pack" in r["seconds"]]
        if packed:
            model["pack"][family] = _fit_rows(packed)
    return verilog_cost + synthesis_cost + pnr_cost, model


def estimate_runs(runs, model=MODEL):
    """Add to each of ``runs`` its ``estimate`` by stage at its load (``pnr`` from the
    netlist's cells, ``pnr_before_synthesis`` from the Verilog's size) and the
    ``ratio`` estimate / measured seconds of each."""
    for run in runs.values():
        device, mb, rtlil = run["device"], run["megabytes"], run["rtlil"]
        factor = load_factor(run["load_average"], run["cores"], model["load"])
        estimate = {"verilog": verilog_seconds(run["elaboration"], model),
                    "synthesis": synthesis_seconds(mb, device, rtlil, model)}
        if "pnr" in run["seconds"]:
            estimate["pnr"] = pnr_seconds(run["cells"], device, model)
            estimate["pnr_before_synthesis"] = pnr_seconds(
                cells_estimate(mb, device, rtlil, model), device, model)
        if "pack" in run["seconds"]:
            estimate["pack"] = pack_seconds(device, model)
        run["estimate"] = {k: round(factor * v, 2) for k, v in estimate.items()}
        run["ratio"] = {k: round(v / measured_seconds(run, k), 2)
                        for k, v in run["estimate"].items()}
    return runs


def measured_seconds(run, estimate):
    """The measured seconds of ``run`` that its ``estimate`` (a key of its estimates:
    a stage, or ``pnr_before_synthesis``, the stage ``pnr``) is of."""
    return run["seconds"][estimate.split("_before")[0]]


def worst_ratio(runs, stages=None, least=0.0):
    """``(ratio, run, stage)`` of the estimate furthest from its measured seconds (by
    the factor, over or under) among the ``stages`` (by default those measured: the
    estimates each stage ran with, not ``pnr_before_synthesis``) of ``runs`` (after
    :func:`estimate_runs`) that took ``least`` seconds or more."""
    return max(((ratio, name, stage) for name, run in runs.items()
                for stage, ratio in run["ratio"].items()
                if stage in (run["seconds"] if stages is None else stages)
                and measured_seconds(run, stage) >= least),
               key=lambda worst: abs(math.log(max(worst[0], 1e-3))))
