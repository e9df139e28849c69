"""Issue 14, case 3: one verdict per mutant whatever the run mode.

The same mutant was SURVIVED under ``--only`` and ``--no-incremental`` and TIMEOUT on a plain
incremental sweep: the search for a non-owner kill ran a slow test under a budget sized from
the fast owners (or not, when another mutant's owners put the slow test in the baseline).
The non-owner search has its own budget and its own outcome; a search that runs out is never
the mutant's TIMEOUT.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.realprojects.project import make_project, run_json, verdicts

FILES = {
    "userpkg/decide.py": """\
        def admit(free, need):
            return free >= need


        def slow_answer():
            return 1
        """,
    "tests/test_fast.py": """\
        from userpkg.decide import admit


        def test_admit_plenty():
            assert admit(9, 5)  # misses the boundary: the >= -> > mutant survives it
        """,
    "tests/test_slow.py": """\
        import time

        from userpkg.decide import slow_answer


        def test_slow():
            time.sleep(8)  # a spawn-heavy test: slower than the catalog's constant budget
            assert slow_answer() == 1
        """,
    "mutants.toml": """\
        [sweep]
        timeout_s = 3.0
        timeout_factor = 3.0

        [[mutant]]
        id = "admit.ge-to-gt"
        title = "admit: >= becomes > (its fast owner misses the boundary)"
        target = "userpkg.decide:admit"
        operator = "swap"
        old = ">="
        new = ">"
        owners = ["tests/test_fast.py"]

        [[mutant]]
        id = "slow.answer"
        title = "slow_answer returns 2: puts the slow test in the baseline"
        target = "userpkg.decide:slow_answer"
        operator = "return"
        value = "2"
        owners = ["tests/test_slow.py"]
        """,
}
EXPECTED = {"admit.ge-to-gt": "SURVIVED", "slow.answer": "KILLED"}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("modes") / "proj", FILES)


@pytest.mark.parametrize("mode", [["--only", "admit.ge-to-gt"], ["--no-incremental"], []],
                         ids=["only", "no-incremental", "incremental"])
def test_the_verdict_does_not_depend_on_the_run_mode(project: Path, mode: list[str]) -> None:
    store = ["--no-store"] if mode and mode[0] == "--only" else []
    done, report = run_json(project, "sweep", "--catalog", "mutants.toml", "--workers", "1",
                            *store, *mode)
    output = done.stdout + done.stderr
    found = verdicts(report)
    for mutant_id, verdict in found.items():
        assert verdict == EXPECTED[mutant_id], (
            f"{mutant_id} is {verdict} under {mode or 'a plain incremental sweep'}, "
            f"{EXPECTED[mutant_id]} otherwise: the slow non-owner's search is not the "
            f"mutant's timeout\n{output}")
    assert "admit.ge-to-gt" in found, output


def test_a_search_that_runs_out_is_not_a_timeout_of_the_mutant(tmp_path: Path) -> None:
    files = {**FILES, "tests/test_slow.py": FILES["tests/test_slow.py"].replace(
        "time.sleep(8)", "time.sleep(3)"), "mutants.toml": FILES["mutants.toml"].replace(
        "timeout_factor = 3.0", "timeout_factor = 3.0\nsearch_timeout_s = 0.5")}
    project = make_project(tmp_path / "proj", files)
    done, report = run_json(project, "sweep", "--catalog", "mutants.toml", "--workers", "1",
                            "--no-store", "--only", "admit.ge-to-gt")
    output = done.stdout + done.stderr
    (mutant,) = report["mutants"]
    assert mutant["verdict"] == "SURVIVED", (
        f"the owners passed; a non-owner search that runs out of its own budget (0.5 s, the "
        f"slow test sleeps 3 s) leaves the verdict to them, never TIMEOUT:\n{output}")
    search = mutant["detail"].get("non_owner_search", {})
    assert search.get("stopped_in") == "tests/test_slow.py::test_slow", (
        f"the verdict names where the search stopped: {mutant['detail']}")
    assert "not a timeout of the mutant" in mutant["excerpt"], mutant["excerpt"]
