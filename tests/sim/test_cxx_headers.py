"""The C++ headers of the Verilator mains (package data ``cubefab/sim/cxx``) include
one another without a cycle: no two depend on each other."""

import pathlib
import re

import cubefab.sim


CXX = pathlib.Path(cubefab.sim.__file__).parent / "cxx"


def _includes(path):
    """The package headers ``path`` includes (``#include "name.h"`` of a file in
    ``cxx``)."""
    names = re.findall(r'^#include "([^"]+)"', path.read_text(), re.MULTILINE)
    return [name for name in names if (CXX / name).exists()]


def _cycle(graph):
    """A cycle of ``graph`` (name -> names) as a list of names, or None."""
    done, path = set(), []

    def visit(name):
        if name in path:
            return path[path.index(name):] + [name]
        if name in done:
            return None
        path.append(name)
        for other in graph[name]:
            found = visit(other)
            if found:
                return found
        path.pop()
        done.add(name)
        return None

    for name in sorted(graph):
        found = visit(name)
        if found:
            return found
    return None


def test_no_two_headers_depend_on_each_other():
    graph = {p.name: _includes(p) for p in CXX.glob("*.h")}
    cycle = _cycle(graph)
    assert cycle is None, "cxx headers include each other: " + " -> ".join(cycle)


def _declared(path):
    """The functions ``path`` declares without defining (``static ... name(...);``)."""
    return set(re.findall(r"^static [^=\n{(]*?\b(\w+)\([^)]*\);", path.read_text(),
                          re.MULTILINE))


def test_no_header_declares_a_function_another_one_defines():
    # (a dependency the includes do not show: the header calls into the other)
    headers = list(CXX.glob("*.h"))
    crossing = sorted((p.name, name, q.name) for p in headers for name in _declared(p)
                      for q in headers if q != p
                      and re.search(rf"\b{name}\([^)]*\)\s*{{", q.read_text()))
    assert crossing == [], f"headers declare functions other headers define: {crossing}"
