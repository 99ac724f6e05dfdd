"""Sphinx configuration: the guides (Markdown, through myst-parser) and an API reference
generated from the numpydoc docstrings (autodoc + napoleon).

Build with ``python -m sphinx -W -b html docs build/docs``.
"""

import importlib
import os
import pkgutil
import re
import sys

from docutils.parsers.rst import Directive
from sphinx.util import logging


sys.path.insert(0, os.path.abspath(".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cubefab  # noqa: E402  (after the path is set)
import refresh_figures  # noqa: E402


project = "cubefab"
author = "the cubefab authors"
release = version = "0.1.0"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

# Markdown: `#section` links between the guides, and $...$ maths
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath"]

# numpydoc docstrings; "Members" lists a component's ports (Amaranth's convention)
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_custom_sections = [("Members", "params_style"),
                            ("Members (from the sender's side)", "params_style")]
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "show-inheritance": True}

html_theme = "alabaster"
html_title = "cubefab"

logger = logging.getLogger(__name__)

#: The benchmarks' saved results (benchmarks/results/*.json), whose figures the guides
#: quote.
SAVED_RESULTS = refresh_figures.load_results()


#: numpydoc sections whose entries are ``name : type`` lines at the left margin.
FIELD_SECTIONS = ("Parameters", "Other Parameters", "Attributes", "Members", "Returns",
                  "Yields", "Raises", "Warns", "Keyword Arguments")
_ENTRY = re.compile(r"^[A-Za-z_*][\w.*]*(\s*,\s*[A-Za-z_*][\w.*]*)*(\s+:.*)?$")


def prose_before_sections(app, what, name, obj, options, lines):
    """Move the paragraphs that follow a field section (Parameters, Members, ...) at
    the left margin, the project's way of adding prose after the parameters, in
    front of the first section: napoleon would read them as more parameters."""
    def is_header(i):
        return (i + 1 < len(lines) and lines[i].strip() and not lines[i][0].isspace()
                and set(lines[i + 1].strip()) == {"-"}
                and len(lines[i + 1].strip()) >= len(lines[i].strip()))
    first = next((i for i in range(len(lines)) if is_header(i)), None)
    if first is None:
        return
    head, body, moved = lines[:first], [], []
    section, i = None, first
    while i < len(lines):
        if is_header(i):
            section = lines[i].strip().split(" (")[0]
            body += lines[i:i + 2]
            i += 2
            continue
        line = lines[i]
        starts_prose = (section in FIELD_SECTIONS and line.strip() and not line[0].isspace()
                        and i > 0 and not lines[i - 1].strip() and not _ENTRY.match(line))
        if starts_prose:
            # the paragraphs up to the next section header are prose
            while i < len(lines) and not is_header(i):
                moved.append(lines[i])
                i += 1
            section = None
            continue
        body.append(line)
        i += 1
    if moved:
        while moved and not moved[-1].strip():
            moved.pop()
        lines[:] = head + moved + [""] + body


class Submodules(Directive):
    """``.. submodules:: PACKAGE``: one section per module of PACKAGE (subpackages
    excluded), each documented with ``automodule``, so that a new module is in the API
    reference without editing the docs."""

    required_arguments = 1

    def run(self):
        package = importlib.import_module(self.arguments[0])
        lines = []
        for info in sorted(pkgutil.iter_modules(package.__path__, package.__name__ + "."),
                           key=lambda info: info.name):
            if info.ispkg or info.name.endswith(".__main__"):
                continue
            lines += [f"``{info.name}``", "-" * (len(info.name) + 4), "",
                      f".. automodule:: {info.name}", ""]
        self.state_machine.insert_input(lines, f"<submodules of {package.__name__}>")
        return []


def saved_figures(app, docname, source):
    """Every marked figure of a guide from its benchmark's saved result, markers
    dropped (docs/refresh_figures.py; a marker naming no saved value is a warning)."""
    text, problems = refresh_figures.refresh_text(source[0], SAVED_RESULTS, strip=True)
    for problem in problems:
        logger.warning(f"{docname}: {problem}")
    source[0] = text


def setup(app):
    app.add_directive("submodules", Submodules)
    app.connect("source-read", saved_figures)
    # before napoleon (priority 500) turns the sections into fields
    app.connect("autodoc-process-docstring", prose_before_sections, priority=100)
