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
                                           "tests/test_ops.py::test_div_true"]
    new = {i["id"]: i["new_test"] for i in report["regressions"]}
    assert new == {"tests/test_ops.py::test_broken_on_branch": True,
                   "tests/test_ops.py::test_div_true": False}, (
        f"new_test per regression is {new}: a failing test absent on the base "
        f"(test_broken_on_branch) must be marked (new test), one the base has must not "
        f"(docs/gate.md: 'New tests that fail are regressions too, marked (new test).')")
    assert code == 1 and report["exit_code"] == 1


def test_repairs_pre_existing_and_flaky_are_separate(gated) -> None:
    _, report, _, _, _, runs = gated
    assert _ids(report, "repairs") == ["tests/test_ops.py::test_sub_old"]
    assert _ids(report, "pre_existing") == ["tests/test_ops.py::test_neg"]
    assert _ids(report, "flaky") == ["tests/test_flaky.py::test_flaky"]
    assert runs == 3  # base, branch, and the one re-run: no runner retries


def test_counts_per_side_and_collection_errors(gated) -> None:
    _, report, markdown, _, _, _ = gated
    base, branch = report["sides"]["base"], report["sides"]["branch"]
    assert base["counts"]["failed"] == 2 and base["counts"]["passed"] == 4
    assert branch["counts"]["failed"] == 4 and branch["counts"]["passed"] == 7
    assert base["isolation"]["violations"] == {} == branch["isolation"]["violations"]
    assert base["isolation"]["processes"] == 3  # controller + 2 xdist workers audited
    assert "| base (`" in markdown and "2 failed / 4 passed" in markdown


def test_user_tree_and_index_untouched(gated) -> None:
    _, _, _, before, after, _ = gated
    assert before == after


def test_a_branch_without_regressions_holds(tmp_path, monkeypatch) -> None:
    project = build(tmp_path / "repo")
    monkeypatch.setenv("GATE_FLAKY_COUNTER", str(tmp_path / "runs"))
    monkeypatch.chdir(project.root)
    code = main(["regress", "--base", "main", "tests/test_square.py", "--json",
                 str(tmp_path / "r.json")])
    report = json.loads((tmp_path / "r.json").read_text())
    assert code == 0 and report["holds"] is True
    assert report["sides"]["base"]["counts"]["passed"] == 0  # the file is new on the branch
    assert report["notes"] == ["absent on base (branch side only): tests/test_square.py"]
