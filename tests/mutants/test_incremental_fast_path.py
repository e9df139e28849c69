"""Incremental sweeps decide reuse before any pytest session: an unchanged project starts no
session and runs no test (baseline included); a changed target or owner file re-runs exactly
the mutants whose fingerprint covers it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from deskcheck.mutants.reuse import DYNAMIC, declared_kills
from tests.pythonpath import extended

pytestmark = pytest.mark.xdist_group("mutants-incremental")

FUNCTIONS = 5
ALL = [f"k.M{i}" for i in range(FUNCTIONS)]


def _project(root: Path) -> None:
    """k.M0/M1 owned by node ids in test_a.py, k.M2 by a node id in test_b.py, k.M3 by a
    ``-k`` selection, k.M4 only by a ``@pytest.mark.kills`` marker in test_c.py. Every test
    run (baseline or mutant) and every pytest session appends a line to $DC_LOG."""
    (root / "kpkg").mkdir()
    (root / "kpkg" / "__init__.py").write_text("")
    (root / "kpkg" / "mod.py").write_text(  # MODE: imported after conftest.py, as usual
        "import os\n\nMODE = os.environ.get('KPKG_MODE', 'imported before conftest.py')\n\n\n"
        + "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(FUNCTIONS)))
    tests = root / "tests"
    tests.mkdir()
    (tests / "conftest.py").write_text(
        "import os\n\nos.environ['KPKG_MODE'] = 'test'\n\n\ndef log(line):\n"
        "    with open(os.environ['DC_LOG'], 'a') as f:\n        f.write(line + '\\n')\n\n\n"
        "def pytest_sessionstart(session):\n    log('session')\n")

    def test(i: int, marker: str = "") -> str:
        return (f"{marker}def test_f{i}():\n    from conftest import log\n"
                f"    log('test_f{i}')\n    assert MODE == 'test'\n    assert f{i}(1) == {1 + i}\n\n\n")

    head = "import pytest\n\nfrom kpkg.mod import MODE, " + ", ".join(
        f"f{i}" for i in range(FUNCTIONS)) + "\n\n\n"
    (tests / "test_a.py").write_text(head + test(0) + test(1))
    (tests / "test_b.py").write_text(head + test(2) + test(3))
    (tests / "test_c.py").write_text(head + test(4, '@pytest.mark.kills("k.M4")\n'))
    owners = {0: '["tests/test_a.py::test_f0"]', 1: '["tests/test_a.py::test_f1"]',
              2: '["tests/test_b.py::test_f2"]', 3: '["-k test_f3"]', 4: "[]"}
    (root / "mutants.toml").write_text('[sweep]\ntests = ["tests"]\n\n' + "".join(
        f'[[mutant]]\nid = "k.M{i}"\ntitle = "offset {i}"\ntarget = "kpkg.mod:f{i}"\n'
        f'operator = "replace"\nold = "x + {i}"\nnew = "x - {i} - 1"\n'
        f"owners = {owners[i]}\n\n" for i in range(FUNCTIONS)))
    (root / "pyproject.toml").write_text('[tool.deskcheck]\ncatalog = "mutants.toml"\n')


def _sweep(root: Path, log: Path, *args: str, expected: list[str] | None = ALL
           ) -> tuple[list[str], list[str], dict]:
    """Run `deskcheck sweep`; return (mutants really run, lines logged, the JSON report)."""
    log.write_text("")
    env = {**os.environ, "PYTHONPATH": extended(root), "CUDA_VISIBLE_DEVICES": "",
           "DC_LOG": str(log)}
    process = subprocess.Popen([sys.executable, "-m", "deskcheck.cli", "sweep", "--workers",
                                "1", "--json", "out.json", *args], cwd=root, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)
    try:
        out, _ = process.communicate(timeout=120)
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait(timeout=30)
    assert process.returncode == 0, out
    report = json.loads((root / "out.json").read_text())
    ran = sorted(m["id"] for m in report["mutants"] if not m["reused"])
    if expected is not None:
        assert sorted(m["id"] for m in report["mutants"]) == expected, (
            f"the sweep's JSON must list every mutant of the catalog {expected}; it listed "
            f"{sorted(m['id'] for m in report['mutants'])}"
        )
    return ran, log.read_text().split(), report


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "project"
    root.mkdir()
    _project(root)
    return root, tmp_path / "log.txt"


def test_an_unchanged_sweep_starts_no_session_and_a_changed_target_reruns_only_its_mutant(
        project: tuple[Path, Path]):
    root, log = project
    ran, lines, _ = _sweep(root, log)
    assert ran == [f"k.M{i}" for i in range(FUNCTIONS)], (
        f"a first sweep must run every mutant; it ran {ran}"
    )
    assert lines.count("session") == 1 and "test_f0" in lines, (
        f"a first sweep must start one pytest session that runs the tests; the log says {lines}"
    )  # the log does observe

    ran, lines, report = _sweep(root, log)
    assert ran == [] and lines == [], (
        "an unchanged project must reuse every verdict with no pytest session nor test; it ran "
        f"{ran}, logged {lines}"
    )  # no session, no collection, no baseline, no test
    assert "baseline_s" not in report["timing"] and "reuse_s" in report["timing"], (
        "a sweep that reuses everything must report reuse_s and no baseline_s in timing; timing "
        f"is {report['timing']}"
    )

    module = root / "kpkg" / "mod.py"
    module.write_text(module.read_text().replace("return x + 1\n", "return (x + 1)\n"))
    ran, lines, _ = _sweep(root, log)
    assert ran == ["k.M1"], (
        f"a change to f1 (the target of k.M1) must re-run k.M1 only; it ran {ran}"
    )
    assert lines.count("session") == 1, (
        f"a re-run of one mutant must start one pytest session; the log says {lines}"
    )
    assert set(lines) - {"session"} == {"test_f1"}, (
        "a re-run of k.M1 must run its owner test_f1 only (baseline and mutant); the log says "
        f"{lines}"
    )  # baseline and mutant ran its owner only


def test_touching_an_owner_file_reruns_what_it_owns_and_the_universe_wide_mutants(
        project: tuple[Path, Path]):
    root, log = project
    _sweep(root, log)
    with (root / "tests" / "test_a.py").open("a") as handle:
        handle.write("# touched\n")
    ran, lines, _ = _sweep(root, log)
    # M0, M1: node ids in test_a.py; M3 (-k) and M4 (kills marker) cover every test file
    assert ran == ["k.M0", "k.M1", "k.M3", "k.M4"], (
        "touching test_a.py must re-run the mutants it owns (M0, M1) and those with -k or kills "
        f"owners (M3, M4); it ran {ran}"
    )
    assert "test_f2" not in lines, (
        f"touching test_a.py must not run test_f2 of test_b.py; the log says {lines}"
    )

    with (root / "tests" / "conftest.py").open("a") as handle:
        handle.write("# touched\n")
    ran, _, _ = _sweep(root, log)
    assert ran == [f"k.M{i}" for i in range(FUNCTIONS)], (
        f"touching conftest.py (loaded by every owner file) must re-run every mutant; it ran {ran}"
    )  # every owner file loads conftest.py

    ran, lines, _ = _sweep(root, log, "--no-incremental")
    assert ran == [f"k.M{i}" for i in range(FUNCTIONS)] and "session" in lines, (
        f"--no-incremental must re-run every mutant in a pytest session; it ran {ran}, logged "
        f"{lines}"
    )


def test_a_new_kills_marker_in_a_non_owner_file_reruns_the_mutant(project: tuple[Path, Path]):
    root, log = project
    _sweep(root, log)
    test_b = root / "tests" / "test_b.py"
    test_b.write_text(test_b.read_text().replace(
        "def test_f2", '@pytest.mark.kills("k.M0")\ndef test_f2'))
    ran, _, report = _sweep(root, log)
    assert "k.M0" in ran and "k.M1" not in ran, (
        f"a new kills marker for k.M0 in test_b.py must re-run k.M0 and not k.M1; it ran {ran}"
    )
    owners = next(m["owners"] for m in report["mutants"] if m["id"] == "k.M0")
    assert owners == ["tests/test_a.py::test_f0", "tests/test_b.py::test_f2"], (
        f"a kills marker must add its test to the owners of k.M0; owners are {owners}"
    )


@pytest.mark.parametrize(("text", "expected"), [
    ("def test_x():\n    pass\n", set()),
    ("# this test kills nothing\n", set()),
    ('@pytest.mark.kills("a.M1", "a.M2")\ndef test_x(): pass\n', {"a.M1", "a.M2"}),
    ('from pytest import mark\nkills = mark.kills\n@kills("a.M1")\ndef t(): pass\n',
     {"a.M1", DYNAMIC}),
    ('ID = "a.M1"\n@pytest.mark.kills(ID)\ndef test_x(): pass\n', {DYNAMIC}),
    ('def pytest_collection_modifyitems(items):\n'
     '    items[0].add_marker("kills")\n', {DYNAMIC}),
])
def test_declared_kills_reads_literal_ids_and_flags_dynamic_ones(text: str, expected: set):
    assert declared_kills(text) == expected, (
        f"declared_kills must read literal kills ids and flag dynamic ones as {DYNAMIC!r}: "
        f"expected {expected}, got {declared_kills(text)}"
    )


def test_a_shard_is_recorded_in_the_store_of_the_project_the_command_runs_in(
        project: tuple[Path, Path]):
    root, log = project
    sub = root / "example"  # a catalog in a sub-project with its own pyproject.toml
    sub.mkdir()
    (sub / "pyproject.toml").write_text('[project]\nname = "example"\n')
    (sub / "mutants.toml").write_text((root / "mutants.toml").read_text().replace(
        'tests = ["tests"]', 'tests = ["../tests"]'))
    ran, _, report = _sweep(root, log, "--catalog", str(sub / "mutants.toml"), "--shard", "1/2",
                            expected=None)
    ids = sorted(m["id"] for m in report["mutants"])
    assert ran == ids and 0 < len(ids) < FUNCTIONS, (
        f"--shard 1/2 must run a proper part of the mutants (all fresh); ran {ran}, listed {ids}"
    )
    assert not (sub / ".deskcheck").exists(), (
        f"a shard run from {root} must keep its store there, not in the catalog's sub-project {sub}"
    )
    runs = json.loads(subprocess.run(
        [sys.executable, "-m", "deskcheck.cli", "history", "--json", "-"], cwd=root,
        capture_output=True, text=True, check=True).stdout)
    runs = runs["runs"] if isinstance(runs, dict) else runs
    assert [(r["kind"], r["shard"]) for r in runs] == [("sweep", "1/2")], (
        "the store of the project the command runs in must record one sweep with shard 1/2; "
        f"history has {runs}"
    )
