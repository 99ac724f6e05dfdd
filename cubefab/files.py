"""Safe output files: written atomically, parents created, nobody's data replaced.

Every file cubefab writes goes through this module:

- it is written to a temporary file in the same directory and renamed over the
  target only when complete, so an error or Ctrl-C never leaves a half-written file;
- missing parent directories are created; a target that is a directory, or a
  directory that cannot be created or written, raises :class:`OutputRefused`;
- a target that is a symbolic link is treated as a file of its own: refused unless
  cubefab wrote that name or ``force`` is set, and then the link is replaced, never the
  file it points to;
- an existing file is replaced only when cubefab wrote it itself (it is listed, with
  its size and modification time, in the directory's hidden manifest
  :data:`MANIFEST`) or when ``force`` is set: rerunning a command into its own
  earlier output keeps working, a user's file is never overwritten unasked.

A directory that tools fill with files of their own (yosys and nextpnr work
directories, board builds) is claimed whole with :func:`claim_directory`.

``force`` defaults to the value set by :func:`policy` (the command line sets it from
``--force`` once), so library code that writes a file needs no extra parameter.

Examples
--------
>>> with open_output("build/table.txt") as f:        # doctest: +SKIP
...     f.write("hello\\n")
>>> with output_path("build/plot.png") as tmp:        # doctest: +SKIP
...     figure.savefig(tmp)                           # any writer that takes a path
"""

import contextlib
import contextvars
import json
import os
import tempfile


__all__ = ["OutputRefused", "MANIFEST", "policy", "check_output", "output_path",
           "open_output", "write_text", "check_directory", "claim_directory",
           "owned"]

#: Name of the hidden manifest of what cubefab wrote, one per output directory.
MANIFEST = ".cubefab-outputs.json"

_FORCE = contextvars.ContextVar("cubefab_force", default=False)


class OutputRefused(Exception):
    """An output path cannot or may not be written (the command line prints it as one
    ``error:`` line, exit status 2)."""


@contextlib.contextmanager
def policy(force=False):
    """Within the block, ``force=None`` means ``force`` (the ``--force`` option)."""
    token = _FORCE.set(bool(force))
    try:
        yield
    finally:
        _FORCE.reset(token)


def _force(force):
    return _FORCE.get() if force is None else bool(force)


def _manifest_path(directory):
    return os.path.join(directory, MANIFEST)


def _read_manifest(directory):
    try:
        with open(_manifest_path(directory)) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {"files": {}, "workdir": False}
    if not isinstance(data, dict) or not isinstance(data.get("files"), dict):
        return {"files": {}, "workdir": False}
    data.setdefault("workdir", False)
    return data


def _write_manifest(directory, data):
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=MANIFEST + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=1, sort_keys=True)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, _manifest_path(directory))
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _stamp(path):
    st = os.stat(path)
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _record(path):
    directory, name = os.path.split(os.path.abspath(path))
    data = _read_manifest(directory)
    data["files"][name] = _stamp(path)
    _write_manifest(directory, data)


def owned(path):
    """Whether ``path`` is a file cubefab wrote and nobody changed since (or lies in
    a directory cubefab claimed whole)."""
    directory, name = os.path.split(os.path.abspath(path))
    data = _read_manifest(directory)
    if data["workdir"]:
        return True
    entry = data["files"].get(name)
    if not isinstance(entry, dict):
        return False
    try:
        return _stamp(path) == {"size": entry.get("size"), "mtime_ns": entry.get("mtime_ns")}
    except OSError:
        return False


def _describe(exc):
    return exc.strerror or str(exc)


def _make_directory(directory, what):
    if os.path.isdir(directory):
        if not os.access(directory, os.W_OK | os.X_OK):
            raise OutputRefused(f"cannot write {what}: directory {directory} is not writable")
        return
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as exc:
        raise OutputRefused(f"cannot create the directory of {what}: {directory}: "
                            f"{_describe(exc)}") from None


def _absolute(path, what):
    """``path`` as an absolute path; OutputRefused when empty or with a NUL."""
    if not isinstance(path, (str, os.PathLike)) or not str(path).strip():
        raise OutputRefused(f"{what} must be a non-empty path, not {path!r}")
    path = os.path.abspath(os.fspath(path))
    if "\0" in path:
        raise OutputRefused(f"{what} must not contain NUL: {path!r}")
    return path


def _writable_ancestor(directory, target):
    """The nearest existing ancestor of ``directory`` (itself included), which must be
    a writable directory for ``target`` to be written."""
    parent = directory
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        raise OutputRefused(f"cannot write {target}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputRefused(f"cannot write {target}: directory {parent} is not writable")
    return parent


def check_output(path, force=None, create=False):
    """Check, before any work, that ``path`` may be written as a file: not empty, not a
    directory, its directory creatable and writable, and either absent, written by
    cubefab, or ``force``. With ``create`` the parent directories are made now.
    Returns the absolute path; raises :class:`OutputRefused`."""
    given = os.fspath(path) if isinstance(path, (str, os.PathLike)) else path
    path = _absolute(path, "output file name")
    if os.path.isdir(path) or (isinstance(given, str) and given.endswith(os.sep)):
        raise OutputRefused(f"{given} names a directory; give a file name")
    directory = os.path.dirname(path)
    _check_length(given, path, _writable_ancestor(directory, path))
    if os.path.lexists(path) and not _force(force) and not owned(path):
        raise OutputRefused(f"{path} exists and was not written by cubefab (or was "
                            f"changed since); give --force to replace it")
    if create:
        _make_directory(directory, path)
    return path


def _limit(directory, name, default):
    try:
        return os.pathconf(directory, name)
    except (OSError, ValueError):
        return default


def _check_length(given, path, ancestor):
    """OutputRefused when a name in ``path``, or the whole, is longer than the file
    system takes (ENAMETOOLONG), before any work."""
    shown = given if len(str(given)) <= 80 else f"{str(given)[:60]}..."
    longest = _limit(ancestor, "PC_NAME_MAX", 255)
    for name in path.split(os.sep):
        if len(os.fsencode(name)) > longest:
            raise OutputRefused(f"cannot write {shown}: a name of "
                                f"{len(os.fsencode(name))} bytes; the file system takes "
                                f"at most {longest}")
    whole = _limit(ancestor, "PC_PATH_MAX", 4096)
    if len(os.fsencode(path)) >= whole:
        raise OutputRefused(f"cannot write {shown}: a path of {len(os.fsencode(path))} "
                            f"bytes; the file system takes fewer than {whole}")


def _temporary_prefix(name):
    """The prefix of the temporary file beside ``name``: the name itself, shortened so
    that the temporary name is never longer than a name the file system takes."""
    return f".{name}." if len(os.fsencode(name)) <= 64 else f".{name[:32]}~."


def _umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def output_path(path, force=None):
    """Yield a temporary path beside ``path`` (same suffix) for any writer that takes a
    file name; when the block ends without an exception the file is renamed to
    ``path`` and recorded as written by cubefab, otherwise it is removed."""
    target = check_output(path, force, create=True)
    directory, name = os.path.split(target)
    suffix = os.path.splitext(name)[1]
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=_temporary_prefix(name),
                                   suffix=f".tmp{suffix[:16]}")
    except OSError as exc:
        raise OutputRefused(f"cannot write {target}: {_describe(exc)}") from None
    os.close(fd)
    try:
        yield tmp
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _record(target)


@contextlib.contextmanager
def open_output(path, force=None, binary=False):
    """Open ``path`` for writing (text, or bytes with ``binary``), atomically: see
    :func:`output_path`."""
    with output_path(path, force) as tmp:
        with open(tmp, "wb" if binary else "w") as f:
            yield f


def write_text(path, text, force=None):
    """Write ``text`` to ``path`` atomically (see :func:`output_path`); returns ``path``."""
    with open_output(path, force) as f:
        f.write(text)
    return path


def check_directory(path, force=None):
    """Check, before any work, that ``path`` may become a work directory that
    cubefab owns whole (see :func:`claim_directory`); nothing is created. Returns
    the absolute path; raises :class:`OutputRefused`."""
    directory = _absolute(path, "directory name")
    if os.path.lexists(directory) and not os.path.isdir(directory):
        raise OutputRefused(f"{directory} exists and is not a directory")
    parent = _writable_ancestor(directory, directory)
    if parent == directory and not _read_manifest(directory)["workdir"] \
            and not _force(force):
        foreign = [n for n in os.listdir(directory)
                   if n != MANIFEST and not owned(os.path.join(directory, n))]
        if foreign:
            raise OutputRefused(
                f"{directory} already holds files cubefab did not write "
                f"({', '.join(sorted(foreign)[:3])}{', ...' if len(foreign) > 3 else ''}); "
                f"give --force to use it anyway, or another directory")
    return directory


def claim_directory(path, force=None):
    """Make ``path`` a work directory that cubefab owns whole (tools write what they
    like in it): allowed when it is absent, empty, already claimed, or ``force``.
    Created if missing; returns the absolute path; raises :class:`OutputRefused`."""
    directory = check_directory(path, force)
    _make_directory(directory, directory)
    data = _read_manifest(directory)
    if not data["workdir"]:
        data["workdir"] = True
        try:
            _write_manifest(directory, data)
        except OSError as exc:
            raise OutputRefused(f"cannot write into {directory}: {_describe(exc)}") from None
    return directory
