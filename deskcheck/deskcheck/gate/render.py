"""Terminal text and Markdown (a PR comment) for the two gate reports."""

from __future__ import annotations

from typing import Any

from deskcheck import screen
from deskcheck.gate.redfirst import (
    REDFIRST_VERDICTS,
    UNTESTED_CHANGE,
    RedFirstReport,
    subtest_words,
)
from deskcheck.gate.regress import FailingId, RegressReport

# The fix to try, printed under each test with that verdict (terminal and Markdown alike).
VERDICT_FIXES = {
    "GREEN_ON_BASE": "make it fail on the base code (assert what this branch changes), or, if "
                     "it guards behaviour base already has, mark it "
                     "@pytest.mark.pin(\"why it holds on base\")",
    "RED_ON_BRANCH": "the test fails on this branch: fix the code or the test before merging",
}
_ORDER = ("failed", "passed", "skipped", "error", "xfailed", "xpassed", "collection_errors")


def fixes_by_verdict(failing: list[Any]) -> list[tuple[str, int, str]]:
    """``(verdict, how many tests, the fix)`` once per failing verdict group."""
    counts: dict[str, int] = {}
    for test in failing:
        if test.verdict in VERDICT_FIXES:
            counts[test.verdict] = counts.get(test.verdict, 0) + 1
    return [(verdict, n, VERDICT_FIXES[verdict]) for verdict, n in counts.items()]


def side_counts(counts: dict[str, int]) -> str:
    """``246 failed / 4648 passed / 18 skipped / 8 errors`` (zero entries left out)."""
    names = {"error": "errors", "collection_errors": "collection errors"}
    parts = [f"{counts[k]} {names.get(k, k)}" for k in _ORDER if counts.get(k)]
    return " / ".join(parts) or "no tests"


def _side_line(name: str, side: dict[str, Any]) -> str:
    return f"{name}: {side_counts(side['counts'])} ({side['duration_s']:.2f} s)"


def redfirst_text(report: RedFirstReport, width: int | None = None) -> str:
    """The report for a terminal or a CI log, every line within ``width`` (the one width
    rule of ``deskcheck.screen``; ids broken only after a separator)."""
    ctx = report.context
    lines = [f"deskcheck redfirst: {ctx['ref']} merge-base {ctx['merge_base'][:12]}"
             f" .. HEAD {ctx['head'][:12]}" + (" + working-tree changes" if ctx["dirty"] else "")]
    counts = report.counts()
    if report.tests:
        red = sum(counts[v] for v in ("RED_GREEN", "WEAK_RED"))
        lines.append(f"RED-FIRST on base: {red} of {len(report.tests)} red "
                     f"({counts['WEAK_RED']} weak); {counts['PIN']} pins")
        for name, side in report.sides.items():
            iso = side["isolation"]
            lines.append(f"  {_side_line(name, side)}; {iso['production_modules_loaded']} "
                         f"production modules, all from the {name} tree")
        failing = report.failing
        for test in report.tests:
            mark = "FAIL" if test in failing else "ok"
            extra = f"  pin: {test.pin}" if test.pin else ""
            lines.append(f"  {mark:4} {test.verdict:13} {test.id}")
            lines.append(f"       {test.detail}{extra}")
        lines += [f"  fix ({verdict}, {n} test{'s' if n > 1 else ''}): {fix}"
                  for verdict, n, fix in fixes_by_verdict(failing)]
    lines.extend(f"  note: {n}" for n in report.notes)
    summary = ", ".join(f"{counts[v]} {v}" for v in REDFIRST_VERDICTS if counts[v])
    verdict = "HOLDS" if report.exit_code == 0 else "FALLS SHORT"
    if report.untested_production_change:
        summary = f"{UNTESTED_CHANGE} ({len(report.untested_production_change)} file(s))"
    lines.append(f"{verdict}: {summary or 'nothing to judge'}")
    if ctx["dirty"]:
        lines.append(f"  policy: {ctx['dirty_policy']}")
    return screen.block("\n".join(lines), width or screen.width())


def redfirst_markdown(report: RedFirstReport) -> str:
    ctx = report.context
    counts = report.counts()
    verdict = ":white_check_mark: holds" if report.exit_code == 0 else ":x: falls short"
    lines = [f"### deskcheck redfirst: {verdict}", "",
             f"Tests from this branch run against `{ctx['merge_base'][:12]}` "
             f"(merge-base with `{ctx['ref']}`), code never copied in; "
             "`__file__` of every production module checked.", ""]
    if report.sides:
        lines += ["| side | result |", "|---|---|"]
        lines += [f"| {n} | {side_counts(s['counts'])} ({s['duration_s']:.2f} s) |"
                  for n, s in report.sides.items()]
        lines.append("")
    lines.append(" · ".join(f"**{counts[v]}** {v}" for v in REDFIRST_VERDICTS) or "")
    if report.untested_production_change:
        lines += ["", f"**{UNTESTED_CHANGE}**: "
                  + ", ".join(f"`{p}`" for p in report.untested_production_change)]
    if report.tests:
        lines += ["", "| verdict | test | base | branch | note |", "|---|---|---|---|---|"]
        for t in report.tests:
            note = f"pin: {t.pin}" if t.pin else t.detail
            lines.append(f"| {t.verdict} | `{t.id}` | {t.base} | {t.branch} | "
                         f"{note.replace('|', '/')} |")
        fixes = fixes_by_verdict(report.failing)
        if fixes:
            lines.append("")
            lines += [f"- **fix** ({verdict}, {n} test{'s' if n > 1 else ''}): {fix}"
                      for verdict, n, fix in fixes]
    lines += [f"- {n}" for n in report.notes]
    if ctx["dirty"]:
        lines += ["", f"_Working tree was dirty: {ctx['dirty_policy']}._"]
    return "\n".join(lines) + "\n"


def _id_lines(title: str, items: list[FailingId], limit: int = 200) -> list[str]:
    if not items:
        return [f"{title}: none"]
    lines = [f"{title} ({len(items)}):"]
    for item in items[:limit]:
        new = " (new test)" if item.new_test else ""
        lines.append(f"  {item.id}  base={item.base} branch={item.branch}{new}"
                     + _subtests(item))
    if len(items) > limit:
        lines.append(f"  ... {len(items) - limit} more (see --json)")
    return lines


def _subtests(item: FailingId) -> str:
    names = item.branch_subtests_failed or item.base_subtests_failed
    return subtest_words(names)


def regress_text(report: RegressReport, width: int | None = None) -> str:
    """Like ``redfirst_text``: every line within ``width``."""
    ctx = report.context
    lines = [f"deskcheck regress: {ctx['ref']} merge-base {ctx['merge_base'][:12]}"
             f" .. HEAD {ctx['head'][:12]}" + (" + working-tree changes" if ctx["dirty"] else "")]
    lines += [f"  {_side_line(n, s)}" for n, s in report.sides.items()]
    lines += _id_lines("regressions (only on branch)", report.regressions)
    lines += _id_lines("flaky (failed once on branch, passed on re-run)", report.flaky)
    lines += _id_lines("repairs (only on base)", report.repairs)
    lines += _id_lines("pre-existing (both)", report.pre_existing, limit=50)
    lines += [f"  note: {n}" for n in report.notes]
    verdict = "HOLDS" if report.exit_code == 0 else "FALLS SHORT"
    lines.append(f"{verdict}: {len(report.regressions)} regressions, {len(report.flaky)} flaky, "
                 f"{len(report.repairs)} repairs, {len(report.pre_existing)} pre-existing")
    if ctx["dirty"]:
        lines.append(f"  policy: {ctx['dirty_policy']}")
    return screen.block("\n".join(lines), width or screen.width())


def regress_markdown(report: RegressReport) -> str:
    ctx = report.context
    verdict = ":white_check_mark: holds" if report.exit_code == 0 else ":x: falls short"
    lines = [f"### deskcheck regress: {verdict}", "",
             "| side | result |", "|---|---|"]
    lines += [f"| {n} (`{(ctx['merge_base'] if n == 'base' else ctx['head'])[:12]}`) | "
              f"{side_counts(s['counts'])} ({s['duration_s']:.2f} s) |"
              for n, s in report.sides.items()]
    lines.append("")
    for title, items in (("Regressions (only on branch)", report.regressions),
                         ("Flaky (passed on re-run)", report.flaky),
                         ("Repairs (only on base)", report.repairs),
                         ("Pre-existing (both sides)", report.pre_existing)):
        lines.append(f"**{title}: {len(items)}**")
        if items:
            shown = items[:100]
            lines += ["<details><summary>ids</summary>", ""]
            lines += [f"- `{i.id}`" + (" (new test)" if i.new_test else "") + _subtests(i)
                      for i in shown]
            if len(items) > len(shown):
                lines.append(f"- ... {len(items) - len(shown)} more")
            lines += ["", "</details>"]
        lines.append("")
    lines += [f"- {n}" for n in report.notes]
    if ctx["dirty"]:
        lines.append(f"_Working tree was dirty: {ctx['dirty_policy']}._")
    return "\n".join(lines) + "\n"
