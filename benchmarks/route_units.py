"""Route units on iCE40: LUT4 count and logic depth (yosys synth_ice40) of the logic
units beside the table-lookup unit and the metacube paper algorithm's unit, and the
issue's goals as measured ratios.

Usage: python benchmarks/route_units.py [--quick | --only LABEL ...] [--json FILE]
                                        [--table-max-nodes N] [--save NAME]

Every unit has a constant node address (synthesis folds it): the node with dense index
``2 * num_nodes // 3`` (an arbitrary, fixed choice). Columns:

* ``logic``: the unit :func:`cubefab.hdl.route.route_unit` builds (e-cube, metacube
  ``minimal``, DLH dimension-order), LUT4s / depth;
* ``paper``: the metacube ``paper`` unit (reads ``src``);
* ``Q(n)``: the hypercube e-cube unit of the same address width n;
* ``table``: :class:`TableRoute`, one case per destination, synthesised where the
  network has at most ``--table-max-nodes`` nodes. yosys sees the constant table and
  minimises it, so this is the best a table-driven generator can hope for when its
  table is fixed at synthesis;
* ``ROM bits``: a routing table of one entry per destination (num_nodes x port
  width bits) as generic NoC generators keep it, and ``ROM LUT4`` = bits / 16, the
  LUT4s needed just to hold it as LUT-ROM (a LUT4 stores 16 bits; no decoding
  counted), the size a run-time-programmable table costs in logic.

Depth is yosys ``ltp -noff`` on the LUT netlist: LUT levels from input to output.

``--only`` measures these networks (and the hypercubes of their address widths).
``--save NAME`` writes the figures to ``benchmarks/results/NAME.json``
(``benchmarks/saved_results.py``): per network (``mc_2_3``) ``logic``, ``paper``,
``ecube`` and ``table`` (each ``lut4`` and ``depth``), ``rom_lut4`` and ``rom_ratio``.
The figures of docs/route_units.md::

    python benchmarks/route_units.py --only "Q(8)" "Q(16)" "MC(1,6)" "MC(2,2)" "MC(2,3)" \
        "MC(2,4)" "MC(3,1)" "MC(3,2)" "DLH(4,3)" "DLH(8,6)" --save route_units
"""

import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cubefab.build.synth import route_unit_cost
from cubefab.hdl.route import route_unit, TableRoute
from cubefab.progress import Progress
from cubefab.topology.dlh import DLH
from cubefab.topology.hypercube import Hypercube
from cubefab.topology.metacube import Metacube
from saved_results import add_save_option, command_line, key_of, save


def configurations(quick, only=None):
    if only:
        every = configurations(False)
        picked = [t for t in every if t.label in only]
        missing = sorted(set(only) - {t.label for t in picked})
        if missing:
            raise SystemExit(f"no network {', '.join(missing)} in the benchmark's series")
        widths = {t.address_bits for t in picked if not isinstance(t, Hypercube)}
        return picked + [Hypercube(n) for n in sorted(widths)
                         if Hypercube(n).label not in only]
    if quick:
        hypercubes = [Hypercube(4)]
        metacubes = [Metacube(1, 2), Metacube(2, 3), Metacube(3, 2)]
        dlhs = [DLH(2, 1), DLH(4, 3)]
    else:
        hypercubes = [Hypercube(n) for n in range(4, 17)]
        metacubes = ([Metacube(1, m) for m in range(2, 7)]
                     + [Metacube(2, m) for m in range(1, 5)] + [Metacube(3, m) for m in (1, 2)])
        dlhs = [DLH(m, d) for m in range(2, 9) for d in range(1, 7)]
    # the e-cube unit of every address width the others have, to compare with
    widths = {t.address_bits for t in metacubes + dlhs} - {h.n for h in hypercubes}
    return hypercubes + [Hypercube(n) for n in sorted(widths)] + metacubes + dlhs


def node_of(topology):
    return topology.address(2 * topology.num_nodes // 3)


def measure(topologies, table_max_nodes):
    jobs = []
    for t in topologies:
        jobs.append((t, "logic"))
        if isinstance(t, Metacube):
            jobs.append((t, "paper"))
        if t.num_nodes <= table_max_nodes:
            jobs.append((t, "table"))
    progress = Progress("synth_ice40 route units", unit="units", force=True)
    results = {}
    start = time.monotonic()
    for i, (t, kind) in enumerate(jobs):
        progress.update(i, len(jobs))
        node = node_of(t)
        if kind == "logic":
            unit = route_unit(t, node)
        elif kind == "paper":
            unit = route_unit(t, node, "paper")
        else:
            unit = TableRoute(t, node)
        t0 = time.monotonic()
        cost = route_unit_cost(unit)
        results[t.label, kind] = {"lut4": cost.lut4, "depth": cost.depth, "carry": cost.carry,
                                  "seconds": round(time.monotonic() - t0, 2), "node": node}
    progress.update(len(jobs), len(jobs))
    progress.close()
    print(f"{len(jobs)} syntheses in {time.monotonic() - start:.0f} s", file=sys.stderr)
    return results


def cell(results, label, kind):
    r = results.get((label, kind))
    return f"{r['lut4']}/{r['depth']}" if r else "-"


def report(topologies, results):
    by_width = {t.n: t for t in topologies if isinstance(t, Hypercube)}
    rows = []
    for t in topologies:
        rom_bits = t.num_nodes * t.port_width
        rows.append({
            "network": t.label, "bits": t.address_bits, "nodes": t.num_nodes,
            "node": node_of(t),
            "logic": cell(results, t.label, "logic"),
            "paper": cell(results, t.label, "paper"),
            "ecube": cell(results, by_width[t.address_bits].label, "logic"),
            "table": cell(results, t.label, "table"),
            "rom_bits": rom_bits, "rom_lut4": math.ceil(rom_bits / 16),
            "rom_ratio": math.ceil(rom_bits / 16) / results[t.label, "logic"]["lut4"],
        })
    headers = ["network", "bits", "nodes", "node", "logic", "paper", "Q(n) e-cube",
               "table", "ROM bits", "ROM LUT4", "ROM/logic"]
    keys = ["network", "bits", "nodes", "node", "logic", "paper", "ecube", "table",
            "rom_bits", "rom_lut4", "rom_ratio"]
    text = [[str(r[k]) if k != "rom_ratio" else f"{r[k]:.0f}x" for k in keys] for r in rows]
    widths = [max(len(h), *(len(row[i]) for row in text)) for i, h in enumerate(headers)]
    print("Route units on iCE40, LUT4s/depth (yosys synth_ice40; depth = ltp LUT levels)")
    print("  ".join(h.rjust(w) for h, w in zip(headers, widths)))
    for row in text:
        print("  ".join(c.rjust(w) for c, w in zip(row, widths)))
    return rows


def goals(topologies, results):
    def lut(label, kind="logic"):
        return results[label, kind]["lut4"]

    print()
    print("Goals of issue 4 (measured)")
    lines = []
    if ("MC(2,3)", "logic") in results:
        r = lut("MC(2,3)") / lut("Q(14)")
        lines.append(f"MC(2,3) minimal {lut('MC(2,3)')} LUT4 vs Q(14) e-cube {lut('Q(14)')}: "
                     f"ratio {r:.2f} (goal <= 1) {'met' if r <= 1 else 'NOT met'}")
    if ("MC(3,2)", "logic") in results:
        r = lut("MC(3,2)") / lut("Q(19)")
        lines.append(f"MC(3,2) minimal {lut('MC(3,2)')} LUT4 vs Q(19) e-cube {lut('Q(19)')}: "
                     f"ratio {r:.2f} (goal <= 3) {'met' if r <= 3 else 'NOT met'}")
    for label in ("MC(2,3)", "MC(3,2)"):
        t = next((t for t in topologies if t.label == label), None)
        if t is None:
            continue
        rom = math.ceil(t.num_nodes * t.port_width / 16)
        r = rom / lut(label)
        lines.append(f"{label} table ROM {t.num_nodes} x {t.port_width} bits = {rom} LUT4 "
                     f"vs minimal {lut(label)}: {r:.0f}x smaller (goal >= 100x) "
                     f"{'met' if r >= 100 else 'NOT met'}")
        if (label, "table") in results:
            lines.append(f"  (the same table fixed at synthesis, minimised by yosys: "
                         f"{lut(label, 'table')} LUT4)")
    for family, pick in (("hypercube e-cube", lambda t: isinstance(t, Hypercube)),
                         ("metacube minimal", lambda t: isinstance(t, Metacube)),
                         ("DLH", lambda t: isinstance(t, DLH))):
        pts = sorted((t.address_bits, results[t.label, "logic"]["depth"])
                     for t in topologies if pick(t))
        if len(pts) < 2:
            continue
        worst = max(d / math.log2(n) for n, d in pts)
        lines.append(f"{family} depth over address widths {pts[0][0]}..{pts[-1][0]}: "
                     + " ".join(f"{n}:{d}" for n, d in pts)
                     + f"; max depth/log2(width) = {worst:.2f}")
    for line in lines:
        print(line)
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few networks only")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    parser.add_argument("--table-max-nodes", type=int, default=4096, metavar="N")
    parser.add_argument("--only", nargs="+", metavar="LABEL", default=None,
                        help="these networks only, e.g. 'MC(2,3)'")
    add_save_option(parser)
    args = parser.parse_args()
    topologies = configurations(args.quick, args.only)
    results = measure(topologies, args.table_max_nodes)
    rows = report(topologies, results)
    lines = goals(topologies, results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "goals": lines,
                       "raw": {f"{k[0]} {k[1]}": v for k, v in results.items()}}, f, indent=2)
    if args.save:
        save(args.save, saved_figures(rows, results), command_line(__file__, sys.argv[1:]))


def saved_figures(rows, results):
    """Per network its units' LUT4 and depth, the ROM's LUT4 and their ratio."""
    figures = {}
    for row in rows:
        kept = {kind: {"lut4": results[row["network"], kind]["lut4"],
                       "depth": results[row["network"], kind]["depth"]}
                for kind in ("logic", "paper", "table") if (row["network"], kind) in results}
        if row["ecube"] != "-":
            lut4, depth = row["ecube"].split("/")
            kept["ecube"] = {"lut4": int(lut4), "depth": int(depth)}
        figures[key_of(row["network"])] = {"bits": row["bits"], "nodes": row["nodes"],
                                          "rom_lut4": row["rom_lut4"],
                                          "rom_ratio": round(row["rom_ratio"], 2), **kept}
    return figures


if __name__ == "__main__":
    main()
