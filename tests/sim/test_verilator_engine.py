"""The Verilator engine runs a design exactly like Amaranth's simulator."""

import os

import pytest
from amaranth.hdl import Cat, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from cubefab.tools.verilator import VerilatorModel
from tests.helpers import refused, run_clocked
from tests.sim.engine_helpers import needs_verilator


class Counters(wiring.Component):
    """An LFSR, a counter of ``step`` per cycle, a count of LFSR values below ``limit``."""

    step: In(4)
    limit: In(16)
    count: Out(40)
    lfsr: Out(16)
    low: Out(64)

    def elaborate(self, platform):
        m = Module()
        state = Signal(16, init=0xACE1)
        m.d.sync += state.eq(Cat(state[1:], state[0] ^ state[2] ^ state[3] ^ state[5]))
        m.d.sync += self.count.eq(self.count + self.step)
        with m.If(state < self.limit):
            m.d.sync += self.low.eq(self.low + 1)
        m.d.comb += self.lfsr.eq(state)
        return m


def amaranth_counters(component, cycles, change_at):
    values = {}

    async def bench(ctx):
        ctx.set(component.step, 1)
        ctx.set(component.limit, 0x4000)
        await ctx.tick().repeat(change_at)
        ctx.set(component.step, 3)
        await ctx.tick().repeat(cycles - change_at)
        for name in ("count", "lfsr", "low"):
            values[name] = ctx.get(getattr(component, name))

    run_clocked(component, bench)
    return values


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """A build cache of the test's own, empty: not even Verilator's runtime objects."""
    monkeypatch.setenv("CUBEFAB_CACHE", str(tmp_path))
    return tmp_path


@pytest.fixture
def cache(fresh_cache, verilator_cache):
    """A build cache of the test's own, but for the run's Verilator runtime objects
    (linked in: the first build of the run compiles them, about half of a small
    design's build, and leaves them for the others)."""
    runtime = verilator_cache / "verilator-runtime"
    runtime.mkdir(exist_ok=True)
    (fresh_cache / "verilator-runtime").symlink_to(runtime, target_is_directory=True)
    return fresh_cache


@needs_verilator
def test_verilator_equals_amaranth_and_caches(cache):
    model = VerilatorModel(Counters, {"design": "counters"})
    assert not model.cached
    reports = []
    result = model.run(3000, inputs={"step": 1, "limit": 0x4000}, schedule=[(1500, {"step": 3})],
                       report_every=1000, report_at=[1234],
                       progress=lambda c, v: reports.append((c, v)))
    assert result == amaranth_counters(Counters(), 3000, 1500)
    assert result["count"] == 1500 + 3 * 1500
    assert [c for c, _ in reports] == [1000, 1234, 2000]
    assert reports[0][1]["count"] == 1000
    again = VerilatorModel(lambda: pytest.fail("a cached build must not elaborate"),
                           {"design": "counters"})
    assert again.cached and again.key == model.key
    assert again.run(10, inputs={"step": 2})["count"] == 20
    with pytest.raises(ValueError, match="input must be one of step, limit"):
        again.run(10, inputs={"stride": 2})
    with pytest.raises(ValueError, match="'created' and 'delivered'"):
        again.run(10, stop_when_drained=5)


@pytest.mark.slow
@needs_verilator
def test_the_runtime_library_is_compiled_once(fresh_cache, monkeypatch):
    """The first build leaves Verilator's runtime objects in the cache; a build of
    another design takes them (make then compiles only the design) and gives the same
    results as one that compiled them itself."""
    from cubefab.tools import verilator as verilator_engine
    placed = []
    place = verilator_engine.RuntimeObjects.place
    monkeypatch.setattr(verilator_engine.RuntimeObjects, "place",
                        lambda self, obj: placed.append(place(self, obj)) or placed[-1])
    first = VerilatorModel(Counters, {"design": "first"})
    second = VerilatorModel(Counters, {"design": "second"})
    results = [m.run(100, inputs={"step": 1, "limit": 0x4000}, schedule=[(50, {"step": 3})])
               for m in (first, second)]
    assert placed == [False, True]
    kept = os.listdir(os.path.join(fresh_cache, "verilator-runtime"))
    assert len(kept) == 1
    assert {"verilated.o", "verilated_threads.o"} <= set(
        os.listdir(os.path.join(fresh_cache, "verilator-runtime", kept[0])))
    assert results[0] == results[1] == amaranth_counters(Counters(), 100, 50)


def test_configuration_changes_the_key(cache):
    assert VerilatorModel(Counters, {"a": 1}).key != VerilatorModel(Counters, {"a": 2}).key


def test_the_model_decisions_are_part_of_the_key(cache, tmp_path, monkeypatch):
    """A build compiles the model's decisions (route tables, offered ports): the
    topology package's source is part of the key, as the components' is."""
    from cubefab.tools import verilator as verilator_engine
    files = dict(verilator_engine.hardware_source_files())
    assert "topology/adaptive.py" in files and "hdl/router/component.py" in files
    copy = tmp_path / "adaptive.py"
    copy.write_text("OFFERED = 1\n")
    monkeypatch.setattr(verilator_engine, "hardware_source_files",
                        lambda: [("topology/adaptive.py", str(copy))])
    key = VerilatorModel(Counters, {"a": 1}).key
    copy.write_text("OFFERED = 2\n")
    assert VerilatorModel(Counters, {"a": 1}).key != key


class TooWide(wiring.Component):
    b: Out(65)

    def elaborate(self, platform):
        return Module()


@needs_verilator
@pytest.mark.parametrize("design, message", [(TooWide, "1 to 64 bits wide")])
def test_refuses_designs_it_cannot_drive(cache, design, message):
    model = VerilatorModel(design, {"bad": design.__name__})
    with refused(ValueError, match=message):     # (the factory's design is never used)
        model.build()
    # nothing cached, no build directory left behind (only the build's lock file)
    assert not model.cached and not os.path.exists(model.directory)
    assert [n for n in os.listdir(cache / "verilator") if not n.endswith(".lock")] == []


def test_bad_parameters(cache):
    with pytest.raises(TypeError, match="callable"):
        VerilatorModel(3, {})
    with pytest.raises(TypeError, match="JSON"):
        VerilatorModel(Counters, {"x": object()})
    with pytest.raises(ValueError, match="Optimisation flag"):
        VerilatorModel(Counters, {}, opt="-O9")
    with pytest.raises(ValueError, match="Cycles"):
        VerilatorModel(Counters, {}).run(-1)
