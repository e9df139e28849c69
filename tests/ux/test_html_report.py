"""Issue 16 item 10: the HTML report's mutation score, per-verdict line highlighting, heading
counts that follow the filter, and SURVIVED cards that say what ran; checked in headless
Chromium, which also takes a screenshot (kept under the test's tmp folder)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from deskcheck.report.records import RunRecord
from deskcheck.report.renderers.html_report import render
from deskcheck.report.reportdata import ReportData
from tests.report.sample_records import (
    BALLOT_FILE,
    BALLOT_SOURCE,
    CONGRUENCE_FILE,
    CONGRUENCE_SOURCE,
    OWNER_BALLOT,
    every_verdict_mutants,
)

pytestmark = pytest.mark.xdist_group("report-chromium")
INSTALL = "apt-get update && apt-get install -y chromium"


def _data() -> ReportData:
    mutants = every_verdict_mutants()
    for m in mutants:
        if m.verdict == "SURVIVED":
            m.detail = {"items_run": [OWNER_BALLOT], "tests_s": 0.012}
    return ReportData(run=RunRecord(kind="sweep", id=7, commit="3f2a9c1d0e4b"), mutants=mutants,
                      sources={BALLOT_FILE: BALLOT_SOURCE, CONGRUENCE_FILE: CONGRUENCE_SOURCE})


def test_the_page_opens_with_the_mutation_score_accepted_survivors_apart():
    data = _data()
    page = render(data)
    killed = sum(m.verdict == "KILLED" for m in data.mutants)
    judged = sum(m.verdict in ("KILLED", "SURVIVED", "OWNER_MISSED", "WRONG_FAILURE", "TIMEOUT",
                               "NO_COVERAGE") for m in data.mutants)
    accepted = sum(m.verdict == "ACCEPTED_SURVIVOR" for m in data.mutants)
    expected = f"Mutation score <b>{100 * killed / judged:.1f}%</b>: {killed} killed by their " \
               f"owners of {judged} judged · {accepted} accepted survivor(s) shown apart"
    assert expected in page, (
        f"the score line is missing or wrong; expected {expected!r} in:\n"
        + re.search(r'<p class="score".*?</p>', page, re.S).group(0)
        if 'class="score"' in page else "the page has no mutation score")


def test_mutated_lines_are_coloured_by_their_mutants_verdict():
    page = render(_data())
    line_verdicts = dict(re.findall(
        r'data-line-verdict="([A-Z_]+)" title="mutated by ([^"]+)"', page))
    by_id = {m.id: m.verdict for m in _data().mutants}
    assert {"KILLED", "SURVIVED"} <= set(line_verdicts), (
        f"mutated lines are not marked per verdict (found only {sorted(line_verdicts)})")
    for verdict, ids in line_verdicts.items():
        assert verdict in {by_id[i] for i in ids.split(", ")}, (
            f"a line mutated by {ids} is coloured {verdict}, which none of them has")


def test_a_survived_card_says_which_tests_ran_and_passed():
    page = render(_data())
    card = re.search(r'<article class="mutant" id="mutant-ballot.M2".*?</article>', page, re.S)
    assert card, "no card for the SURVIVED mutant ballot.M2"
    assert "ran under the mutant and passed" in card.group(0) and OWNER_BALLOT in card.group(0), (
        f"the SURVIVED card does not say which tests ran and passed:\n{card.group(0)}")


class _Sections(HTMLParser):
    """Per target section: its heading count text and its visible mutant articles."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: list[dict] = []
        self._count = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section" and "target" in (a.get("class") or ""):
            self.sections.append({"hidden": "hidden" in a, "count": "", "shown": 0, "all": 0})
        elif tag == "article" and a.get("data-mutant-id") and self.sections:
            self.sections[-1]["all"] += 1
            self.sections[-1]["shown"] += "hidden" not in a
        self._count = tag == "span" and a.get("class") == "target-count"

    def handle_data(self, data):
        if self._count and self.sections:
            self.sections[-1]["count"] += data

    def handle_endtag(self, tag):
        self._count = False


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        if shutil.which(name):
            return shutil.which(name)
    pytest.skip(f"headless Chromium is not installed (install: {INSTALL})")


def _run_chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--no-first-run", "--disable-background-networking", "--hide-scrollbars",
         f"--user-data-dir={tmp_path / 'profile'}", *args],
        capture_output=True, text=True, timeout=180)


def test_heading_counts_follow_the_verdict_filter_in_chromium(tmp_path: Path):
    page = tmp_path / "report.html"
    page.write_text(render(_data()), encoding="utf-8")
    done = _run_chromium(tmp_path, "--dump-dom", page.as_uri() + "#verdict=SURVIVED")
    assert done.returncode == 0, done.stderr[-2000:]
    parser = _Sections()
    parser.feed(done.stdout)
    visible = [s for s in parser.sections if not s["hidden"]]
    assert visible, "the SURVIVED filter left no target section visible"
    for section in visible:
        words = section["count"].split()
        assert words and int(words[0]) == section["shown"], (
            f"a heading says {section['count']!r} while the filter shows {section['shown']} "
            f"of its {section['all']} mutants")


def test_chromium_screenshot_of_the_report(tmp_path: Path):
    page = tmp_path / "report.html"
    page.write_text(render(_data()), encoding="utf-8")
    shot = tmp_path / "report.png"
    done = _run_chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,1800",
                         page.as_uri())
    assert done.returncode == 0 and shot.is_file(), (
        f"headless Chromium took no screenshot: {done.stderr[-2000:]}")
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000, (
        f"the screenshot is not a rendered page ({len(data)} bytes)")
    keep = os.environ.get("DESKCHECK_KEEP_SCREENSHOT")
    if keep:  # a copy a person can look at
        shutil.copy(shot, keep)
