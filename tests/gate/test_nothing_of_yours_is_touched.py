"""docs/gate.md, "Nothing of yours is touched": git runs with ``GIT_OPTIONAL_LOCKS=0``; pytest
runs with ``-p no:cacheprovider`` and ``PYTHONDONTWRITEBYTECODE=1``; the retry plugins are
blocked with ``-p no:<plugin>``; the probe is loaded by its unique name through
``PYTEST_PLUGINS``, not ``-p``. Each checked on the command or environment the gate builds,
without running pytest."""

from __future__ import annotations

import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from deskcheck.gate import git as gate_git
from deskcheck.gate import runner
from deskcheck.gate.runner import SideSpec, probe_environment, pytest_command, retry_plugin_blocks


def _spec(tmp_path: Path) -> SideSpec:
    return SideSpec(side="base", label="base", code_root=tmp_path, tests_root=tmp_path,
                    modules={}, paths=["tests"])


def test_pytest_runs_without_its_cache_and_goes_on_after_collection_errors(tmp_path):
    command = pytest_command(_spec(tmp_path))
    pairs = list(zip(command, command[1:], strict=False))
    assert ("-p", "no:cacheprovider") in pairs, (
        f"docs/gate.md: pytest runs with -p no:cacheprovider (nothing of yours is touched); "
        f"the command is {command}")
    assert "--continue-on-collection-errors" in command, (
        f"a collection error must be a judged outcome, not a stopped run; the command is "
        f"{command}")
    assert ("-p", runner.PROBE_MODULE_NAME) not in pairs, (
        f"docs/gate.md: the probe is loaded through PYTEST_PLUGINS, not -p; the command is "
        f"{command}")


def test_the_probe_is_loaded_first_by_its_unique_name_and_the_users_plugins_are_kept():
    got = probe_environment({"PYTEST_PLUGINS": "myplugin, _deskcheck_gate_probe"})
    names = got["PYTEST_PLUGINS"].split(",")
    assert names[0] == "_deskcheck_gate_probe" and names[-1] == "myplugin" \
            and names.count("_deskcheck_gate_probe") == 1, (
        f"docs/gate.md: the probe plugin is loaded by the unique name _deskcheck_gate_probe "
        f"through PYTEST_PLUGINS (first, once), the user's own kept; PYTEST_PLUGINS is "
        f"{got['PYTEST_PLUGINS']!r}")


@pytest.mark.parametrize("dist", ["pytest-rerunfailures", "flaky", "pytest-retry",
                                  "pytest-flakefinder"])
def test_each_installed_retry_plugin_is_blocked_and_no_other(monkeypatch, dist):
    points = [SimpleNamespace(name="retrier", dist=SimpleNamespace(name=dist)),
              SimpleNamespace(name="xdist.plugin", dist=SimpleNamespace(name="pytest-xdist"))]
    monkeypatch.setattr(runner.metadata, "entry_points", lambda group: points)
    got = retry_plugin_blocks()
    assert got == ["-p", "no:retrier"], (
        f"docs/gate.md: runner retries are disabled with -p no:<plugin> for {dist} when "
        f"installed, and no other plugin is blocked; the gate passes {got}")


def test_git_runs_without_optional_locks(tmp_path, monkeypatch):
    seen: dict[str, str] = {}

    def fake_run(args, **kwargs):
        seen.update(kwargs["env"])
        return subprocess.CompletedProcess(args, 0, "", "")

    monkeypatch.setattr(gate_git.subprocess, "run", fake_run)
    gate_git.GitRepo(tmp_path).run(["status", "--porcelain"], check=False)
    assert seen.get("GIT_OPTIONAL_LOCKS") == "0", (
        f"docs/gate.md: git runs with GIT_OPTIONAL_LOCKS=0 (not even `git status` refreshes "
        f"your index); it ran with GIT_OPTIONAL_LOCKS={seen.get('GIT_OPTIONAL_LOCKS')!r}")


def test_pytest_runs_without_writing_bytecode(tmp_path, monkeypatch):
    seen: dict[str, str] = {}

    def fake_child(command, *, env, **kwargs):
        seen.update(env)

    monkeypatch.setattr(runner, "_run_child", fake_child)
    monkeypatch.setattr(runner, "_read_results", lambda *args: None)
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "")
    runner.run_side(_spec(tmp_path), tmp_path / "scratch")
    assert seen.get("PYTHONDONTWRITEBYTECODE") == "1", (
        f"docs/gate.md: pytest runs with PYTHONDONTWRITEBYTECODE=1; the child's environment "
        f"has {seen.get('PYTHONDONTWRITEBYTECODE')!r}")
