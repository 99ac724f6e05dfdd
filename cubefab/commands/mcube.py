"""``cubefab mcube-report mcube -k K``: the Mcube's measured figures beside mcube.txt's."""

from fractions import Fraction

from ..cli import add_json_option, add_topology_command, emit, format_table, CliError
from ..progress import Progress
from ..topology.mcube import Mcube, CONSTRUCTIONS
from ..topology.mcube_analysis import (REPORT_MAX_K, distance_report, hypercube_emulation,
                                       reconfiguration_switches)


__all__ = ["register", "report_text"]


def register(sub):
    add_topology_command(sub, "mcube-report",
                         "Mcube: R1-R3, Mroute lengths vs F_k/AD(k) and BFS, hypercube "
                         "emulation, reconfiguration switches",
                         _report, _options, families=["mcube"])


def _options(parser):
    parser.add_argument("--construction", choices=CONSTRUCTIONS, default="hem",
                        help="hem: section 6 HEM (default), or algorithmic: section 2.2")
    add_json_option(parser)


def _decimal(value, digits=6):
    """A Fraction as a decimal: exact when it has at most ``digits`` decimals
    (199/64 is 3.109375), else rounded to ``digits`` significant digits."""
    for places in range(digits + 1):
        scaled = value * 10 ** places
        if scaled.denominator == 1:
            return f"{value.numerator / value.denominator:.{places}f}"
    return f"{float(value):.{digits}g}"


def _fraction_text(text):
    """``"199/64 = 3.109375"``: an exact fraction (as the JSON writes it) and its
    decimal value, written once so that equal values read the same."""
    value = Fraction(text)
    return text if value.denominator == 1 else f"{text} = {_decimal(value)}"


def _closed_form_text(dist):
    """The paper's closed form of AD(k): "the closed form gives the same" when it gives the
    exact value (up to floating point), else its value."""
    exact = Fraction(dist["paper_ad_exact"])
    closed = dist["paper_ad_closed_form"]
    if abs(closed - float(exact)) <= 1e-9 * max(1.0, abs(float(exact))):
        return "the closed form gives the same"
    return f"closed form {closed:.6g}"


def report_text(doc):
    """Readable form of the ``mcube-report`` document."""
    dist = doc["distances"]
    rows = []
    longest = max(len(dist["mroute_distribution"]), len(dist["paper_distribution"]),
                  len(dist["bfs_distribution"]))

    def at(values, i):
        return values[i] if i < len(values) else 0

    for i in range(longest):
        rows.append([i, at(dist["mroute_distribution"], i), at(dist["paper_distribution"], i),
                     at(dist["bfs_distribution"], i)])
    emu = doc["hypercube_emulation"]
    sw = doc["reconfiguration"]
    lines = [
        f"{doc['label']}: requirements R1-R3 "
        + ("hold" if not doc["requirements_violations"] else
           "FAIL: " + "; ".join(doc["requirements_violations"])),
        "",
        format_table(["distance", "Mroute nodes", "paper F_k", "BFS nodes"
                      + ("" if dist["bfs_uniform"] else " (mean)")], rows),
        "",
        f"diameter: Mroute {dist['mroute_diameter']}, paper ceil((k+1)/2) = "
        f"{dist['paper_diameter']}, BFS {dist['bfs_diameter']}",
        f"average distance incl. self: Mroute "
        f"{_fraction_text(dist['mroute_average_with_self_exact'])}, paper AD(k) "
        f"{_fraction_text(dist['paper_ad_exact'])} ({_closed_form_text(dist)}), BFS "
        f"{_fraction_text(dist['bfs_average_with_self_exact'])}",
        f"Mroute takes a shortest path for {dist['mroute_shortest_pairs']} of "
        f"{dist['pairs']} ordered pairs; BFS distribution "
        + ("the same from every node" if dist["bfs_uniform"] else "differs between nodes"),
        f"hypercube links: {emu['direct']} direct, {emu['two_hop']} over one link 0, "
        f"{emu['three_hop']} as x->x^1->y^1->y, {emu['other']} otherwise (of {emu['links']})",
        f"2x2 reconfiguration switches: {sw['switches']} (per link number "
        f"{sw['per_dimension']}), Theorem 2 bound (k-2)*2^(k-2) = {sw['paper_bound']}",
    ]
    return "\n".join(lines)


def _report(args, topology):
    k = topology.k
    if k > REPORT_MAX_K:
        raise CliError(f"mcube-report is built for k <= {REPORT_MAX_K}, not k = {k}")
    if args.construction != "hem":
        topology = Mcube(k, args.construction)
    progress = Progress(f"mcube-report {topology.label}", unit="parts")
    doc = {"label": topology.label, "k": k, "construction": topology.construction}
    doc["requirements_violations"] = topology.check_requirements()
    progress.update(1, 4)
    doc["distances"] = distance_report(topology)
    progress.update(2, 4)
    doc["hypercube_emulation"] = hypercube_emulation(topology)
    progress.update(3, 4)
    doc["reconfiguration"] = reconfiguration_switches(topology)
    progress.update(4, 4)
    progress.close()
    emit(args, doc, report_text(doc))
