"""The documentation builds with Sphinx, warnings as errors: the guides (Markdown) and
the API reference from the docstrings."""

import pathlib
import subprocess
import sys


DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"


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
