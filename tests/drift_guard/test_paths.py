"""Path-precise verdicts on stand-ins users already write (docs/drift.md, issue 12).

Production code: tests/drift_guard/fixtures/pathsrc/dg_paths (an early return on
``self.chunked is None``, an enum branch, masked reads, a decorator wrapper in another module,
context reads through ``get_parallel()`` and ``envs``).
"""

from __future__ import annotations

import sys
import types
from pathlib import Path
from types import SimpleNamespace
from unittest.mock import MagicMock, create_autospec

import coverage
import pytest

PATHSRC = Path(__file__).parent / "fixtures" / "pathsrc"
if str(PATHSRC) not in sys.path:
    sys.path.insert(0, str(PATHSRC))

from dg_paths.engine import Engine  # noqa: E402
from dg_paths.modes import Mode  # noqa: E402

from deskcheck.drift_guard import assert_faithful, guard, judge_paths, provision_of  # noqa: E402
from deskcheck.errors import UnknownTargetError  # noqa: E402

ENGINE = str(PATHSRC / "dg_paths" / "engine.py")


def _line(text: str, file: str = ENGINE) -> int:
    for number, line in enumerate(Path(file).read_text().splitlines(), 1):
        if text in line:
            return number
    raise AssertionError(f"{text!r} is not in {file}")


def _executed(fn) -> dict[str, set[int]]:
    cov = coverage.Coverage(data_file=None, include=[str(PATHSRC / "*")])
    cov.start()
    try:
        fn()
    finally:
        cov.stop()
    data = cov.get_data()
    return {f: set(data.lines(f) or ()) for f in data.measured_files()}


def test_an_early_return_the_stand_in_takes_makes_the_rest_unexercised_not_drift():
    ns = SimpleNamespace(chunked=None)
    verdict = guard(ns, model=Engine, methods=[Engine.abort_chunked])
    assert verdict.holds, f"names past the early return are not on the path: {verdict.render()}"
    assert verdict.names("unexercised") == ["_release", "aborted"], verdict.render()
    record = next(r for r in verdict.unexercised if r.name == "aborted")
    guard_line = _line("if self.chunked is None:")
    assert record.condition.endswith(f"engine.py:{guard_line}") and \
        "if self.chunked is None: return" in record.condition, \
        f"the unexercised record names the early return it sits behind: {record}"
    assert record.call_path == ("Engine.abort_chunked",), record


def test_a_name_needed_on_the_path_the_state_drives_is_drift_with_site_and_call_path():
    ns = SimpleNamespace(stage_metrics=None, queue=["a"], mode=Mode.NORMAL, pp_sink=[])
    verdict = guard(ns, model=Engine, methods=["abort"])
    assert not verdict.holds, "aborted and depth are read on every path of abort"
    assert verdict.names("drift") == ["aborted", "depth"], verdict.render()
    record = next(r for r in verdict.drift if r.name == "aborted")
    assert record.site.endswith(f"engine.py:{_line('return self.depth') - 1}"), record
    assert record.call_path == ("Engine.abort",), record


def test_an_enum_branch_the_stand_in_cannot_enter_is_unexercised_with_its_condition():
    ns = SimpleNamespace(stage_metrics=None, queue=[], mode=Mode.NORMAL, pp_sink=[],
                         aborted=[], depth=0)
    verdict = guard(ns, model=Engine, methods=["abort"])
    assert verdict.holds, verdict.render()
    assert verdict.names("unexercised") == ["_notify_prefill", "disagg_queue"], \
        f"mode=Mode.NORMAL rules out the DISAGG branch: {verdict.render()}"
    assert all("if self.mode == Mode.DISAGG" in r.condition for r in verdict.unexercised), \
        verdict.render()
    disagg = guard(SimpleNamespace(**{**vars(ns), "mode": Mode.DISAGG}), model=Engine,
                   methods=["abort"])
    assert disagg.names("drift") == ["_notify_prefill", "disagg_queue"], \
        f"with mode=DISAGG the branch is on the path: {disagg.render()}"


def test_a_decorator_wrapper_read_is_followed_into_its_own_module():
    ns = SimpleNamespace(queue=[], mode=Mode.NORMAL, pp_sink=[], aborted=[], depth=0)
    verdict = guard(ns, model=Engine, methods=["abort"])
    assert verdict.names("drift") == ["stage_metrics"], \
        f"the decorator wrapper's read of self.stage_metrics is drift: {verdict.render()}"
    record = verdict.drift[0]
    assert record.site.endswith("metrics.py:10"), f"the wrapper's read site: {record}"
    assert record.call_path == ("Engine.abort", "@stage_method wrapper"), record


def test_context_reads_are_their_own_category():
    ns = SimpleNamespace(stage_metrics=None, queue=[], mode=Mode.NORMAL, pp_sink=[],
                         aborted=[], depth=0)
    verdict = guard(ns, model=Engine, methods=["abort"])
    assert verdict.names("context") == ["envs.DG_FLAG", "get_parallel().pp_size"], \
        f"module-level state every test must set up: {verdict.render()}"
    assert verdict.holds, "context reads are information, not failures"


def test_masked_reads_the_stand_in_lacks_are_silent_skips_that_fail():
    verdict = guard(SimpleNamespace(queue=[]), model=Engine, methods=["drain"])
    assert not verdict.holds, "a getattr default and a swallowing except hide the drift"
    assert verdict.names("silent_skips") == ["on_drain", "tracer"], \
        f"masked reads of missing names are silent skips, not {verdict.names('drift')} " \
        f"drift: {verdict.render()}"
    details = {r.name: r.detail for r in verdict.silent_skips}
    assert "getattr/hasattr default" in details["on_drain"], details
    assert "catches AttributeError" in details["tracer"], details
    fine = guard(SimpleNamespace(queue=[], on_drain=None, tracer=SimpleNamespace(mark=print)),
                 model=Engine, methods=["drain"])
    assert fine.holds and not fine.silent_skips, f"provided names are not skipped: {fine.render()}"


def test_cls_new_instance_counts_real_methods_properties_and_class_defaults():
    engine = Engine.__new__(Engine)
    engine.chunked = SimpleNamespace(rid="r1")
    engine.aborted = []
    prov = provision_of(engine, Engine, methods=["abort_chunked"])
    assert {"depth", "retries", "_release", "abort"} <= set(prov.provided_names), \
        f"class members are provided by a __new__ instance: {sorted(prov.provided_names)}"
    assert "_release" in prov.binds, "the real method is followed, not a stand-in"
    executed = _executed(lambda: _swallow(lambda: Engine.abort_chunked(engine, "r1")))
    verdict = guard(engine, methods=[Engine.abort_chunked], executed=executed)
    assert verdict.names("drift") == ["pool"], \
        f"the real _release reads self.pool on the executed path: {verdict.render()}"
    assert verdict.drift[0].call_path == ("Engine.abort_chunked", "Engine._release"), (
        "the drift of pool must carry its call path (abort_chunked, _release); it is "
        f"{verdict.drift[0].call_path}"
    )


def _swallow(fn) -> None:
    try:
        fn()
    except AttributeError:
        pass


def test_executed_lines_decide_what_static_pruning_cannot():
    ns = SimpleNamespace(chunked=SimpleNamespace(rid="other"), aborted=[])
    static = guard(ns, model=Engine, methods=["abort_chunked"])
    assert static.names("unknown") == ["_release"], \
        f"`self.chunked.rid != rid` depends on an argument: {static.render()}"
    executed = _executed(lambda: Engine.abort_chunked(ns, "r1"))
    run = guard(ns, model=Engine, methods=["abort_chunked"], executed=executed)
    assert run.mode == "executed" and run.holds, run.render()
    assert run.names("unexercised") == ["_release"], \
        f"_release is not provided: its body (self.pool) is never entered: {run.render()}"
    assert run.unexercised[0].condition.startswith("past `if self.chunked.rid != rid: return`"), \
        run.unexercised[0]


def test_a_spec_mock_counts_only_configured_names_and_auto_children_are_silent_skips():
    adder = MagicMock(spec=Engine)
    adder.stage_metrics = None
    adder.queue = []
    adder.mode = Mode.NORMAL
    adder.aborted = []
    verdict = guard(adder, methods=[Engine.abort])
    assert verdict.names("silent_skips") == ["depth"], \
        f"depth is served by an auto-created child mock: {verdict.render()}"
    assert "auto-created MagicMock child" in verdict.silent_skips[0].detail, (
        "a name served by an auto-created child mock must say 'auto-created MagicMock child'; "
        f"detail: {verdict.silent_skips[0].detail!r}"
    )
    adder.depth = 0
    assert guard(adder, methods=[Engine.abort]).holds, "configured now"
    auto = create_autospec(Engine, instance=True)
    prov = provision_of(auto, Engine)
    assert "abort" not in prov.provided_names and "abort" in prov.auto_children, \
        "create_autospec's eager children are auto-created, not configured"


def test_a_spec_mock_child_configured_only_with_a_side_effect_is_provided():
    adder = MagicMock(spec=Engine)
    adder.abort.side_effect = RuntimeError("stubbed")
    prov = provision_of(adder, Engine)
    assert "abort" in prov.provided_names and "abort" not in prov.auto_children, (
        "a spec mock's child configured with a side_effect is provided, not auto-created "
        "(docs/drift.md:59); deskcheck took it for an auto-created child: provided "
        f"{sorted(prov.provided_names)}, auto-created {sorted(prov.auto_children)}")


def test_assert_faithful_fails_with_the_words_and_names_the_construction_site():
    standin = SimpleNamespace(queue=[], mode=Mode.NORMAL, pp_sink=[], aborted=[], depth=0)
    ns = standin
    built = _line("    standin = SimpleNamespace(", __file__)
    with pytest.raises(AssertionError) as raised:
        assert_faithful(ns, Engine.abort, model=Engine)
    text = str(raised.value)
    assert "stage_metrics" in text and "@stage_method wrapper" in text, text
    assert f"test_paths.py:{built}" in text, f"the construction site is named: {text}"
    ns.stage_metrics = None
    verdict = assert_faithful(ns, Engine.abort, model=Engine)
    assert verdict.holds, (
        "assert_faithful must return a holding verdict once stage_metrics is given; it says "
        f"{verdict.render()}"
    )


def test_strict_fails_on_unexercised_and_reverse_names():
    ns = SimpleNamespace(chunked=None, legacy_flag=True)
    verdict = guard(ns, model=Engine, methods=["abort_chunked"])
    assert verdict.holds and verdict.names("reverse") == ["legacy_flag"], verdict.render()
    strict = guard(ns, model=Engine, methods=["abort_chunked"], strict=True)
    assert not strict.holds, "strict: unexercised and reverse names fail"
    failing = {r.name for r in strict.failing}
    assert "legacy_flag" in failing, (
        "with strict=True a reverse name (legacy_flag: set on the stand-in, never touched by "
        f"abort_chunked) must fail the stand-in; the failing names were {sorted(failing)}")
    assert {"_release", "aborted"} <= failing, (
        "with strict=True the unexercised names (_release, aborted: needed only behind "
        f"branches the test never enters) must fail the stand-in; failing: {sorted(failing)}")
    assert failing == {"_release", "aborted", "legacy_flag"}, (
        f"strict fails exactly the unexercised and reverse names; it failed {sorted(failing)}")


def test_reverse_drift_reaches_into_a_namespace_field_the_method_reads_chains_of():
    ns = SimpleNamespace(chunked=SimpleNamespace(rid="r1", tokenizer_worker_num=2), aborted=[])
    verdict = guard(ns, model=Engine, methods=["abort_chunked"])
    assert "chunked.tokenizer_worker_num" in verdict.names("reverse"), verdict.render()


def test_static_model_string_needs_explicit_roots_and_reads_nothing_from_cwd(tmp_path,
                                                                            monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UnknownTargetError) as raised:
        guard(SimpleNamespace(), model="dg_paths.engine:Engine", methods=["drain"])
    assert "roots" in str(raised.value), raised.value
    with pytest.raises(UnknownTargetError, match="needs its source roots"):
        judge_paths("dg_paths.engine:Engine", ["drain"], provided=set())
    verdict = judge_paths("dg_paths.engine:Engine", ["abort_chunked"], provided={"chunked"},
                          roots=[PATHSRC], constants={"chunked": None})
    assert verdict.holds and verdict.names("unexercised") == ["_release", "aborted"], \
        verdict.render()
    stated = guard(SimpleNamespace(chunked=None), model="dg_paths.engine:Engine",
                   methods=["dg_paths.engine:Engine.abort_chunked"], roots=[PATHSRC])
    assert stated.holds and stated.names("unexercised") == ["_release", "aborted"], (
        "a model given as a string with roots must judge the same path: hold, _release and "
        f"aborted unexercised; {stated.render()}"
    )


def test_a_stand_in_callable_is_not_followed_but_a_method_type_of_the_real_one_is():
    ns = SimpleNamespace(chunked=SimpleNamespace(rid="r1"), aborted=[])
    ns._release = lambda rid: None
    executed = _executed(lambda: Engine.abort_chunked(ns, "r1"))
    assert guard(ns, model=Engine, methods=["abort_chunked"], executed=executed).holds, (
        "a stand-in callable for _release must not be followed: the path holds; "
        f"{guard(ns, model=Engine, methods=['abort_chunked'], executed=executed).render()}"
    )
    ns._release = types.MethodType(Engine._release, ns)
    ns.chunked = SimpleNamespace(rid="r1")  # the first run cleared it
    executed = _executed(lambda: _swallow(lambda: Engine.abort_chunked(ns, "r1")))
    verdict = guard(ns, model=Engine, methods=["abort_chunked"], executed=executed)
    assert verdict.names("drift") == ["pool"], verdict.render()


def test_the_verdict_serialises_with_the_same_words():
    verdict = guard(SimpleNamespace(queue=[]), model=Engine, methods=["drain"])
    data = verdict.to_json()
    assert data["holds"] is False and [r["name"] for r in data["silent_skips"]] == \
        ["on_drain", "tracer"], data
    assert data["message"] == verdict.render(), (
        "the JSON message must be the verdict's rendered text, same words; JSON "
        f"{data['message']!r}, text {verdict.render()!r}"
    )
    assert all(len(line) <= 100 for line in verdict.render().splitlines()), verdict.render()


def test_guard_of_a_provision_of_any_object_is_the_same_path_verdict():
    prov = provision_of(SimpleNamespace(queue=[]), Engine, methods=["drain"],
                        built_at="tests/x.py:3")
    verdict = guard(prov)
    assert verdict.names("silent_skips") == ["on_drain", "tracer"], \
        f"a Provision from provision_of is judged path-precisely: {verdict.render()}"
    assert verdict.built_at == "tests/x.py:3", (
        f"the verdict must keep the provision's built_at tests/x.py:3; it is {verdict.built_at!r}"
    )


def test_a_spec_mock_child_given_a_return_value_is_provided_and_a_touched_one_is_not():
    adder = MagicMock(spec=Engine)
    adder.abort.return_value = None
    _ = adder.abort_chunked  # touched only: the mock creates the child, the test set nothing
    prov = provision_of(adder, Engine)
    assert "abort" in prov.provided_names and "abort" not in prov.auto_children, (
        "a spec mock's child configured with a return_value is provided (docs/drift.md:59); "
        f"deskcheck took it for an auto-created child: provided {sorted(prov.provided_names)}")
    assert "abort_chunked" not in prov.provided_names and "abort_chunked" in prov.auto_children, (
        "a spec mock's child that was only read (no return_value, side_effect or attribute "
        "set) is an auto-created child, not configured; deskcheck counted it provided: "
        f"provided {sorted(prov.provided_names)}")


class _SubEngine(Engine):
    """A subclass: the class a `__new__` instance or a spec names, not where drain is defined."""


def test_the_model_defaults_to_the_instances_class_the_spec_else_the_methods_class():
    instance = _SubEngine.__new__(_SubEngine)
    assert provision_of(instance).model is _SubEngine, (
        "a `Cls.__new__(Cls)` stand-in's model defaults to its class (docs/drift.md:45); it "
        f"was {provision_of(instance).model}")
    spec = MagicMock(spec=_SubEngine)
    assert provision_of(spec).model is _SubEngine, (
        "a spec'd mock's model defaults to its spec (docs/drift.md:45); it was "
        f"{provision_of(spec).model}")
    verdict = guard(SimpleNamespace(queue=[]), methods=[_SubEngine.drain])
    assert verdict.model == "Engine", (
        "a namespace's model defaults to the class that defines the method (drain is "
        f"Engine's, reached through _SubEngine): it was {verdict.model!r}")


def test_a_method_called_through_super_inside_a_swallowing_try_is_a_silent_skip(tmp_path):
    pkg = tmp_path / "sk"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "mod.py").write_text(
        "class Base:\n"
        "    def __init__(self):\n"
        "        self.tracer = None\n"
        "        self.meter = None\n"
        "    def helper(self):\n"
        "        return self.tracer.mark()\n"
        "    def other(self):\n"
        "        return self.meter.mark()\n"
        "class Child(Base):\n"
        "    def helper(self):\n"
        "        return 0\n"
        "    def run(self):\n"
        "        try:\n"
        "            super().helper()\n"
        "        except Exception:\n"
        "            pass\n"
        "        super().other()\n")
    verdict = judge_paths("sk.mod:Child", ["run"], provided={"run", "helper", "other"},
                          roots=[tmp_path])
    assert verdict.names("silent_skips") == ["tracer"], (
        "docs/drift.md:84: a read in a method called from inside a try whose handler catches "
        "AttributeError is a silent skip; Base.helper, called as super().helper() inside "
        f"`try: ... except Exception:`, reads tracer, yet the silent skips are "
        f"{verdict.names('silent_skips')} and the drift {verdict.names('drift')}")
    assert verdict.names("drift") == ["meter"], (
        "super().other() outside the try is not masked: its read of meter is drift; the drift "
        f"is {verdict.names('drift')}")


_POOL = (
    "class Pool:\n"
    "    def __init__(self):\n"
    "        self.tracer = None\n"
    "        self._size = 0\n"
    "        self.floor = 0\n"
    "    @property\n"
    "    def size(self):\n"
    "        return self._size\n"
    "    @size.setter\n"
    "    def size(self, value):\n"
    "        self._size = max(value, self.floor)\n"
    "    def grow(self):\n"
    "        self.size += 1\n"
    "    def helper(self):\n"
    "        return self.tracer.mark()\n"
    "    def run(self):\n"
    "        try:\n"
    "            self.helper()\n"
    "        except Exception:\n"
    "            pass\n"
    "        self.helper()\n")


def _pool_verdict(tmp_path, method):
    (tmp_path / "pool_pkg").mkdir()
    (tmp_path / "pool_pkg" / "__init__.py").write_text("")
    (tmp_path / "pool_pkg" / "pool.py").write_text(_POOL)
    return judge_paths("pool_pkg.pool:Pool", [method],
                       provided={"size", "grow", "helper", "run"}, roots=[tmp_path])


def test_a_read_modify_write_of_a_property_runs_its_setter_too(tmp_path):
    drift = _pool_verdict(tmp_path, "grow").names("drift")
    assert "floor" in drift, (
        "docs/drift.md:309-312: `self.size += 1` on a property runs its getter and its setter; "
        f"the setter reads floor, yet the drift is {drift}")


def test_a_site_reached_both_inside_and_outside_a_swallowing_try_is_drift(tmp_path):
    verdict = _pool_verdict(tmp_path, "run")
    assert verdict.names("drift") == ["tracer"], (
        "docs/drift.md:83-84: helper's read of tracer is reached once inside `try: ... except "
        "Exception:` and once outside it, where a missing name raises: it is drift, not a "
        f"silent skip; the drift is {verdict.names('drift')} and the silent skips "
        f"{verdict.names('silent_skips')}")


class _Built:
    def __init__(self):
        self.size = 1

    @classmethod
    def build(cls):
        return cls()

    @staticmethod
    def helper():
        return 0


def test_a_new_instance_provides_the_real_classmethod_and_staticmethod_as_code():
    provision = provision_of(_Built.__new__(_Built), _Built)
    real = sorted(n for n in ("build", "helper") if n in provision.binds)
    assert real == ["build", "helper"], (
        "docs/drift.md:58: a Cls.__new__(Cls) instance provides the class's real methods, "
        "classmethods and staticmethods alike, as production code that is followed; bound as "
        f"real: {real}, taken as stand-ins: {sorted(provision.stand_ins)}")


class _Moded:
    limit = 4


def test_an_instance_value_wins_over_the_class_default_of_the_same_name():
    obj = _Moded.__new__(_Moded)
    obj.limit = 9
    got = provision_of(obj, _Moded).constants.get("limit")
    assert got == 9, (
        "docs/drift.md:58: a __new__ instance provides its own attributes plus the class "
        "defaults; the instance's limit = 9 shadows the class's 4, yet the constant the "
        f"guard prunes with is {got!r}")
