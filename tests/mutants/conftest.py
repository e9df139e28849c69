"""Shared helpers for the mutants part's tests: the fixture project and sweep runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

collect_ignore = ["fixtures"]

FIXTURE = Path(__file__).parent / "fixtures" / "proj"
CATALOG = FIXTURE / "mutants.toml"


def deskcheck(*args: str, cwd: Path | None = None, timeout: float = 600,
              env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run the real CLI in a fresh interpreter (the sweep forks; keep that out of pytest)."""
    full_env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", **(env or {})}
    return subprocess.run([sys.executable, "-m", "deskcheck.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, env=full_env)


def sweep_json(tmp: Path, *args: str, catalog: Path = CATALOG, cwd: Path | None = None,
               env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess, dict]:
    out = tmp / "sweep.json"
    proc = deskcheck("sweep", "--catalog", str(catalog), "--json", str(out), "--no-store",
                     *args, cwd=cwd, env=env)
    said = [line.strip() for line in proc.stderr.splitlines() if line.strip()]
    at = next((i for i, line in enumerate(said) if "error" in line), len(said) - 1)
    assert out.exists(), (
        f"the sweep wrote no JSON (exit {proc.returncode}); it said: "
        f"{' / '.join(said[at:at + 2]) or '(nothing on stderr)'}"
        f"\nstdout:{proc.stdout}\nstderr:{proc.stderr}")
    return proc, json.loads(out.read_text())


FIXTURE_SWEEP_TAG = f"fixture-sweep-{os.getpid()}"


@pytest.fixture(scope="session")
def fixture_sweep(tmp_path_factory) -> tuple[subprocess.CompletedProcess, dict]:
    """One sweep of the whole fixture catalog, shared by the verdict tests. Every process
    of it carries ``DESKCHECK_TEST_TAG`` so a test can look for leftovers of this sweep only."""
    return sweep_json(tmp_path_factory.mktemp("fixture-sweep"), "--workers", "2",
                      env={"DESKCHECK_TEST_TAG": FIXTURE_SWEEP_TAG})


def tagged_processes(tag: str) -> list[int]:
    """Live (non-zombie) processes whose environment carries ``DESKCHECK_TEST_TAG=tag``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if f"DESKCHECK_TEST_TAG={tag}".encode() in environ.split(b"\0") and \
                stat[stat.rfind(")") + 2] != "Z":
            found.append(int(entry))
    return found


def by_id(document: dict) -> dict[str, dict]:
    return {m["id"]: m for m in document["mutants"]}
