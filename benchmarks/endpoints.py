"""AXI4-Stream endpoints: cost on the iCE40 HX8K, zero-load latency and throughput.

    python benchmarks/endpoints.py [--only cost latency throughput] [--no-pnr]
                                   [--header every|head] [--json FILE] [--workdir DIR]

1. **cost**: one node's endpoints (the injection and ejection sides a fabric gets,
   :func:`~cubefab.hdl.endpoint.injection_side` and
   :func:`~cubefab.hdl.endpoint.ejection_side`; W = 16 is an aligned format, a beat
   per flit) for ``tdata`` of W = 8, 16, 32 and 128 bits (and, at W = 32, with
   aligned packing, at W = 16 with header-flit packing in 18-bit flits, and adaptive
   routers' endpoints with windows of 1 and 8 messages), messages of at most 16
   beats, on the routers ``cubefab verilog fabric`` makes by default (Q(4), 16-bit
   payloads): LUT4, flip-flops and block RAMs after yosys ``synth_ice40``, and Fmax
   after nextpnr-ice40 (HX8K, seed 1), each inside a
   :class:`~cubefab.build.harness.TimingHarness` (every port bit registered; the
   harness is not counted).
2. **latency**: one message alone in a Q(2) fabric with endpoints (Amaranth simulator),
   node 0 to node 3 (2 hops) and to itself: cycles from its first beat accepted on
   ``s_axis`` to its last beat on ``m_axis``, against the fabric's own zero-load
   latency (:func:`~cubefab.hdl.router.zero_load_latency`, head accepted on
   ``local_in`` to tail on ``local_out``) of the packet; and from the last beat
   accepted, against the same (what is left beside store and forward: the packet
   starts only once its last beat is in).
3. **throughput**: node 0 sends B-beat messages to node 1 back to back (``tvalid``
   always high, ``tready`` of the sink always high); the payload bits delivered per
   cycle in the second half of 600 cycles, as a share of a link's payload rate (a
   head flit's payload bits per cycle), for W = 16 (= the payload) and W = 32.

Latency and throughput run deterministic routers, then adaptive ones whose endpoints
have a window of 1 message per destination, then of 8 (a reorder buffer at every
receiver); throughput also deterministic routers with aligned packing at W = 32.

``--save NAME`` writes the figures to ``benchmarks/results/NAME.json``
(``benchmarks/saved_results.py``): ``latency.ROUTING.toDEST.bBEATS.*``,
``throughput.ROUTING.wW.bBEATS.*`` and ``cost.ROUTING.wW.*`` (ROUTING
``deterministic``, ``deterministic_aligned_packing``,
``deterministic_header_flit_packing``, ``adaptive_window_1`` or ``adaptive_window_8``), and the Q(2)
routers of the simulations (``router``). The figures of docs/endpoints.md::

    python benchmarks/endpoints.py --only latency throughput --save endpoints_sim
    python benchmarks/endpoints.py --only cost --save endpoints_cost
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from amaranth.back import verilog  # noqa: E402
from amaranth.sim import Simulator  # noqa: E402

from cubefab.build.harness import TimingHarness  # noqa: E402
from cubefab.build.pnr import implement  # noqa: E402
from cubefab.cli import format_table  # noqa: E402
from cubefab.hdl.config import FabricConfig, RouterConfig  # noqa: E402
from cubefab.hdl.flit import DEFAULT_HEADER, HEADERS  # noqa: E402
from cubefab.hdl.endpoint import (EndpointFabric, MessageFormat,  # noqa: E402
                                  ejection_side, injection_side)
from cubefab.hdl.modes import Adaptive  # noqa: E402
from cubefab.hdl.router import zero_load_latency  # noqa: E402
from cubefab.topology import Hypercube  # noqa: E402
from saved_results import add_save_option, command_line, key_of, save  # noqa: E402


COST_WIDTHS = (8, 16, 32, 128)

#: The routers of the latency and throughput runs: deterministic, then adaptive (whose
#: endpoints acknowledge every message), with a window of one message per destination
#: and of 8 (numbered, with a reorder buffer at every receiver).
ROUTINGS = ({}, {"routing": Adaptive(1)}, {"routing": Adaptive(1), "window": 8})

#: Header-flit packing in 18-bit flits (8-bit payloads of Q(4)'s 10-bit header: a body
#: flit of 16 data bits, one beat of W = 16).
HEADER_FLIT = {"packing": "header-flit", "payload_width": 8}

#: The endpoints whose cost is measured: (W, routers), deterministic for every W of
#: COST_WIDTHS, with aligned packing at W = 32 (two 16-bit parts a beat), with
#: header-flit packing at W = 16 (:data:`HEADER_FLIT`), adaptive with windows 1 and 8 at
#: W = 32.
COST_CASES = ([(w, {}) for w in COST_WIDTHS] + [(32, {"packing": "aligned"})]
              + [(16, HEADER_FLIT)]
              + [(32, {"routing": Adaptive(1)}), (32, {"routing": Adaptive(1), "window": 8})])

#: The throughput runs beside those of every routing: deterministic routers with
#: aligned packing (W = 32: two parts a beat).
ALIGNED = {"packing": "aligned"}
MAX_BEATS = 16

#: The routers' header format (``--header``; the routers' default unless given).
HEADER = {"value": DEFAULT_HEADER}


def cost(width, workdir, pnr=True, window=1, packing="auto", **router):
    """LUT4/FF/BRAM/Fmax of one node's two endpoints."""
    fmt = MessageFormat(RouterConfig.for_topology(Hypercube(4), header=HEADER["value"],
                                                  **router),
                        width, MAX_BEATS, window=window, packing=packing)
    row = {"routing": _routing(fmt), "data_width": width, "max_beats": MAX_BEATS,
           "count_width": fmt.count_width}
    for side, component in (("inject", injection_side(fmt, 0)),
                            ("eject", ejection_side(fmt))):
        text = verilog.convert(TimingHarness(component), name="top")
        case = f"{side}_{width}_{row['routing']}".replace(" ", "").replace(",", "_")
        report = implement(text, "top", "hx8k", os.path.join(workdir, case),
                           pnr=pnr, submodule="dut")
        row.update({f"{side}_lut4": report.lut4, f"{side}_ff": report.ff,
                    f"{side}_bram": report.ram, f"{side}_fmax_mhz": report.fmax_mhz})
    for key in ("lut4", "ff", "bram"):
        row[key] = row[f"inject_{key}"] + row[f"eject_{key}"]
    row["fmax_mhz"] = min((row[f"{s}_fmax_mhz"] for s in ("inject", "eject")
                           if row[f"{s}_fmax_mhz"]), default=None)
    return row


def _fabric(width, max_beats=MAX_BEATS, window=1, packing="auto", **router):
    return EndpointFabric(FabricConfig.for_topology(Hypercube(2), header=HEADER["value"],
                                                    **router), width, max_beats,
                          window=window, packing=packing)


def _simulate(fabric, bench):
    sim = Simulator(fabric)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()


def latency(width, beats, dest, **router):
    """Cycles of one message alone from node 0 to ``dest`` (Q(2))."""
    fabric = _fabric(width, **router)
    src, sink = fabric.s_axis[0], fabric.m_axis[fabric.topology.index(dest)]
    marks = {}

    async def bench(ctx):
        ctx.set(sink.ready, 1)
        sent = 0
        for cycle in range(200):
            ctx.set(src.valid, sent < beats)
            ctx.set(src.payload, {"data": sent + 1, "last": int(sent == beats - 1),
                                  "dest": dest})
            if sent < beats and ctx.get(src.ready):
                marks.setdefault("first", cycle)
                marks["last_in"] = cycle
                sent += 1
            if ctx.get(sink.valid) and ctx.get(sink.payload.last):
                marks["out"] = cycle
                return
            await ctx.tick()

    _simulate(fabric, bench)
    hops = bin(dest).count("1")
    flits = fabric.fmt.flits(beats)
    own = zero_load_latency(fabric.config.router, hops, flits)
    total = marks["out"] - marks["first"]
    after_last = marks["out"] - marks["last_in"]
    return {"routing": _routing(fabric.fmt), "data_width": width, "beats": beats,
            "dest": dest,
            "hops": hops, "flits": flits,
            "cycles": total, "fabric": own, "added": total - own,
            "after_last_beat": after_last,
            "added_after_last_beat": after_last - own}


def throughput(width, beats, cycles=600, **router):
    """Share of the link payload rate one sender gets with ``beats``-beat messages."""
    fabric = _fabric(width, **router)
    src, sink = fabric.s_axis[0], fabric.m_axis[1]
    got = {"beats": 0}

    async def bench(ctx):
        ctx.set(sink.ready, 1)
        position = 0
        for cycle in range(cycles):
            ctx.set(src.valid, 1)
            ctx.set(src.payload, {"data": position, "last": int(position == beats - 1),
                                  "dest": 1})
            if ctx.get(src.ready):
                position = (position + 1) % beats
            if cycle >= cycles // 2 and ctx.get(sink.valid):
                got["beats"] += 1
            await ctx.tick()

    _simulate(fabric, bench)
    link = fabric.fmt.layout.payload_width
    rate = got["beats"] * width / (cycles - cycles // 2)
    return {"routing": _routing(fabric.fmt), "data_width": width, "beats": beats,
            "flits": fabric.fmt.flits(beats), "bits_per_cycle": round(rate, 2),
            "link_payload_bits": link, "share": round(rate / link, 3)}


def _routing(fmt):
    packing = f", {fmt.packing} packing" if fmt.packing != "auto" else ""
    if not fmt.acknowledged:
        return "deterministic" + packing
    return f"adaptive, window {fmt.window}{packing}"


def saved_figures(out):
    """The rows of ``out`` by routing, then width or destination, then beats."""
    figures = {"router": FabricConfig.for_topology(Hypercube(2), header=HEADER["value"])
               .router.as_dict()}
    for part, rows in out.items():
        for r in rows:
            where = f"to{r['dest']}" if part == "latency" else f"w{r['data_width']}"
            place = figures.setdefault(part, {}).setdefault(key_of(r["routing"]), {})
            place = place.setdefault(where, {})
            if "beats" in r and part != "cost":
                place = place.setdefault(f"b{r['beats']}", {})
            place.update({k: v for k, v in r.items() if k != "routing"})
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=("cost", "latency", "throughput"))
    parser.add_argument("--no-pnr", action="store_true", help="synthesis only (no Fmax)")
    parser.add_argument("--json", default=None, metavar="FILE")
    parser.add_argument("--workdir", default="build/bench_endpoints")
    parser.add_argument("--header", choices=HEADERS, default=DEFAULT_HEADER,
                        help=f"the routers' flit format (default {DEFAULT_HEADER})")
    add_save_option(parser)
    args = parser.parse_args()
    HEADER["value"] = args.header
    out = {}
    if "latency" in args.only:
        rows = [latency(16, b, d, **router) for router in ROUTINGS for d in (3, 0)
                for b in (1, 4)]
        out["latency"] = rows
        print(format_table(["routing", "W", "beats", "dest", "hops", "flits", "cycles",
                            "fabric", "added", "after last beat", "added after last beat"],
                           [[r[k] for k in ("routing", "data_width", "beats", "dest", "hops",
                                            "flits",
                                            "cycles", "fabric", "added", "after_last_beat",
                                            "added_after_last_beat")] for r in rows]))
        print(flush=True)
    if "throughput" in args.only:
        rows = [throughput(w, b, **router) for router in ROUTINGS for w in (16, 32)
                for b in (1, 2, 4, 8, 16)]
        rows += [throughput(32, b, **ALIGNED) for b in (1, 2, 4, 8, 16)]
        out["throughput"] = rows
        print(format_table(["routing", "W", "beats", "flits", "bits/cycle",
                            "link payload bits", "share"],
                           [[r[k] for k in ("routing", "data_width", "beats", "flits",
                                            "bits_per_cycle",
                                            "link_payload_bits", "share")] for r in rows]))
        print(flush=True)
    if "cost" in args.only:
        start = time.monotonic()
        rows = [cost(w, args.workdir, pnr=not args.no_pnr, **router)
                for w, router in COST_CASES]
        out["cost"] = rows
        print(format_table(["routing", "W", "count bits", "inject LUT4/FF/BRAM",
                            "eject LUT4/FF/BRAM", "LUT4", "FF", "BRAM", "Fmax MHz"],
                           [[r["routing"], r["data_width"], r["count_width"],
                             f"{r['inject_lut4']}/{r['inject_ff']}/{r['inject_bram']}",
                             f"{r['eject_lut4']}/{r['eject_ff']}/{r['eject_bram']}",
                             r["lut4"], r["ff"], r["bram"], r["fmax_mhz"] or "-"]
                            for r in rows]))
        print(f"({time.monotonic() - start:.0f} s)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
    if args.save:
        save(args.save, saved_figures(out), command_line(__file__, sys.argv[1:]))


if __name__ == "__main__":
    main()
