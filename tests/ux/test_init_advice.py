"""Issue 16 item 11: `deskcheck init` gives only advice that applies, and its workflows
install a pinned CPU torch wheel on CPU runners (never an open `torch`)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from deskcheck.report.init_project import WORKFLOWS, init_project
from deskcheck.report.workflows import build_workflows
from tests.report.test_init import full_shape


def _init(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "deskcheck", "init", "--root", str(root)],
                          cwd=root, capture_output=True, text=True, timeout=120)


def _repo(tmp_path: Path, gitignore: str | None) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    if gitignore is not None:
        (tmp_path / ".gitignore").write_text(gitignore)
    return tmp_path


def test_no_gitignore_advice_when_deskcheck_is_already_ignored(tmp_path: Path):
    done = _init(_repo(tmp_path, ".venv/\n.deskcheck/\n"))
    assert done.returncode == 0, done.stderr
    assert ".gitignore" not in done.stdout, (
        f"init advised adding .deskcheck/ to .gitignore, which already ignores it:\n"
        f"{done.stdout}")


def test_gitignore_advice_when_deskcheck_is_not_ignored(tmp_path: Path):
    done = _init(_repo(tmp_path, ".venv/\n"))
    assert "add `.deskcheck/` to .gitignore" in done.stdout, (
        f"init gave no .gitignore advice though .deskcheck/ is not ignored:\n{done.stdout}")


def _jobs(text: str) -> dict[str, str]:
    """Job name -> its YAML text (jobs are the two-space-indented keys under `jobs:`)."""
    body = text.split("\njobs:\n", 1)[1]
    parts = re.split(r"(?m)^  ([\w-]+):\n", body)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


@pytest.mark.parametrize("workflow", sorted(WORKFLOWS))
def test_cpu_jobs_install_a_pinned_cpu_torch_before_the_project(tmp_path: Path, workflow: str):
    text = build_workflows(full_shape(tmp_path)).files[workflow] or ""
    # (an extra such as deskcheck[torch] is not torch itself: the pinned wheel comes first)
    assert not re.search(r"pip install[^\n]*\btorch\b(?!==|[],])", text), (
        f"{workflow} installs torch without pinning it:\n{text}")
    for job, body in _jobs(text).items():
        if "ubuntu-latest" not in body:
            continue  # a GPU runner: the CUDA build is what it needs
        if "pip install" not in body:
            continue  # installs nothing (e.g. only fetches last night's store)
        torch = re.search(r'pip install "torch==\d+\.\d+(\.\d+)?" --index-url '
                          r"https://download\.pytorch\.org/whl/cpu", body)
        project = body.find("pip install -e .")
        assert torch and (project < 0 or torch.start() < project), (
            f"job {job!r} of {workflow} (a CPU runner) does not install a pinned CPU torch "
            f"wheel before the project:\n{body}")


def test_a_project_without_torch_installs_no_torch(tmp_path: Path):
    init_project(tmp_path)
    text = (tmp_path / WORKFLOWS[0]).read_text()
    assert "torch" not in text, f"a project without torch gets a torch install:\n{text}"
