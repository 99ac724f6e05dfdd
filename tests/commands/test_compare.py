"""`cubefab compare`: the table and JSON against independent references (networkx, brute
force, the papers' formulas), the --nodes rule, bad input, and the plot file."""

import contextlib
import io
import json
import math
import re

import networkx as nx
import pytest

from cubefab.cli import main
from cubefab.sim.compare import COLUMNS, nearest_networks
from cubefab.topology import make_topology
from cubefab.topology.patterns import traffic_matrix

from tests.helpers import brute_force_bisection, brute_force_loads


def compare_doc(cli, *args):
    """The JSON document of ``cubefab compare ARGS --json`` (which must succeed)."""
    result = cli("compare", *args, "--json")
    assert result.status == 0, result.err
    return result.json()


def rows_by_network(cli, *networks, options=()):
    return {r["network"]: r for r in compare_doc(cli, *networks, *options)["rows"]}


def graph(topology):
    g = nx.Graph()
    g.add_edges_from((int(u), int(v)) for u, v in topology.edges())
    return g


def assert_one_error_line(result, option):
    lines = result.err.strip().splitlines()
    assert result.status == 2 and len(lines) == 1, result.err
    assert lines[0].startswith("error: ") and option in lines[0], lines[0]


# -- values against independent references ---------------------------------------------

#: Networks of at most 16 nodes (brute-force bisection) and larger ones (the rest).
TINY = ["hypercube:n=4", "dualcube:m=1", "metacube:k=0,m=3", "dlh:m=2,d=1", "mcube:k=4"]
SMALL = ["dualcube:m=2", "metacube:k=2,m=1", "dlh:m=3,d=2", "mcube:k=6"]


@pytest.fixture(scope="module")
def small_rows():
    """The rows of TINY and SMALL, compared in one run."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["compare", *TINY, *SMALL, "--json"]) == 0
    return {r["network"]: r for r in json.loads(out.getvalue())["rows"]}


@pytest.mark.parametrize("network", TINY + SMALL)
def test_distances_equal_networkx(small_rows, network):
    row = small_rows[network]
    family, params = network.split(":")
    g = graph(make_topology(family, **dict((k, int(v)) for k, v in
                                          (p.split("=") for p in params.split(",")))))
    assert (row["nodes"], row["links"]) == (g.number_of_nodes(), g.number_of_edges())
    assert row["degree"] == max(d for _, d in g.degree)
    assert row["diameter"] == nx.diameter(g)
    assert row["average_distance"] == pytest.approx(nx.average_shortest_path_length(g),
                                                    rel=1e-12)
    assert row["cost"] == row["degree"] * row["diameter"]


@pytest.mark.parametrize("network", TINY)
def test_bisection_equals_brute_force(small_rows, network):
    row = small_rows[network]
    topology = make_topology(row["family"], **row["params"])
    assert row["bisection"]["method"] == "exact"
    assert row["bisection"]["value"] == brute_force_bisection(topology)


@pytest.mark.parametrize("network", TINY + SMALL)
def test_max_load_equals_every_route_counted(small_rows, network):
    row = small_rows[network]
    topology = make_topology(row["family"], **row["params"])
    loads = brute_force_loads(topology, traffic_matrix(topology, "uniform"))
    assert row["channel_load"]["max_channel_load"] == pytest.approx(loads.max(), rel=1e-12)
    assert row["channel_load"]["method"] == ("routes" if row["family"] == "mcube"
                                             else "structure")


def test_table_shows_a_row_per_network(cli):
    result = cli("compare", "hypercube:n=5", "dualcube:m=2")
    assert result.status == 0
    lines = result.out.splitlines()
    assert all(c.header in lines[0] for c in COLUMNS)
    assert lines[2].split()[:10] == ["hypercube", "n=5", "32", "5", "80", "5", "2.58065",
                                     "2.5", "25", "16"]
    assert lines[3].split()[:10] == ["dualcube", "m=2", "32", "3", "48", "6", "3.35484",
                                     "3.25", "18", "8"]


def test_json_is_one_document_with_the_columns(cli):
    doc = compare_doc(cli, "hypercube:n=3")
    assert doc["columns"] == [c.key for c in COLUMNS]
    assert doc["selection"] == {"by": "networks"} and doc["plot"] is None
    assert len(doc["rows"]) == 1 and doc["rows"][0]["label"] == "Q(3)"


# -- the papers' tables ----------------------------------------------------------------

def table2_row(k, m):
    """metacube.txt Table 2's MC(k, m) row (k = 0: its hypercube row), n = m 2^k + k."""
    n = m * 2 ** k + k
    if k == 0:
        return {"degree": n, "diameter": n, "cost": n * n, "bisection": 2 ** n // 2,
                "links": 2 ** n * n // 2, "average_distance_with_self": n / 2}
    return {"degree": m + k, "diameter": (m + 1) * 2 ** k, "cost": (m + 1) * 2 ** k * (m + k),
            "bisection": 2 ** (m * 2 ** k) // 2, "links": 2 ** (m * 2 ** k + k) * (m + k) // 2}


@pytest.mark.parametrize("k,m", [(0, 5), (0, 10), (1, 2), (1, 3), (2, 2), (3, 1), (4, 1)])
def test_metacube_table2_columns(cli, k, m):
    row = rows_by_network(cli, f"metacube:k={k},m={m}")[f"metacube:k={k},m={m}"]
    for key, value in table2_row(k, m).items():
        computed = row["bisection"]["value"] if key == "bisection" else row[key]
        assert computed == value, (key, computed, value)


def test_table2_mc2m_average_distance_is_the_upper_bound_not_the_average(cli):
    """Table 2's n/2 + 3 for MC(2, m) is kept beside the exact value (docs/errata.md)."""
    row = rows_by_network(cli, "metacube:k=2,m=2")["metacube:k=2,m=2"]
    assert row["average_distance_with_self_exact"] == "229/32"
    assert {"key": "average_distance_with_self", "paper": 8.0,
            "source": "metacube.txt Table 2: n/2 + 3",
            "computed": 229 / 32} in row["paper_differences"]


@pytest.mark.parametrize("m", [1, 2, 3, 4])
def test_dualcube_table1(cli, m):
    """dual-cube.txt Table 1 at n = 2m + 1; its "# Links" counts each link twice."""
    n = 2 * m + 1
    row = rows_by_network(cli, f"dualcube:m={m}")[f"dualcube:m={m}"]
    assert (row["degree"], row["diameter"], row["cost"]) == ((n + 1) // 2, n + 1,
                                                            (n + 1) ** 2 // 2)
    assert row["bisection"]["value"] == 2 ** n // 4
    assert row["average_distance_with_self"] == n / 2 + 1 - 1 / 2 ** ((n - 1) // 2)
    assert row["links"] == 2 ** n * (n + 1) // 2 // 2
    assert row["paper_differences"] == []


def test_dlh_lemmas(cli):
    """dlh.txt Lemmas 1-2 hold; Lemma 3's average distance does not (docs/errata.md)."""
    row = rows_by_network(cli, "dlh:m=4,d=3")["dlh:m=4,d=3"]
    assert (row["diameter"], row["degree"]) == (4 + 3 + 1, 3 + 3)
    assert row["average_distance_exact"] == "512/127"
    [difference] = row["paper_differences"]
    assert difference["key"] == "average_distance"
    assert difference["paper"] == pytest.approx(46 / 22)


def test_mcube_paper_figures(cli):
    """mcube.txt: degree k, k 2^(k-1) links, diameter at most ceil((k+1)/2) (Mroute's)."""
    row = rows_by_network(cli, "mcube:k=8")["mcube:k=8"]
    assert (row["degree"], row["links"]) == (8, 8 * 2 ** 7)
    assert row["diameter"] <= math.ceil(9 / 2)
    assert row["bisection"]["value"] == 2 ** 7


# -- sizes beyond the exact methods ----------------------------------------------------

def test_beyond_the_walk_limit_the_load_is_a_bound_for_any_routing(cli):
    walked = rows_by_network(cli, "mcube:k=6")["mcube:k=6"]["channel_load"]
    bound = rows_by_network(cli, "mcube:k=6", options=("--walk-max-nodes", "32")
                            )["mcube:k=6"]["channel_load"]
    assert bound["method"] == "any routing"
    assert bound["max_channel_load"] <= walked["max_channel_load"]


def test_beyond_the_bfs_limit_the_distances_are_not_shown(cli):
    result = cli("compare", "mcube:k=6", "--bfs-max-nodes", "32")
    assert result.status == 0
    assert "BFS from all 64 nodes, beyond the 32 of the BFS limit" in result.out
    row = compare_doc(cli, "mcube:k=6", "--bfs-max-nodes", "32")["rows"][0]
    assert row["diameter"] is None and row["cost"] is None
    assert row["bisection"]["value"] == 32


@pytest.mark.slow
def test_a_million_nodes(cli):
    """The timing is benchmarks/compare.py's; here what it computes."""
    doc = compare_doc(cli, "--nodes", "2^20")
    assert all(r["bisection"]["method"] == "exact" for r in doc["rows"])
    q20 = [r for r in doc["rows"] if r["network"] == "hypercube:n=20"]
    assert q20 and q20[0]["bisection"]["value"] == 2 ** 19 and q20[0]["diameter"] == 20


# -- --nodes ---------------------------------------------------------------------------

def selected(nodes):
    return [(s.name, p) for s, p in nearest_networks(nodes)]


def test_nodes_selects_the_nearest_instance_of_each_series():
    """At 1024 nodes: the dual-cube has 2^9 and 2^11 (a tie: both); DLH(4,6) is the
    least-cost DLH of 1024 nodes (cost 9 x 11 = 99: DLH(2,7) 100, DLH(8,5) 112)."""
    assert selected(1024) == [
        ("hypercube", {"n": 10}), ("dualcube", {"m": 4}), ("dualcube", {"m": 5}),
        ("metacube k=2", {"k": 2, "m": 2}), ("metacube k=3", {"k": 3, "m": 1}),
        ("metacube k=4", {"k": 4, "m": 1}), ("dlh", {"m": 4, "d": 6}),
        ("mcube", {"k": 10})]


def test_nodes_compares_by_ratio():
    """3000 nodes: 4096 (x1.37) beats 2048 (x1.46); the nearest DLH is 4 x 47 x 2^4 = 3008
    (node counts of the DLH are 8 x m x 2^(d-1), 1 + m + d <= 62)."""
    assert selected(3000) == [
        ("hypercube", {"n": 12}), ("dualcube", {"m": 5}), ("metacube k=2", {"k": 2, "m": 2}),
        ("metacube k=3", {"k": 3, "m": 1}), ("metacube k=4", {"k": 4, "m": 1}),
        ("dlh", {"m": 47, "d": 4}), ("mcube", {"k": 12})]


def test_nodes_option_states_the_selection(cli):
    """64 nodes: DLH(4,2) costs 5 x 7 = 35, DLH(2,3) 6 x 6 = 36."""
    doc = compare_doc(cli, "--nodes", "2^6")
    assert doc["selection"]["by"] == "nodes" and doc["selection"]["nodes"] == 64
    assert [r["network"] for r in doc["rows"]] == [
        "hypercube:n=6", "dualcube:m=2", "dualcube:m=3", "metacube:k=2,m=1",
        "metacube:k=3,m=1", "metacube:k=4,m=1", "dlh:m=4,d=2", "mcube:k=6"]


# -- bad input -------------------------------------------------------------------------

@pytest.mark.parametrize("args,option", [
    (["--nodes", "1"], "--nodes"),
    (["--nodes", "2^63"], "--nodes"),
    (["--nodes", "many"], "--nodes"),
    (["hypercube:x=3"], "NETWORK"),
    (["torus:n=3"], "NETWORK"),
    (["hypercube:n=0"], "NETWORK"),
    (["mcube:k=17"], "NETWORK"),
    (["--nodes", "64", "hypercube:n=3"], "--nodes"),
    ([], "--nodes"),
    (["--nodes", "64", "--plot-max-nodes", "1024"], "--plot-max-nodes"),
    (["--nodes", "64", "--plot", "out.txt"], "--plot"),
    (["hypercube:n=3", "--bfs-max-nodes", "0"], "--bfs-max-nodes"),
    (["hypercube:n=3", "--walk-max-nodes", "99999"], "--walk-max-nodes"),
])
def test_bad_input_is_one_error_line_naming_the_option(cli, args, option):
    assert_one_error_line(cli("compare", *args), option)


def test_help_states_every_default(capsys):
    assert main(["compare", "--help"]) == 0
    blocks = re.split(r"\n  (?=-)", capsys.readouterr().out.split("options:")[1])
    helps = {block.split()[0]: " ".join(block.split()) for block in blocks if block.strip()}
    for option in ("--nodes", "--bfs-max-nodes", "--walk-max-nodes", "--json", "--plot",
                   "--plot-max-nodes", "--force"):
        assert "default" in helps[option], helps[option]


# -- the plot --------------------------------------------------------------------------

MAGIC = {".png": b"\x89PNG\r\n\x1a\n", ".svg": b"<?xml", ".pdf": b"%PDF"}


@pytest.mark.parametrize("suffix", sorted(MAGIC))
def test_plot_writes_the_format_of_its_suffix(cli, tmp_path, suffix):
    path = tmp_path / f"compare{suffix}"
    result = cli("compare", "hypercube:n=4", "--plot", path, "--plot-max-nodes", "64")
    assert result.status == 0 and f"plot written to {path}" in result.out
    assert path.read_bytes().startswith(MAGIC[suffix])


def test_plot_refuses_a_users_file_without_force(cli, tmp_path):
    path = tmp_path / "mine.png"
    path.write_text("the user's file\n")
    result = cli("compare", "hypercube:n=4", "--plot", path, "--plot-max-nodes", "64")
    assert_one_error_line(result, "--force")
    assert path.read_text() == "the user's file\n"
    result = cli("compare", "hypercube:n=4", "--plot", path, "--plot-max-nodes", "64",
                 "--force")
    assert result.status == 0 and path.read_bytes().startswith(MAGIC[".png"])


def test_the_plot_is_the_figure_plot_draws_of_the_json(cli, tmp_path):
    """The JSON holds every point the figure draws (``plot.points``): ``cubefab plot``
    redraws it, identically, without computing the series again."""
    path = tmp_path / "compare.png"
    result = cli("compare", "--nodes", "16", "--plot", path, "--plot-max-nodes", "64",
                 "--json")
    assert result.status == 0
    doc = result.json()
    assert {name: [p["label"] for p in points] for name, points in
            doc["plot"]["points"].items()} == doc["plot"]["series"]
    saved = tmp_path / "compare.json"
    saved.write_text(result.out)
    assert cli("plot", saved, "-o", tmp_path / "again.png").status == 0
    assert (tmp_path / "again.png").read_bytes() == path.read_bytes()
