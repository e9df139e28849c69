"""`deskcheck standins` finds the stand-ins tests already build, statically, without edits."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.drift_guard.standins.helpers import discover_in, names, standin


def _driven(report) -> dict[str, set[str]]:
    return {d.method: {t.rpartition("::")[2] for t in d.tests} for d in report.driven}


def test_new_instance_with_hand_set_attributes_is_found_and_driven_by_its_method_call(proj):
    report = standin(discover_in(proj), "tests/test_new_form.py:8")
    assert report.construction.kind == "new", f"Engine.__new__(Engine) is a 'new' stand-in, got {report.construction.kind}"
    assert report.model == "shopcore.engine:Engine", f"model resolved through the imports to {report.model}"
    assert _driven(report) == {"abort": {"test_abort_on_a_new_instance"}}, (
        f"engine.abort(...) on the __new__ instance drives Engine.abort, got {_driven(report)}")
    assert set(report.sets) == {"pending", "mode", "queue", "log_lines"}, (
        f"the four hand-set attributes are the names it sets, got {sorted(report.sets)}")


def test_literal_values_are_read_statically_including_enum_members(proj):
    report = standin(discover_in(proj), "tests/test_new_form.py:8")
    values = {n: repr(s.value) for n, s in report.sets.items() if s.constant}
    assert values == {"pending": "'a'", "mode": "Mode.FAST", "queue": "['a', 'b']",
                      "log_lines": "[]"}, f"constants known statically: {values}"
    # Mode.FAST prunes the `if self.mode == Mode.SLOW` branch: slow_queue is only there
    assert names(report, "unexercised") == {"slow_queue"}, (
        f"slow_queue is needed only under `mode == Mode.SLOW`, which Mode.FAST rules out; "
        f"unexercised={names(report, 'unexercised')} drift={names(report, 'drift')}")
    assert report.holds, "a stand-in missing only an unexercised name holds (without --strict)"


def test_object_new_with_setattr_is_found(proj):
    report = standin(discover_in(proj), "tests/test_new_form.py:18")
    assert set(report.sets) == {"queue", "sink"}, f"setattr(engine, 'queue', ...) counts: {sorted(report.sets)}"
    assert _driven(report) == {"drain": {"test_drain_through_the_class"}}, (
        f"Engine.drain(engine) drives drain, got {_driven(report)}")


def test_a_property_read_on_a_new_instance_drives_the_property(proj):
    report = standin(discover_in(proj), "tests/test_new_form.py:25")
    assert _driven(report) == {"depth": {"test_depth_property"}}, (
        f"reading engine.depth runs the real property, got {_driven(report)}")
    assert report.holds and not names(report, "drift"), (
        "retries is a class default of EngineBase: real class defaults count as provided")


def test_simple_namespace_passed_as_self_is_found_with_the_model_of_the_call(proj):
    report = standin(discover_in(proj), "tests/test_namespace_form.py:16")
    assert (report.construction.kind, report.model) == ("namespace", "shopcore.engine:Engine"), (
        f"Engine.budget(ns) makes ns an Engine stand-in, got {report.construction.kind} {report.model}")
    assert set(report.sets) == {"limit", "used"}, (
        "Engine.budget(ns) with ns = SimpleNamespace(limit=..., used=...) must count limit and "
        f"used as set; sets: {sorted(report.sets)}"
    )


def test_methodtype_binding_is_found(proj):
    report = standin(discover_in(proj), "tests/test_namespace_form.py:21")
    assert _driven(report) == {"drain": {"test_drain_bound_with_methodtype"}}, (
        f"types.MethodType(Engine.drain, ns) drives Engine.drain, got {_driven(report)}")
    assert report.driven[0].how == "MethodType", (
        "a drive through types.MethodType must be recorded as how='MethodType'; it is "
        f"{report.driven[0].how!r}"
    )


def test_a_plain_test_class_instance_passed_as_self_provides_its_init_fields(proj):
    report = standin(discover_in(proj), "tests/test_namespace_form.py:27")
    assert report.construction.kind == "plain" and report.model == "shopcore.adder:Adder", (
        "an instance of a plain test class passed as self must be kind 'plain' with the model "
        f"shopcore.adder:Adder; got {report.construction.kind} {report.model}"
    )
    assert report.holds, (
        f"_FakeAdder.__init__ sets total and offset, all Adder.room reads: {report.records('drift')}")


def test_spec_mock_counts_only_configured_attributes(proj):
    report = standin(discover_in(proj), "tests/test_mock_form.py:11")
    assert (report.construction.kind, report.model) == ("mock", "shopcore.adder:Adder"), (
        "MagicMock(spec=Adder) must be kind 'mock' with the model shopcore.adder:Adder; got "
        f"{(report.construction.kind, report.model)}"
    )
    assert set(report.sets) == {"total", "offset"}, (
        f"adder.total = ... and configure_mock(offset=...) are the configured names: {sorted(report.sets)}")


def test_autospec_is_found_and_its_constant_prunes_the_early_return(proj):
    report = standin(discover_in(proj), "tests/test_mock_form.py:18")
    assert report.construction.kind == "mock" and report.model == "shopcore.engine:Engine", (
        "create_autospec(Engine) must be kind 'mock' with the model shopcore.engine:Engine; got "
        f"{report.construction.kind} {report.model}"
    )
    assert {"queue", "mode"} <= names(report, "unexercised"), (
        f"pending=None takes the early return: the rest is unexercised, got "
        f"{names(report, 'unexercised')}")


def test_factory_helper_and_setup_are_followed(proj):
    report = standin(discover_in(proj), "tests/test_factory_form.py:11")
    assert "make_engine" in report.construction.through, (
        f"built inside make_engine and returned from it: through={report.construction.through}")
    assert _driven(report) == {"abort": {"test_abort_without_pending"},
                               "drain": {"test_drain_empty"}}, (
        f"make_engine() in a test and in setUp (self.engine, passed through self._arm) both "
        f"reach their drives, got {_driven(report)}")
    assert {"queue", "sink"} <= set(report.sets), (
        f"setUp and the _arm helper set queue and sink: {sorted(report.sets)}")


def test_fixture_in_conftest_is_followed_to_its_return(proj):
    report = standin(discover_in(proj), "tests/conftest.py:8")
    assert "fixture small_adder" in report.construction.through, (
        "a stand-in returned by a conftest fixture must be built through 'fixture small_adder'; "
        f"through={report.construction.through}"
    )
    assert _driven(report) == {"room": {"test_abort_without_pending"}}, (
        f"the small_adder fixture flows into Adder.room(small_adder): {_driven(report)}")


def test_nothing_is_imported(proj):
    before = set(sys.modules)
    discover_in(proj)
    leaked = {m for m in set(sys.modules) - before if m.startswith(("shopcore", "tests.test_"))}
    assert not leaked, f"static discovery imported {sorted(leaked)}"


def test_every_driving_test_is_named_by_its_pytest_node_id(proj):
    found = discover_in(proj)
    assert "tests/test_factory_form.py::TestEngineCase::test_drain_empty" in found.driving_tests, (
        f"node ids are relative to the project root, class included: {found.driving_tests}")
    assert all(Path(proj, t.split("::")[0]).is_file() for t in found.driving_tests), (
        "every driving test's node id must name a file of the project; driving tests: "
        f"{found.driving_tests}"
    )


def test_a_property_getter_called_through_the_class_drives_the_property(proj):
    report = standin(discover_in(proj), "tests/test_namespace_form.py:31")
    assert _driven(report) == {"depth": {"test_depth_through_the_property_getter"}}, (
        f"Engine.depth.fget(ns) runs the real property on ns: {_driven(report)}")
    assert report.driven[0].how == "property", (
        f"Engine.depth.fget(ns) must be recorded as how='property'; it is {report.driven[0].how!r}"
    )


def test_the_reference_targets_adhoc_tests_are_all_found_without_edits():
    root = Path(__file__).resolve().parents[3]
    found = discover_in(root, "examples/tp_scheduler/tests")
    adhoc = {r.built_at: r for r in found.reports
             if r.built_at.startswith("examples/tp_scheduler/tests/test_adhoc_standins.py")}
    kinds = sorted(r.construction.kind for r in adhoc.values())
    assert kinds == ["mock", "namespace", "new", "new", "new"], (
        f"Scheduler.__new__ + fields, SimpleNamespace + MethodType, MagicMock(spec=PrefillAdder), "
        f"a factory and a fixture: found {sorted(adhoc)} kinds {kinds}")
    assert all(r.judgments for r in adhoc.values()), (
        f"every one is driven: {[(s, r.status) for s, r in adhoc.items()]}")
    through = sorted(t for r in adhoc.values() for t in r.construction.through)
    assert through == ["fixture queued_scheduler", "make_scheduler"], through
    assert not found.problems, f"no problems on the reference tests: {found.problems}"


def test_a_standin_built_in_setupclass_reaches_the_tests_of_its_class(proj):
    report = standin(discover_in(proj), "tests/test_factory_form.py:40")
    assert _driven(report) == {"budget": {"test_budget_of_the_shared_engine"}}, (
        f"cls.shared from setUpClass drives Engine.budget in the class's test: {_driven(report)}")
    assert set(report.sets) == {"limit", "used"} and report.holds, (
        "a stand-in built in setUpClass must set limit and used and hold; sets "
        f"{sorted(report.sets)}, holds {report.holds}"
    )
