"""Gates on ordinary test shapes: unittest ``subTest``, rst and docstring doctests, pytest
configured in any of its five files (issue 30, cases 1 and 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deskcheck.cli import main
from tests.shapes.projects import CONFIGS, escape_project

TABLE = "tests/test_escape.py::EscapeTest::test_table"
RST = "docs/usage.rst::usage.rst"
DOCSTRING = "src/esc/__init__.py::esc.escape"


def _gate(project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str):
    out = tmp_path / "gate.json"
    md = tmp_path / "gate.md"
    monkeypatch.chdir(project.root)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    code = main([*args, "--base", "main", "-n", "0", "--json", str(out), "--markdown", str(md)]
                if args[0] == "regress" else
                [*args, "--base", "main", "--json", str(out), "--markdown", str(md)])
    return code, json.loads(out.read_text()), md.read_text()


def test_redfirst_sees_failed_subtests_on_base(tmp_path, monkeypatch) -> None:
    project = escape_project(tmp_path / "repo")
    code, report, markdown = _gate(project, tmp_path, monkeypatch, "redfirst")
    verdicts = {t["id"]: t for t in report["tests"]}
    assert TABLE in verdicts, f"the changed subTest method was not judged: {sorted(verdicts)}"
    table = verdicts[TABLE]
    assert table["verdict"] == "RED_GREEN", (
        f"two subtests fail on base, yet the method was judged {table['verdict']} "
        f"({table['detail']})")
    assert table["base_subtests_failed"] == ["(given='\"')", "(given='x\"y')"], (
        f"the failed subtests are not named: {table}")
    assert "given='x\"y'" in table["detail"] and "given='x\"y'" in markdown, (
        "the failed subtest's name is not in the detail/Markdown")
    assert code == 0, f"every changed test is red-first, yet the gate said {code}"


def test_redfirst_selects_changed_doctests(tmp_path, monkeypatch) -> None:
    project = escape_project(tmp_path / "repo")
    _, report, _ = _gate(project, tmp_path, monkeypatch, "redfirst")
    verdicts = {t["id"]: t["verdict"] for t in report["tests"]}
    assert verdicts.get(RST) == "RED_GREEN", (
        f"the changed rst doctest was not judged RED_GREEN: {verdicts}")
    assert DOCSTRING in verdicts, f"the new docstring doctest was not selected: {verdicts}"
    assert verdicts[DOCSTRING] == "WEAK_RED", (
        "a doctest the base's docstring lacks is not collected there: a weak red")
    assert "untested_production_change" in report and not report["untested_production_change"], (
        "the report must hold the key untested_production_change, empty when the change is "
        f"tested; it is {report.get('untested_production_change', '<missing>')}"
    )


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_every_pytest_config_file_is_read(config, tmp_path, monkeypatch) -> None:
    project = escape_project(tmp_path / "repo", config=config)
    _, report, _ = _gate(project, tmp_path, monkeypatch, "redfirst")
    ids = {t["id"] for t in report["tests"]}
    assert {TABLE, RST, DOCSTRING} <= ids, (
        f"with pytest configured in {config}, the changed tests judged were {sorted(ids)}")


def test_regress_counts_a_failed_subtest_as_a_regression(tmp_path, monkeypatch) -> None:
    project = escape_project(tmp_path / "repo")
    project.git("checkout", "-q", "-b", "broken")
    project.write("src/esc/__init__.py", (project.root / "src/esc/__init__.py").read_text()
                  .replace(""".replace('"', '\\\\"')""", ""))
    project.commit("break the quote again")
    project.git("checkout", "-q", "feature")
    project.git("checkout", "-q", "-b", "later")
    project.git("merge", "-q", "--ff-only", "broken")
    monkeypatch.chdir(project.root)
    out = tmp_path / "r.json"
    code = main(["regress", "--base", "feature", "-n", "0", "--no-rerun", "--json", str(out),
                 "--markdown", str(tmp_path / "r.md")])
    report = json.loads(out.read_text())
    regressions = {r["id"]: r for r in report["regressions"]}
    assert TABLE in regressions, (
        f"only subtests fail on the branch, yet regress found {sorted(regressions)} "
        f"(branch exit status {report['sides']['branch']['exitstatus']})")
    assert regressions[TABLE]["branch_subtests_failed"] == ["(given='\"')", "(given='x\"y')"], (
        "a regression whose subtests fail must list those subtests; branch_subtests_failed is "
        f"{regressions[TABLE]['branch_subtests_failed']}"
    )
    assert "given='x\"y'" in (tmp_path / "r.md").read_text(), "the Markdown names no subtest"
    assert code == 1, f"`regress` must exit 1 when it finds a regression; it exited {code}"
