"""Details of the drift guard's model and citation checks (docs/drift.md, ``deskcheck
pointers`` and *Errors*): a citation of a decorated def, of a method of a nested class, of a def
inside an ``if``; the report as text and JSON; unknown classes named with a fix. Gaps mutmut
found in drift_guard/pointers.py and static/_model.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.drift_guard.pointers import check_pointers
from deskcheck.errors import DeskcheckError
from deskcheck.static._model import import_class, installed_root

SOURCE = '''\
import functools


class Outer:
    class Inner:
        @functools.cache
        @staticmethod
        def decorated():
            return 1

    def method(self):
        return 2


if True:
    def guarded_helper():
        return 3
else:
    def fallback_helper():
        return 4
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "mod.py").write_text(SOURCE, encoding="utf-8")
    return tmp_path


def _report(project: Path, text: str):
    doc = project / "doc.md"
    doc.write_text(text, encoding="utf-8")
    return check_pointers([doc], roots=[project])


@pytest.mark.parametrize(("text", "why"), [
    ("`Inner.decorated` at mod.py:6", "a citation of a decorator line is inside the def"),
    ("`Outer.Inner.decorated` (mod.py:8)", "a nested class's method is found by its owner"),
    ("`Outer.method` (mod.py:11-12)", "a range inside a method holds"),
    ("`guarded_helper` (mod.py:16)", "a def inside an if is still a definition"),
    ("`fallback_helper` (mod.py:19)", "a def in an else branch is still a definition"),
])
def test_citations_of_less_common_definitions_hold(project, text, why):
    report = _report(project, text)
    assert report.ok and len(report.checked) == 1, (
        f"{text!r} cites its symbol correctly ({why}), yet: {report.render()}")


def test_a_stale_citation_of_a_nested_method_names_its_def_line(project):
    report = _report(project, "`Inner.decorated` (mod.py:11)\n")
    (finding,) = report.findings
    assert finding.fix == "cite mod.py:8", (
        f"Inner.decorated is defined at line 8 (decorators from 6): the fix must say 'cite "
        f"mod.py:8'; it says {finding.fix!r} ({finding.problem})")


def test_the_report_as_text_and_json(project):
    report = _report(project, "`Outer.method` (mod.py:1)\n`guarded_helper` (mod.py:16)\n")
    text = report.render().splitlines()
    assert text[0].endswith("doc.md:1: mod.py:1: line 1 is not in `Outer.method`; it is "
                            "defined at mod.py:11"), (
        f"the first line must name the citing file:line, the citation and the problem: "
        f"{text[0]!r}")
    assert text[1] == "  fix: cite mod.py:11" and text[-1] == (
        "2 citation(s) checked, 1 stale"), f"the fix and the tally are wrong: {text}"
    data = report.to_json()
    assert data["ok"] is False and data["checked"] == 2 and len(data["findings"]) == 1, (
        f"the JSON must say not ok, 2 checked, 1 finding: {data}")
    finding = data["findings"][0]
    assert (finding["line"], finding["symbol"], finding["fix"]) == (
        1, "Outer.method", "cite mod.py:11") and finding["file"].endswith("doc.md") and \
        finding["citation"] == "mod.py:1" and "line 1" in finding["problem"], (
            f"the JSON finding must carry the citing file and line, the citation, its symbol, "
            f"the problem and the fix: {finding}")


def test_an_unknown_class_or_module_is_named_with_a_fix():
    import json

    cases = [("json", "NoSuchClass", "no class 'NoSuchClass' in module json", json.__file__,
              "check the class name"),
             ("json", "JSONDecoder.NoSuch", "no class 'JSONDecoder.NoSuch' in module json",
              json.__file__, "check the class name"),
             ("json", "dumps", "json:dumps is not a class", "json", "name a class"),
             ("no_such_module_dc", "X", "cannot import 'no_such_module_dc'",
              "no_such_module_dc", "install the package")]
    for module, qualname, words, location, fix in cases:
        with pytest.raises(DeskcheckError) as caught:
            import_class(module, qualname)
        error = caught.value
        assert words in str(error) and error.location == location and fix in (error.fix or ""), (
            f"{module}:{qualname} must be refused saying {words!r} at {location} with the fix "
            f"{fix!r}; got {error} at {error.location} (fix {error.fix!r})")
    got = import_class("json.decoder", "JSONDecoder")
    assert got.__name__ == "JSONDecoder", f"json.decoder:JSONDecoder resolved to {got}"


def test_the_installed_root_of_a_package_is_the_folder_holding_it():
    import pytest as installed

    root = installed_root("pytest.something")
    assert root == Path(installed.__file__).resolve().parent.parent, (
        f"the installed root of pytest must be the folder holding the pytest package "
        f"({Path(installed.__file__).resolve().parent.parent}); got {root}")
    assert installed_root("no_such_top_level_dc") is None, (
        "a top-level name no finder knows must have no installed root")
    assert installed_root("sys") is None, (
        "a built-in module has no location, so no installed root")


def test_the_registry_keeps_registration_order_and_forgets_quietly():
    from deskcheck.drift_guard import registry

    before = registry.registered()
    try:
        registry.register("dc_reg:First", object())
        registry.register("dc_reg:Second", object())
        keys = [k for k in registry.registered() if k.startswith("dc_reg:")]
        assert keys == ["dc_reg:First", "dc_reg:Second"], (
            f"registered guards must be listed in registration order; got {keys}")
        registry.unregister("dc_reg:First")
        registry.unregister("dc_reg:never_registered")  # forgetting an unknown key is no error
        keys = [k for k in registry.registered() if k.startswith("dc_reg:")]
        assert keys == ["dc_reg:Second"], f"unregister left {keys}, not ['dc_reg:Second']"
        registry.registered().clear()
        assert "dc_reg:Second" in registry.registered(), (
            "registered() handed out the registry itself: clearing the copy unregistered guards")
    finally:
        for key in set(registry.registered()) - set(before):
            registry.unregister(key)
