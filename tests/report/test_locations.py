"""Where a mutant and its target sit in a file (for Stryker locations and the HTML source)."""

from __future__ import annotations

from deskcheck.report.locations import (
    first_change,
    function_span,
    mutant_span,
    replacement_text,
)
from deskcheck.report.records import MutantRecord

from .sample_records import BALLOT_FILE, BALLOT_SOURCE, real_diff

SOURCE = '''import functools


class Scheduler:
    @functools.cache
    def get_num_allocatable_reqs(self):
        return self.max_running - len(self.running)

    class Inner:
        def depth(self):
            return 4
'''


def _mutant(diff: str, **kw) -> MutantRecord:
    return MutantRecord(id="m", title="", target="pkg.mod:f", operator="replace",
                        verdict="KILLED", diff=diff, **kw)


def test_function_span_follows_qualified_names_and_decorators():
    assert function_span(SOURCE, "pkg.mod:Scheduler.get_num_allocatable_reqs") == (5, 7), (
        "function_span must find the method Scheduler.get_num_allocatable_reqs at lines 5-7 with "
        "its decorator; it gave "
        f"{function_span(SOURCE, 'pkg.mod:Scheduler.get_num_allocatable_reqs')}"
    )
    assert function_span(SOURCE, "pkg.mod:Scheduler.Inner.depth") == (10, 11), (
        "function_span must follow a nested class (Scheduler.Inner.depth, lines 10-11); it gave "
        f"{function_span(SOURCE, 'pkg.mod:Scheduler.Inner.depth')}"
    )
    assert function_span(SOURCE, "pkg.mod:Scheduler.nothing") is None, (
        "function_span must give None for a method the class does not have"
    )
    assert function_span("def broken(:\n", "m:broken") is None, (
        "function_span must give None for a file that does not parse"
    )


def test_span_comes_from_the_removed_lines_even_when_the_hunk_number_is_off():
    diff = real_diff(BALLOT_SOURCE, BALLOT_FILE, 'return 0, total, "recovered"',
                     "return 0, total, None")
    line = BALLOT_SOURCE.splitlines().index('        return 0, total, "recovered"') + 1
    shifted = diff.replace("@@ -", "@@ -1", 1)  # a hunk header pointing elsewhere
    for text in (diff, shifted):
        span = mutant_span(_mutant(text), BALLOT_SOURCE)
        assert (span.start_line, span.start_column, span.end_line) == (line, 9, line), (
            f"the span must come from the removed line {line} column 9, whatever the hunk header "
            f"says; it is {span}"
        )
    assert replacement_text(diff) == "return 0, total, None", (
        f"the replacement text must be the added line; it is {replacement_text(diff)!r}"
    )


def test_explicit_fields_win_and_every_span_fits_the_file():
    explicit = _mutant("", source_line=7, source_column=16, source_end_line=7,
                       source_end_column=32)
    span = mutant_span(explicit, SOURCE)
    assert (span.start_line, span.start_column, span.end_line, span.end_column) == (7, 16, 7, 32), (
        f"explicit source_line/column fields must win: (7, 16, 7, 32); the span is {span}"
    )
    beyond = mutant_span(_mutant("", source_line=500), SOURCE)
    assert beyond.start_line == beyond.end_line == len(SOURCE.splitlines()), (
        f"a source_line beyond the file must be clamped to its last line {len(SOURCE.splitlines())}"
        f"; the span is {beyond}"
    )
    empty = mutant_span(_mutant(""), "")
    assert (empty.start_line, empty.start_column, empty.end_column) == (1, 1, 2), (
        f"an empty file must give the span (1, 1, 2); it gave {empty}"
    )


def test_pure_insertion_and_deletion_diffs():
    insertion = "@@ -6,0 +7,1 @@\n+        self.check()\n"
    change = first_change(insertion)
    assert change is not None and change.removed == () and change.added == (
        "        self.check()",), (
        "a pure insertion must remove nothing and add the inserted line; first_change gave "
        f"{change}"
    )
    assert mutant_span(_mutant(insertion), SOURCE).start_line == 6, (
        "a pure insertion after line 6 must be placed at line 6; it is at "
        f"{mutant_span(_mutant(insertion), SOURCE).start_line}"
    )
    deletion = real_diff(SOURCE, "m.py", "        return self.max_running - len(self.running)\n",
                         "")
    assert replacement_text(deletion) == "", (
        f"a pure deletion has no replacement text; it gave {replacement_text(deletion)!r}"
    )
    assert mutant_span(_mutant(deletion), SOURCE).start_line == 7, (
        "the deleted line 7 must be the span; it starts at "
        f"{mutant_span(_mutant(deletion), SOURCE).start_line}"
    )
    assert first_change("no diff here") is None, "a text without a hunk must have no first change"
