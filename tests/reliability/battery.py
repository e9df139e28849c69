"""The fault battery's bench: a small committed project, a private ``TMPDIR`` and a process
marker for every run of deskcheck a test starts, and the three checks after each case —
no process of the run is left, no temp entry is left, the project tree is unchanged.

Every process a case starts (and every process those start, orphans included) inherits
``DESKCHECK_TEST_TAG=<marker>``, so the check finds exactly this case's processes in /proc.
Nothing waits on the clock for synchronisation: a case waits for a file or a line of
progress output, and a bound only turns a hang into a failure."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.mutants.conftest import tagged_processes
from tests.pythonpath import extended
from tests.signals import sigint_default

HANG_BOUND_S = 300.0  # only turns a hang into a failure; nothing is timed against it
EXIT_BOUND_S = 60.0  # a process of a finished run still exiting; never a synchronisation

MODULE = "def total(values):\n    return sum(values)\n"
OWNER = "from kpkg.mod import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n"
CATALOG = ('[sweep]\ntests = ["tests"]\n\n[[mutant]]\nid = "k.plus_one"\ntitle = "total adds '
           'one"\ntarget = "kpkg.mod:total"\noperator = "replace"\nold = "return sum(values)"\n'
           'new = "return sum(values) + 1"\nowners = ["tests/test_mod.py::test_total"]\n')


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t",
                           *args], cwd=root, capture_output=True, text=True, check=True).stdout


class Bench:
    """One case's project, temp folder and marker."""

    def __init__(self, base: Path):
        self.base = base
        self.root = base / "project"
        self.tmpdir = base / "tmp"
        self.out = base / "out"  # what a case writes outside the project (JSON reports)
        for folder in (self.root, self.tmpdir, self.out):
            folder.mkdir(parents=True)
        self.marker = f"battery-{uuid.uuid4().hex}"
        self.write({"kpkg/__init__.py": "", "kpkg/mod.py": MODULE,
                    "tests/test_mod.py": OWNER, "mutants.toml": CATALOG,
                    "pyproject.toml": "[tool.deskcheck]\ncatalog = \"mutants.toml\"\n",
                    ".gitignore": ".deskcheck/\n"})
        self.commit("project")
        self._tree: dict[str, str] | None = self._files()

    def write(self, files: dict[str, str | bytes]) -> None:
        for name, text in files.items():
            path = self.root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(text, bytes):
                path.write_bytes(text)
            else:
                path.write_text(text)

    def commit(self, message: str) -> None:
        if not (self.root / ".git").exists():
            git(self.root, "init", "-q", "-b", "main")
        git(self.root, "add", "-A")
        git(self.root, "commit", "-qm", message)

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("PYTEST_", "DESKCHECK_SCRATCH", "DESKCHECK_TEST_TAG"))}
        env.update(TMPDIR=str(self.tmpdir), CUDA_VISIBLE_DEVICES="", COLUMNS="200",
                   DESKCHECK_TEST_TAG=self.marker, PYTHONPATH=extended(self.root), **extra)
        return env

    def command(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "deskcheck.cli", *args]

    def run(self, *args: str, cwd: Path | None = None, **env: str
            ) -> subprocess.CompletedProcess:
        return subprocess.run(self.command(*args), cwd=cwd or self.root, env=self.env(**env),
                              capture_output=True, text=True, timeout=HANG_BOUND_S)

    def run_python(self, script: str, *args: str, **env: str) -> subprocess.CompletedProcess:
        """``python -c script args...`` (a script that wraps ``deskcheck.cli.main``)."""
        return subprocess.run([sys.executable, "-c", script, *args], cwd=self.root,
                              env=self.env(**env), capture_output=True, text=True,
                              timeout=HANG_BOUND_S, preexec_fn=sigint_default)

    def start(self, *args: str, **env: str) -> subprocess.Popen:
        """A run the case will signal: SIGINT's default action restored, output on a pipe."""
        return subprocess.Popen(self.command(*args), cwd=self.root, env=self.env(**env),
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                preexec_fn=sigint_default)

    # -- the checks after each case -------------------------------------------------------

    def snapshot(self) -> None:
        self._tree = self._files()

    def _files(self) -> dict[str, str]:
        found = {}
        for path in sorted(self.root.rglob("*")):
            relative = path.relative_to(self.root)
            if relative.parts[0] in (".git", ".deskcheck") or not path.is_file():
                continue
            found[str(relative)] = hashlib.sha256(path.read_bytes()).hexdigest()
        return found

    def check_clean(self) -> None:
        deadline = time.monotonic() + EXIT_BOUND_S
        while (alive := tagged_processes(self.marker)) and time.monotonic() < deadline:
            time.sleep(0.05)  # polling a condition, bounded only against a hang
        described = [_command(pid) for pid in alive]
        for pid in alive:  # the case fails; nothing of it may linger on the machine
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        assert not alive, f"processes of the run outlived it: {described}"
        left = sorted(p.name for p in self.tmpdir.iterdir())
        assert not left, f"the run left {len(left)} entries in its private TMPDIR: {left}"
        if self._tree is not None:
            now = self._files()
            changed = sorted(k for k in set(now) | set(self._tree)
                             if now.get(k) != self._tree.get(k))
            assert not changed, f"the run changed the project tree: {changed}"


def _command(pid: int) -> str:
    try:
        text = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        text = ""
    return f"{pid} {text.strip()[:120]}"


def wait_for(path: Path, process: subprocess.Popen | None = None) -> None:
    """Until ``path`` exists (the run reached the point the case waits for)."""
    deadline = time.monotonic() + HANG_BOUND_S
    while not path.exists():
        if process is not None and process.poll() is not None:
            raise AssertionError(f"the run ended (exit {process.returncode}) before {path} "
                                 f"appeared:\n{process.stdout.read() if process.stdout else ''}")
        assert time.monotonic() < deadline, f"{path} never appeared (hang)"
        time.sleep(0.05)


@pytest.fixture
def bench(tmp_path: Path) -> Iterator[Bench]:
    made = Bench(tmp_path)
    yield made
    made.check_clean()
