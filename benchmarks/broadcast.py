"""Broadcast trees, one-port schedules, replication deadlock proof and children units.

Usage: python benchmarks/broadcast.py [--no-synth] [--save NAME]

For MC(1,2), MC(2,2), DLH(4,3), Q(6) and Mcube(6), from every source: the all-port tree
depth against the BFS eccentricity (always equal) and, for the Mcube, its paper's
all-port step count; the one-port step count against the paper's; the VCs of the
combined unicast + buffered broadcast channel dependency graph and the time to prove it
acyclic; and (unless --no-synth; needs yosys) the LUT4 count and logic depth of the
broadcast children unit (synth_ice40) beside the unicast route unit, for node 0
(address a constant) and with address straps, and of the multicast children unit of
node 0 (members as a subcube, and as a bit vector) and of its one-port sends unit.
``--save NAME`` writes the figures to ``benchmarks/results/NAME.json``
(``benchmarks/saved_results.py``).
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from saved_results import command_line, save  # noqa: E402

from cubefab.build.synth import route_unit_cost, synthesize_logic
from cubefab.build.verilog import verilog_text
from cubefab.hdl.route import route_unit
from cubefab.hdl.route.broadcast import broadcast_children_unit
from cubefab.hdl.route.multicast import MulticastChildren
from cubefab.hdl.route.one_port import OnePortSends
from cubefab.topology import DLH, Hypercube, Mcube, Metacube
from cubefab.topology.broadcast import algorithms_for
from cubefab.topology.broadcast_deadlock import check_broadcast
from cubefab.topology.broadcast_tree import broadcast_tree, one_port_tree, tree_algorithm
from cubefab.topology.properties import bfs_distances


NETWORKS = [(Metacube(1, 2), None), (Metacube(2, 2), None), (DLH(4, 3), None),
            (Hypercube(6), None), (Mcube(6), "ecube")]


def trees(topology):
    depths, eccs, one_port, seconds = set(), set(), set(), 0.0
    for s in topology.nodes().tolist():
        t0 = time.perf_counter()
        tree = broadcast_tree(topology, s)
        seconds += time.perf_counter() - t0
        depths.add(tree.height)
        eccs.add(int(bfs_distances(topology, s).max()))
        one = one_port_tree(topology, s)
        assert one.validate().ok
        one_port.add(one.num_steps)
    return depths, eccs, one_port, seconds


def span(values):
    return f"{min(values)}" if len(values) == 1 else f"{min(values)}-{max(values)}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-synth", action="store_true")
    parser.add_argument("--save", metavar="NAME", default=None,
                        help="write the figures to benchmarks/results/NAME.json")
    args = parser.parse_args()
    figures = {}
    print(f"{'network':10} {'nodes':>6} {'tree':>10} {'depth':>6} {'ecc':>6} {'paper all':>9} "
          f"{'1-port':>6} {'paper 1':>7} {'U+B VCs':>7} {'deps':>7} {'proof s':>7} "
          f"{'trees s':>7}")
    for topology, algorithm in NETWORKS:
        depths, eccs, one_port, seconds = trees(topology)
        paper = {a.model: a.paper_steps(topology) for a in algorithms_for(topology)
                 if a.paper_steps}
        report = check_broadcast(topology, algorithm)
        assert report.deadlock_free
        print(f"{topology.label:10} {topology.num_nodes:>6} {tree_algorithm(topology):>10} "
              f"{span(depths):>6} {span(eccs):>6} {paper.get('all-port', '-'):>9} "
              f"{span(one_port):>6} {paper.get('one-port', '-'):>7} "
              f"{report.unicast_vcs}+{report.broadcast_vcs:<5} {report.dependencies:>7} "
              f"{report.seconds:>7.2f} {seconds:>7.2f}")
        figures[_key(topology)] = {
            "nodes": topology.num_nodes, "tree_routing": tree_algorithm(topology),
            "depth": span(depths), "eccentricity": span(eccs),
            "paper_all_port": paper.get("all-port", "-"), "one_port_steps": span(one_port),
            "paper_one_port": paper.get("one-port", "-"),
            "unicast_vcs": report.unicast_vcs, "broadcast_vcs": report.broadcast_vcs,
            "dependencies": report.dependencies, "proof_s": round(report.seconds, 2)}
    if args.no_synth:
        _save(args, figures)
        return
    print()
    print(f"{'network':10} {'unit':24} {'LUT4 node 0':>11} {'depth':>5} {'LUT4 straps':>11} "
          f"{'depth':>5} {'route unit LUT4':>15} {'multicast subcube':>17} "
          f"{'multicast vector':>16} {'one-port sends':>14}")
    for topology, _ in NETWORKS:
        unit = broadcast_children_unit(topology, 0)
        name = type(unit).__name__
        const = synthesize_logic(verilog_text(unit))
        straps = synthesize_logic(verilog_text(broadcast_children_unit(topology, None)))
        route = route_unit_cost(route_unit(topology, 0))
        multicast = [synthesize_logic(verilog_text(MulticastChildren(topology, 0, mode)))
                     for mode in ("subcube", "vector")]
        one_port = synthesize_logic(verilog_text(OnePortSends(topology, 0)))
        print(f"{topology.label:10} {name:24} {const.lut4:>11} {const.depth:>5} "
              f"{straps.lut4:>11} {straps.depth:>5} {route.lut4:>15} "
              f"{multicast[0].lut4:>12} / {multicast[0].depth:<2} "
              f"{multicast[1].lut4:>11} / {multicast[1].depth:<2} "
              f"{one_port.lut4:>9} / {one_port.depth:<2}")
        figures[_key(topology)]["units"] = {
            "children_lut4": const.lut4, "children_depth": const.depth,
            "children_straps_lut4": straps.lut4, "children_straps_depth": straps.depth,
            "route_unit_lut4": route.lut4, "subcube_lut4": multicast[0].lut4,
            "subcube_depth": multicast[0].depth, "vector_lut4": multicast[1].lut4,
            "vector_depth": multicast[1].depth, "one_port_lut4": one_port.lut4,
            "one_port_depth": one_port.depth}
    _save(args, figures)


def _key(topology):
    """A figure key for a network: ``"MC(1,2)"`` -> ``"mc1_2"``."""
    return "_".join(filter(None, "".join(c if c.isalnum() else " "
                                         for c in topology.label.lower()).split()))


def _save(args, figures):
    if args.save:
        save(args.save, figures, command_line(__file__, sys.argv[1:]))


if __name__ == "__main__":
    main()
