"""`deskcheck init` reads the project before it writes: each generated workflow's commands
(every `run:` script but the installs, which need a network; not the YAML runner) run green
on a fixture project of each kind, and name only what that project has."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from deskcheck.report.init_project import init_project
from tests.pythonpath import extended

from .init_fixtures import make_project

PR = ".github/workflows/deskcheck-pr.yml"
NIGHTLY = ".github/workflows/deskcheck-nightly.yml"
BIN = Path(sys.executable).parent
FAKE_GH = Path(__file__).with_name("fake_gh.py")


def _fake_bin(folder: Path) -> Path:
    folder.mkdir()
    gh = folder / "gh"
    gh.write_text(f"#!/bin/sh\nexec {sys.executable} {FAKE_GH} \"$@\"\n")
    gh.chmod(0o755)
    return folder


def _run_scripts(root: Path, workflow: dict, tmp_path: Path,
                 comments: Path | None = None) -> list[tuple[str, str, int, str]]:
    """Every step's `run:` script of every job, but the installs, in order, with bash."""
    tmp_path.mkdir(exist_ok=True)
    comments = comments or tmp_path / "comments.json"
    env = {**os.environ, "BASE": "main", "PR": "7", "REPO": "owner/calc", "GH_TOKEN": "x",
           "CUDA_VISIBLE_DEVICES": "", "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
           "FAKE_GH_COMMENTS": str(comments), "COLUMNS": "80",
           "PATH": os.pathsep.join([str(_fake_bin(tmp_path / "bin")), str(BIN),
                                    os.environ.get("PATH", "")]),
           "DESKCHECK_SCRATCH_DIR": str(tmp_path / "scratch"),
           # what the skipped `pip install -e .` gives: the project importable
           "PYTHONPATH": extended(root)}
    (tmp_path / "scratch").mkdir()
    ran = []
    for job in workflow["jobs"].values():
        for step in job["steps"]:
            name, script = step.get("name", ""), step.get("run")
            if script is None or name.startswith("Install"):
                continue
            done = subprocess.run(["bash", "-eo", "pipefail", "-c", script], cwd=root, env=env,
                                  capture_output=True, text=True, timeout=600)
            ran.append((name, script, done.returncode, done.stdout + done.stderr))
    return ran


def _commands(workflow: dict) -> str:
    return "\n".join(str(s.get("run", "")) for job in workflow["jobs"].values()
                     for s in job["steps"])


@pytest.mark.parametrize("kind", ["adhoc", "harness", "metal"])
def test_the_pr_workflow_fits_the_project_and_runs_green_on_it(kind: str, tmp_path: Path):
    root = tmp_path / "calc"
    make_project(root, kind)
    result = init_project(root)
    workflow = yaml.safe_load((root / PR).read_text())
    commands = _commands(workflow)
    expected = {
        "adhoc": ["deskcheck standins", 'deskcheck drift --changed-since "$BASE"'],
        "harness": ["deskcheck drift\n", 'deskcheck drift --changed-since "$BASE"',
                    'deskcheck sweep --changed-since "$BASE"'],
        "metal": ["deskcheck standins"],
    }[kind]
    for command in ['deskcheck redfirst --base "$BASE"', 'deskcheck regress --base "$BASE" -n 2',
                    *expected]:
        assert command in commands + "\n", f"{kind}: the PR workflow lacks `{command}`"
    if kind != "harness":
        assert "deskcheck drift\n" not in commands + "\n", (
            f"{kind}: `deskcheck drift` exits 2 without a registered harness, yet it is a step")
        assert "deskcheck sweep" not in commands, f"{kind}: a sweep step without a catalog"
    assert "--catalog None" not in commands and "--edit-last" not in commands, (
        f"the PR workflow must name a real catalog and never --edit-last; its commands: {commands}"
    )
    install = next(s["run"] for s in workflow["jobs"]["deskcheck"]["steps"]
                   if s.get("name", "").startswith("Install the project"))
    assert "deskcheck" in install.split("pip install", 1)[1], (
        f"{kind}: the install step does not install deskcheck:\n{install}")
    assert ("torch" in install) == (kind == "metal"), f"{kind}: torch extra: {install}"

    for name, script, code, output in _run_scripts(root, workflow, tmp_path):
        assert code == 0, f"{kind}: step {name!r} exited {code}:\n$ {script}\n{output[-3000:]}"
    comments = json.loads((tmp_path / "comments.json").read_text())
    assert len(comments) == 1 and "deskcheck redfirst" in comments[0]["body"], comments
    assert result.decisions, "init says nothing about what it found"


def test_the_comment_step_edits_only_deskchecks_own_comment(tmp_path: Path):
    root = tmp_path / "calc"
    make_project(root, "adhoc")
    init_project(root)
    steps = yaml.safe_load((root / PR).read_text())["jobs"]["deskcheck"]["steps"]
    comment = next(s for s in steps if s.get("name", "").startswith("PR comment"))
    (root / "deskcheck-redfirst.md").write_text("### deskcheck redfirst: holds\n")
    others = [{"id": 1, "body": "LGTM, one nit", "user": {"login": "reviewer"}},
              {"id": 2, "body": "CI bot: coverage 91%", "user": {"login": "github-actions[bot]"}}]
    (tmp_path / "comments.json").write_text(json.dumps(others))
    for round_ in range(2):  # the first push creates it, the second edits it in place
        ran = _run_scripts(root, {"jobs": {"j": {"steps": [comment]}}}, tmp_path / str(round_),
                           comments=tmp_path / "comments.json")
        assert ran[0][2] == 0, ran[0][3]
    final = json.loads((tmp_path / "comments.json").read_text())
    assert final[:2] == others, "the comment step changed a comment that is not deskcheck's"
    assert len(final) == 3 and "deskcheck redfirst" in final[2]["body"], final


@pytest.mark.parametrize("kind", ["adhoc", "harness", "metal"])
def test_the_nightly_has_a_gpu_job_only_for_metal_tests_and_a_sweep_only_with_a_catalog(
        kind: str, tmp_path: Path):
    root = tmp_path / "calc"
    make_project(root, kind)
    result = init_project(root)
    said = "\n".join(result.decisions)
    if kind == "adhoc":
        assert not (root / NIGHTLY).exists(), "a nightly with nothing to run was written"
        assert "no -m metal tests: no GPU job" in said and "no nightly workflow" in said, said
        return
    jobs = yaml.safe_load((root / NIGHTLY).read_text())["jobs"]
    assert ("nccl-suites" in jobs) == (kind == "metal"), f"{kind}: GPU job: {list(jobs)}"
    assert ("sweep" in jobs) == (kind == "harness"), f"{kind}: sweep jobs: {list(jobs)}"
    if kind == "harness":
        assert "no -m metal tests: no GPU job" in said, said
        return
    gpu = "\n".join(str(s.get("run", "")) for s in jobs["nccl-suites"]["steps"])
    assert "deskcheck[torch]" in gpu, f"the GPU job does not install deskcheck[torch]:\n{gpu}"
    done = subprocess.run([str(BIN / "deskcheck"), "suites", "metal", "--dry-run"], cwd=root,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "--catalog None" not in done.stdout, done.stdout


def test_init_says_what_it_found_and_writes_the_catalog_it_found(tmp_path: Path, capsys):
    from deskcheck.cli import main

    root = tmp_path / "calc"
    make_project(root, "harness")
    assert main(["init", "--root", str(root)]) == 0, (
        f"`deskcheck init --root F` must exit 0 on the project; it said:\n{capsys.readouterr()}"
    )
    out = capsys.readouterr().out
    assert "registered harness" in out and "catalog mutants.toml" in out, out
    assert "no -m metal tests: no GPU job" in out, out
    assert str(tmp_path) not in out, f"init prints absolute paths:\n{out}"
    assert 'catalog = "mutants.toml"' in (root / "pyproject.toml").read_text(), (
        "init must write the catalog it found, catalog = \"mutants.toml\"; pyproject.toml is "
        f"{(root / 'pyproject.toml').read_text()!r}"
    )
