"""Every runnable snippet of README.md and docs/*.md is executed, so an example cannot drift
from the code (issue 16). The marking convention is in ``tests/ux/docblocks.py`` and
docs/contributing.md: ``<!-- runnable -->`` on the line before the opening fence.

Blocks run in a scratch copy of the project (tracked and untracked, not ignored, files; the
real ``.venv`` linked in), committed in a fresh git repository whose ``origin/main`` is that
commit, so ``make demo``, the gates and the stores write only there. Bounded: the scratch
project's pytest ``testpaths`` is the reference target's tests (the tour is about the
reference target), and every block has a time limit.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ux.docblocks import Block, runnable_blocks

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCKS = [b for doc in DOCS for b in runnable_blocks(doc)]
pytestmark = pytest.mark.xdist_group("runnable-docs")


def _env(scratch: Path, temp: Path | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "COV_", "DESKCHECK_MUTANT"))}
    if temp is not None:  # the block's own temp folder: what it leaves there is checked
        env["TMPDIR"] = str(temp)
    env.update({"CUDA_VISIBLE_DEVICES": "", "GIT_AUTHOR_NAME": "docs", "GIT_AUTHOR_EMAIL":
                "docs@example.invalid", "GIT_COMMITTER_NAME": "docs",
                "GIT_COMMITTER_EMAIL": "docs@example.invalid",
                "PYTHONPATH": str(scratch / "examples" / "tp_scheduler"),
                "PATH": f"{Path(sys.executable).parent}:{env.get('PATH', '')}"})
    return env


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    """A committed copy of the project, its own git repository, origin/main = HEAD."""
    into = tmp_path_factory.mktemp("docs") / "project"
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)
    pyproject = into / "pyproject.toml"
    pyproject.write_text(re.sub(r'(?m)^testpaths = .*$',
                                'testpaths = ["examples/tp_scheduler/tests"]',
                                pyproject.read_text()))
    _borrow_venv(into / ".venv")
    os.utime(into / ".venv" / ".installed",
             (pyproject.stat().st_mtime + 60, pyproject.stat().st_mtime + 60))
    env = _env(into)
    for argv in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"],
                 ["git", "commit", "-q", "-m", "scratch"],
                 ["git", "update-ref", "refs/remotes/origin/main", "HEAD"]):
        subprocess.run(argv, cwd=into, env=env, check=True, capture_output=True)
    return into


def _borrow_venv(venv: Path) -> None:
    """The scratch copy's ``.venv``: the real one's interpreter and packages (links), with
    its own ``.installed`` stamp, newer than the copy's pyproject.toml, so ``make demo``
    there never reinstalls into the real environment (an editable install would then point
    at the scratch copy)."""
    venv.mkdir()
    for name in ("bin", "lib", "lib64", "include", "pyvenv.cfg"):
        if (ROOT / ".venv" / name).exists():
            (venv / name).symlink_to(ROOT / ".venv" / name)
    (venv / ".installed").touch()


def test_the_marked_blocks_include_the_readme_tour_and_the_suites_examples():
    names = {b.name for b in BLOCKS}
    assert any(n.startswith("README.md:") for n in names), (
        f"the README's five-minute tour is not marked runnable: {sorted(names)}")
    assert sum(n.startswith("suites.md:") for n in names) >= 2, (
        f"docs/suites.md's pool and congruence-arm examples are not marked: {sorted(names)}")


def _run_python(block: Block, scratch: Path, temp: Path) -> None:
    script = scratch / f"snippet_{block.file.stem}_{block.line}.py"
    script.write_text(block.text, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=scratch, env=_env(scratch, temp),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, (
        f"the python snippet at {block.name} fails as written (exit {done.returncode}):\n"
        f"{done.stdout[-2000:]}\n{done.stderr[-4000:]}")


def _run_commands(block: Block, scratch: Path, temp: Path) -> None:
    lines = []
    for n, (command, _) in enumerate(block.commands):
        lines += [f"echo '@@start {n}' >&2", command, f"echo \"@@rc {n} $?\" >&2"]
    done = subprocess.run(["bash", "-c", "\n".join(lines)], cwd=scratch, env=_env(scratch, temp),
                          capture_output=True, text=True, timeout=1500)
    codes = {int(n): int(rc) for n, rc in re.findall(r"@@rc (\d+) (\d+)", done.stderr)}
    wrong = [f"`{command}` exited {codes.get(n, 'never')} (expected {expected})"
             for n, (command, expected) in enumerate(block.commands)
             if codes.get(n) != expected]
    assert not wrong, (f"the commands at {block.name} do not work as written:\n"
                       + "\n".join(wrong) + f"\n--- stdout\n{done.stdout[-3000:]}"
                       f"\n--- stderr\n{done.stderr[-5000:]}")


@pytest.mark.parametrize("block", BLOCKS, ids=[b.name for b in BLOCKS])
def test_runnable_snippet_works_as_written(block: Block, scratch: Path, tmp_path: Path):
    before, venv = _status(), _venv_state()
    temp = tmp_path / "tmp"
    temp.mkdir()
    if block.language == "python":
        _run_python(block, scratch, temp)
    else:
        assert block.commands, f"{block.name} is marked runnable but has no command"
        _run_commands(block, scratch, temp)
    left = sorted(p.name for p in temp.iterdir() if not p.name.startswith("pytest-of-"))
    assert not left, (
        f"running {block.name} as written left {left} in the temp folder: an example must "
        "clean up what it makes (tempfile.TemporaryDirectory, not mkdtemp), and deskcheck "
        "must leave nothing behind (pytest's own pytest-of-* folders aside)")
    assert _status() == before, (
        f"running {block.name} changed the real checkout:\n{_status()}")
    assert _venv_state() == venv, f"running {block.name} reinstalled into the real .venv"


def _venv_state() -> str:
    """The real environment's deskcheck entry point (a reinstall rewrites it)."""
    script = ROOT / ".venv" / "bin" / "deskcheck"
    return f"{script.read_text()[:200]}{script.stat().st_mtime}" if script.exists() else ""


def _status() -> str:
    return subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True,
                          text=True).stdout
