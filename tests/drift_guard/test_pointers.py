"""Citation drift: ``path.py:LINE`` pointers in docs and comments must hit their symbol."""

from __future__ import annotations

from pathlib import Path

import pytest

from deskcheck.drift_guard.pointers import check_pointers, find_citations

SOURCE = '''\
class SchedulePolicy:
    """Orders the queue."""

    def calc_priority(self, queue):
        queue.sort()
        return True


LIMIT = 3
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "schedule_policy.py").write_text(SOURCE)
    return tmp_path


def _check(project: Path, text: str):
    doc = project / "doc.md"
    doc.write_text(text)
    return check_pointers([doc], roots=[project])


@pytest.mark.parametrize("text", [
    "SchedulePolicy.calc_priority (schedule_policy.py:4) sorts",
    "`calc_priority` at pkg/schedule_policy.py:5",
    "see pkg/schedule_policy.py:4-6 (`calc_priority`)",
    "the LIMIT (schedule_policy.py:9) stays",
    "no symbol here, only a place: schedule_policy.py:9",
    "`SchedulePolicy` (schedule_policy.py:1); its sort (:5)",
])
def test_citations_that_still_hit_their_symbol_hold(project, text):
    report = _check(project, text)
    assert report.ok, report.render()
    assert len(report.checked) >= 1, (
        f"a holding citation must be counted as checked; checked: {report.checked}"
    )


def test_a_moved_def_is_stale_and_the_fix_names_the_new_line(project):
    report = _check(project, "SchedulePolicy.calc_priority (schedule_policy.py:1)\n")
    (finding,) = report.findings
    assert "line 1 is not in `SchedulePolicy.calc_priority`" in finding.problem, (
        "a citation of a def that moved must say 'line 1 is not in "
        f"`SchedulePolicy.calc_priority`'; it says {finding.problem!r}"
    )
    assert finding.fix == "cite schedule_policy.py:4", (
        f"the fix must name the def's new line, 'cite schedule_policy.py:4'; it is {finding.fix!r}"
    )
    assert finding.citation.file.endswith("doc.md") and finding.citation.line == 1, (
        "the finding must be placed at the citation, doc.md line 1; it is at "
        f"{finding.citation.file}:{finding.citation.line}"
    )


@pytest.mark.parametrize("text, problem", [
    ("`calc_priority` (schedule_policy.py:40)", "has 9 lines"),
    ("`gone_helper` (schedule_policy.py:5)", "`gone_helper` is not at"),
    ("`x` in missing_module.py:3", "no file missing_module.py"),
])
def test_broken_citations(project, text, problem):
    (finding,) = _check(project, text).findings
    assert problem in finding.problem, (
        f"the citation {text!r} must be refused with {problem!r}; the problem says "
        f"{finding.problem!r}"
    )


def test_a_range_whose_end_is_past_the_file_is_refused(project):
    findings = _check(project, "see schedule_policy.py:4-40").findings
    problems = [f.problem for f in findings]
    assert any("has 9 lines" in p for p in problems), (
        "docs/drift.md:483-485: the cited line must exist, for each end of a range; "
        "schedule_policy.py:4-40 cites up to line 40 of a 9-line file, yet the problems are "
        f"{problems}")


def test_times_and_plain_numbers_are_not_citations(tmp_path):
    doc = tmp_path / "log.txt"
    doc.write_text("05:55:19 the storm began; ratio 3:1; port :8080 on host\n")
    assert find_citations(doc) == [], (
        f"times, ratios and ports are not citations; found {find_citations(doc)}"
    )


def test_comments_in_python_files_are_checked(project):
    code = project / "caller.py"
    code.write_text("# the sort lives in calc_priority (schedule_policy.py:2)\nx = 1\n")
    report = check_pointers([code], roots=[project])
    assert [f.fix for f in report.findings] == ["cite schedule_policy.py:4"], (
        "a stale citation in a Python comment must be checked and fixed to schedule_policy.py:4; "
        f"fixes: {[f.fix for f in report.findings]}"
    )


POLICY = '''\
class SchedulePolicy:
    """Orders the queue."""

    def calc_priority(self, queue):
        queue.sort()
        return True
'''


def test_a_citation_of_a_def_that_moved_is_drift(tmp_path: Path):
    (tmp_path / "schedule_policy.py").write_text(POLICY)
    doc = tmp_path / "doc.md"
    doc.write_text("SchedulePolicy.calc_priority (schedule_policy.py:1) sorts the queue\n")
    report = check_pointers([doc], roots=[tmp_path])
    problems = [f.problem for f in report.findings]
    assert problems == [
        "line 1 is not in `SchedulePolicy.calc_priority`; it is defined at schedule_policy.py:4"
    ], f"a citation of calc_priority at line 1 (it is defined at line 4) gave {problems}"


def test_line_zero_does_not_exist(project):
    problems = [f.problem for f in _check(project, "see schedule_policy.py:0").findings]
    assert problems == ["schedule_policy.py has 9 lines"], (
        "docs/drift.md:484: the cited line must exist; schedule_policy.py:0 cites a line before "
        f"the first, yet the problems are {problems}")


def test_a_range_that_ends_on_the_decorator_of_the_named_def_holds(tmp_path):
    (tmp_path / "cached.py").write_text(
        "import functools\n\n\n@functools.cache\ndef lookup(key):\n    return key\n")
    doc = tmp_path / "doc.md"
    doc.write_text("`lookup` (cached.py:3-4) is memoised\n")
    problems = [f.problem for f in check_pointers([doc], roots=[tmp_path]).findings]
    assert problems == [], (
        "docs/drift.md:486: a name next to a citation must be defined around the cited lines; "
        "cached.py:3-4 ends on the @functools.cache line of `lookup` (its definition starts "
        f"there), yet the problems are {problems}")


def test_a_name_on_the_last_line_of_a_range_holds(project):
    problems = [f.problem for f in _check(project, "`LIMIT` (schedule_policy.py:7-9)").findings]
    assert problems == [], (
        "docs/drift.md:486: a name next to a citation may appear on the cited lines; LIMIT is on "
        f"line 9, the end of schedule_policy.py:7-9, yet the problems are {problems}")
