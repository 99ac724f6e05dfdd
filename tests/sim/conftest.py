"""Fixtures of the simulation tests."""

import pytest


@pytest.fixture(scope="session")
def verilator_cache(tmp_path_factory):
    """One Verilator build cache for the whole session (CUBEFAB_CACHE), so tests that
    run the same hardware configuration share one (slow) build."""
    mp = pytest.MonkeyPatch()
    path = tmp_path_factory.mktemp("cubefab-cache")
    mp.setenv("CUBEFAB_CACHE", str(path))
    yield path
    mp.undo()
