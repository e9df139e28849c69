"""Citation checks of less common definitions and the pointers report (docs/drift.md,
``deskcheck pointers``): a decorated def, a method of a nested class, a def inside an
``if``; the report as text and JSON."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.drift_guard.pointers import check_pointers

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
