"""Issue 30, case 3: the owners coverage pass works whatever coverage plugin the project's
``addopts`` load (pytest-cov's ``--cov``, or any plugin that runs its own collector), says what
it did about it, and ``--json`` is written on every exit path."""

from __future__ import annotations

import importlib.util
import json

import pytest

from tests.realprojects.project import deskcheck, make_project

CODE = '''\
def clamp(x, hi):
    return x if x < hi else hi
'''

TESTS = '''\
from userpkg.ops import clamp


def test_clamp():
    assert clamp(3, 5) == 3
    assert clamp(5, 5) == 5
    assert clamp(7, 5) == 5
'''

# a coverage plugin of the project's own, as pytest-cov runs one: a collector started when
# pytest is configured, stopped (and reported) when the test loop ends
OWN_PLUGIN = '''\
import coverage
import pytest

_cov = []


def pytest_configure(config):
    cov = coverage.Coverage(data_file=None)
    cov.start()
    _cov.append(cov)


@pytest.hookimpl(wrapper=True)
def pytest_runtestloop(session):
    try:
        return (yield)
    finally:
        cov = _cov.pop()
        cov.stop()
'''

SHAPES = {
    "pytest-cov": ("--cov=userpkg --cov-report=term", {}),
    "own plugin": ("-p covplug", {"covplug.py": OWN_PLUGIN}),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_coverage_pass_runs_beside_the_projects_coverage_plugin(tmp_path, shape) -> None:
    if shape == "pytest-cov" and importlib.util.find_spec("pytest_cov") is None:
        pytest.skip("pytest-cov is not installed here; the own-plugin case covers the collector")
    addopts, extra = SHAPES[shape]
    base = {"userpkg/ops.py": CODE.replace("x < hi", "x <= hi - 1"),
            "tests/test_ops.py": TESTS, **extra}
    root = make_project(tmp_path / "proj", base, {"userpkg/ops.py": CODE},
                        pytest_ini=f'addopts = "{addopts}"')
    out = tmp_path / "auto.json"
    done = deskcheck(root, "sweep", "--auto", "--changed-since", "main", "--no-store",
                     "--workers", "1", "--json", str(out))
    said = done.stdout + done.stderr
    assert done.returncode in (0, 1) and "ran no tests" not in said, (
        f"with {shape} in addopts the owners coverage pass failed:\n{said}")
    report = json.loads(out.read_text())
    assert report["mutants"] and all(m["verdict"] != "NO_COVERAGE" for m in report["mutants"]), (
        f"with {shape} the changed line had no covering test: {report['mutants']}")
    assert "coverage" in " ".join(report.get("notes", [])), (
        f"the pass did not say what it did about the project's coverage plugin: {report}")


def test_a_failed_auto_run_still_writes_its_json_and_quotes_whole_lines(tmp_path) -> None:
    base = {"userpkg/ops.py": CODE.replace("x < hi", "x <= hi - 1"), "tests/test_ops.py": TESTS}
    root = make_project(tmp_path / "proj", base, {"userpkg/ops.py": CODE},
                        pytest_ini='addopts = "--no-such-option-anywhere"')
    out = tmp_path / "auto.json"
    done = deskcheck(root, "sweep", "--auto", "--changed-since", "main", "--no-store",
                     "--json", str(out))
    assert done.returncode == 2, f"a pytest usage error is exit 2:\n{done.stderr}"
    assert out.is_file(), "--json was not written when the coverage pass could not run"
    report = json.loads(out.read_text())
    assert report["holds"] is False and report["exit_code"] == 2 and report["error"]["message"], (
        "a --json report of a run that could not start must say holds false, exit_code 2 and the "
        f"error; it says {report}"
    )
    said = done.stderr[done.stderr.index("pytest said:") + len("pytest said:"):]
    first = said.lstrip("\n").splitlines()[0]
    assert "error" in first.lower() or first.startswith(("ERROR", "usage", "  ", "__")), (
        f"the quoted excerpt starts mid-line: {first!r}")


BREAKS_AFTER_THE_TESTS = '''\
import pytest


@pytest.hookimpl(wrapper=True)
def pytest_runtestloop(session):
    result = yield
    raise RuntimeError("a plugin broke after the last test")
'''


def test_a_pass_that_ran_tests_and_then_broke_says_so(tmp_path) -> None:
    base = {"userpkg/ops.py": CODE.replace("x < hi", "x <= hi - 1"), "tests/test_ops.py": TESTS,
            "tests/conftest.py": BREAKS_AFTER_THE_TESTS}
    root = make_project(tmp_path / "proj", base, {"userpkg/ops.py": CODE})
    done = deskcheck(root, "sweep", "--auto", "--changed-since", "main", "--no-store")
    assert done.returncode == 2, f"a broken pass is exit 2:\n{done.stderr}"
    assert "ran 1 tests, then pytest exited 3" in done.stderr, (
        f"the error must say the tests ran and pytest then broke, not 'ran no tests':\n"
        f"{done.stderr}")
    assert "a plugin broke after the last test" in done.stderr, "pytest's own words are quoted"
