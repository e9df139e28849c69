"""Acceptance (issue 29): on the reference target, `sweep --auto` over a branch that changes the
packed MIN reduce generates bug-class mutants first, and a congruence arm kills each one."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from tests.auto.newcomer_branch import make_newcomer_branch

pytestmark = [pytest.mark.xdist_group("auto-coverage"),
              pytest.mark.skipif(sys.platform != "linux", reason="gloo ranks by fork")]
CONGRUENCE = "tests/test_congruence_suites.py"


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    repo = make_newcomer_branch(tmp_path_factory.mktemp("reduce") / "repo",
                                with_collective_touch=True)
    out = repo.parent / "auto.json"
    done = subprocess.run(
        [sys.executable, "-m", "deskcheck.cli", "sweep", "--auto", "--changed-since", "main",
         "--max-mutants", "3", "--json", str(out), "--no-store", "--workers", "2",
         "--tests", CONGRUENCE, "tests/test_scheduler_state.py"],
        cwd=repo, capture_output=True, text=True, timeout=900,
        env={**os.environ, "CUDA_VISIBLE_DEVICES": "", "COLUMNS": "200"})
    assert out.is_file(), done.stdout[-3000:] + done.stderr[-3000:]
    return done, json.loads(out.read_text())


def test_the_bug_class_mutants_come_first_and_a_congruence_arm_kills_each(swept):
    done, report = swept
    families = sorted(m["detail"]["auto"]["family"] for m in report["mutants"])
    assert families == ["LOCAL", "REDOP", "SKIP"], (
        f"with a cap of 3 the mutants kept are {families}, not the three bug-class ones")
    for mutant in report["mutants"]:
        assert mutant["verdict"] == "KILLED", (mutant["id"], mutant["verdict"],
                                               mutant["excerpt"][:500])
        assert mutant["killed_by"][0].startswith(CONGRUENCE + "::"), (
            f"{mutant['id']} was killed by {mutant['killed_by']}, not a congruence arm")
    assert done.returncode == 0, done.stdout[-2000:]


def test_warm_rank_pools_give_every_congruence_test_its_coverage(swept):
    """Owners of code run only inside warm rank processes: every test that sent the ranks a
    task, not only the one that started the pool."""
    _, report = swept
    local = next(m for m in report["mutants"] if m["detail"]["auto"]["family"] == "LOCAL")
    arms = {o.split("[")[0] for o in local["owners"]}
    assert {f"{CONGRUENCE}::test_count_arm", f"{CONGRUENCE}::test_order_arm"} <= arms, (
        f"the rank-only read is owned only by {sorted(arms)}")


def test_the_kills_say_what_they_prove(swept):
    """LOCAL and REDOP give wrong values: an assertion. SKIP is killed by whichever covering
    congruence test runs first (fastest in the baseline, which load reorders): a diagnosed hang
    or an arm's assertion; the kind must be what that kill's excerpt shows, and the headline
    must count what the kills were (the hang kind is pinned with fixed owners in
    tests/mutants/test_bug_class_sweep.py)."""
    done, report = swept
    kinds = {m["detail"]["auto"]["family"]: m["detail"]["kill"] for m in report["mutants"]}
    assert {k: kinds.get(k) for k in ("LOCAL", "REDOP")} == {
        "LOCAL": "assertion", "REDOP": "assertion"}, (
        f"a wrong value must be a kill by an assertion, got {kinds}")
    skip = next(m for m in report["mutants"] if m["detail"]["auto"]["family"] == "SKIP")
    # a world-2 run says "rank 1 skipped", a world-3 run may say "ranks 1 and 2 skipped"
    shows = {"hang": (r"RankTimeoutError.*\b(rank \d+|ranks \d+(, \d+)* and \d+) "
                      r"(skipped|never reached)"),
             "assertion": r"AssertionError|CongruenceError|\bassert\b"}
    assert kinds["SKIP"] in shows and re.search(shows[kinds["SKIP"]], skip["excerpt"],
                                                re.DOTALL), (
        f"the SKIP mutant's kill is called {kinds['SKIP']!r} but its excerpt shows "
        f"{skip['excerpt'][:400]}")
    hangs = list(kinds.values()).count("hang")
    asserts = 3 - hangs
    headline = (f"3 KILLED: {asserts} by an assertion"
                + (f", {hangs} by a diagnosed hang" if hangs else ""))
    assert report["killed"] == headline, (
        f"the report's headline does not count the kills {kinds}: {report['killed']!r}")
    said = " ".join(done.stdout.split())  # the headline wraps at the screen's width
    assert f"{headline} -> holds" in said, (
        f"the headline must say what the kills prove ({headline}): {done.stdout[-600:]}")
