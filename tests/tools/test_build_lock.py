"""Processes that need the same Verilator model wait for one build of it."""

import json
import os
import threading

from cubefab.tools.verilator import VerilatorModel, build_lock


def test_a_build_waits_for_the_build_in_progress(tmp_path, monkeypatch):
    monkeypatch.setenv("CUBEFAB_CACHE", str(tmp_path))
    built = []
    model = VerilatorModel(lambda: built.append("factory called"), {"test": "build lock"})
    finished = threading.Event()
    waiter = threading.Thread(target=lambda: (model.build(), finished.set()))
    with build_lock(model.directory):       # another process is building this model
        waiter.start()
        assert not finished.wait(0.5)       # the second build waits ...
        os.makedirs(model.directory)        # ... until the first one is done
        with open(os.path.join(model.directory, "ports.json"), "w") as f:
            json.dump({"inputs": [], "counters": ["cycles"]}, f)
    waiter.join(10)
    assert finished.is_set() and built == []    # and then uses it: no second build
    assert model.counters == ["cycles"]
