"""Issue 16 items 1, 3, 4, 7, 12: terminal output a person can read at 80 and 120 columns.

Rendered with rich ``Console(width=..., record=True)``; the assertions are the issue's: no
mutant id or node id is split across lines, every cut ends in an ellipsis, an owner list and
a failure are printed once, WRONG_FAILURE names only the owners that failed that way.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console

from deskcheck.mutants.catalog import load_catalog
from deskcheck.mutants.render import catalog_listing, shortfall_report, summary_text, verdict_table
from deskcheck.mutants.sweep import SweepResult
from deskcheck.report.records import RunRecord
from deskcheck.report.renderers import markdown
from deskcheck.report.renderers.terminal import print_report
from deskcheck.report.reportdata import ReportData
from tests.ux.records import (
    DRAIN,
    E2E,
    FAILURE,
    HEADROOM,
    MUTANT_IDS,
    records,
    write_owner_tests,
)
from tests.ux.tokens import broken_ids, split_tokens, too_wide

WIDTHS = (80, 120)
NODE_IDS = [DRAIN, HEADROOM, E2E]


def _text(renderable, width: int, **print_options) -> str:
    console = Console(width=width, record=True, file=open("/dev/null", "w"),  # noqa: SIM115
                      color_system=None)
    console.print(renderable, **print_options)
    console.file.close()
    return console.export_text()


@pytest.mark.parametrize("width", WIDTHS)
def test_sweep_table_never_splits_an_id_and_marks_every_cut(width: int):
    text = _text(verdict_table(records(), width), width)
    problems = broken_ids(text, [*MUTANT_IDS, *NODE_IDS])
    assert not problems, f"the sweep table at {width} columns breaks ids:\n" + "\n".join(
        problems) + "\n" + text
    for record in records():
        assert record.verdict in text, (
            f"verdict {record.verdict} is cut at {width} columns:\n{text}")
    assert all(len(line) <= width for line in text.splitlines()), (
        f"the table is wider than {width} columns:\n{text}")


@pytest.mark.parametrize("width", WIDTHS)
def test_report_table_never_splits_an_id_and_marks_every_cut(width: int):
    data = ReportData(run=RunRecord(kind="sweep", id=3, commit="3f2a9c1d0e4b"),
                      mutants=records())
    console = Console(width=width, record=True, file=open("/dev/null", "w"),  # noqa: SIM115
                      color_system=None)
    print_report(data, console)
    console.file.close()
    text = console.export_text()
    problems = broken_ids(text, [*MUTANT_IDS, *NODE_IDS])
    assert not problems, f"the report table at {width} columns breaks ids:\n" + "\n".join(
        problems) + "\n" + text
    assert "…" not in text, f"the report table cuts something at {width} columns:\n{text}"
    for record in records():
        assert record.verdict in text, f"{record.verdict} cut at {width} columns:\n{text}"
    table = [line for line in text.splitlines() if line[:1] in "┏┃┡│└"]
    assert table and all(len(line) <= width for line in table), (
        f"the report table is wider than {width} columns:\n{text}")


def test_the_split_check_itself_sees_a_folded_id():
    folded = "│ test_draining_ran│\n│ k_admits_nothing │"
    assert split_tokens(folded, ["test_draining_rank_admits_nothing"]), (
        "split_tokens accepted an id folded across two lines")
    assert not split_tokens("│ test_draining_rank_admi… │",
                            ["test_draining_rank_admits_nothing"]), (
        "split_tokens rejected an honest cut that ends with an ellipsis")


def _catalog(tmp_path: Path) -> Path:
    path = tmp_path / "mutants.toml"
    write_owner_tests(tmp_path)
    # the target's module must exist (a module that exists nowhere is refused, issue 31):
    # written here, not left to whatever another test put on sys.path
    (tmp_path / "pkg").mkdir(exist_ok=True)
    (tmp_path / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg" / "limits.py").write_text("def local_admit_limit():\n    return 0\n",
                                                encoding="utf-8")
    blocks = []
    for mutant_id in MUTANT_IDS:
        blocks.append(f'''[[mutant]]
id = "{mutant_id}"
title = "draining rank admits its full budget"
target = "pkg.limits:local_admit_limit"
operator = "replace"
old = "0"
new = "1"
owners = ["{DRAIN}", "{HEADROOM}", "{E2E}"]
''')
    path.write_text("\n".join(blocks), encoding="utf-8")
    return path


@pytest.mark.parametrize("width", WIDTHS)
def test_mutants_list_never_breaks_a_line_inside_a_token(tmp_path: Path, width: int):
    catalog = load_catalog(_catalog(tmp_path))
    text = _text(catalog_listing(catalog.mutants, width), width, soft_wrap=True)
    problems = broken_ids(text, [*MUTANT_IDS, *NODE_IDS, "pkg.limits:local_admit_limit"],
                          column=None)
    assert not problems, f"`mutants list` at {width} columns:\n" + "\n".join(problems) + text
    assert not too_wide(text, width), "\n".join(too_wide(text, width))


def _shortfall_block(verdict: str) -> str:
    text = shortfall_report(records(), width=1000)  # the content; the width is tested apart
    block = next((b for b in text.split("\n\n") if b.startswith(verdict)), "")
    assert block, f"no {verdict} block in the shortfall report:\n{text}"
    return block


def test_survived_prints_its_owner_list_once():
    block = _shortfall_block("SURVIVED")
    for owner in (DRAIN, HEADROOM):
        assert block.count(owner) == 1, (
            f"SURVIVED names owner {owner} {block.count(owner)} times instead of once:\n{block}")


def test_owner_missed_prints_the_failure_once():
    block = _shortfall_block("OWNER_MISSED")
    message = FAILURE.partition(": ")[2]
    assert block.count(message) == 1, (
        f"OWNER_MISSED prints the failure {block.count(message)} times instead of once:\n{block}")
    assert block.count(E2E) == 1, f"OWNER_MISSED names the non-owner more than once:\n{block}"


def test_markdown_says_each_owner_and_failure_once():
    data = ReportData(run=RunRecord(kind="sweep", id=3), mutants=records())
    text = markdown.render(data)
    survived = text[text.index("#### SURVIVED"):text.index("#### OWNER_MISSED")]
    for owner in (DRAIN, HEADROOM):
        assert survived.count(owner) == 1, (
            f"the Markdown SURVIVED section names {owner} {survived.count(owner)} times:\n"
            f"{survived}")
    missed = text[text.index("#### OWNER_MISSED"):text.index("#### WRONG_FAILURE")]
    message = FAILURE.partition(": ")[2]
    assert missed.count(message) == 1, (
        f"the Markdown OWNER_MISSED section prints the failure {missed.count(message)} times:\n"
        f"{missed}")


def test_wrong_failure_names_only_the_owner_that_failed_that_way_and_a_fix():
    block = _shortfall_block("WRONG_FAILURE")
    head = block.splitlines()[0]
    assert DRAIN in head and HEADROOM not in head, (
        f"WRONG_FAILURE must name only the owner that failed for another reason ({DRAIN}), "
        f"not {HEADROOM}, which passed:\n{block}")
    assert "fix:" in block and 'expect = "TypeError"' in block, (
        f"WRONG_FAILURE suggests no fix naming the crash it saw:\n{block}")


def test_summary_line_colours_a_duration_as_one_token():
    result = SweepResult(records=records(), baseline={}, started_at="", finished_at="",
                         duration_s=20.7, workers=2)
    console = Console(width=80, force_terminal=True, color_system="standard")
    segments = list(console.render(summary_text(result), console.options))
    assert any("20.7s" in segment.text for segment in segments), (
        "the duration 20.7s is split across styles: "
        + repr([s.text for s in segments if s.text.strip()]))
    plain = summary_text(result).plain
    assert "\n" not in plain and plain.startswith("4 mutants in 20.7s"), (
        f"the summary is not one plain line a CI log keeps: {plain!r}")
