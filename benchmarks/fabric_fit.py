"""The largest fabric with AXI4-Stream endpoints that each device places and routes,
and what a node of it costs, part by part.

    python benchmarks/fabric_fit.py [--devices hx8k,lfe5u-25f] [--families hypercube]
        [--widths 16,32] [--packing auto|aligned|header-flit] [--flit-width BITS]
        [--depth N] [--max-nodes N] [--seeds 1,2,3] [--pnr-timeout SECONDS] [--workdir DIR] [--json] [--save NAME]
    python benchmarks/fabric_fit.py --show NAME

For each device (default: every one of ``cubefab.tools.devices.DEVICES``), each
topology family (hypercube, dualcube, DLH) and each ``tdata`` width W (16 and 32),
the fabric grows (:data:`SIZES`, up to ``--max-nodes``) with the default routers and
an AXI4-Stream endpoint at every node (``cubefab synth fabric TOPO ... --interface
axi-stream --data-width W --device D``, with ``--packing`` the endpoints' packing,
with ``--flit-width`` routers of flits that wide and with ``--depth`` of buffers that
deep). Each size is synthesised first
(``--no-pnr``): the growth stops at the first whose LUT4s, flip-flops or block RAMs
outnumber the device's, or would at the cost per node of the size before it (a node
with more ports costs more: that size is not synthesised). The largest that fits is
placed and routed with each seed of ``--seeds`` (the next smaller one when nextpnr
finds it too large), the first seed with ``--by-part``: the cost of each part of a
node from a second synthesis that keeps the hierarchy
(``cubefab.build.module_costs``).

Kept of each: its LUT4s (and their share of the device's), flip-flops, block RAMs,
the median Fmax and place-and-route seconds over the seeds, the mean and largest cost
of a node by part, the first seed's critical path (its ends, delays and logic
levels), the machine's load average while it was placed (the seconds are those of a
machine that may be busy), and why the next size is not it (``limit``). Progress
goes to stderr; ``--json`` prints the figures as JSON; ``--save NAME`` writes them
to ``benchmarks/results/NAME.json`` (``benchmarks/saved_results.py``) after each
fabric, so that a run stopped keeps what it measured; ``--show NAME`` prints the
tables of a saved result. A full run takes hours (a fabric that fills half the
LFE5U-25F took 20 minutes to place and route on a shared two-core machine); the
figures of docs/measurements.md ("Fabrics that fit")::

    python benchmarks/fabric_fit.py --devices hx8k,lfe5u-25f \
        --families hypercube,dualcube,dlh --seeds 1 --max-nodes 64 --save fabric_fit
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cubefab.cli import format_table  # noqa: E402
from cubefab.commands.fpga import parts_table  # noqa: E402
from cubefab.hdl.endpoint.message import PACKINGS  # noqa: E402
from cubefab.tools.devices import DEVICES  # noqa: E402
from cubefab.topology.catalog import make_topology  # noqa: E402
from saved_results import REPO, add_save_option, command_line, load, save  # noqa: E402

#: Per topology family, its sizes in growing order (topology parameters).
SIZES = {
    "hypercube": [{"n": n} for n in range(1, 9)],
    "dualcube": [{"m": m} for m in range(1, 5)],
    "dlh": [{"d": d, "m": m} for d, m in ((1, 2), (1, 3), (2, 2), (2, 3), (3, 2), (3, 3),
                                          (4, 2), (4, 3))],
}


def _csv(text):
    return [item for item in text.split(",") if item]


def _cubefab(argv):
    """``(report, error)`` of ``cubefab ARGV --json`` run as a fresh process on this
    checkout: the report (None when it failed) and its last error line."""
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    result = subprocess.run([sys.executable, "-m", "cubefab", *argv, "--json", "--force"],
                            capture_output=True, text=True, env=env)
    if result.returncode != 0:
        lines = result.stderr.strip().splitlines()
        return None, lines[-1] if lines else f"exit {result.returncode}"
    return json.loads(result.stdout), None


def _design_argv(family, params, width, device, args):
    name = family + "".join(f"_{k}{v}" for k, v in params.items())
    packed = args.packing != "auto"
    return ["synth", "fabric", family, *(x for k, v in params.items() for x in (f"-{k}",
                                                                                 str(v))),
            "--interface", "axi-stream", "--data-width", str(width), "--device", device,
            *(["--packing", args.packing] if packed else []),
            *(["--flit-width", str(args.flit_width)] if args.flit_width else []),
            *(["--depth", str(args.depth)] if args.depth else []),
            "--workdir", os.path.join(args.workdir, f"{device}_{name}_w{width}"
                                      f"{f'_{args.packing}' if packed else ''}"
                                      f"{f'_f{args.flit_width}' if args.flit_width else ''}"
                                      f"{f'_d{args.depth}' if args.depth else ''}")]


def _say(text):
    print(text, file=sys.stderr, flush=True)


def _over(total, device):
    """What the synthesised cells ``total`` need more of than ``device`` has."""
    return DEVICES[device].shortfall(total)


def _extrapolated(smaller, nodes, device):
    """What a fabric of ``nodes`` nodes needs more of than ``device`` has at the
    cost per node of the ``smaller`` one (``(params, total cells)``; a node of a
    larger fabric has more ports, and costs more): its synthesis is skipped. Its
    memories are left out: the ``auto`` buffer rule keeps a larger fabric's buffers
    out of the block RAMs that would not fit (in LUTs, which synthesis then counts)."""
    params, total = smaller
    scale = nodes / make_topology(_family_of(params), **params).num_nodes
    logic = {k: (v * scale if k in ("lut4", "ff", "carry") else 0)
             for k, v in total.items()}
    return _over(logic, device)


def _family_of(params):
    return next(f for f, sizes in SIZES.items() if params in sizes)


def _synthesised(family, width, device, args):
    """The sizes that synthesis fits, smallest first: ``[(params, total cells)]``;
    and what the first that does not fit needs too much of (or why it failed)."""
    fitting = []
    for params in SIZES[family]:
        nodes = make_topology(family, **params).num_nodes
        if nodes > args.max_nodes:
            return fitting, f"--max-nodes {args.max_nodes}"
        if fitting and _extrapolated(fitting[-1], nodes, device):
            return fitting, (f"more {', '.join(_extrapolated(fitting[-1], nodes, device))} "
                             f"than the device at the smaller fabric's cost per node")
        start = time.monotonic()
        report, error = _cubefab(_design_argv(family, params, width, device, args)
                                 + ["--no-pnr"])
        if report is None:
            _say(f"  {family} {params} W={width}: {error}")
            return fitting, error
        total, over = report["total_cells"], _over(report["total_cells"], device)
        _say(f"  {report['topology']} ({nodes} nodes) W={width} on {device}: "
             f"{total['lut4']} LUT4, {total['ff']} FF, {total['ram']} RAM "
             f"({time.monotonic() - start:.0f} s){'; over: ' + ', '.join(over) if over else ''}")
        if over:
            return fitting, "synthesis: more " + ", ".join(over) + " than the device"
        fitting.append((params, total))
    return fitting, "largest size tried"


def _median_stage(runs, stage):
    """The median seconds and estimate of ``stage`` over the ``--json`` reports
    ``runs``."""
    return {key: round(statistics.median(r["stages"][stage][key] for r in runs), 1)
            for key in ("seconds", "estimate")}


def _ratio(stage):
    """A stage's estimate / measured seconds (the estimate that ``cubefab`` printed,
    :mod:`cubefab.build.run_time`)."""
    return round(stage["estimate"] / stage["seconds"], 2) if stage["seconds"] else None


def _placed(family, params, width, device, args):
    """Place and route one fabric with each seed: ``(figures, None)``, or ``(None,
    why)`` when nextpnr finds it too large, or does not route it within
    ``--pnr-timeout``."""
    runs = []
    timeout = ["--timeout", str(args.pnr_timeout)] if args.pnr_timeout else []
    for i, seed in enumerate(args.seeds):
        argv = _design_argv(family, params, width, device, args) + [
            "--seed", str(seed)] + (["--by-part"] if i == 0 else []) + timeout
        load = os.getloadavg()[0]
        report, error = _cubefab(argv)
        if report is None or report.get("fits") is False:
            why = error or "does not place"
            if report is not None and report.get("logic_cells"):
                why += (f" ({report['logic_cells']} of {report['logic_cells_available']} "
                        f"logic cells, packed)")
            _say(f"  {family} {params} W={width} on {device}, seed {seed}: {why}")
            return None, why
        pnr = report["stages"]["pnr"]
        _say(f"  {report['topology']} W={width} on {device}, seed {seed}: "
             f"{report['fmax_mhz']} MHz, place and route {pnr['seconds']:.0f} s "
             f"(estimated {pnr['estimate']:.0f} s)")
        report["load_average"] = round((load + os.getloadavg()[0]) / 2, 2)
        runs.append(report)
    return _figures_of(runs, params, width, device, args), None


def _figures_of(runs, params, width, device, args):
    """The figures of one fabric placed and routed with each seed (``runs``, the
    reports)."""
    first = runs[0]
    total = first["total_cells"]
    synthesis, pnr = first["stages"]["synthesis"], _median_stage(runs, "pnr")
    return {"topology": first["topology"], "params": params, "nodes": first["nodes"],
            "width": width, "lut4": total["lut4"], "ff": total["ff"],
            "ram": total["ram"], "carry": total["carry"],
            "lut4_share": round(total["lut4"] / DEVICES[device].luts, 4),
            "fmax_mhz": statistics.median(r["fmax_mhz"] for r in runs),
            "fmax_by_seed": {str(s): r["fmax_mhz"] for s, r in zip(args.seeds, runs)},
            "pnr_seconds": pnr["seconds"], "pnr_estimate": pnr["estimate"],
            "pnr_ratio": _ratio(pnr),
            "synthesis_seconds": synthesis["seconds"],
            "synthesis_estimate": synthesis["estimate"], "synthesis_ratio": _ratio(synthesis),
            "load_average": statistics.median(r["load_average"] for r in runs),
            "critical_path": {k: (first["critical_path"] or {}).get(k) for k in
                              ("start", "end", "total_ns", "logic_ns", "routing_ns",
                               "logic_levels")},
            "buffer": first.get("buffer"), "synth_options": first.get("synth_options"),
            "parts": first["parts"]}


def fit(family, width, device, args):
    """The largest fabric of ``family`` with W = ``width`` that ``device`` places and
    routes: its figures (``fits`` None when even the smallest does not) and why the
    next size is not it (``limit``)."""
    fitting, limit = _synthesised(family, width, device, args)
    for params, _ in reversed(fitting):
        placed, why = _placed(family, params, width, device, args)
        if placed is not None:
            return {"device": device, "family": family, **placed, "limit": limit}
        limit = f"{make_topology(family, **params).label}: place and route ({why})"
    return {"device": device, "family": family, "width": width, "topology": None,
            "limit": limit}


def fit_table(results):
    """The text table of the largest fabrics."""
    rows = []
    for r in results:
        if r["topology"] is None:
            rows.append([r["device"], r["family"], "none", "-", r["width"], "-", "-", "-",
                         "-", "-", "-", r["limit"]])
            continue
        rows.append([r["device"], r["family"], r["topology"], r["nodes"], r["width"],
                     f"{r['lut4']} ({r['lut4_share']:.0%})", r["ff"], r["ram"],
                     f"{r['fmax_mhz']:.1f}", f"{r['synthesis_seconds']:.0f}"
                     + _estimated(r, "synthesis"), f"{r['pnr_seconds']:.0f}"
                     + _estimated(r, "pnr"), r["limit"]])
    return format_table(["device", "family", "fabric", "nodes", "W", "LUT4 (share)", "FF",
                         "BRAM", "Fmax MHz", "yosys s (estimate)", "P&R s (estimate)",
                         "next size"], rows)


def _estimated(result, stage):
    """`` (estimate, ratio)`` of a stage of a saved fabric (nothing for one saved
    before the estimates were kept)."""
    if result.get(f"{stage}_estimate") is None:
        return ""
    return f" ({result[f'{stage}_estimate']:.0f}, x{result[f'{stage}_ratio']:.2f})"


def tables(results):
    """The table of the largest fabrics, then each one's cost of a node by part."""
    text = [fit_table(results)]
    for r in results:
        if r["topology"] is not None:
            text.append(f"\n{r['topology']} W={r['width']} on {r['device']}, cost of a "
                        f"node by part, mean (largest) over the nodes:\n"
                        + parts_table(r["parts"]))
    return "\n".join(text)


def _figures(results, args):
    return {"seeds": args.seeds, "max_nodes": args.max_nodes, "packing": args.packing,
            **({"flit_width": args.flit_width} if args.flit_width else {}),
            **({"depth": args.depth} if args.depth else {}),
            "fits": {f"{r['device']}_{r['family']}_w{r['width']}": r for r in results}}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=_csv, default=list(DEVICES),
                        help="comma-separated devices (default: every supported one)")
    parser.add_argument("--families", type=_csv, default=list(SIZES),
                        help="comma-separated topology families (default: hypercube, "
                             "dualcube, dlh)")
    parser.add_argument("--widths", type=lambda t: [int(w) for w in _csv(t)],
                        default=[16, 32], help="comma-separated tdata widths (default 16,32)")
    parser.add_argument("--packing", choices=PACKINGS, default="auto",
                        help="the endpoints' packing (cubefab synth --packing; default "
                             "auto)")
    parser.add_argument("--flit-width", type=int, default=None, metavar="BITS",
                        help="routers of BITS-bit flits (cubefab synth --flit-width; "
                             "default: the default routers' 16-bit payloads)")
    parser.add_argument("--depth", type=int, default=None, metavar="N",
                        help="routers of N-flit buffers (cubefab synth --depth; default: "
                             "the default routers' 4)")
    parser.add_argument("--max-nodes", type=int, default=256,
                        help="grow no fabric past this many nodes (default 256)")
    parser.add_argument("--seeds", type=lambda t: [int(s) for s in _csv(t)], default=[1],
                        help="comma-separated nextpnr seeds; Fmax and seconds are the "
                             "median (default 1)")
    parser.add_argument("--pnr-timeout", type=int, default=None, metavar="SECONDS",
                        help="stop a fabric's synthesis and place and route after "
                             "SECONDS (cubefab synth --timeout) and try the next smaller "
                             "one (default: no limit)")
    parser.add_argument("--workdir", default="build/bench_fabric_fit", metavar="DIR")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--show", metavar="NAME", default=None,
                        help="print the tables of the saved result NAME; measure nothing")
    add_save_option(parser)
    args = parser.parse_args(argv)
    if args.show:
        saved = load(args.show)
        if saved is None:
            parser.error(f"--show: no saved result {args.show!r}")
        print(tables(list(saved["figures"]["fits"].values())))
        return 0
    for name, known, values in (("--devices", DEVICES, args.devices),
                                ("--families", SIZES, args.families)):
        unknown = sorted(set(values) - set(known))
        if unknown:
            parser.error(f"{name}: no {', '.join(unknown)} (choices: {', '.join(known)})")
    results, command = [], command_line(__file__, sys.argv[1:] if argv is None else argv)
    for family in args.families:
        for device in args.devices:
            for width in args.widths:
                _say(f"{device}, {family}, W={width}:")
                results.append(fit(family, width, device, args))
                if args.save:   # after each fabric: a long run stopped keeps what it made
                    save(args.save, _figures(results, args), command)
    figures = _figures(results, args)
    print(json.dumps(figures, indent=1) if args.json else tables(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
