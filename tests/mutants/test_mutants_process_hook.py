"""The import hook a fresh python gets through PYTHONPATH + DESKCHECK_MUTANT."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from deskcheck.mutants.catalog import Mutant
from deskcheck.mutants.mutation import build_mutation
from deskcheck.mutants.process_hook import MUTANT_ENV, child_environment

from .conftest import FIXTURE

REPO = Path(__file__).resolve().parents[2]

SCRIPT = ("from fixpkg import probe, calc; "
          "print(probe.marker(), calc.admit(1, 5), calc.Ledger.pick(1, 2))")


@pytest.fixture(autouse=True)
def fixture_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(FIXTURE))


def payload(target: str, operator: str, **params) -> dict:
    return build_mutation(Mutant(id="t", title="t", target=target, operator=operator,
                                 params=params)).payload()


def run_python(extra_env: dict[str, str]) -> str:
    env = {**os.environ, **extra_env}
    env["PYTHONPATH"] = os.pathsep.join([env.get("PYTHONPATH", ""), str(FIXTURE)])
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                          text=True, timeout=60, check=True)
    return done.stdout.strip()


def test_a_fresh_python_is_clean_without_the_variable():
    assert run_python({}) == "clean False 1", (
        "a python started without the mutant variable must run clean code; it printed "
        f"{run_python({})!r}"
    )


def test_the_hook_applies_the_mutant_on_import(monkeypatch):
    monkeypatch.delenv(MUTANT_ENV, raising=False)
    env = child_environment(payload("fixpkg.probe:marker", "return", value='"mutated"'),
                            None, "t1")
    assert run_python(env) == "mutated False 1", (
        "the import hook must apply the return mutant of fixpkg.probe:marker on import; it "
        f"printed {run_python(env)!r}"
    )


def test_nested_mutants_stay_applied_below_each_other(monkeypatch):
    outer = payload("fixpkg.calc:admit", "return", value="True")
    monkeypatch.setenv(MUTANT_ENV, json.dumps(outer))
    env = child_environment(payload("fixpkg.calc:Ledger.pick", "swap", old="min", new="max"),
                            None, "t2")
    assert len(json.loads(env[MUTANT_ENV])) == 2, (
        "a nested mutant run must export the outer and the inner mutant; it exported "
        f"{env[MUTANT_ENV]}"
    )
    assert run_python(env) == "clean True 2", (
        "both nested mutants (admit returns True, pick swaps min for max) must apply; it printed "
        f"{run_python(env)!r}"
    )


def test_payload_from_a_file(tmp_path, monkeypatch):
    monkeypatch.delenv(MUTANT_ENV, raising=False)
    path = tmp_path / "payload.json"
    path.write_text(json.dumps(payload("fixpkg.probe:marker", "return", value='"filed"')))
    env = child_environment(None, None, "t3")
    env[MUTANT_ENV] = f"@{path}"
    assert run_python(env) == "filed False 1", (
        "a payload given as @FILE must be read from the file and applied; it printed "
        f"{run_python(env)!r}"
    )


REWRITTEN_TEST = '''
def test_probe():
    from rwpkg import probe
    assert probe.marker() == "mutated", f"the mutant was not applied: marker() is {probe.marker()!r}"
'''


@pytest.mark.parametrize("rewritten_by", ["conftest", "plugin"])
def test_the_hook_applies_a_mutant_to_a_module_pytest_rewrites(tmp_path, monkeypatch,
                                                               rewritten_by):
    """pytest puts its assertion rewriter first on ``sys.meta_path`` and imports through it
    the modules of every ``pytest11`` plugin's distribution (deskcheck's own, so every
    self-mutant of ``deskcheck mutants run``) and those a conftest registers for rewriting:
    the mutant must still be applied to them. An outer mutant in the environment stays
    applied below this one (the self-sweep judges ``keep_first`` through it)."""
    (tmp_path / "rwpkg").mkdir()
    (tmp_path / "rwpkg" / "__init__.py").write_text("")
    (tmp_path / "rwpkg" / "probe.py").write_text("def marker():\n    return 'clean'\n")
    if rewritten_by == "conftest":
        (tmp_path / "conftest.py").write_text('import pytest\n'
                                               'pytest.register_assert_rewrite("rwpkg")\n')
        target, probe = "rwpkg.probe:marker", REWRITTEN_TEST
        monkeypatch.syspath_prepend(str(tmp_path))
    else:  # a module of deskcheck itself: pytest marks its whole distribution for rewrite
        target = "deskcheck.static._surface:_roles_for"
        probe = ('def test_probe():\n    from deskcheck.static import _surface\n'
                 '    got = _surface._roles_for("read", None)\n'
                 '    assert got == "mutated", f"the self-mutant was not applied: {got!r}"\n')
    (tmp_path / "test_probe.py").write_text(probe)
    env = {**os.environ, **child_environment(payload(target, "return", value='"mutated"'),
                                             None, "t-rw")}
    env["PYTHONPATH"] = os.pathsep.join([env["PYTHONPATH"], str(tmp_path)])
    # from the project root, as ``deskcheck mutants run`` runs pytest: the rewriter then
    # claims deskcheck's own modules (the editable install is found on the cwd path)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "no:xdist", str(tmp_path / "test_probe.py")],
                          cwd=REPO if rewritten_by == "plugin" else tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, (
        f"under pytest, a mutant of {target} (a module pytest's assertion rewriter imports) "
        f"was not applied:\n{done.stdout[-1500:]}{done.stderr[-500:]}")
