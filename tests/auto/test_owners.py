"""The owners coverage pass: covering tests per line, rank processes included."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from deskcheck.mutants.auto.changes import changed_production_lines
from deskcheck.mutants.auto.generate import generate_auto_mutants
from deskcheck.mutants.auto.owners import (
    IMPORT_TIME,
    CoveragePass,
    CoveragePassError,
    run_coverage_pass,
)
from tests.auto.fixture_repo import line_of

pytestmark = pytest.mark.xdist_group("auto-coverage")
DECIDE = "fixpkg/decide.py"
RANKS = "tests/test_ranks.py::test_ranks_agree"


def _pass_processes(root: Path) -> list[int]:
    """Processes of a coverage pass in ``root``: started there, with the pass's environment
    (the plugin's rcfile variable, or the rcfile children measure with)."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            environ = (proc / "environ").read_bytes()
            if (b"DESKCHECK_AUTO_RCFILE=" in environ or b"COVERAGE_PROCESS_START=" in environ) \
                    and Path(os.readlink(proc / "cwd")) == root:
                found.append(int(proc.name))
        except OSError:
            continue
    return found


@pytest.fixture(scope="module")
def full_pass(fixture_repo: Path) -> CoveragePass:
    return run_coverage_pass(fixture_repo, [DECIDE])


def test_single_process_lines_are_owned_by_the_tests_that_run_them(fixture_repo, full_pass):
    line = line_of(fixture_repo, DECIDE, "return free_tokens >= need and need > 0")
    assert full_pass.owners_for(DECIDE, [line]) == sorted(
        ["tests/test_decide.py::test_should_admit", "tests/test_decide.py::test_should_admit_zero"],
        key=lambda t: (full_pass.durations[t], t)), (
        "the line of should_admit must be owned by the two tests that run it, fastest first; "
        f"owners: {full_pass.owners_for(DECIDE, [line])}"
    )
    line = line_of(fixture_repo, DECIDE, "return x if x < hi else hi")
    assert full_pass.owners_for(DECIDE, [line]) == ["tests/test_decide.py::test_clamp"], (
        "the line of clamp must be owned by test_clamp only; owners: "
        f"{full_pass.owners_for(DECIDE, [line])}"
    )


def test_code_run_only_inside_gloo_ranks_is_owned_by_the_test_that_started_them(
        fixture_repo, full_pass):
    line = line_of(fixture_repo, DECIDE, "return min(values) * 2")
    owners = full_pass.owners_for(DECIDE, [line])
    assert owners == [RANKS], \
        f"code run only in forked rank processes must be owned by {RANKS}, not {owners}"


CHILD_PROJECT = {
    "kid/__init__.py": "",
    "kid/work.py": "def in_child(x):\n    return x * 3\n\n\ndef at_import():\n    return 1\n",
    "tests/test_kid.py": (
        "import subprocess\nimport sys\n\n"
        "from kid.work import at_import\n\n"
        "at_import()  # collection time: outside any test\n\n\n"
        "def test_child_python():\n"
        "    code = 'from kid.work import in_child; assert in_child(2) == 6'\n"
        "    subprocess.run([sys.executable, '-c', code], check=True)\n\n\n"
        "def test_nothing_started():\n"
        "    assert True\n"),
}


def test_a_python_a_test_starts_is_measured_for_that_test_and_collection_is_not(tmp_path):
    """Child processes are measured once a test runs (``COVERAGE_PROCESS_START`` exported
    from the first test on): a line run only in a ``subprocess`` python belongs to the test
    that started it; a line run only at collection has no owner."""
    for rel, text in CHILD_PROJECT.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    measured = run_coverage_pass(tmp_path, ["kid/work.py"], ["tests"])
    child_line = line_of(tmp_path, "kid/work.py", "return x * 3")
    import_line = line_of(tmp_path, "kid/work.py", "return 1")
    assert measured.owners_for("kid/work.py", [child_line]) == \
        ["tests/test_kid.py::test_child_python"], (
        f"the subprocess python's line belongs to the test that started it: {measured.lines}")
    assert measured.owners_for("kid/work.py", [import_line]) == [], \
        f"a line run only at collection has no owner: {measured.lines}"
    assert set(measured.outcomes.values()) == {"passed"}, measured.output_tail


def test_uncovered_lines_have_no_owner_and_outcomes_are_recorded(fixture_repo, full_pass):
    line = line_of(fixture_repo, DECIDE, "return x + 7")
    assert full_pass.owners_for(DECIDE, [line]) == [], (
        f"a line no test runs must have no owner; owners: {full_pass.owners_for(DECIDE, [line])}"
    )
    assert full_pass.outcomes[RANKS] == "passed", (
        f"the outcome of {RANKS} must be recorded as passed; outcomes: {full_pass.outcomes}"
    )
    assert set(full_pass.outcomes.values()) == {"passed"}, (
        f"every test of the fixture passes; outcomes: {full_pass.outcomes}"
    )
    assert full_pass.failing(full_pass.outcomes) == [], (
        f"no test failed, yet failing() gave {full_pass.failing(full_pass.outcomes)}"
    )


def test_no_process_of_the_pass_is_left_behind(fixture_repo, full_pass):
    assert _pass_processes(fixture_repo.resolve()) == [], \
        "the pass killed its process group: no pytest or rank process of it may remain"


def test_starting_coverage_at_the_first_test_keeps_every_tests_lines(fixture_repo, full_pass):
    """The owners pass starts coverage when the first test starts (pytest's start-up and
    collection run untraced). Each test must own exactly the lines a pass measured from
    interpreter start (``coverage run``, the coverage map's way) attributes to it, rank
    processes included; lines run only at import are measured by the latter alone."""
    from_start = run_coverage_pass(fixture_repo, [], measure_all=True)
    assert "coverage" in from_start.command, "measure_all runs under `coverage run`"
    assert "coverage" not in full_pass.command, \
        f"the owners pass starts coverage from its plugin: {full_pass.command}"
    per_test = {line: tests - {IMPORT_TIME} for line, tests in from_start.lines[DECIDE].items()
                if tests - {IMPORT_TIME}}
    assert full_pass.lines[DECIDE] == per_test, (
        "lines run during a test belong to that test whether coverage starts with the "
        f"interpreter or with the first test:\n{full_pass.lines[DECIDE]}\n!=\n{per_test}")
    module_level = line_of(fixture_repo, DECIDE, "logger = logging.getLogger(__name__)")
    assert from_start.lines[DECIDE][module_level] == {IMPORT_TIME}, \
        "a module-level line runs at import (collection), outside any test"
    assert module_level not in full_pass.lines[DECIDE], \
        "run only at import, it is not measured by the owners pass (it has no owner either way)"


def test_without_child_measurement_rank_only_code_looks_untested(fixture_repo):
    """The can-fail arm: measuring the test process alone (mutmut's view) loses the ranks."""
    narrow = run_coverage_pass(fixture_repo, [DECIDE], ["tests/test_ranks.py"],
                               measure_children=False)
    line = line_of(fixture_repo, DECIDE, "return min(values) * 2")
    assert narrow.outcomes == {RANKS: "passed"}, (
        "a pass of tests/test_ranks.py alone must record its outcome passed; outcomes: "
        f"{narrow.outcomes}"
    )
    assert narrow.owners_for(DECIDE, [line]) == [], (
        "without child measurement, rank-only code must look untested (no owner); owners: "
        f"{narrow.owners_for(DECIDE, [line])}"
    )


def test_every_generated_mutant_of_covered_code_gets_owners(fixture_repo, full_pass):
    generation = generate_auto_mutants(changed_production_lines(fixture_repo, "main"))
    owned = {m.function: full_pass.owners_for(m.path, m.coverage_lines)
             for m in generation.mutants}
    assert owned["rank_pick"] == [RANKS], (
        f"rank_pick, run only in gloo ranks, must be owned by {RANKS}; owners: {owned['rank_pick']}"
    )
    assert owned["unused_helper"] == [], (
        f"unused_helper, which no test runs, must have no owner; owners: {owned['unused_helper']}"
    )
    assert all(owned[f] for f in ("should_admit", "clamp")), (
        f"should_admit and clamp are run by tests and must have owners; owners: {owned}"
    )


@pytest.mark.parametrize("selection, exit_code", [
    (["--no-such-option"], 4),
    (["tests/test_decide.py::test_renamed_away"], 4),
    (["tests/test_decide.py", "-k", "no_test_matches_this"], 5),
])
def test_a_selection_that_runs_no_test_is_an_error_not_a_pass_without_owners(
        fixture_repo, selection, exit_code):
    with pytest.raises(CoveragePassError) as caught:
        run_coverage_pass(fixture_repo, [DECIDE], selection)
    rendered = caught.value.render()
    assert f"ran no tests (pytest exit code {exit_code})" in rendered, (
        f"a selection that runs no test must say 'ran no tests (pytest exit code {exit_code})'; it "
        f"says {rendered!r}"
    )
    assert "--tests" in rendered, (
        f"a selection that runs no test must point at --tests; it says {rendered!r}"
    )
