"""The ``cubefab sim`` and ``cubefab compare`` runs whose figures the guides quote, in
named suites.

    python benchmarks/sim_commands.py SUITE [--only RUN ...] [--save NAME]

Each run is one command line of ``cubefab ... --json`` (the guides name the command
beside each table), run as a fresh process; the figures kept of each are its report's
numbers, strings and truth values (nested objects kept; a short list of numbers kept as
one string, ``"16,16"``; a list of rows kept by each row's label, ``q_5`` for ``Q(5)``;
other lists dropped), the router it simulated among them
(the report's ``router``, or its ``vcs``, ``vcs_per_class``, ``depth`` and
``payload_width``). ``--save NAME`` writes them to ``benchmarks/results/NAME.json``
(see ``benchmarks/saved_results.py``) with each run's command under ``commands``.
Every suite runs the default router of ``cubefab sim`` unless its commands say
otherwise, so rerunning a suite with ``--save`` measures the default router of the
day. Suites and the results the guides quote:

- ``link_failure`` (``sim_link_failure``): links failing while traffic runs on Q(3)
  and Q(4) (docs/faults.md);
- ``endpoints`` (``sim_endpoints``): Q(2) with and without AXI4-Stream endpoints, each
  routing, at three loads (docs/endpoints.md);
- ``compare`` (``sim_compare``): the four 32-node networks of ``cubefab compare
  --simulate`` (docs/compare.md);
- ``vc_depth`` (``sim_vc_depth``): sweeps of DLH(4,3) with 1 or 2 VCs per class and
  4- to 16-flit buffers (docs/simulation.md);
- ``netlist`` (``sim_netlist``): Q(2) on its iCE40 netlist against the RTL
  (docs/simulation.md);
- ``lookahead`` (``sim_lookahead``): zero-load latency of MC(1,2) and DLH(4,3) with
  each hop (docs/booksim.md);
- ``link_stages`` (``sim_link_stages``): Q(3) at low load and past saturation with 0
  or 1 link stages and 4- or 6-flit buffers (docs/router.md);
- ``readme`` (``sim_readme``): the README's sweep of MC(1,3).
"""

import argparse
import json
import os
import shlex
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from saved_results import (add_suite_arguments, chosen_runs, command_line,  # noqa: E402
                           key_of, run_cubefab_json, save)


def _endpoint_runs():
    """The runs of docs/endpoints.md's ``cubefab sim`` table: Q(2), seed 3, 2000 cycles
    after 500, Verilator; flits or AXI4-Stream endpoints of W bits, each routing."""
    base = "sim hypercube -n 2 --cycles 2000 --warmup 500 --seed 3 --engine verilator"
    interfaces = {"deterministic_flits": "",
                  "deterministic_w16": "--interface axi-stream --data-width 16",
                  "deterministic_w64": "--interface axi-stream --data-width 64",
                  "adaptive_flits": "--adaptive",
                  "adaptive_w16_window1": "--adaptive --interface axi-stream "
                                          "--data-width 16 --window 1",
                  "adaptive_w16_window8": "--adaptive --interface axi-stream "
                                          "--data-width 16 --window 8"}
    rates = {"deterministic": ("0.05", "0.2", "1.0"), "adaptive": ("0.2", "1.0")}
    runs = {}
    for name, options in interfaces.items():
        for rate in rates[name.split("_")[0]]:
            if name == "adaptive_flits" and rate != "1.0":
                continue
            runs[f"{name}_r{rate.replace('.', '')}"] = f"{base} {options} --rate {rate}"
    return runs


#: suite -> {run name: arguments of ``cubefab`` (each run gets ``--json``)}
SUITES = {
    "link_failure": {
        "q3": "sim hypercube -n 3 --fail-link 0-1@50 --waypoints 1 --rate 0.95 "
              "--cycles 120 --drain 600 --packet-flits 4 --seed 5 --vcs-per-class 1 "
              "--depth 4 --engine amaranth",
        "q3_verilator": "sim hypercube -n 3 --fail-link 0-1@50 --waypoints 1 --rate 0.95 "
                        "--cycles 120 --drain 600 --packet-flits 4 --seed 5 "
                        "--vcs-per-class 1 --depth 4 --engine verilator",
        "q4_two_links": "sim hypercube -n 4 --fail-link 0-1@700,5-7@1900 --waypoints 1 "
                        "--rate 0.9 --warmup 200 --cycles 3000 --drain 3000 "
                        "--packet-flits 4 --seed 11 --engine verilator",
    },
    "endpoints": _endpoint_runs(),
    "vc_depth": {f"vcs{vcs}_depth{depth}":
                 f"sweep dlh -m 4 -d 3 --vcs-per-class {vcs} --depth {depth} "
                 "--rates 0.35:0.7:0.05 --cycles 3000 --warmup 1000"
                 for vcs, depth in ((1, 4), (1, 8), (1, 16), (2, 4), (2, 8))},
    "netlist": {"q2_hx8k": "sim hypercube -n 2 --rate 0.2 --cycles 300 --seed 3 "
                           "--netlist hx8k"},
    "lookahead": {f"{name}_{hop}": f"sim {network} --rate 0.01 --cycles 20000 "
                                   f"--engine verilator --hop {hop}"
                  for name, network in (("mc1_2", "metacube -k 1 -m 2"),
                                        ("dlh4_3", "dlh -m 4 -d 3"))
                  for hop in ("buffered", "lookahead")},
    "link_stages": {f"stages{stages}_depth{depth}_r{rate.replace('.', '')}":
                    f"sim hypercube -n 3 --link-stages {stages} --depth {depth} "
                    f"--rate {rate} --cycles 3000 --packet-flits 4 --engine verilator"
                    for stages, depth in ((0, 4), (1, 4), (1, 6))
                    for rate in ("0.05", "1.0")},
    "readme": {"sweep_mc1_3": "sweep dualcube -m 3 --rates 0.1:0.8:0.1"},
    "compare": {
        "q5_mc1_2_dlh2_2_mcube5": "compare hypercube:n=5 dualcube:m=2 dlh:m=2,d=2 "
                                  "mcube:k=5 --simulate",
    },
}

#: The report keys that describe the simulated router when it has no ``router``.
ROUTER_KEYS = ("algorithm", "vcs", "vcs_per_class", "depth", "payload_width", "buffer",
               "adaptive_vcs", "header", "hop", "link_stages")


#: The longest list of numbers kept (as one string).
SHORT_LIST = 16


def kept(value):
    """The figures of a report: scalars and objects kept, a short list of numbers as
    one comma-separated string, a list of labelled rows as an object keyed by
    :func:`key_of` of each label; other lists dropped."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            item = kept(item)
            if item is not None:
                out[key] = item
        return out
    if isinstance(value, list):
        if value and all(isinstance(row, dict) and "label" in row for row in value):
            return {key_of(row["label"]): kept(row) for row in value}
        if len(value) <= SHORT_LIST and all(isinstance(item, (int, float))
                                            for item in value):
            return ",".join(str(item) for item in value)
        return None
    return value


def figures_of(report):
    """:func:`kept` of ``report``, with ``router`` (the report's, or the keys of
    :data:`ROUTER_KEYS` it has)."""
    figures = kept(report)
    if isinstance(report, dict) and "router" not in figures:
        run = (report.get("points") or [report])[0]       # a sweep: its first point's
        router = {key: run[key] for key in ROUTER_KEYS if key in run}
        if router:
            figures["router"] = router
    return figures


def run(name, arguments):
    start = time.monotonic()
    figures = figures_of(run_cubefab_json([*shlex.split(arguments), "--json"]))
    print(f"  {name}: {time.monotonic() - start:.0f} s", file=sys.stderr, flush=True)
    return figures


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_suite_arguments(parser, SUITES)
    args = parser.parse_args(argv)
    runs = chosen_runs(parser, args, SUITES)
    figures = {name: run(name, arguments) for name, arguments in runs.items()}
    if args.save:
        save(args.save, figures, command_line(__file__, sys.argv[1:] if argv is None else argv),
             extra={"commands": {name: f"cubefab {arguments}"
                                 for name, arguments in runs.items()}})
    else:
        print(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
