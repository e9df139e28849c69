"""Issue 14, case 6: ``@pytest.mark.kills("id")`` is checked only against the catalog being
swept. One test suite serving two catalogs, each test claiming the mutant of its own: sweeping
either catalog works, and ``sweep --auto`` is not stopped by the markers (it used to exit 2
after its coverage pass)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.realprojects.project import make_project, run_json, verdicts

FILES = {
    "userpkg/decide.py": """\
        def admit(free, need):
            return free >= need


        def clamp(x, hi):
            return x if x < hi else hi
        """,
    "tests/test_decide.py": """\
        import pytest

        from userpkg.decide import admit, clamp


        @pytest.mark.kills("admit.ge-to-gt")
        def test_admit():
            assert admit(5, 5)


        @pytest.mark.kills("clamp.lt-to-le")
        def test_clamp():
            assert clamp(5, 5) == 5
            assert clamp(3, 5) == 3
        """,
    "admit.toml": """\
        [[mutant]]
        id = "admit.ge-to-gt"
        title = "admit: >= becomes >"
        target = "userpkg.decide:admit"
        operator = "swap"
        old = ">="
        new = ">"
        occurrence = 1
        """,
    "clamp.toml": """\
        [[mutant]]
        id = "clamp.lt-to-le"
        title = "clamp: < becomes >= (the other branch)"
        target = "userpkg.decide:clamp"
        operator = "swap"
        old = "<"
        new = ">="
        """,
}
BRANCH = {"userpkg/decide.py": FILES["userpkg/decide.py"].replace(
    "return free >= need", "return free >= need and need >= 0")}


@pytest.fixture(scope="module")
def two_catalogs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("kills") / "proj", FILES, BRANCH)


@pytest.mark.parametrize(("catalog", "mutant_id"), [("admit.toml", "admit.ge-to-gt"),
                                                    ("clamp.toml", "clamp.lt-to-le")])
def test_each_catalog_sweeps_with_the_other_catalogs_markers_present(
        two_catalogs: Path, catalog: str, mutant_id: str) -> None:
    done, report = run_json(two_catalogs, "sweep", "--catalog", catalog, "--no-store",
                            "--workers", "1")
    output = done.stdout + done.stderr
    assert verdicts(report) == {mutant_id: "KILLED"}, (
        f"{catalog}: its marker-owned mutant is killed; the other catalog's marker is "
        f"ignored, not an error:\n{output}")
    assert done.returncode == 0, output
    other = "clamp.lt-to-le" if mutant_id == "admit.ge-to-gt" else "admit.ge-to-gt"
    notes = [line for line in output.splitlines() if other in line]
    assert notes and all(line.startswith("note:") for line in notes), (
        f"the other catalog's id {other!r} is named in a note, never an error:\n{output}")


def test_auto_sweep_is_not_stopped_by_kills_markers(two_catalogs: Path) -> None:
    done, report = run_json(two_catalogs, "sweep", "--auto", "--changed-since", "main",
                            "--no-store", "--workers", "1")
    output = done.stdout + done.stderr
    assert done.returncode != 2, f"kills markers made the auto sweep a usage error:\n{output}"
    assert report["mutants"] and all(v == "KILLED" for v in verdicts(report).values()), (
        f"the changed line's mutants are judged (killed by test_admit):\n{output}")
