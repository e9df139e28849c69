"""The import hook nested (docs/mutants.md, *How a mutant reaches every process*): a python
started below a mutant run applies the mutant, and a nested mutant run keeps the outer one.

Unlike ``tests/mutants/test_mutants_process_hook.py`` this keeps whatever ``DESKCHECK_MUTANT``
the test process already has (the nested case: a sweep of deskcheck run under a mutant of
deskcheck), so a defect in the hook itself travels into the started python and shows there.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys

import pytest

from deskcheck.mutants.catalog import Mutant
from deskcheck.mutants.mutation import build_mutation
from deskcheck.mutants.process_hook import MUTANT_ENV, child_environment

pytestmark = pytest.mark.xdist_group("selfproof-hook")

PROBE = 'def marker():\n    return "clean"\n'


@pytest.fixture
def probe_env(tmp_path, monkeypatch) -> dict[str, str]:
    """Environment of a mutant run whose mutant makes ``sp_probe.marker()`` say "mutated"."""
    (tmp_path / "sp_probe.py").write_text(PROBE)
    monkeypatch.syspath_prepend(str(tmp_path))
    mutated = build_mutation(Mutant(id="probe", title="probe", target="sp_probe:marker",
                                    operator="return", params={"value": '"mutated"'}))
    sys.modules.pop("sp_probe", None)
    env = child_environment(mutated.payload(), None, "selfproof")
    env["PYTHONPATH"] = os.pathsep.join([env["PYTHONPATH"], str(tmp_path)])
    return env


def test_a_subprocess_python_applies_the_mutant(probe_env):
    done = subprocess.run(
        [sys.executable, "-c", "import sp_probe; print(sp_probe.marker())"],
        env={**os.environ, **probe_env}, capture_output=True, text=True, timeout=60)
    seen = done.stdout.strip()
    assert seen == "mutated", (
        f"the import hook did not activate in a subprocess python: it ran {seen!r} code "
        f"(stderr: {done.stderr.strip()[-400:]})")


def _report_marker(queue) -> None:
    import sp_probe

    queue.put(sp_probe.marker())


def test_a_spawned_process_applies_the_mutant(probe_env, monkeypatch):
    for key, value in probe_env.items():
        monkeypatch.setenv(key, value)
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    process = context.Process(target=_report_marker, args=(queue,))
    process.start()
    try:
        seen = queue.get(timeout=60)
    finally:
        process.join(timeout=30)
    assert seen == "mutated", (
        f"the import hook did not activate in a spawned process: it ran {seen!r} code")
    assert process.exitcode == 0, f"the spawned process ended with exit code {process.exitcode}"


def test_a_nested_mutant_run_keeps_the_outer_mutant(monkeypatch):
    outer = {"target": "pkg.outer:f", "mutated": "def f():\n    return 1\n"}
    inner = {"target": "pkg.inner:g", "mutated": "def g():\n    return 2\n"}
    monkeypatch.setenv(MUTANT_ENV, json.dumps(outer))
    exported = json.loads(child_environment(inner, None, "t")[MUTANT_ENV])
    targets = [p["target"] for p in exported] if isinstance(exported, list) else [
        exported["target"]]
    assert targets == ["pkg.outer:f", "pkg.inner:g"], (
        f"a nested mutant run exported {targets}: the outer mutant was dropped")
