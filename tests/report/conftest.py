"""Fixtures for the report part: a small real project, mutant records of every verdict with
real diffs, the published Stryker schema (from npm) and a headless Chromium."""

from __future__ import annotations

import json
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from deskcheck.report.records import MutantRecord, RunRecord
from deskcheck.report.store import Store

from .sample_records import (
    BALLOT_FILE,
    BALLOT_SOURCE,
    CONGRUENCE_FILE,
    CONGRUENCE_SOURCE,
    every_verdict_mutants,
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project root holding the two mutated modules (the store snapshots them)."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / BALLOT_FILE).write_text(BALLOT_SOURCE, encoding="utf-8")
    (tmp_path / CONGRUENCE_FILE).write_text(CONGRUENCE_SOURCE, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "pkg"\n', encoding="utf-8")
    return tmp_path


@pytest.fixture
def mutants() -> list[MutantRecord]:
    return every_verdict_mutants()


@pytest.fixture
def store(project: Path):
    with Store.for_project(project) as opened:
        yield opened


@pytest.fixture
def recorded_run(store: Store, mutants: list[MutantRecord]) -> int:
    """A finished sweep holding one mutant of every verdict."""
    run_id = store.begin_run(RunRecord(kind="sweep", commit="3f2a9c1d0e4b", branch="tp-ballot",
                                       config_fingerprint="cfg-1", tier="DESK"))
    for mutant in mutants:
        store.record_mutant(run_id, mutant)
    store.finish_run(run_id, "falls_short")
    return run_id


# -- the published Stryker schema, taken from npm at session start ----------------------------

SCHEMA_PACKAGE = "mutation-testing-report-schema"


@pytest.fixture(scope="session")
def stryker_schema(tmp_path_factory: pytest.TempPathFactory) -> dict:
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: cannot fetch the published "
                    f"{SCHEMA_PACKAGE} package (apt-get install -y npm)")
    cache = tmp_path_factory.mktemp("stryker-schema")
    try:
        done = subprocess.run([npm, "pack", SCHEMA_PACKAGE, "--silent"], cwd=cache,
                              capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.skip(f"npm pack {SCHEMA_PACKAGE} timed out after 120 s: registry unreachable")
    if done.returncode != 0:
        pytest.skip(f"npm pack {SCHEMA_PACKAGE} failed (registry unreachable?): "
                    f"{done.stderr.strip()[-300:]}")
    tarball = cache / done.stdout.strip().splitlines()[-1]
    with tarfile.open(tarball) as archive:
        member = archive.extractfile("package/src/mutation-testing-report-schema.json")
        assert member is not None, "schema file missing from the npm package"
        return json.loads(member.read())


# -- action-validator (GitHub workflow schema), taken from npm at session start ---------------

ACTION_VALIDATOR = ("@action-validator/cli@0.6.0", "@action-validator/core@0.6.0")


@pytest.fixture(scope="session")
def action_validator(tmp_path_factory: pytest.TempPathFactory) -> str:
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: cannot fetch @action-validator/cli "
                    "(apt-get install -y npm)")
    prefix = tmp_path_factory.mktemp("action-validator")
    try:
        done = subprocess.run([npm, "install", "--silent", "--no-audit", "--no-fund",
                               "--prefix", str(prefix), *ACTION_VALIDATOR],
                              capture_output=True, text=True, timeout=180)
    except subprocess.TimeoutExpired:
        pytest.skip("npm install @action-validator/cli timed out after 180 s: registry "
                    "unreachable")
    if done.returncode != 0:
        pytest.skip(f"npm install @action-validator/cli failed (registry unreachable?): "
                    f"{done.stderr.strip()[-300:]}")
    return str(prefix / "node_modules" / ".bin" / "action-validator")


# -- headless Chromium ---------------------------------------------------------------------------

CHROMIUM_INSTALL = "apt-get update && apt-get install -y chromium"


@pytest.fixture(scope="session")
def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip(f"headless Chromium is not installed (install: {CHROMIUM_INSTALL})")
