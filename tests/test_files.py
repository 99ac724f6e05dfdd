"""cubefab.files: atomic writes, created parents, no user's file replaced unasked."""

import json
import os

import pytest

from cubefab import files


def manifest(directory):
    """The manifest cubefab keeps in ``directory``."""
    return json.loads((directory / files.MANIFEST).read_text())


def test_write_creates_parents_and_records(tmp_path):
    path = tmp_path / "a" / "b" / "out.txt"
    files.write_text(path, "hello\n")
    assert path.read_text() == "hello\n"
    assert manifest(path.parent)["files"]["out.txt"]["size"] == 6


def test_rerun_replaces_own_file(tmp_path):
    path = tmp_path / "out.txt"
    files.write_text(path, "one")
    files.write_text(path, "two")
    assert path.read_text() == "two"
    assert manifest(tmp_path)["files"]["out.txt"]["size"] == 3 and files.owned(path)


def test_user_file_is_refused(tmp_path):
    path = tmp_path / "mine.txt"
    path.write_text("precious")
    with pytest.raises(files.OutputRefused, match="--force"):
        files.write_text(path, "new")
    assert path.read_text() == "precious"
    assert os.listdir(tmp_path) == ["mine.txt"]       # no manifest claims it either


def test_force_replaces_user_file(tmp_path):
    path = tmp_path / "mine.txt"
    path.write_text("precious")
    files.write_text(path, "new", force=True)
    assert path.read_text() == "new"


def test_policy_sets_the_default_force(tmp_path):
    path = tmp_path / "mine.txt"
    path.write_text("precious")
    with files.policy(force=True):
        files.write_text(path, "new")
    assert path.read_text() == "new"


def test_file_changed_since_written_is_refused(tmp_path):
    path = tmp_path / "out.txt"
    files.write_text(path, "ours")
    path.write_text("edited by the user, longer")
    with pytest.raises(files.OutputRefused, match="changed since"):
        files.write_text(path, "again")
    assert path.read_text() == "edited by the user, longer"
    assert sorted(os.listdir(tmp_path)) == sorted([files.MANIFEST, "out.txt"])


def test_directory_target_is_refused(tmp_path):
    with pytest.raises(files.OutputRefused, match="names a directory; give a file name"):
        files.write_text(tmp_path, "x")
    assert os.listdir(tmp_path) == []


def test_parent_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(files.OutputRefused, match="not a directory"):
        files.write_text(tmp_path / "f" / "out.txt", "x")
    assert os.listdir(tmp_path) == ["f"] and (tmp_path / "f").read_text() == "x"


def test_empty_name_is_refused():
    with pytest.raises(files.OutputRefused, match="non-empty"):
        files.check_output("")


@pytest.mark.parametrize("error", [KeyboardInterrupt, RuntimeError])
def test_interrupted_write_leaves_nothing(tmp_path, error):
    path = tmp_path / "out.png"
    with pytest.raises(error):
        with files.output_path(path) as tmp:
            with open(tmp, "w") as f:
                f.write("half")
            raise error()
    assert os.listdir(tmp_path) == []


def test_interrupted_rewrite_keeps_the_old_file(tmp_path):
    path = tmp_path / "out.txt"
    files.write_text(path, "complete")
    with pytest.raises(KeyboardInterrupt):
        with files.open_output(path) as f:
            f.write("half")
            raise KeyboardInterrupt()
    assert path.read_text() == "complete"
    assert sorted(os.listdir(tmp_path)) == sorted([files.MANIFEST, "out.txt"])


def test_output_path_keeps_the_suffix(tmp_path):
    with files.output_path(tmp_path / "plot.svg") as tmp:
        assert tmp.endswith(".svg") and os.path.dirname(tmp) == str(tmp_path)
        open(tmp, "w").close()
    assert (tmp_path / "plot.svg").exists()


def test_claim_creates_a_directory_marked_as_cubefabs(tmp_path):
    work = tmp_path / "work"
    assert files.claim_directory(work) == str(work)
    assert os.listdir(work) == [files.MANIFEST]
    assert manifest(work) == {"files": {}, "workdir": True}


def test_claim_of_its_own_directory_again_keeps_the_tools_files(tmp_path):
    work = tmp_path / "work"
    files.claim_directory(work)
    (work / "tool.log").write_text("written by a tool")
    assert files.owned(work / "tool.log")     # a claimed directory's files are cubefab's
    assert files.claim_directory(work) == str(work)       # a rerun into its directory
    assert (work / "tool.log").read_text() == "written by a tool"
    assert manifest(work) == {"files": {}, "workdir": True}


def test_claim_refuses_a_directory_of_user_files(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(files.OutputRefused, match="notes.txt"):
        files.claim_directory(tmp_path)
    assert os.listdir(tmp_path) == ["notes.txt"]     # not claimed: no manifest


def test_claim_with_force_takes_a_directory_of_user_files(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    files.claim_directory(tmp_path, force=True)
    assert manifest(tmp_path)["workdir"] is True
    assert (tmp_path / "notes.txt").read_text() == "mine"    # claimed, not emptied


def test_claim_refuses_a_file(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(files.OutputRefused, match="not a directory"):
        files.claim_directory(tmp_path / "f")
    assert os.listdir(tmp_path) == ["f"] and (tmp_path / "f").read_text() == "x"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_read_only_directory_is_refused(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        with pytest.raises(files.OutputRefused, match="not writable"):
            files.check_output(ro / "out.txt")
    finally:
        ro.chmod(0o755)
    assert os.listdir(ro) == []
