"""The HTML report is one offline file; headless Chromium renders every mutant."""

from __future__ import annotations

import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from deskcheck.report.renderers.html_report import render
from deskcheck.report.reportdata import ReportData, load_report
from deskcheck.report.store import Store

pytestmark = pytest.mark.xdist_group("report-chromium")


class _Dom(HTMLParser):
    """Mutant articles (id, verdict, hidden) and the shown-count text of a rendered page."""

    def __init__(self) -> None:
        super().__init__()
        self.mutants: dict[str, dict[str, str | None]] = {}
        self.count_text = ""
        self.external: list[str] = []
        self._in_count = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "article" and attributes.get("data-mutant-id"):
            self.mutants[attributes["data-mutant-id"]] = attributes
        for name in ("src", "href"):
            value = attributes.get(name) or ""
            if re.match(r"(https?:)?//", value):
                self.external.append(value)
        self._in_count = attributes.get("id") == "shown-count"

    def handle_data(self, data):
        if self._in_count:
            self.count_text += data

    def handle_endtag(self, tag):
        self._in_count = False


def _dump_dom(chromium: str, page: Path, fragment: str, profile: Path) -> _Dom:
    done = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--disable-background-networking", "--disable-component-update", "--no-first-run",
         "--no-default-browser-check", f"--user-data-dir={profile}", "--dump-dom",
         page.as_uri() + fragment],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    dom = _Dom()
    dom.feed(done.stdout)
    return dom


@pytest.fixture
def data(store: Store, recorded_run: int) -> ReportData:
    return load_report(store, recorded_run)


def test_html_is_self_contained_and_escapes_what_it_shows(data: ReportData):
    page = render(data)
    assert "<script>alert(1)</script>" not in page, (
        "the HTML report put a title in as markup (<script>alert(1)</script>): titles must be "
        "escaped text"
    )  # a title is text, never markup
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page, (
        "the HTML report must show the escaped title &lt;script&gt;alert(1)&lt;/script&gt;"
    )
    dom = _Dom()
    dom.feed(page)
    assert dom.external == [] and "<link" not in page and "@import" not in page, (
        "the HTML report must be self-contained (no external resource, <link> or @import); "
        f"external: {dom.external}"
    )
    assert set(dom.mutants) == {m.id for m in data.mutants}, (
        f"the HTML report must have one entry per mutant; it has {sorted(dom.mutants)}"
    )
    # the target's source is inline, with the mutated line marked
    marked = re.findall(r'title="mutated by ([^"]+)"', page)
    assert any("ballot.M2" in ids.split(", ") for ids in marked), (
        f"no marked line of the HTML report names the mutant ballot.M2; marked: {marked}")
    assert "def advance_mismatch_streak" in page, (
        "the HTML report must show the target's source inline (def advance_mismatch_streak)"
    )


def test_chromium_renders_every_mutant_offline(chromium: str, data: ReportData,
                                               tmp_path: Path):
    page = tmp_path / "report.html"
    page.write_text(render(data), encoding="utf-8")
    dom = _dump_dom(chromium, page, "", tmp_path / "profile")
    assert set(dom.mutants) == {m.id for m in data.mutants}, (
        f"chromium must render one entry per mutant; it rendered {sorted(dom.mutants)}"
    )
    assert all(attrs.get("hidden") is None for attrs in dom.mutants.values()), (
        "with no filter every mutant must be shown; hidden: "
        f"{[i for i, a in dom.mutants.items() if a.get('hidden') is not None]}"
    )
    total = len(data.mutants)
    assert dom.count_text == f"{total} of {total} mutants shown", (
        f"the inline script must count '{total} of {total} mutants shown'; the page says "
        f"{dom.count_text!r}"
    )  # the inline script ran


def test_chromium_filters_by_verdict_from_the_address(chromium: str, data: ReportData,
                                                      tmp_path: Path):
    page = tmp_path / "report.html"
    page.write_text(render(data), encoding="utf-8")
    dom = _dump_dom(chromium, page, "#verdict=SURVIVED", tmp_path / "profile")
    shown = {i for i, attrs in dom.mutants.items() if attrs.get("hidden") is None}
    assert shown == {m.id for m in data.mutants if m.verdict == "SURVIVED"} == {"ballot.M2"}, (
        f"#verdict=SURVIVED must show only the survivor ballot.M2; it shows {sorted(shown)}"
    )
    assert dom.count_text == f"1 of {len(data.mutants)} mutants shown", (
        f"#verdict=SURVIVED must count '1 of {len(data.mutants)} mutants shown'; the page says "
        f"{dom.count_text!r}"
    )


def _line_colours(page: str) -> dict[str, str]:
    """``{'mutated by IDS': verdict}`` of every marked source line."""
    return {ids: verdict for verdict, ids in re.findall(
        r'data-line-verdict="([A-Z_]+)" title="mutated by ([^"]+)"', page)}


@pytest.mark.parametrize("other", ["SURVIVED", "TIMEOUT", "STALE"])
def test_a_line_two_mutants_share_is_coloured_by_the_worst_verdict(other: str):
    from deskcheck.report.records import MutantRecord, RunRecord
    from tests.report.sample_records import BALLOT_FILE, BALLOT_SOURCE, every_verdict_mutants

    killed = next(m for m in every_verdict_mutants() if m.verdict == "KILLED")
    twin = MutantRecord(**{**killed.to_json(), "id": killed.id + "_twin", "verdict": other})
    for first, second in ((killed, twin), (twin, killed)):  # whichever is recorded first
        page = render(ReportData(run=RunRecord(kind="sweep", id=1), mutants=[first, second],
                                 sources={BALLOT_FILE: BALLOT_SOURCE}))
        colours = _line_colours(page)
        shared = {ids: v for ids, v in colours.items() if ", " in ids}
        assert shared and set(shared.values()) == {other}, (
            f"docs/report.md: each mutated source line is coloured by the worst verdict on "
            f"it; a line mutated by a KILLED and a {other} mutant is coloured {shared}")
    alone = render(ReportData(run=RunRecord(kind="sweep", id=1), mutants=[killed],
                              sources={BALLOT_FILE: BALLOT_SOURCE}))
    assert set(_line_colours(alone).values()) == {"KILLED"}, (
        f"a line only a KILLED mutant touches is coloured KILLED; it is "
        f"{_line_colours(alone)}")
