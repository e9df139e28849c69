"""redfirst on a real git history exercising every verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deskcheck.cli import main
from deskcheck.gate import run_redfirst
from tests.gate.gitproject import GitProject
from tests.gate.scenario import build

pytestmark = pytest.mark.xdist_group("gate-redfirst")

EXPECTED = {
    "tests/test_ops.py::test_sub_is_fixed": "RED_GREEN",
    "tests/test_ops.py::test_div_exact": "RED_GREEN",
    "tests/test_ops.py::test_add_still_adds": "PIN",
    "tests/test_ops.py::test_add_unmarked": "GREEN_ON_BASE",
    "tests/test_ops.py::test_broken_on_branch": "RED_ON_BRANCH",
    "tests/test_square.py::test_square": "WEAK_RED",
}


@pytest.fixture(scope="module")
def gated(tmp_path_factory: pytest.TempPathFactory):
    """One CLI run on the scenario: (project, exit code, JSON, markdown, snapshots)."""
    root = tmp_path_factory.mktemp("redfirst")
    project = build(root / "repo")
    before = project.snapshot()
    out_json, out_md = root / "out" / "r.json", root / "out" / "r.md"
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(project.root)
        mp.delenv("PYTHONPATH", raising=False)
        code = main(["redfirst", "--base", "main", "--json", str(out_json),
                     "--markdown", str(out_md)])
    after = project.snapshot()
    return project, code, json.loads(out_json.read_text()), out_md.read_text(), before, after


def test_every_verdict_is_reached(gated) -> None:
    _, _, report, _, _, _ = gated
    assert {t["id"]: t["verdict"] for t in report["tests"]} == EXPECTED, (
        "red-first must reach every verdict as expected; it gave "
        f"{ {t['id']: t['verdict'] for t in report['tests']} }"
    )


def test_unmarked_green_and_branch_red_make_the_gate_fall_short(gated) -> None:
    _, code, report, _, _, _ = gated
    assert code == 1, (
        "an unmarked GREEN_ON_BASE and a RED_ON_BRANCH must make redfirst exit 1 (falls short); "
        f"it exited {code}"
    )
    assert report["exit_code"] == 1 and report["holds"] is False, (
        f"the JSON must say exit_code 1 and holds false; it says {report['exit_code']}, "
        f"{report['holds']}"
    )
    assert report["counts"] == {"RED_GREEN": 2, "WEAK_RED": 1, "PIN": 1, "GREEN_ON_BASE": 1,
                                "RED_ON_BRANCH": 1, "NO_EVIDENCE": 0, "TEST_ONLY": 0}, (
        f"the JSON counts must be one per verdict reached; they are {report['counts']}"
    )


def test_selection_is_per_function_and_knows_added_from_modified(gated) -> None:
    _, _, report, _, _, _ = gated
    changes = {s["id"]: s["change"] for s in report["selected"]}
    assert changes["tests/test_ops.py::test_div_exact"] == "modified", (
        "an edited test function must be modified; it is "
        f"{changes.get('tests/test_ops.py::test_div_exact')}"
    )
    assert changes["tests/test_ops.py::test_sub_is_fixed"] == "added", (
        "a new test function must be added; it is "
        f"{changes.get('tests/test_ops.py::test_sub_is_fixed')}"
    )
    assert "tests/test_ops.py::test_add" not in changes, (
        "the unchanged test_add was selected: selection must be per function"
    )  # unchanged
    assert "tests/test_flaky.py::test_flaky" not in changes, (
        "the unchanged test_flaky was selected: selection must be per function"
    )


def test_outcomes_come_from_each_side(gated) -> None:
    _, _, report, _, _, _ = gated
    by_id = {t["id"]: t for t in report["tests"]}
    assert by_id["tests/test_square.py::test_square"]["base"] == "collection_error", (
        "a test importing a module new on the branch must be a collection_error on base; it is "
        f"{by_id['tests/test_square.py::test_square']['base']}"
    )
    assert "calc.square" in by_id["tests/test_square.py::test_square"]["detail"], (
        "the collection error detail must name calc.square; it is "
        f"{by_id['tests/test_square.py::test_square']['detail']!r}"
    )
    assert by_id["tests/test_ops.py::test_sub_is_fixed"]["base"] == "failed", (
        "test_sub_is_fixed must fail on base; it "
        f"{by_id['tests/test_ops.py::test_sub_is_fixed']['base']}"
    )
    assert by_id["tests/test_ops.py::test_add_still_adds"]["pin"] == (
        "add is unchanged by this branch"), (
        "the pin reason must be kept; it is "
        f"{by_id['tests/test_ops.py::test_add_still_adds']['pin']!r}"
    )


def test_base_side_ran_base_code_and_branch_side_branch_code(gated) -> None:
    project, _, report, _, _, _ = gated
    base, branch = report["sides"]["base"]["isolation"], report["sides"]["branch"]["isolation"]
    assert base["violations"] == {} and branch["violations"] == {}, (
        f"each side must load only its own code; violations base {base['violations']}, branch "
        f"{branch['violations']}"
    )
    assert base["production_modules_loaded"] >= 2, (
        "the base side must load the production modules (>= 2); it loaded "
        f"{base['production_modules_loaded']}"
    )
    assert all("deskcheck-gate-" in f and "/base/" in f for f in base["sample"].values()), (
        "the base side must load from the deskcheck-gate- base worktree; it loaded "
        f"{base['sample']}"
    )
    assert all(f.startswith(str(project.root)) for f in branch["sample"].values()), (
        f"the branch side must load from the project tree {project.root}; it loaded "
        f"{branch['sample']}"
    )


def test_user_tree_index_and_worktrees_untouched(gated) -> None:
    _, _, _, _, before, after = gated
    assert before == after, "the gate moved the user's tree, index or worktree list"
    status, _, worktrees = after
    assert status == "", f"the gate left the tree dirty: {status!r}"
    assert worktrees.count("worktree ") == 1, (
        f"the scratch worktree must be removed and pruned; worktrees: {worktrees}"
    )  # the scratch worktree was removed and pruned


def test_markdown_is_a_pr_comment(gated) -> None:
    _, _, _, markdown, _, _ = gated
    assert markdown.startswith("### deskcheck redfirst: :x: falls short"), (
        "the PR comment must open '### deskcheck redfirst: :x: falls short'; it opens "
        f"{markdown[:120]!r}"
    )
    assert "| GREEN_ON_BASE | `tests/test_ops.py::test_add_unmarked` |" in markdown, (
        f"the PR comment must list test_add_unmarked as GREEN_ON_BASE in its table:\n{markdown}"
    )


def _holding_branch(root: Path) -> GitProject:
    project = build(root)
    text = (project.root / "tests/test_ops.py").read_text()
    text = text.replace("def test_add_unmarked():", "@pytest.mark.pin('guards add')\n"
                        "def test_add_unmarked():")
    text = text.replace("assert sub(1, 1) == 1", "assert sub(1, 1) == 0")
    project.write("tests/test_ops.py", text)  # left uncommitted: the dirty-tree policy
    return project


def test_a_branch_of_red_greens_pins_and_weak_reds_holds(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    project = _holding_branch(tmp_path / "repo")
    monkeypatch.delenv("PYTHONPATH", raising=False)
    report = run_redfirst("main", cwd=project.root)
    verdicts = {t.id: t.verdict for t in report.tests}
    assert verdicts["tests/test_ops.py::test_add_unmarked"] == "PIN", (
        "a test marked pin('guards add') green on base must be PIN; it is "
        f"{verdicts['tests/test_ops.py::test_add_unmarked']}"
    )
    assert verdicts["tests/test_ops.py::test_broken_on_branch"] == "RED_GREEN", (
        "a test red on base and green on the dirty branch must be RED_GREEN; it is "
        f"{verdicts['tests/test_ops.py::test_broken_on_branch']}"
    )
    assert report.exit_code == 0, (
        f"red greens, pins and weak reds must hold (exit 0); it exited {report.exit_code}"
    )
    assert report.context["dirty"] is True, (
        f"the gate must say the working tree was dirty; context {report.context}"
    )  # the working tree was gated as is
    assert report.context["dirty_paths"] == ["tests/test_ops.py"], (
        "the gate must name the dirty path tests/test_ops.py; it names "
        f"{report.context.get('dirty_paths')}"
    )
    strict = run_redfirst("main", ["tests/test_square.py"], cwd=project.root, strict=True,
                          parallel=True)
    assert [t.verdict for t in strict.tests] == ["WEAK_RED"], (
        f"test_square must be WEAK_RED; verdicts {[t.verdict for t in strict.tests]}"
    )
    assert strict.exit_code == 1, (
        f"--strict must fail a WEAK_RED (exit 1); it exited {strict.exit_code}"
    )  # --strict: weak evidence is not enough


def test_no_changed_tests_holds_with_a_note(tmp_path: Path) -> None:
    project = build(tmp_path / "repo")
    report = run_redfirst("feature", cwd=project.root)
    assert report.tests == [] and report.exit_code == 0, (
        f"no changed test must hold with no tests; tests {report.tests}, exit {report.exit_code}"
    )
    assert any("no test functions added or changed" in n for n in report.notes), (
        f"a change with no test functions must say so in the notes; they are {report.notes}")
