"""Drift verdicts in less common cases (docs/drift.md): ``methods=`` given as names or
functions, a stub's own fix words, the surface notes in the JSON, stand-ins that are callable
objects or bound methods, provisions, and the first site that needs a name."""

from __future__ import annotations

import functools

import pytest

from deskcheck.drift_guard import guard
from deskcheck.drift_guard.verdicts import signature_misfit
from deskcheck.harness import Harness, bind, stand_in, state
from deskcheck.static._surface import NameUse, Site
from tests.drift_guard.shop import shop_harnesses as _shop_harnesses


class Prod:
    def step(self):
        return self.alpha


class OnlyStep(Harness, model=Prod, roots=["step"], register=False):
    step = bind(Prod.step)


def test_methods_may_be_named_or_given_as_functions():
    by_name = guard(OnlyStep, methods=["step"])
    by_function = guard(OnlyStep, methods=[Prod.step])
    assert by_name.roots == by_function.roots == ("step",), (
        f"methods=['step'] and methods=[Prod.step] name the same root 'step'; the verdicts' "
        f"roots are {by_name.roots} and {by_function.roots}")
    assert by_name.names("forward") == by_function.names("forward") == ["alpha"], (
        f"Prod.step reads alpha, which OnlyStep does not provide; got {by_name.names()} and "
        f"{by_function.names()}")


def test_a_stubs_forward_drift_says_to_pass_the_field_to_stub():
    from dg_shop.mixins.budget import BudgetMixin

    from deskcheck.stubs import StubSpec

    _shop_harnesses()  # puts dg_shop on the path
    spec = StubSpec(BudgetMixin, fields=["_budget_base"], register=False)
    text = guard(spec).message()
    assert "  fix: set the field: pass it to stub(...)" in text, (
        f"a stub missing a field production reads must be told to pass the field to "
        f"stub(...), not to declare it on a harness; the message is:\n{text}")


def test_the_json_of_a_verdict_carries_the_models_notes():
    verdict = guard(OnlyStep)
    data = verdict.to_json()
    assert data["surface"] == {"methods": len(verdict.surface.methods),
                               "names": len(verdict.surface.names),
                               "notes": verdict.surface.model.notes}, (
        f"the JSON surface must give the methods and names counts and the model's notes "
        f"(docs/drift.md); got {data['surface']}")


class _Helper:
    def step(self, batch):
        return batch


def test_a_callable_value_can_stand_in_for_a_property():
    production = property(lambda self: {})
    assert signature_misfit(production, dict) is None, (
        "a property's stand-in may be any plain value, a callable one (a class) included")
    assert signature_misfit(production, functools.partial(max, 1)) is None, (
        "a property's stand-in may be any plain value, a functools.partial included")


def test_a_bound_method_or_partial_stands_in_for_a_method_with_its_own_signature():
    def step(self, batch):
        return batch

    assert signature_misfit(step, _Helper().step) is None, (
        "a bound method taking (batch) can stand in for step(self, batch): its self is "
        "already bound, so none of its parameters may be dropped")
    assert signature_misfit(step, functools.partial(lambda tag, batch: batch, "t")) is None, (
        "a partial taking (batch) can stand in for step(self, batch)")
    assert signature_misfit(step, _Helper().step.__func__) is None, (
        "a plain function taking (self, batch) stands in for step(self, batch)")
    assert signature_misfit(step, functools.partial(lambda batch, extra: 0)) is not None, (
        "a partial taking (batch, extra) cannot be called like step(self, batch)")


def _site(kind: str, line: int, after_write: bool = False) -> Site:
    return Site("m.py", line, kind, "Cls.step", ("Cls.step",), after_write=after_write)


def test_the_first_need_of_a_name_is_its_first_read_before_any_write():
    use = NameUse("x", [_site("write", 1), _site("read", 2, after_write=True),
                        _site("call", 3), _site("read", 4)])
    assert use.first_need().line == 3, (
        f"x is written on line 1, read after that write on line 2, then called on line 3 "
        f"with no write before it: its first need is line 3, not {use.first_need().line}")
    only_written = NameUse("y", [_site("write", 5), _site("write", 6)])
    assert only_written.first_need().line == 5, (
        "a name only ever written has no need: its first site (line 5) stands for it")


def _paths_fixture():
    """tests/drift_guard/fixtures/pathsrc's Engine (as tests/drift_guard/test_paths.py uses)."""
    import sys
    from pathlib import Path

    pathsrc = Path(__file__).resolve().parents[1] / "drift_guard" / "fixtures" / "pathsrc"
    if str(pathsrc) not in sys.path:
        sys.path.insert(0, str(pathsrc))
    from dg_paths.engine import Engine
    from dg_paths.modes import Mode

    return Engine, Mode


def _cases():
    from types import SimpleNamespace
    from unittest.mock import MagicMock

    engine, mode = _paths_fixture()
    return engine, [
        # (stand-in, methods, keyword arguments of guard)
        (SimpleNamespace(stage_metrics=None, queue=[], mode=mode.DISAGG, pp_sink=[],
                         aborted=[], depth=0), ["abort"], {}),
        (SimpleNamespace(chunked=SimpleNamespace(rid="r"), aborted=[]), ["abort_chunked"],
         {"strict": True}),
        (SimpleNamespace(chunked=SimpleNamespace(rid="r"), aborted=[]), ["abort_chunked"],
         {"executed": {}}),
        (MagicMock(spec=["queue", "tracer"]), ["drain"], {}),
        # a function standing in for the method _release
        (SimpleNamespace(chunked=SimpleNamespace(rid="r"), aborted=[],
                         _release=lambda rid: None), ["abort_chunked"], {}),
        # a namespace of fields standing in for pool
        (SimpleNamespace(chunked=SimpleNamespace(rid="r"), aborted=[],
                         pool=SimpleNamespace(free=print)), ["abort_chunked"], {}),
    ]


def test_guard_of_a_provision_is_the_verdict_of_its_object_whatever_the_arguments():
    from deskcheck.drift_guard import provision_of

    engine, cases = _cases()
    for standin, methods, kwargs in cases:
        direct = guard(standin, model=engine, methods=methods, **kwargs).to_json()
        prov = provision_of(standin, engine, methods=methods)
        through = guard(prov, **kwargs).to_json()
        assert through == direct, (
            f"guard() of provision_of({standin!r}) with {kwargs} must give the path verdict "
            f"guard() gives the object itself; they differ:\n{through}\n!=\n{direct}")


def test_guard_of_a_provision_takes_the_model_methods_and_roots_it_is_given():
    from types import SimpleNamespace

    from deskcheck.drift_guard import provision_of

    engine, _ = _cases()
    standin = SimpleNamespace(queue=[])
    prov = provision_of(standin, engine, methods=["abort"], built_at="tests/x.py:3")
    got = guard(prov, engine, methods=["drain"])
    assert got.names("silent_skips") == ["on_drain", "tracer"], (
        f"methods=['drain'] given to guard() must replace the provision's own ['abort']: "
        f"{got.render()}")
    assert (got.subject, got.built_at) == (prov.subject, "tests/x.py:3"), (
        f"the verdict must name the provision's subject and where it was built; got "
        f"{got.subject!r} built at {got.built_at!r}")


def test_an_allowed_name_of_any_stand_in_is_noted_not_reported():
    from types import SimpleNamespace

    engine, _ = _cases()
    verdict = guard(SimpleNamespace(queue=[]), model=engine, methods=["drain"],
                    allow={"tracer": "traced elsewhere"})
    assert verdict.names("silent_skips") == ["on_drain"] and \
        "allowed tracer: traced elsewhere" in verdict.notes, (
            f"allow={{'tracer': ...}} must drop tracer from the findings and note the reason; "
            f"got {verdict.names()} with notes {verdict.notes}")


def test_methods_of_a_provision_may_be_given_as_functions():
    from types import SimpleNamespace

    from deskcheck.drift_guard import provision_of

    engine, _ = _cases()
    prov = provision_of(SimpleNamespace(queue=[]), engine, methods=["abort"])
    by_name = guard(prov, methods=["drain"]).to_json()
    by_function = guard(prov, methods=[engine.drain]).to_json()
    assert by_function == by_name, (
        f"methods=[Engine.drain] and methods=['drain'] name the same method; the verdicts "
        f"differ:\n{by_function}\n!=\n{by_name}")


class Sized:
    def step(self):
        return self.size(1)

    def size(self, n):
        return n


class TwoStandIns(Harness, model=Sized, roots=["step"], register=False):
    step = bind(Sized.step)
    _retired = stand_in(lambda self: 0, reason="production dropped it")
    size = stand_in(lambda self: 0, reason="sizes are not under test")


def test_every_stand_in_is_checked_after_one_production_no_longer_has():
    verdict = guard(TwoStandIns)
    found = {(f.direction, f.name) for f in verdict.findings}
    assert found == {("reverse", "_retired"), ("signature", "size")}, (
        f"_retired is a stand-in for a name production no longer has (reverse drift), and "
        f"size(self) cannot be called like production's size(self, n) (a signature misfit); "
        f"both must be reported, got {sorted(found)}")


class Hooked:
    def hook(self):
        return self.secret

    def reset(self):
        self.hook = None


def test_assigning_a_methods_name_does_not_enter_the_method():
    from deskcheck.static._surface import surface

    names = sorted(surface(Hooked, "reset").names)
    assert names == ["hook"], (
        f"reset() assigns self.hook and never calls it: hook's body (which reads "
        f"self.secret) is not on reset's surface; the surface is {names}")


def test_guard_of_a_provision_judges_the_model_it_is_given():
    from types import SimpleNamespace

    from deskcheck.drift_guard import provision_of

    engine, _ = _cases()

    class QuietEngine(engine):
        def drain(self):
            return self.queue

    prov = provision_of(SimpleNamespace(queue=[]), engine, methods=["drain"])
    assert not guard(prov).holds, "against Engine, drain's masked reads are silent skips"
    quiet = guard(prov, QuietEngine)
    assert quiet.holds, (
        f"guard(prov, QuietEngine) must judge QuietEngine.drain (which reads only queue, "
        f"provided), not the provision's own Engine: {quiet.render()}")


class Pair:
    def step(self):
        return self.a + self.b

    def count_up(self):
        seen = self.count
        self.count = seen + 1

    def other(self):
        return self.c


class PairHarness(Harness, model=Pair, roots=["step", "count_up"], register=False):
    step = bind(Pair.step)
    count_up = bind(Pair.count_up)
    other = bind(Pair.other)
    a = state(1)


def test_every_missing_name_is_reported_after_a_provided_one():
    verdict = guard(PairHarness)
    assert verdict.names("forward") == ["b", "count"], (
        f"step reads a (provided) then b (missing) and count_up reads count (missing): both "
        f"missing names must be reported, got {verdict.names('forward')}")


def test_a_forward_finding_lists_the_sites_that_need_the_name_not_its_writes():
    verdict = guard(PairHarness)
    count = next(f for f in verdict.findings if f.name == "count")
    kinds = [s.kind for s in count.sites]
    assert kinds == ["read"], (
        f"count_up reads self.count then writes it: the finding's sites are where it is "
        f"needed (the read), never the write; got {kinds}")


def test_methods_given_to_guard_replace_the_harnesss_roots():
    verdict = guard(PairHarness, methods=["other"])
    assert verdict.roots == ("other",) and verdict.names("forward") == ["c"], (
        f"methods=['other'] must judge Pair.other alone (it reads the missing c), not the "
        f"harness's roots step and count_up; got roots {verdict.roots}, forward "
        f"{verdict.names('forward')}")


class Limited:
    limit: int

    @property
    def room(self):
        return self.limit - 1


def test_a_stub_missing_an_annotated_field_is_forward_drift():
    from deskcheck.stubs import StubSpec

    spec = StubSpec(Limited, fields=[], roots=["room"], register=False)
    assert guard(spec).names("forward") == ["limit"], (
        f"Limited declares limit only as an annotation, and room reads it: a stub without "
        f"the field must be told it drifted; got {guard(spec).names()}")


def test_a_provision_of_a_static_model_is_judged_from_its_own_source_roots():
    from pathlib import Path
    from types import SimpleNamespace

    from deskcheck.drift_guard import provision_of

    _paths_fixture()
    root = Path(__file__).resolve().parents[1] / "drift_guard" / "fixtures" / "pathsrc"
    prov = provision_of(SimpleNamespace(queue=[]), "dg_paths.engine:Engine", roots=[root],
                        methods=["drain"])
    verdict = guard(prov)
    assert verdict.names("silent_skips") == ["on_drain", "tracer"], (
        f"a provision built against 'dg_paths.engine:Engine' read from {root} must be judged "
        f"from the same source roots, with no roots passed again: {verdict.render()}")


def test_context_reads_are_recorded_with_their_site_and_call_path():
    import inspect
    from pathlib import Path

    from deskcheck.static._surface import surface

    engine, _ = _cases()
    file = inspect.getsourcefile(engine)
    line = next(n for n, text in enumerate(Path(file).read_text().splitlines(), 1)
                if "get_parallel().pp_size > 1 and envs.DG_FLAG" in text)
    site = {"file": file, "line": line, "kind": "context", "method": "Engine.abort",
            "path": ["Engine.abort"], "after_write": False, "swallowed": False}
    got = surface(engine, "abort").to_json()["context"]
    assert got == {"envs.DG_FLAG": [site], "get_parallel().pp_size": [site]}, (
        f"Engine.abort reads envs.DG_FLAG and get_parallel().pp_size on line {line}: each "
        f"context read must be recorded under its own name with its file, line, method and "
        f"call path; got {got}")


class Chained:
    @property
    def info(self):
        return self.hidden

    def step(self):
        return self.info.a.b


def test_a_dotted_read_enters_the_property_it_starts_with():
    from deskcheck.static._surface import surface

    names = sorted(surface(Chained, "step").names)
    assert "hidden" in names, (
        f"step reads self.info.a.b: info is a property, whose getter (reading self.hidden) "
        f"runs first, so hidden is on step's surface; the surface is {names}")


def test_guard_of_a_provision_reads_a_static_model_from_the_roots_it_is_given():
    from pathlib import Path
    from types import SimpleNamespace

    from deskcheck.drift_guard import provision_of

    engine, _ = _cases()
    root = Path(__file__).resolve().parents[1] / "drift_guard" / "fixtures" / "pathsrc"
    prov = provision_of(SimpleNamespace(queue=[]), engine, methods=["drain"])
    verdict = guard(prov, "dg_paths.engine:Engine", roots=[root])
    assert verdict.names("silent_skips") == ["on_drain", "tracer"], (
        f"guard(prov, 'dg_paths.engine:Engine', roots=[{root}]) must read the model from the "
        f"roots given: {verdict.render()}")


def test_an_allowed_missing_name_does_not_hide_the_next_missing_one():
    verdict = guard(PairHarness, allow={"b": "b is set by the caller"})
    assert verdict.names("forward") == ["count"], (
        f"b is allowed (with a reason) and count is missing: count must still be reported; "
        f"got {verdict.names('forward')}")


class Counted:
    @property
    def info(self):
        return self.read_side

    @info.setter
    def info(self, value):
        self.write_side = value

    def bump(self):
        self.info.count += 1


def test_an_augmented_assignment_through_a_property_only_gets_it():
    from deskcheck.static._surface import surface

    names = sorted(surface(Counted, "bump").names)
    assert "read_side" in names and "write_side" not in names, (
        f"self.info.count += 1 gets info (its getter reads read_side) and sets count on the "
        f"object it returned: info's setter (writing write_side) never runs; the surface is "
        f"{names}")


def _traced(fn):
    def wrapper(self, *args):
        self.calls_seen += 1
        return fn(self, *args)
    return wrapper


class Decorated:
    @_traced
    def step(self):
        return self.alpha


def test_a_decorator_wrapper_is_traced_around_the_method_it_wraps():
    from deskcheck.static._surface import surface

    names = sorted(surface(Decorated, "step").names)
    assert names == ["alpha", "calls_seen"], (
        f"step is wrapped by _traced, whose wrapper reads and writes self.calls_seen around "
        f"the body: both are on step's surface; the surface is {names}")


@pytest.mark.parametrize("category, plain, strict", [
    ("drift", True, True), ("silent_skips", True, True), ("unexercised", False, True),
    ("unknown", False, True), ("context", False, False), ("reverse", False, True)])
def test_each_category_fails_as_the_verdict_table_says(category, plain, strict):
    from deskcheck.drift_guard.paths import PathRecord, PathVerdict

    def verdict(is_strict: bool) -> PathVerdict:
        v = PathVerdict("ns", "Engine", ("abort",), "static", strict=is_strict)
        getattr(v, category).append(PathRecord("x", "engine.py:3", ("Engine.abort",)))
        return v

    got = (not verdict(False).holds, not verdict(True).holds)
    assert got == (plain, strict), (
        f"docs/drift.md's verdict table: a stand-in with one {category} name fails: "
        f"{plain} (strict=True: {strict}); it fails: {got[0]} (strict=True: {got[1]})")
