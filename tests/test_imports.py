"""The package's import graph: no circles, and data flows one way (topology -> hdl ->
tools -> sim/build -> commands + cli; optical uses topology only; sim and build never
import each other; figures draw documents, with plots' file rules only)."""

import ast
import pathlib

import networkx as nx
import pytest

import cubefab

PACKAGE = pathlib.Path(cubefab.__file__).parent

#: Subpackage -> the subpackages its modules may import (besides their own).
ALLOWED = {
    "topology": set(),
    "optical": {"topology"},
    "hdl": {"topology"},
    "tools": {"topology", "hdl"},
    "sim": {"topology", "hdl", "tools"},
    "build": {"topology", "hdl", "tools"},
    "plots": {"topology"},
    "figures": {"plots"},
}

#: Modules every layer may use: the package root, Dask clients, progress reports, the
#: memory limit, output files, what made a generated file.
UTILITIES = {"cubefab", "cluster", "progress", "memory", "files", "provenance"}

#: Imports of the command line: nothing else may import them.
COMMAND_LINE = {"commands", "cli", "__main__"}

def _modules():
    """{module name: (path, is a package)} of every module of cubefab."""
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ("cubefab",) + path.relative_to(PACKAGE).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        modules[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return modules


def _imports(name, path, is_package, modules):
    """The cubefab modules that module ``name`` imports, anywhere in it (imports
    inside functions too: a late import does not break a circle)."""
    here = name.split(".") if is_package else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[:len(here) - node.level + 1] + ([node.module] if node.module else [])
                module = ".".join(base)
            else:
                module = node.module
            for alias in node.names:   # `from package import module` imports the module
                found.add(f"{module}.{alias.name}" if f"{module}.{alias.name}" in modules
                          else module)
    return {m for m in found if m in modules and m != name}


@pytest.fixture(scope="module")
def graph():
    modules = _modules()
    g = nx.DiGraph()
    g.add_nodes_from(modules)
    for name, (path, is_package) in modules.items():
        g.add_edges_from((name, m) for m in _imports(name, path, is_package, modules))
    return g


def _layer(module):
    return module.split(".")[1] if "." in module else module


def test_the_graph_sees_the_imports(graph):
    # a parser that found nothing would pass every test below
    assert graph.has_edge("cubefab.hdl.modes", "cubefab.topology.turns")
    assert graph.has_edge("cubefab.hdl.router.route_stage", "cubefab.hdl.route")
    assert graph.has_edge("cubefab.commands.verilog", "cubefab.commands.router_targets")
    assert graph.number_of_edges() > 200


def test_no_import_circles(graph):
    assert list(nx.simple_cycles(graph)) == []


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_a_lower_layer_imports_nothing_above_it(graph, layer):
    wrong = sorted((a, b) for a, b in graph.edges
                   if _layer(a) == layer
                   and _layer(b) not in ALLOWED[layer] | {layer} | UTILITIES)
    assert wrong == []


def test_every_module_belongs_to_a_layer(graph):
    """A new subpackage or root module gets its rule here before it is used."""
    layers = set(ALLOWED) | UTILITIES | COMMAND_LINE
    assert sorted({_layer(m) for m in graph.nodes} - layers) == []


@pytest.mark.parametrize("utility", sorted(UTILITIES - {"cubefab"}))
def test_a_utility_imports_only_utilities(graph, utility):
    wrong = sorted((a, b) for a, b in graph.edges
                   if _layer(a) == utility and _layer(b) not in UTILITIES)
    assert wrong == []


def test_library_code_never_imports_the_command_line(graph):
    wrong = sorted((a, b) for a, b in graph.edges
                   if _layer(a) not in COMMAND_LINE and _layer(b) in COMMAND_LINE)
    assert wrong == []
