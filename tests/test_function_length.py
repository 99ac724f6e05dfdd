"""Small components: no function (or method) of the package is longer than
:data:`MAX_LINES` lines, its docstring included (issue #48: one purpose per function,
running separated from reporting)."""

import ast
import pathlib

import cubefab

PACKAGE = pathlib.Path(cubefab.__file__).parent

#: The most lines a function may span, from its ``def`` to its last line.
MAX_LINES = 80


def long_functions(package=PACKAGE, limit=MAX_LINES):
    """``(lines, path, line, name)`` of every function under ``package`` (nested ones
    too) spanning more than ``limit`` lines, longest first; ``path`` relative to the
    package's parent."""
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > limit:
                    found.append((lines, path.relative_to(package.parent).as_posix(),
                                  node.lineno, node.name))
    return sorted(found, key=lambda f: (-f[0], f[1], f[2]))


def test_no_function_is_longer_than_the_limit():
    found = long_functions()
    assert not found, (f"{len(found)} function(s) longer than {MAX_LINES} lines; split "
                       f"them into named stages:\n" + "\n".join(
                           f"  {path}:{line} {name}: {lines} lines"
                           for lines, path, line, name in found))
