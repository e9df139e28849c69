"""Citation drift (``deskcheck pointers``, docs/drift.md, *Citations*): the forms of
citation, bare ``:LINE`` reuse of the last file, the symbol next to a citation, and the
findings a user reads, beyond the main cases of test_pointers.py."""

from __future__ import annotations

import locale
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
PREFIX = "rank"


def pick_next(queue):
    first = queue[0]
    second = queue[1]
    return first or second
'''


# line numbers of SOURCE, named for the tests
CLASS, METHOD, SORT, METHOD_END, LIMIT_LINE, BLANK, PREFIX_LINE, FUNC, FUNC_BODY, FUNC_END = (
    1, 4, 5, 6, 9, 8, 10, 13, 14, 16)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "schedule_policy.py").write_text(SOURCE, encoding="utf-8")
    return tmp_path


def _check(project: Path, text: str):
    doc = project / "doc.md"
    doc.write_text(text, encoding="utf-8")
    return check_pointers([doc], roots=[project])


def _holds(project: Path, text: str) -> None:
    report = _check(project, text)
    assert report.checked, f"no citation was found in {text!r}"
    assert report.ok, f"{text!r} still points at its symbol, yet was reported stale:\n" \
                      f"{report.render()}"


def _stale(project: Path, text: str):
    report = _check(project, text)
    assert len(report.findings) == 1, (
        f"{text!r} points at a line that is not its symbol's: one finding expected, got\n"
        f"{report.render()}")
    return report.findings[0]


@pytest.mark.parametrize("text", [
    f"`LIMIT` (schedule_policy.py:{METHOD})",            # backticked plain word
    f"sort() (schedule_policy.py:{METHOD})",             # a call
    f"queue.sort (schedule_policy.py:{METHOD})",         # a dotted name
    f"SchedulePolicy (schedule_policy.py:{LIMIT_LINE})",  # CamelCase
    f"X.T (schedule_policy.py:{LIMIT_LINE})",            # a dotted name starting with X
    f"IoU (schedule_policy.py:{LIMIT_LINE})",            # CamelCase, one lower-case letter
    f"GPipe (schedule_policy.py:{LIMIT_LINE})",          # CamelCase, two capitals first
    f"schedule_policy.py:{LIMIT_LINE} (SchedulePolicy.)",  # after, with a sentence's period
    f"Ordering is done by SchedulePolicy. (schedule_policy.py:{LIMIT_LINE})",  # sentence end
    f"schedule_policy.py:{LIMIT_LINE} (`calc_priority`)",  # after, in parentheses
    f"schedule_policy.py:{LIMIT_LINE} `calc_priority`",    # after, in backticks
])
def test_a_code_like_name_next_to_a_citation_is_checked(project, text):
    finding = _stale(project, text)
    assert finding.citation.symbol is not None, (
        f"{text!r}: the name next to the citation is code-like (docs/drift.md) and must be "
        f"the cited symbol; it was not recognised, so nothing but the line was checked")


@pytest.mark.parametrize("text", [
    f"the Scheduler (schedule_policy.py:{LIMIT_LINE}) decides",  # a capitalised plain word
    f"the `else` (schedule_policy.py:{SORT}) branch",             # a keyword, even backticked
    f"see the queue (schedule_policy.py:{SORT})",                 # a plain word
])
def test_plain_words_and_keywords_are_not_symbols(project, text):
    report = _check(project, text)
    assert [c.symbol for c in report.checked] == [None], (
        f"{text!r}: the word before the citation is not code-like, so only the file and line "
        f"are checked; got symbols {[c.symbol for c in report.checked]}")
    assert report.ok, f"{text!r}: the file and line exist, nothing is stale:\n{report.render()}"


@pytest.mark.parametrize("text", [
    f"`PREFIX` at schedule_policy.py:{PREFIX_LINE}",
    f"schedule_policy.py:{PREFIX_LINE} (`PREFIX`)",
    f"`LIMIT` (schedule_policy.py:{LIMIT_LINE})",
    f"schedule_policy.py:{FUNC} `pick_next`",
])
def test_a_name_that_appears_on_the_cited_line_holds(project, text):
    _holds(project, text)


@pytest.mark.parametrize("text", [
    f"`calc_priority` (schedule_policy.py:{METHOD_END})",   # the last line of a method
    f"`pick_next` (schedule_policy.py:{FUNC_END})",         # the last line of a function
    f"`schedule_policy.pick_next` (schedule_policy.py:{FUNC_BODY})",  # module.function
    f"`SchedulePolicy.calc_priority` (schedule_policy.py:{SORT})",
])
def test_a_line_inside_the_symbols_definition_holds(project, text):
    _holds(project, text)


def test_a_method_of_another_class_with_the_same_name_does_not_hold(project):
    finding = _stale(project, f"`OtherPolicy.calc_priority` (schedule_policy.py:{SORT})")
    assert "`OtherPolicy.calc_priority` is not at" in finding.problem, (
        "only SchedulePolicy defines calc_priority: a citation of OtherPolicy.calc_priority "
        f"must not be satisfied by it; got {finding.problem!r}")


def test_the_name_on_the_line_after_the_cited_one_does_not_make_it_hold(project):
    finding = _stale(project, f"`LIMIT` (schedule_policy.py:{BLANK})")
    assert finding.problem == (f"`LIMIT` is not at schedule_policy.py:{BLANK} and is not "
                               "defined in schedule_policy.py"), (
        f"LIMIT is on line {LIMIT_LINE}, not on the cited blank line {BLANK}; got "
        f"{finding.problem!r}")


def test_a_name_on_the_line_before_the_cited_one_does_not_make_it_hold(project):
    finding = _stale(project, f"`LIMIT` (schedule_policy.py:{PREFIX_LINE})")
    assert finding.citation.symbol == "LIMIT", finding
    assert "is not defined in" in finding.problem, (
        f"LIMIT is on line {LIMIT_LINE}, the line before the cited {PREFIX_LINE}: the "
        f"citation is stale; got {finding.problem!r}")


SCOPED = '''\
import sys

if sys.version_info >= (3, 12):
    def fallback(x):
        y = x + 1
        return y
else:
    def fallback(x):
        y = x - 1
        return y

with open(__file__) as handle:
    def from_with(x):
        z = x
        return z


def outer():
    def nested_helper(a):
        total = a
        return total
    return nested_helper
'''


@pytest.mark.parametrize("symbol, line", [
    ("fallback", 5),                  # a def inside an `if`
    ("scoped.fallback", 5),           # ... cited with its module
    ("fallback", 9),                  # a def inside the `else`
    ("from_with", 14),                # a def inside a `with`
    ("nested_helper", 20),            # a def inside a function body
])
def test_defs_inside_blocks_and_function_bodies_are_found(project, symbol, line):
    (project / "pkg" / "scoped.py").write_text(SCOPED, encoding="utf-8")
    _holds(project, f"`{symbol}` (scoped.py:{line})")


def test_a_name_defined_twice_names_every_definition_in_the_finding(project):
    (project / "pkg" / "scoped.py").write_text(SCOPED, encoding="utf-8")
    finding = _stale(project, "`fallback` (scoped.py:1)")
    assert finding.problem == ("line 1 is not in `fallback`; it is defined at scoped.py:4, "
                               "scoped.py:8"), (
        f"fallback is defined at lines 4 and 8: the finding must name both; got "
        f"{finding.problem!r}")
    assert finding.fix == "cite scoped.py:4", finding.fix


def test_a_cited_file_that_does_not_parse_is_still_checked_line_by_line(project):
    (project / "pkg" / "broken.py").write_text("def ok_name(:\n    pass\n", encoding="utf-8")
    _holds(project, "`ok_name` (broken.py:1)")
    finding = _stale(project, "`ok_name` (broken.py:2)")
    assert "is not defined in broken.py" in finding.problem, finding.problem


def test_stray_non_utf8_bytes_do_not_stop_the_check(project):
    (project / "pkg" / "latin.py").write_bytes(
        b"# caf\xe9 au lait\ndef brew_coffee(cup):\n    return cup\n")
    doc = project / "doc.md"
    doc.write_bytes(b"caf\xe9: `brew_coffee` (latin.py:2) and `brew_coffee` (latin.py:1)\n")
    report = check_pointers([doc], roots=[project])
    assert len(report.checked) == 2, (
        "a doc and a cited source with a stray non-UTF-8 byte are read with the byte replaced: "
        f"both citations must be checked; got {report.render()}")
    assert [f.citation.target for f in report.findings] == ["latin.py:1"], report.render()


def test_a_bare_line_reuses_the_last_cited_file(project):
    report = _check(project, f"`SchedulePolicy` (schedule_policy.py:{CLASS}); its sort (:{SORT}),"
                             f" its end (:{METHOD_END})\n:{LIMIT_LINE} holds the limit, "
                             f"[the sort](:{SORT})\n")
    assert [c.target for c in report.checked] == [
        f"schedule_policy.py:{n}" for n in (CLASS, SORT, METHOD_END, LIMIT_LINE, SORT)], (
        "a bare (:LINE) reuses the last cited file, also on a later line and at a line's start; "
        f"got {[c.target for c in report.checked]}")
    assert report.ok, report.render()


def test_a_bare_number_before_any_file_is_skipped_but_the_rest_of_the_line_is_not(project):
    report = _check(project, f"port :8080 then `calc_priority` (schedule_policy.py:{METHOD})")
    assert [c.target for c in report.checked] == [f"schedule_policy.py:{METHOD}"], (
        "':8080' before any cited file is no citation, and the citation after it on the same "
        f"line must still be found; got {[c.target for c in report.checked]}")


def test_a_range_citation_is_reported_with_its_range(project):
    finding = _stale(project, "`gone_helper` (schedule_policy.py:4-6) and more")
    assert finding.problem == ("`gone_helper` is not at schedule_policy.py:4-6 and is not "
                               "defined in schedule_policy.py"), finding.problem
    single = _stale(project, "`gone_helper` (schedule_policy.py:5)")
    assert single.problem.startswith("`gone_helper` is not at schedule_policy.py:5 and"), (
        f"a one-line citation is shown as FILE:LINE; got {single.problem!r}")


@pytest.mark.parametrize("cited", ["./schedule_policy.py", "XLA_ops.py"])
def test_a_file_name_is_found_anywhere_under_the_roots(project, cited):
    (project / "pkg" / "XLA_ops.py").write_text(SOURCE, encoding="utf-8")
    (project / "docs").mkdir()
    doc = project / "docs" / "notes.md"
    doc.write_text(f"`calc_priority` ({cited}:{METHOD})\n", encoding="utf-8")
    report = check_pointers([doc], roots=[project])
    assert report.ok and len(report.checked) == 1, (
        f"{cited} names the one such file under the root (in pkg/): it must resolve; got "
        f"{report.render()}")


@pytest.fixture
def ascii_locale():
    """A locale whose encoding is not UTF-8 (ASCII), for the duration of one test."""
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        yield
    finally:
        locale.setlocale(locale.LC_CTYPE, before)


def test_docs_and_sources_are_read_as_utf8_whatever_the_locale(project, ascii_locale):
    (project / "pkg" / "menu.py").write_text("café_total = 3\n", encoding="utf-8")
    report = _check(project, "`café_total` (menu.py:1)\n")
    assert report.ok and [c.symbol for c in report.checked] == ["café_total"], (
        "a doc and the source it cites are UTF-8 whatever the locale's encoding: the symbol "
        f"café_total is on the cited line; got {[c.symbol for c in report.checked]}\n"
        f"{report.render()}")


def test_every_finding_carries_its_citation_and_a_fix(project):
    doc = project / "doc.md"
    doc.write_text(f"`calc_priority` (schedule_policy.py:40)\n"
                   f"`gone_helper` (schedule_policy.py:{SORT})\n"
                   f"`x` in missing_module.py:3\n", encoding="utf-8")
    report = check_pointers([doc], roots=[project])
    assert [(f.citation.line, f.fix) for f in report.findings] == [
        (1, "update the line number to where the code is now"),
        (2, "point the citation at where the symbol lives now"),
        (3, "fix the path, or pass the folder it lives in with --root"),
    ], [(f.citation, f.fix) for f in report.findings]
    assert report.findings[2].problem == f"no file missing_module.py under {[str(project)]}", (
        f"the problem must name the roots searched; got {report.findings[2].problem!r}")
    rendered = report.render().splitlines()
    assert rendered[0] == (f"{doc}:1: schedule_policy.py:40: schedule_policy.py has 16 lines"), \
        rendered
    assert rendered[-1] == "3 citation(s) checked, 3 stale", rendered
    assert [c.line for c in report.checked] == [1, 2, 3], "every citation is listed as checked"
    assert report.to_json()["checked"] == 3, (
        f"the JSON must count the 3 citations checked; it says {report.to_json()['checked']}"
    )


def test_an_ambiguous_file_name_lists_the_candidates(tmp_path):
    for part in "abcde":
        (tmp_path / part).mkdir()
        (tmp_path / part / "util.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "docs").mkdir()
    doc = tmp_path / "docs" / "notes.md"
    doc.write_text("see util.py:1\n", encoding="utf-8")
    (finding,) = check_pointers([doc], roots=[tmp_path]).findings
    shown = [str(tmp_path.resolve() / p / "util.py") for p in "abcd"]
    assert finding.problem == f"util.py is ambiguous: {shown}", (
        f"five files end in util.py: the first four are named; got {finding.problem!r}")
    assert finding.fix == "cite a longer path that names one file", finding.fix
    assert finding.citation.target == "util.py:1", finding.citation

    for part in "cde":
        (tmp_path / part / "util.py").unlink()
    (finding,) = check_pointers([doc], roots=[tmp_path]).findings
    assert "util.py is ambiguous" in finding.problem, (
        f"two files end in util.py: still ambiguous; got {finding.problem!r}")


def test_a_folder_is_walked_for_text_files_and_tool_folders_are_skipped(project):
    docs = project / "docs"
    for sub in ("", ".venv", "node_modules", "pkg.egg-info", "guide"):
        (docs / sub).mkdir(parents=True, exist_ok=True)
        (docs / sub / "a.md").write_text("`gone_helper` (schedule_policy.py:5)\n",
                                          encoding="utf-8")
    (docs / "image.png").write_bytes(b"`gone_helper` (schedule_policy.py:5)\n")
    report = check_pointers([docs], roots=[project])
    assert sorted(Path(c.file).relative_to(docs).as_posix() for c in report.checked) == [
        "a.md", "guide/a.md"], (
        "a folder is walked for text files; .venv, node_modules and *.egg-info are skipped and "
        f"a .png is no text file; got {[c.file for c in report.checked]}")


def test_find_citations_reads_the_symbol_after_the_citation(tmp_path):
    doc = tmp_path / "d.md"
    doc.write_text("see foo.py:12 (`bar`) and at foo.py:13 (baz.qux)\n", encoding="utf-8")
    assert [(c.target, c.symbol) for c in find_citations(doc)] == [
        ("foo.py:12", "bar"), ("foo.py:13", "baz.qux")], (
        "the symbol after a citation (`bar`, (baz.qux)) must be read; found "
        f"{[(c.target, c.symbol) for c in find_citations(doc)]}"
    )


FALLBACKS = '''\
try:
    from json import dumps as encode
except ImportError:
    def encode(obj):
        text = repr(obj)
        return text
finally:
    def cleanup(path):
        gone = path
        return gone

match __name__:
    case "__main__":
        def entry(argv):
            code = len(argv)
            return code
'''


@pytest.mark.parametrize("symbol, line", [
    ("encode", 5),    # a fallback def in an `except` handler
    ("cleanup", 9),   # a def in a `finally`
    ("entry", 15),    # a def in a `match` case
])
def test_defs_in_except_finally_and_match_blocks_are_found(project, symbol, line):
    (project / "pkg" / "fallbacks.py").write_text(FALLBACKS, encoding="utf-8")
    _holds(project, f"`{symbol}` (fallbacks.py:{line})")


@pytest.mark.parametrize("second_line", ["=:9", "-:9", '":9'])
def test_a_bare_line_after_another_character_at_the_start_is_not_a_citation(tmp_path,
                                                                             second_line):
    doc = tmp_path / "notes.md"
    doc.write_text(f"see fallbacks.py:5\n{second_line}\n")
    cited = [c.target for c in find_citations(doc)]
    assert cited == ["fallbacks.py:5"], (
        f"{second_line!r}: a bare :LINE right after {second_line[0]!r} is not a citation (only a "
        f"space, '(', a backtick, '[' or ',' before it, or the line's start, reuse the last "
        f"file), yet the citations found were {cited}")


def test_a_bare_line_at_the_start_of_a_line_reuses_the_last_file(tmp_path):
    doc = tmp_path / "notes.md"
    doc.write_text("see fallbacks.py:5\n:9 and (:12)\n")
    cited = [c.target for c in find_citations(doc)]
    assert cited == ["fallbacks.py:5", "fallbacks.py:9", "fallbacks.py:12"], (
        f"a bare :LINE at a line's start or after '(' cites the last file; found {cited}")
