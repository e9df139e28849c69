"""regress on a real git history: regression, repair, pre-existing, flaky, new failing test."""

from __future__ import annotations

import json

import pytest

from deskcheck.cli import main
from tests.gate.scenario import build

pytestmark = pytest.mark.xdist_group("gate-regress")


@pytest.fixture(scope="module")
def gated(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("regress")
    project = build(root / "repo")
    before = project.snapshot()
    out_json, out_md = root / "r.json", root / "r.md"
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(project.root)
        mp.delenv("PYTHONPATH", raising=False)
        mp.setenv("GATE_FLAKY_COUNTER", str(root / "flaky-runs"))
        code = main(["regress", "--base", "main", "-n", "2", "--json", str(out_json),
                     "--markdown", str(out_md)])
        runs = int((root / "flaky-runs").read_text())
    return code, json.loads(out_json.read_text()), out_md.read_text(), before, \
        project.snapshot(), runs


def _ids(report, key):
    return [item["id"] for item in report[key]]


def test_only_on_branch_failures_are_regressions(gated) -> None:
    code, report, _, _, _, _ = gated
    assert _ids(report, "regressions") == ["tests/test_ops.py::test_broken_on_branch",
                                           "tests/test_ops.py::test_div_true"], (
        "the regressions must be the tests that fail on the branch but not on base; they are "
        f"{_ids(report, 'regressions')}"
    )
    new = {i["id"]: i["new_test"] for i in report["regressions"]}
    assert new == {"tests/test_ops.py::test_broken_on_branch": True,
                   "tests/test_ops.py::test_div_true": False}, (
        f"new_test per regression is {new}: a failing test absent on the base "
        f"(test_broken_on_branch) must be marked (new test), one the base has must not "
        f"(docs/gate.md: 'New tests that fail are regressions too, marked (new test).')")
    assert code == 1 and report["exit_code"] == 1, (
        f"a regression must make regress exit 1; it exited {code}, JSON exit_code "
        f"{report['exit_code']}"
    )


def test_repairs_pre_existing_and_flaky_are_separate(gated) -> None:
    _, report, _, _, _, runs = gated
    assert _ids(report, "repairs") == ["tests/test_ops.py::test_sub_old"], (
        "the repair must be test_sub_old (failed on base, passes on the branch); repairs "
        f"{_ids(report, 'repairs')}"
    )
    assert _ids(report, "pre_existing") == ["tests/test_ops.py::test_neg"], (
        "the pre-existing failure must be test_neg (fails on both); pre_existing "
        f"{_ids(report, 'pre_existing')}"
    )
    assert _ids(report, "flaky") == ["tests/test_flaky.py::test_flaky"], (
        f"the flaky test must be test_flaky (passes on the re-run); flaky {_ids(report, 'flaky')}"
    )
    assert runs == 3, (
        "the flaky test must run 3 times (base, branch, one re-run), with no runner retries; "
        f"it ran {runs} times"
    )  # base, branch, and the one re-run: no runner retries


def test_counts_per_side_and_collection_errors(gated) -> None:
    _, report, markdown, _, _, _ = gated
    base, branch = report["sides"]["base"], report["sides"]["branch"]
    assert base["counts"]["failed"] == 2 and base["counts"]["passed"] == 4, (
        f"the base side must count 2 failed / 4 passed; it counts {base['counts']}"
    )
    assert branch["counts"]["failed"] == 4 and branch["counts"]["passed"] == 7, (
        f"the branch side must count 4 failed / 7 passed; it counts {branch['counts']}"
    )
    assert base["isolation"]["violations"] == {} == branch["isolation"]["violations"], (
        f"each side must load only its own code; violations base {base['isolation']['violations']}"
        f", branch {branch['isolation']['violations']}"
    )
    assert base["isolation"]["processes"] == 3, (
        "the base side must audit 3 processes (controller + 2 xdist workers); it audited "
        f"{base['isolation']['processes']}"
    )  # controller + 2 xdist workers audited
    assert "| base (`" in markdown and "2 failed / 4 passed" in markdown, (
        f"the PR comment must show the base side's counts '2 failed / 4 passed':\n{markdown}"
    )


def test_user_tree_and_index_untouched(gated) -> None:
    _, _, _, before, after, _ = gated
    assert before == after, "regress moved the user's tree or index"


def test_a_branch_without_regressions_holds(tmp_path, monkeypatch) -> None:
    project = build(tmp_path / "repo")
    monkeypatch.setenv("GATE_FLAKY_COUNTER", str(tmp_path / "runs"))
    monkeypatch.chdir(project.root)
    code = main(["regress", "--base", "main", "tests/test_square.py", "--json",
                 str(tmp_path / "r.json")])
    report = json.loads((tmp_path / "r.json").read_text())
    assert code == 0 and report["holds"] is True, (
        f"a branch without regressions must hold (exit 0); it exited {code}, holds "
        f"{report['holds']}"
    )
    assert report["sides"]["base"]["counts"]["passed"] == 0, (
        "a test file new on the branch must count nothing on base; base counts "
        f"{report['sides']['base']['counts']}"
    )  # the file is new on the branch
    assert report["notes"] == ["absent on base (branch side only): tests/test_square.py"], (
        f"regress must note the file absent on base; notes {report['notes']}"
    )
