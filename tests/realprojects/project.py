"""Small user projects made inside a test: a git repository with a package and its tests.

Each helper writes only under the folder it is given; nothing here touches the network.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

PYPROJECT = """\
[project]
name = "userpkg"
version = "0"

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["."]
{extra}
"""


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True)
    return done.stdout


def write(root: Path, files: dict[str, str]) -> None:
    for relpath, text in files.items():
        path = root / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(textwrap.dedent(text).encode("utf-8"))


def make_project(root: Path, base: dict[str, str], branch: dict[str, str] | None = None,
                 pytest_ini: str = "") -> Path:
    """A git repository at ``root``: ``base`` committed on ``main``; with ``branch``, those
    files changed on ``feature`` (checked out)."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    for key, value in (("user.email", "t@example.com"), ("user.name", "t"),
                       ("commit.gpgsign", "false"), ("core.autocrlf", "false")):
        git(root, "config", key, value)
    write(root, {"pyproject.toml": PYPROJECT.format(extra=textwrap.dedent(pytest_ini)),
                 "userpkg/__init__.py": "", **base})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    if branch is not None:
        git(root, "checkout", "-q", "-b", "feature")
        write(root, branch)
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "feature")
    return root


def deskcheck(root: Path, *args: str, timeout: float = 600,
              env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The real CLI, in a fresh interpreter, from ``root``."""
    # PYTHONPATH is kept: under a self-proof mutant it carries the bootstrap that applies the
    # mutant to this deskcheck too (the fixture projects put their own root on sys.path).
    full_env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "COLUMNS": "200", **(env or {})}
    return subprocess.run([sys.executable, "-m", "deskcheck.cli", *args], cwd=root,
                          capture_output=True, text=True, timeout=timeout, env=full_env)


def run_json(root: Path, *args: str, timeout: float = 600,
             env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess, dict]:
    """``deskcheck ARGS --json`` and the JSON it wrote (asserting it wrote one)."""
    out = root.parent / f"{root.name}-out.json"
    out.unlink(missing_ok=True)
    done = deskcheck(root, *args, "--json", str(out), timeout=timeout, env=env)
    assert out.is_file(), (f"deskcheck {' '.join(args)} wrote no JSON (exit "
                           f"{done.returncode})\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}")
    return done, json.loads(out.read_text(encoding="utf-8"))


def verdicts(report: dict) -> dict[str, str]:
    return {m["id"]: m["verdict"] for m in report["mutants"]}
