"""Acceptance: the auto sweep on a scratch branch of the reference target (tp_scheduler)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from deskcheck.mutants.auto.changes import changed_production_lines
from deskcheck.report.records import VERDICTS
from tests.auto.fixture_repo import git
from tests.auto.tp_scratch import EXAMPLE, make_scratch_branch

pytestmark = pytest.mark.xdist_group("auto-coverage")
RANK_ONLY = "tp_scheduler.scheduler_budget_mixin:SchedulerBudgetMixin._all_reduce_min"
# the target's test modules that start gloo ranks (found by content: the target is evolving)
GLOO = sorted(f"tests/{p.name}" for p in (EXAMPLE / "tests").glob("test_*.py")
              if "gloo" in p.read_text(encoding="utf-8"))
TESTS = ["tests/test_tp_head_congruence.py", *GLOO]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory):
    repo = make_scratch_branch(tmp_path_factory.mktemp("tp") / "tp_scheduler")
    out = repo.parent / "auto.json"
    done = subprocess.run(
        [sys.executable, "-m", "deskcheck.mutants.auto", "--changed-since", "main",
         "--json", str(out), "--no-store", "--workers", "2", "--tests", *TESTS],
        cwd=repo, capture_output=True, text=True, timeout=900,
        env={**os.environ, "CUDA_VISIBLE_DEVICES": "", "COLUMNS": "200"})
    assert out.is_file(), done.stdout + done.stderr
    return repo, done, json.loads(out.read_text())


def test_only_the_changed_lines_are_mutated(scratch):
    repo, _, report = scratch
    changed = {f.path: f.lines for f in changed_production_lines(repo, "main").files}
    assert set(changed) == {"tp_scheduler/tp_head_congruence.py",
                            "tp_scheduler/scheduler_budget_mixin.py"}, (
        "the scratch change touches two production files of tp_scheduler; the change set has "
        f"{sorted(changed)}"
    )
    assert report["mutants"], "the scratch change has mutable lines"
    for mutant in report["mutants"]:
        auto = mutant["detail"]["auto"]
        assert auto["line"] in changed[auto["path"]], mutant["id"]
    assert {m["target"] for m in report["mutants"]} == {
        "tp_scheduler.tp_head_congruence:group_count", RANK_ONLY}, (
        f"the mutants must target the changed functions group_count and {RANK_ONLY}; they target "
        f"{sorted({m['target'] for m in report['mutants']})}"
    )


def test_every_mutant_has_a_verdict_and_rank_only_code_is_owned(scratch):
    _, done, report = scratch
    assert done.returncode in (0, 1), done.stdout + done.stderr
    for mutant in report["mutants"]:
        assert mutant["verdict"] in VERDICTS, (mutant["id"], mutant["verdict"], done.stdout)
        assert mutant["owners"], mutant["id"]  # no "no tests", rank-only code included
    rank_only = [m for m in report["mutants"] if m["target"] == RANK_ONLY]
    assert len(rank_only) == 2, (
        "the rank-only function must get 2 mutants (the new `if` and the re-indented collective); "
        f"it got {[m['id'] for m in rank_only]}"
    )  # the new `if` and the re-indented collective
    assert GLOO, "the reference target has gloo rank tests"
    for mutant in rank_only:
        assert all(o.split("::")[0] in GLOO for o in mutant["owners"]), mutant["owners"]
    # the mutant reached the rank processes: a gloo owner failed under it (KILLED, or
    # WRONG_FAILURE when the rank raised e.g. a TypeError, which the engine does not count)
    failed = [m for m in rank_only if m["verdict"] in ("KILLED", "WRONG_FAILURE")]
    assert failed, [(m["id"], m["verdict"]) for m in rank_only]
    for mutant in failed:
        failing_test = (mutant["killed_by"] or [mutant["excerpt"].split(": ", 1)[0]])[0]
        assert failing_test.split("::")[0] in GLOO, mutant["excerpt"][:300]


def test_the_checkout_is_untouched(scratch):
    repo, _, _ = scratch
    assert git(repo, "status", "--porcelain") == "", (
        "an --auto run must leave the checkout clean; git status --porcelain says "
        f"{git(repo, 'status', '--porcelain')!r}"
    )
