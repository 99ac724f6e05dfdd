"""The documentation: every guide is in the index and every relative link resolves (fast),
and the whole Sphinx build passes with warnings as errors: the guides (Markdown) and the
API reference from the docstrings (slow: about 20 s)."""

import pathlib
import re
import subprocess
import sys

import pytest


ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

#: A Markdown link or image to a relative path: ``[text](path)`` or ``[text](path#part)``.
LINK = re.compile(r"\]\((?!https?:|mailto:|#)([^)#\s]+)(?:#[^)]*)?\)")


def prose(page):
    """A Markdown page without its code: fenced blocks and inline code spans."""
    text = re.sub(r"^```.*?^```", "", page.read_text(), flags=re.MULTILINE | re.DOTALL)
    return re.sub(r"`[^`\n]*`", "", text)


def markdown_files():
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


@pytest.mark.parametrize("page", markdown_files(), ids=lambda p: p.name)
def test_relative_links_resolve(page):
    missing = [target for target in LINK.findall(prose(page))
               if not (page.parent / target).exists()]
    assert not missing, f"{page.name} links to missing files: {missing}"


def test_every_guide_is_in_the_index():
    index = (DOCS / "index.md").read_text()
    listed = set(re.findall(r"^([\w./-]+)$", index, re.MULTILINE))
    guides = {p.stem for p in DOCS.glob("*.md") if p.stem != "index"}
    assert guides - listed == set()
    assert {p for p in listed if p.startswith("api/")} == \
        {f"api/{p.stem}" for p in (DOCS / "api").glob("*.rst")}


@pytest.mark.slow
def test_docs_build_without_warnings(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-E", "-b", "html",
         "-d", str(tmp_path / "doctrees"), str(DOCS), str(tmp_path / "html")],
        capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    html = tmp_path / "html"
    assert (html / "index.html").exists()
    assert (html / "conventions.html").exists()
    # the API reference really holds the docstrings, and prose after a Parameters
    # section stays prose (conf.prose_before_sections), not a parameter
    api = (html / "api" / "cubefab.topology.html").read_text()
    assert 'id="cubefab.topology.metacube.Metacube"' in api
    assert "<strong>An address has" not in api
