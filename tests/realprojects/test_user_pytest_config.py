"""Issue 14, case 1: deskcheck runs under the user's own pytest configuration.

``filterwarnings = ["error"]`` (pluggy's, and many projects'), ``addopts`` with terminal and
reporting options, ``--strict-markers``, ``xfail_strict``: the coverage pass, the sweep's warm
session, the mutant children and ``mutants run`` inherit them and must still work; deskcheck's
own modules must never trip pytest's assertion-rewrite warning.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.realprojects.project import deskcheck, make_project, run_json, verdicts

STRICT_INI = """\
filterwarnings = ["error"]
addopts = "-ra --strict-markers -q --tb=short -p no:doctest"
xfail_strict = true
"""

BASE = {
    "userpkg/decide.py": """\
        def admit(free, need):
            return free >= need
        """,
    "tests/test_decide.py": """\
        import pytest

        from userpkg.decide import admit


        def test_admit():
            assert admit(5, 5)
            assert not admit(4, 5)


        @pytest.mark.xfail(reason="documented gap", strict=False)
        def test_known_gap():
            assert admit(0, 1)
        """,
    "mutants.toml": """\
        [[mutant]]
        id = "admit.ge-to-gt"
        title = "admit: >= becomes >"
        target = "userpkg.decide:admit"
        operator = "swap"
        old = ">="
        new = ">"
        occurrence = 1
        owners = ["tests/test_decide.py::test_admit"]
        """,
}
BRANCH = {"userpkg/decide.py": """\
    def admit(free, need):
        return free >= need and need >= 0
    """}
REWRITE_WARNING = "PytestAssertRewriteWarning"


@pytest.fixture(scope="module")
def strict_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("strict") / "proj", BASE, BRANCH, STRICT_INI)


def test_auto_sweep_runs_end_to_end_under_strict_config(strict_project: Path) -> None:
    done, report = run_json(strict_project, "sweep", "--auto", "--changed-since", "main",
                            "--no-store", "--workers", "1")
    output = done.stdout + done.stderr
    assert REWRITE_WARNING not in output, f"deskcheck tripped assertion rewriting:\n{output}"
    assert "-ra" not in output, f"the user's addopts were rejected:\n{output}"
    found = verdicts(report)
    assert found, f"the changed line gave no mutant:\n{output}"
    assert set(found.values()) == {"KILLED"}, (
        f"every mutant of the changed line is killed by test_admit, got {found}\n{output}")
    assert done.returncode == 0, f"a holding auto sweep exits 0, got {done.returncode}\n{output}"


def test_catalog_sweep_inherits_strict_config(strict_project: Path) -> None:
    done, report = run_json(strict_project, "sweep", "--catalog", "mutants.toml",
                            "--no-store", "--workers", "1")
    output = done.stdout + done.stderr
    assert REWRITE_WARNING not in output, f"deskcheck tripped assertion rewriting:\n{output}"
    assert verdicts(report) == {"admit.ge-to-gt": "KILLED"}, (
        f"the swap is killed by its owner under the user's config\n{output}")


def test_mutants_run_prints_no_rewrite_warning(strict_project: Path) -> None:
    done = deskcheck(strict_project, "mutants", "run", "admit.ge-to-gt", "--catalog",
                     "mutants.toml", "--", "tests/test_decide.py::test_admit")
    output = done.stdout + done.stderr
    assert REWRITE_WARNING not in output, f"`mutants run` tripped assertion rewriting:\n{output}"
    assert done.returncode == 1 and "1 failed" in output, (
        f"the owner fails under the mutant (pytest exit 1):\n{output}")


def test_a_bad_addopts_error_names_the_real_config_file(tmp_path: Path) -> None:
    project = make_project(tmp_path / "proj", BASE, BRANCH,
                           'addopts = "--no-such-option-anywhere"\n')
    done = deskcheck(project, "sweep", "--catalog", "mutants.toml", "--no-store",
                     "--workers", "1")
    output = done.stdout + done.stderr
    assert done.returncode == 2, f"a pytest usage error is a config error (2):\n{output}"
    error = next((line for line in output.splitlines() if line.startswith("deskcheck: error")),
                 "")
    assert str(project / "pyproject.toml") in error, (
        f"deskcheck's error line names the pytest config file that holds the bad option, "
        f"not the catalog:\n{output}")
