"""cubefab.files: atomic writes, created parents, no user's file replaced unasked."""

import json
import os

import pytest

from cubefab import files


def test_write_creates_parents_and_records(tmp_path):
    path = tmp_path / "a" / "b" / "out.txt"
    files.write_text(path, "hello\n")
    assert path.read_text() == "hello\n"
    manifest = json.loads((path.parent / files.MANIFEST).read_text())
    assert "out.txt" in manifest["files"]


def test_rerun_replaces_own_file(tmp_path):
    path = tmp_path / "out.txt"
    files.write_text(path, "one")
    files.write_text(path, "two")
    assert path.read_text() == "two"


def test_user_file_is_refused(tmp_path):
    path = tmp_path / "mine.txt"
    path.write_text("precious")
    with pytest.raises(files.OutputRefused, match="--force"):
        files.write_text(path, "new")
    assert path.read_text() == "precious"


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
    with pytest.raises(files.OutputRefused):
        files.write_text(path, "again")


def test_directory_target_is_refused(tmp_path):
    with pytest.raises(files.OutputRefused, match="is a directory"):
        files.write_text(tmp_path, "x")


def test_parent_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(files.OutputRefused, match="not a directory"):
        files.write_text(tmp_path / "f" / "out.txt", "x")


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


def test_claim_empty_then_reuse(tmp_path):
    work = tmp_path / "work"
    files.claim_directory(work)
    (work / "tool.log").write_text("written by a tool")
    files.claim_directory(work)       # a rerun into its own directory


def test_claim_refuses_a_directory_of_user_files(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(files.OutputRefused, match="notes.txt"):
        files.claim_directory(tmp_path)
    files.claim_directory(tmp_path, force=True)


def test_claim_refuses_a_file(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(files.OutputRefused, match="not a directory"):
        files.claim_directory(tmp_path / "f")


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
