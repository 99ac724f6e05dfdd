"""BookSim2 export: the anynet file describes exactly the topology's links."""

import os

import pytest

from cubefab.sim.booksim import (anynet_text, booksim_config, parse_booksim_output,
                                 write_booksim)
from cubefab.topology.catalog import make_topology


def parse_anynet(text):
    """Read an anynet file the way BookSim's AnyNet::readFile does (router lines only)."""
    attached, links = {}, set()
    for line in text.splitlines():
        words = line.split()
        assert words[0] == "router"
        head = int(words[1])
        for kind, ident in zip(words[2::2], words[3::2]):
            if kind == "node":
                attached[int(ident)] = head
            else:
                assert kind == "router"
                links.add((head, int(ident)))
                links.add((int(ident), head))
    return attached, links


@pytest.mark.parametrize("family, params", [
    ("hypercube", {"n": 3}), ("metacube", {"k": 1, "m": 2}), ("dlh", {"m": 3, "d": 1})])
def test_anynet_links_are_the_topology_links(family, params):
    topo = make_topology(family, **params)
    attached, links = parse_anynet(anynet_text(topo))
    assert attached == {i: i for i in range(topo.num_nodes)}
    index = topo.index_array(topo.edges())
    expected = {(int(u), int(v)) for u, v in index} | {(int(v), int(u)) for u, v in index}
    assert links == expected


def test_router_lines_list_neighbours_in_port_order():
    topo = make_topology("dlh", m=2, d=1)
    lines = anynet_text(topo).splitlines()
    a = int(topo.nodes()[5])
    routers = [int(w) for w in lines[5].split()[5::2]]
    assert routers == [topo.index(b) for b in topo.neighbors(a)]


def test_write_booksim_files(tmp_path):
    topo = make_topology("metacube", k=1, m=1)
    paths = write_booksim(topo, tmp_path / "out", injection_rate=0.25, packet_size=4)
    config = open(paths["config_file"]).read()
    assert "topology = anynet;" in config
    assert "routing_function = min;" in config
    assert f"network_file = {os.path.abspath(paths['network_file'])};" in config
    assert "injection_rate = 0.25;" in config and "packet_size = 4;" in config
    nodes = open(paths["nodes_file"]).read().splitlines()[1:]
    assert nodes == [f"{i} {i}" for i in range(8)]


def test_dlh_node_map_gives_addresses():
    topo = make_topology("dlh", m=2, d=1)
    text = booksim_config(topo)
    assert "traffic = uniform;" in text
    with pytest.raises(ValueError, match="only uniform"):
        booksim_config(topo, traffic="bitcomp")


def test_bad_config_values_and_nothing_written(tmp_path):
    topo = make_topology("hypercube", n=2)
    with pytest.raises(ValueError, match="Injection rate"):
        write_booksim(topo, tmp_path / "x", injection_rate=2)
    assert not (tmp_path / "x").exists()
    with pytest.raises(ValueError, match="Number of VCs"):
        booksim_config(topo, num_vcs=0)


SAMPLE = """\
Class 0:
Packet latency average = 99.0 (1 samples)
====== Overall Traffic Statistics ======
====== Traffic class 0 ======
Packet latency average = 13.3814 (1 samples)
\tminimum = 1 (1 samples)
Injected flit rate average = 0.100281 (1 samples)
Accepted flit rate average = 0.0999917 (1 samples)
Hops average = 2.98 (1 samples)
Total run time 0.312
"""


def test_parse_booksim_output():
    r = parse_booksim_output(SAMPLE)
    assert r == {"avg_latency": 13.3814, "accepted_flit_rate": 0.0999917,
                 "injected_flit_rate": 0.100281, "avg_hops": 2.98, "unstable": False}


def test_parse_unstable_run():
    r = parse_booksim_output("Class 0:\nSimulation unstable, ending ...\n")
    assert r["unstable"] and r["avg_latency"] is None


def test_export_command(cli, tmp_path):
    result = cli("export", "booksim", "dlh", "-m", 2, "-d", 1, "-o", tmp_path, "--json")
    assert result.status == 0
    doc = result.json()
    assert doc["routers"] == 16 and os.path.exists(doc["network_file"])
    bad = cli("export", "booksim", "hypercube", "-n", 3, "-o", tmp_path, "--vcs", 0)
    assert bad.status == 2 and bad.err.startswith("error:")
