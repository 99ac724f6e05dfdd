"""BookSim2 export: the anynet file, BookSim's port numbering, the next-hop table (the
same routes and VCs as cubefab's reference routing), the configuration, and runs."""

import os
import stat

import numpy as np
import pytest

from cubefab.files import OutputRefused

from cubefab.sim.booksim import (BOOKSIM_ROUTER, MAX_TABLE_ROUTERS, PATCH_NAME, anynet_text,
                                 booksim_config, booksim_ports, booksim_router,
                                 min_channel_loads, min_parents, next_port_table,
                                 parse_booksim_output, patch_text, run_booksim, table_text,
                                 write_booksim)
from cubefab.sim.channel_load import channel_loads
from cubefab.hdl.config import SIMULATION_DEFAULTS, RouterConfig
from cubefab.topology.dlh import DLH
from cubefab.topology.catalog import make_topology
from cubefab.topology.deadlock import hop_vcs, required_vcs


SMALL = [("hypercube", {"n": 4}), ("metacube", {"k": 1, "m": 2}), ("metacube", {"k": 2, "m": 1}),
         ("dlh", {"m": 3, "d": 1}), ("dlh", {"m": 2, "d": 2}), ("mcube", {"k": 4})]


def parse_anynet(text):
    """Read an anynet file as BookSim's AnyNet::readFile and _BuildNet do: the
    terminal per router, the links, and each router's output ports (0 = terminal,
    then the neighbours by ascending id, as the std::map walk numbers them)."""
    attached, neighbours = {}, {}
    for line in text.splitlines():
        words = line.split()
        assert words[0] == "router"
        head = int(words[1])
        neighbours.setdefault(head, set())
        for kind, ident in zip(words[2::2], words[3::2]):
            if kind == "node":
                attached[int(ident)] = head
            else:
                assert kind == "router"
                neighbours[head].add(int(ident))
                neighbours.setdefault(int(ident), set()).add(head)
    links = {(a, b) for a, nb in neighbours.items() for b in nb}
    ports = {r: {1 + i: b for i, b in enumerate(sorted(nb))} for r, nb in neighbours.items()}
    return attached, links, ports


def read_table(text):
    """The next-hop table file as the patch's cubefab_table_load reads it."""
    words = " ".join(l for l in text.splitlines() if not l.startswith("#")).split()
    assert words[:2] == ["cubefab_table", "1"]
    n, per, classes, bits = (int(w) for w in words[2:6])
    address = [int(w) for w in words[6:6 + n]]
    entry = np.array([int(w) for w in words[6 + n:]]).reshape(n, n)
    return n, per, classes, bits, address, entry


def walk_table(table, ports, src, dst):
    """Route a packet ``src -> dst`` (dense indices) as the patch's cubefab_table
    routing function does, on a :func:`read_table` and anynet ``ports``: (routers
    visited, VC of every hop)."""
    n, per, classes, bits, address, entry = table
    x, lane = address[src] ^ address[dst], 0
    while bits and x:
        lane ^= x & ((1 << bits) - 1)
        x >>= bits
    here, vc, path, vcs = src, lane, [src], []
    while entry[here, dst] >> 1:
        e = entry[here, dst]
        vc = min(vc // per + (e & 1), classes - 1) * per + lane
        here = ports[here][e >> 1]
        path.append(here)
        vcs.append(vc)
        assert len(path) <= n
    return path, vcs


@pytest.mark.parametrize("family, params", SMALL)
def test_anynet_links_are_the_topology_links(family, params):
    topo = make_topology(family, **params)
    attached, links, _ = parse_anynet(anynet_text(topo))
    assert attached == {i: i for i in range(topo.num_nodes)}
    index = topo.index_array(topo.edges())
    expected = {(int(u), int(v)) for u, v in index} | {(int(v), int(u)) for u, v in index}
    assert links == expected


@pytest.mark.parametrize("family, params", SMALL)
def test_booksim_ports_ascend_with_neighbour_id(family, params):
    topo = make_topology(family, **params)
    ports = parse_anynet(anynet_text(topo))[2]
    table = booksim_ports(topo)
    for i, a in enumerate(topo.nodes()):
        for p in range(topo.degree):
            assert ports[i][int(table[i, p])] == topo.index(topo.neighbor(int(a), p))


def test_booksim_ports_are_not_cubefab_ports():
    """The reason for booksim_ports: 1 + p is wrong for some router (DLH)."""
    topo = make_topology("dlh", m=2, d=1)
    assert not np.array_equal(booksim_ports(topo), 1 + np.arange(topo.degree)[None, :])


@pytest.mark.parametrize("family, params", SMALL)
def test_next_port_table_is_next_port_everywhere(family, params):
    topo = make_topology(family, **params)
    table = next_port_table(topo)
    nodes = [int(a) for a in topo.nodes()]
    expected = [[topo.next_port(a, b) for b in nodes] for a in nodes]
    assert table.tolist() == expected


def test_next_port_table_of_1024_nodes_matches_sampled_pairs():
    topo = make_topology("metacube", k=2, m=2)
    table = next_port_table(topo)
    nodes = topo.nodes()
    rng = np.random.default_rng(5)
    for i, j in rng.integers(0, len(nodes), size=(3000, 2)):
        assert table[i, j] == topo.next_port(int(nodes[i]), int(nodes[j]))


@pytest.mark.parametrize("family, params, per", [
    ("metacube", {"k": 1, "m": 2}, 2), ("metacube", {"k": 2, "m": 1}, 2),
    ("dlh", {"m": 3, "d": 1}, 2), ("dlh", {"m": 2, "d": 2}, 1), ("hypercube", {"n": 4}, 4)])
def test_table_routes_every_packet_on_cubefab_links_and_vcs(family, params, per):
    topo = make_topology(family, **params)
    vcs = required_vcs(topo) * per
    table = read_table(table_text(topo, vcs_per_class=per, classes=vcs // per))
    ports = parse_anynet(anynet_text(topo))[2]
    nodes = [int(a) for a in topo.nodes()]
    for s, a in enumerate(nodes):
        for d, b in enumerate(nodes):
            path, vc = walk_table(table, ports, s, d)
            assert path == [topo.index(x) for x in topo.route(a, b)]
            assert vc == hop_vcs(topo, a, b, vcs=vcs, vcs_per_class=per)


def test_table_header_and_ejection():
    topo = make_topology("metacube", k=1, m=2)
    n, per, classes, bits, address, entry = read_table(
        table_text(topo, vcs_per_class=2, classes=2))
    assert (n, per, classes, bits) == (32, 2, 2, 1)
    assert address == list(range(32))
    assert np.all(np.diag(entry) == 0) and np.all(entry[~np.eye(32, dtype=bool)] >= 2)


def test_table_rejects_header_routing_and_huge_networks():
    with pytest.raises(ValueError, match="reads src"):
        next_port_table(make_topology("metacube", k=1, m=2), "paper")
    big = make_topology("hypercube", n=MAX_TABLE_ROUTERS.bit_length())
    with pytest.raises(ValueError, match="at most"):
        next_port_table(big)


def anynet_dijkstra(neighbours, start):
    """AnyNet::route transcribed: Dijkstra over a std::set scanned in id order,
    relaxing on a strictly shorter distance; returns prev."""
    n = len(neighbours)
    dist, prev, rlist = [float("inf")] * n, [-1] * n, set(range(n))
    dist[start] = 0
    while rlist:
        best = min(sorted(rlist), key=lambda i: dist[i])   # first minimum in id order
        rlist.remove(best)
        for j in sorted(neighbours[best]):
            if dist[best] + 1 < dist[j]:
                dist[j], prev[j] = dist[best] + 1, best
    return prev


@pytest.mark.parametrize("family, params", [("metacube", {"k": 1, "m": 2}),
                                            ("dlh", {"m": 2, "d": 1}), ("hypercube", {"n": 4})])
def test_min_parents_are_anynet_dijkstra(family, params):
    topo = make_topology(family, **params)
    neighbours = parse_anynet(anynet_text(topo))[2]
    neighbours = [set(neighbours[r].values()) for r in range(topo.num_nodes)]
    for s in range(topo.num_nodes):
        assert min_parents(topo, s).tolist() == anynet_dijkstra(neighbours, s)


@pytest.mark.parametrize("family, params", [("metacube", {"k": 1, "m": 2}),
                                            ("dlh", {"m": 4, "d": 3})])
def test_min_routes_are_as_long_but_load_channels_unevenly(family, params):
    topo = make_topology(family, **params)
    ours, theirs = channel_loads(topo, "uniform"), min_channel_loads(topo)
    assert theirs.sum() == pytest.approx(ours.sum())      # the same hop counts
    assert theirs.max() > 1.1 * ours.max()


def config_values(text):
    values = {}
    for line in text.splitlines():
        if line.startswith("//") or not line.strip():
            continue
        key, _, value = line.rstrip(";").partition(" = ")
        values[key] = value
    return values


def test_router_defaults_are_the_sweep_router():
    topo = make_topology("metacube", k=2, m=2)
    router = booksim_router(topo)
    assert router["vcs"] == required_vcs(topo) * SIMULATION_DEFAULTS.vcs_per_class == 4
    assert router["depth"] == SIMULATION_DEFAULTS.depth
    assert router["classes"] == 4 and router["vcs_per_class"] == 1


def test_config_models_the_sweep_router_at_booksims_shortest_pipeline():
    topo = make_topology("metacube", k=2, m=2)
    text = booksim_config(topo)
    values = config_values(text)
    assert values["num_vcs"] == "4" and values["vc_buf_size"] == str(SIMULATION_DEFAULTS.depth)
    assert values["routing_delay"] == "0" and values["speculative"] == "1"
    assert values["credit_delay"] == "1" and values["input_speedup"] == "4"
    assert values["routing_function"] == "cubefab_table"
    assert values["traffic"] == "uniform_other"
    assert "4 VCs (4 classes x 1 per class), 4-flit buffer per VC" in text
    for key, value in BOOKSIM_ROUTER.items():
        assert values[key] == str(value)


def test_min_config_is_stock_booksim():
    topo = make_topology("dlh", m=2, d=1)
    values = config_values(booksim_config(topo, routing="min", vcs=4, depth=2,
                                          vcs_per_class=1))
    assert values["routing_function"] == "min" and values["traffic"] == "uniform"
    assert "cubefab_table_file" not in values
    assert (values["num_vcs"], values["vc_buf_size"], values["input_speedup"]) == ("4", "2", "4")


@pytest.mark.parametrize("bad, match", [
    ({"injection_rate": 2}, "Injection rate"), ({"vcs": 3, "vcs_per_class": 2}, "multiple"),
    ({"depth": 0}, "Buffer depth"), ({"vcs_per_class": 3}, "power of two"),
    ({"seed": -1}, "Seed"), ({"routing": "xy"}, "routing"), ({"traffic": "bitcomp"}, "only uniform")])
def test_bad_config_values(bad, match):
    with pytest.raises(ValueError, match=match):
        booksim_config(make_topology("dlh", m=2, d=1), **bad)


def test_write_booksim_files(tmp_path):
    topo = make_topology("metacube", k=1, m=1)
    paths = write_booksim(topo, tmp_path / "out", injection_rate=0.25, packet_size=4)
    values = config_values(open(paths["config_file"]).read())
    # named as they are in the directory (BookSim runs there): no absolute path
    assert values["network_file"] == os.path.basename(paths["network_file"])
    assert values["cubefab_table_file"] == os.path.basename(paths["table_file"])
    assert str(tmp_path) not in open(paths["config_file"]).read()
    assert values["injection_rate"] == "0.25" and values["packet_size"] == "4"
    nodes = open(paths["nodes_file"]).read().splitlines()[1:]
    assert nodes == [f"{i} {i}" for i in range(8)]
    assert open(paths["patch_file"]).read() == patch_text()
    assert os.path.basename(paths["patch_file"]) == PATCH_NAME


def test_write_booksim_keeps_existing_files_unless_forced(tmp_path):
    topo = make_topology("hypercube", n=2)
    (tmp_path / "anynet_file").write_text("mine")
    with pytest.raises(OutputRefused):
        write_booksim(topo, tmp_path)
    assert (tmp_path / "anynet_file").read_text() == "mine"
    assert not (tmp_path / "booksim_config").exists()
    write_booksim(topo, tmp_path, force=True)
    assert (tmp_path / "anynet_file").read_text() == anynet_text(topo)


def test_bad_values_write_nothing(tmp_path):
    with pytest.raises(ValueError, match="Injection rate"):
        write_booksim(make_topology("hypercube", n=2), tmp_path / "x", injection_rate=2)
    assert not (tmp_path / "x").exists()


def test_patch_adds_the_routing_function_and_traffic():
    text = patch_text()
    assert "diff --git a/src/networks/anynet.cpp" in text
    for name in ('"cubefab_table_anynet"', '"cubefab_table_file"', '"uniform_other"'):
        assert name in text


SAMPLE = """\
Class 0:
Packet latency average = 99.0 (1 samples)
Time taken is 4000 cycles
====== Overall Traffic Statistics ======
====== Traffic class 0 ======
Packet latency average = 13.3814 (1 samples)
\tminimum = 1 (1 samples)
Network latency average = 13.2 (1 samples)
Injected flit rate average = 0.100281 (1 samples)
Accepted flit rate average = 0.0999917 (1 samples)
Hops average = 2.98 (1 samples)
Total run time 0.5
"""


def test_parse_booksim_output():
    r = parse_booksim_output(SAMPLE)
    assert r == {"avg_latency": 13.3814, "network_latency": 13.2,
                 "accepted_flit_rate": 0.0999917, "injected_flit_rate": 0.100281,
                 "avg_hops": 2.98, "cycles": 4000, "seconds": 0.5, "unstable": False}


def test_parse_unstable_run():
    r = parse_booksim_output("Class 0:\nSimulation unstable, ending ...\n")
    assert r["unstable"] and r["avg_latency"] is None


def fake_booksim(tmp_path, output, status):
    script = tmp_path / "booksim"
    (tmp_path / "out.txt").write_text(output)
    script.write_text(f"#!/bin/sh\ncat {tmp_path / 'out.txt'}\nexit {status}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def test_run_booksim_reads_exit_255_as_a_finished_run(tmp_path):
    assert not run_booksim(fake_booksim(tmp_path, SAMPLE, 255), "cfg")["unstable"]


def test_run_booksim_reads_exit_0_as_unstable(tmp_path):
    text = "Simulation unstable, ending ...\nTotal run time 1\n"
    assert run_booksim(fake_booksim(tmp_path, text, 0), "cfg")["unstable"]


@pytest.mark.parametrize("output, status", [
    ("Anynet:can't open network file x\n", 255),           # BookSim's exit(-1) on errors
    ("Usage: booksim configfile...\n", 0), (SAMPLE, 1)])
def test_run_booksim_raises_on_errors(tmp_path, output, status):
    with pytest.raises(RuntimeError, match=f"status {status}"):
        run_booksim(fake_booksim(tmp_path, output, status), "cfg")


def test_export_command(cli, tmp_path):
    result = cli("export", "booksim", "dlh", "-m", 2, "-d", 1, "-o", tmp_path, "--json")
    assert result.status == 0
    doc = result.json()
    assert doc["routers"] == 16 and os.path.exists(doc["table_file"])
    assert doc["booksim"] == {"vcs": 2, "classes": 2, "vcs_per_class": 1, "depth": 4}


def test_the_export_json_names_the_router_as_every_command_does(cli, tmp_path):
    result = cli("export", "booksim", "dlh", "-m", 2, "-d", 1, "-o", tmp_path, "--vcs", 4,
                 "--json")
    assert result.status == 0, result.err
    router = RouterConfig.from_dict(DLH(2, 1), result.json()["router"])
    assert (router.vcs, router.depth, router.vcs_per_class) == (4, 4, 1)


def test_export_command_says_which_router_and_routing(cli, tmp_path):
    result = cli("export", "booksim", "metacube", "-k", 1, "-m", 2, "-o", tmp_path)
    assert result.status == 0
    assert "router modelled: cubefab's default router (of sim and sweep), 2 VCs" in result.out
    assert PATCH_NAME in result.out


@pytest.mark.parametrize("args, match", [
    (("--seed", -1), "seed"), (("--seed", 1 << 31), "seed"), (("--vcs", 0), "--vcs"),
    (("--depth", 0), "depth"), (("--algorithm", "paper"), "reads src"),
    (("--rate", 1.5), "--rate"), (("--routing", "xy"), "routing")])
def test_export_command_bad_input(cli, tmp_path, args, match):
    bad = cli("export", "booksim", "metacube", "-k", 1, "-m", 2, "-o", tmp_path / "o", *args)
    assert bad.status == 2 and bad.err.startswith("error:") and match in bad.err
    assert not (tmp_path / "o").exists()


def test_export_command_min_routing_takes_any_algorithm(cli, tmp_path):
    ok = cli("export", "booksim", "metacube", "-k", 1, "-m", 2, "-o", tmp_path,
             "--routing", "min", "--algorithm", "paper")
    assert ok.status == 0 and not (tmp_path / "cubefab_table").exists()


def test_export_command_keeps_files_without_force(cli, tmp_path):
    (tmp_path / "booksim_config").write_text("mine")
    bad = cli("export", "booksim", "hypercube", "-n", 3, "-o", tmp_path)
    assert bad.status == 2 and "--force" in bad.err
    assert (tmp_path / "booksim_config").read_text() == "mine"
    assert cli("export", "booksim", "hypercube", "-n", 3, "-o", tmp_path, "--force").status == 0
    assert (tmp_path / "booksim_config").read_text() != "mine"


BOOKSIM = os.environ.get("BOOKSIM")


@pytest.mark.skipif(not BOOKSIM, reason="set BOOKSIM to a BookSim2 binary built with "
                    "cubefab_table_routing.patch to run BookSim")
def test_booksim_routes_on_the_table_at_three_cycles_per_hop(tmp_path):
    from cubefab.sim.channel_load import channel_load_bound
    topo = make_topology("dlh", m=2, d=2)
    paths = write_booksim(topo, tmp_path)
    low = run_booksim(BOOKSIM, paths["config_file"], injection_rate=0.01,
                      sample_period=2000, warmup_periods=1)
    hops = channel_load_bound(topo, "uniform", topo.algorithms[0])["average_hops"]
    assert low["avg_hops"] == pytest.approx(hops + 1, abs=0.05)   # BookSim counts routers
    # zero-load latency: 3 cycles per router plus the injection and ejection channels
    assert low["avg_latency"] == pytest.approx(3 * (hops + 1) + 2, abs=0.3)
    high = run_booksim(BOOKSIM, paths["config_file"], injection_rate=1.0,
                       sim_type="throughput", sample_period=1000, warmup_periods=1,
                       max_samples=3)
    assert high["accepted_flit_rate"] > 0.2   # cubefab's VC classes: no deadlock


@pytest.mark.skipif(not BOOKSIM, reason="set BOOKSIM to a BookSim2 binary built with "
                    "cubefab_table_routing.patch to run BookSim")
def test_booksim_rejects_a_table_in_cubefab_port_order(tmp_path):
    """BookSim's anynet ports ascend with neighbour id; 1 + cubefab port is wrong for
    DLH, and the patch's load-time walk check says so."""
    topo = make_topology("dlh", m=2, d=1)
    paths = write_booksim(topo, tmp_path)
    table = read_table(open(paths["table_file"]).read())[5]
    ports = next_port_table(topo)
    naive = np.where(ports < topo.degree, 2 * (1 + ports) + (table & 1), 0)
    lines = open(paths["table_file"]).read().splitlines()
    head = [l for l in lines if l.startswith("#")] + [l for l in lines if not l.startswith("#")][:2]
    with open(paths["table_file"], "w") as f:
        f.write("\n".join(head + [" ".join(map(str, r)) for r in naive.tolist()]) + "\n")
    with pytest.raises(RuntimeError, match="status 1"):
        run_booksim(BOOKSIM, paths["config_file"], injection_rate=0.01)
