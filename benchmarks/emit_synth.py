"""The cost of cubefab's Verilog against Amaranth's own, on an FPGA: LUT4, FF, RAM, Fmax.

    python benchmarks/emit_synth.py [--device hx8k] [--seeds 1 2 3] [--json FILE]

cubefab writes its Verilog with :func:`cubefab.hdl.emit.emit_verilog` (processes
lowered to cells, one flattened module, lint-clean). This benchmark synthesises and
places the same designs from that text and from :func:`amaranth.back.verilog.convert`
(what cubefab wrote before), each inside a
:class:`~cubefab.build.harness.TimingHarness` (registers on every port bit, so Fmax is
register to register; the counts are the whole design's, harness included, the same
in both columns), and prints both with their ratio:

* the router of node 0 of Q(4) with the hardware defaults (``verilog router``'s);
* the Q(2) fabric with the hardware defaults (``verilog fabric``'s).
"""

import argparse
import json
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from amaranth.back import verilog as amaranth_verilog   # noqa: E402

from cubefab.build.harness import TimingHarness                  # noqa: E402
from cubefab.build.pnr import implement                          # noqa: E402
from cubefab.hdl.config import FabricConfig, RouterConfig       # noqa: E402
from cubefab.hdl.emit import emit_verilog                        # noqa: E402
from cubefab.hdl.fabric import Fabric                            # noqa: E402
from cubefab.hdl.ports import component_ports                    # noqa: E402
from cubefab.hdl.router import Router                            # noqa: E402
from cubefab.topology import Hypercube                           # noqa: E402


def designs():
    """``{label: factory}``: each factory makes a new component (a design is
    elaborated once per emitter)."""
    def router():
        return Router(RouterConfig.for_topology(Hypercube(4)), 0)

    def fabric():
        return Fabric(FabricConfig.for_topology(Hypercube(2)))
    return {"Q(4) router, node 0": router, "Q(2) fabric": fabric}


def texts(factory):
    """``{emitter: Verilog of the harnessed design, top "top"}``."""
    amaranth = amaranth_verilog.convert(TimingHarness(factory()), name="top")
    harness = TimingHarness(factory())
    cubefab = emit_verilog(harness, "top", list(component_ports(harness).values()))
    return {"amaranth": amaranth, "cubefab": cubefab}


def measure(text, device, seed, workdir):
    report = implement(text, "top", device, workdir, seed=seed)
    return {"lut4": report.total_cells["lut4"], "ff": report.total_cells["ff"],
            "ram": report.total_cells["ram"], "fmax_mhz": report.fmax_mhz}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="hx8k")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1])
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    results = []
    with tempfile.TemporaryDirectory() as work:
        for label, factory in designs().items():
            for emitter, text in texts(factory).items():
                runs = [measure(text, args.device, seed,
                                os.path.join(work, f"{len(results)}-{seed}"))
                        for seed in args.seeds]
                fmax = statistics.median(r["fmax_mhz"] or 0 for r in runs)
                results.append({"design": label, "emitter": emitter, **runs[0],
                                "fmax_mhz": round(fmax, 1), "seeds": args.seeds})
                print(f"{label:22s} {emitter:9s} LUT4 {runs[0]['lut4']:6d}  FF "
                      f"{runs[0]['ff']:5d}  RAM {runs[0]['ram']:3d}  Fmax {fmax:6.1f} MHz "
                      f"(median of seeds {args.seeds})", flush=True)
    pairs = [(results[i], results[i + 1]) for i in range(0, len(results), 2)]
    print("\nratio cubefab / amaranth:")
    for old, new in pairs:
        print(f"  {old['design']}: LUT4 {new['lut4'] / old['lut4']:.3f}, "
              f"Fmax {new['fmax_mhz'] / old['fmax_mhz']:.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": args.device, "results": results}, f, indent=2)


if __name__ == "__main__":
    main()
