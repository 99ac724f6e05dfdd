"""``cubefab demo``: the main job on the default design."""

import json
import os


from ..progress import Progress
from ..topology import Metacube, DLH, Hypercube, properties
from .topology import property_table


__all__ = ["register", "DEFAULT_NETWORKS"]

#: The default design: the dual-cube MC(1,2) (32 nodes), DLH(4,3) for the optics,
#: and the hypercube of the same size as the dual-cube for comparison.
DEFAULT_NETWORKS = (Metacube(1, 2), DLH(4, 3), Hypercube(5))


def register(sub):
    parser = sub.add_parser("demo", help="the main job on the default design; writes ./build/")
    parser.add_argument("-o", "--out", default="build", help="output directory (default build)")
    parser.set_defaults(_handler=run)


def run(args):
    os.makedirs(args.out, exist_ok=True)
    progress = Progress("properties", unit="networks")
    results = []
    for i, topo in enumerate(DEFAULT_NETWORKS):
        results.append(properties(topo))
        progress.update(i + 1, len(DEFAULT_NETWORKS))
    progress.close()
    table = property_table(results)
    print("Exact properties of the default networks (BFS; paper values in parentheses "
          "where they differ):")
    print(table)
    with open(os.path.join(args.out, "properties.txt"), "w") as f:
        f.write(table + "\n")
    with open(os.path.join(args.out, "properties.json"), "w") as f:
        json.dump(results, f, indent=2)
    print(f"wrote {os.path.join(args.out, 'properties.txt')} and properties.json")
