"""The import hook a fresh python gets through PYTHONPATH + DESKCHECK_MUTANT."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from deskcheck.mutants.catalog import Mutant
from deskcheck.mutants.mutation import build_mutation
from deskcheck.mutants.process_hook import MUTANT_ENV, child_environment

from .conftest import FIXTURE

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
    assert run_python({}) == "clean False 1"


def test_the_hook_applies_the_mutant_on_import(monkeypatch):
    monkeypatch.delenv(MUTANT_ENV, raising=False)
    env = child_environment(payload("fixpkg.probe:marker", "return", value='"mutated"'),
                            None, "t1")
    assert run_python(env) == "mutated False 1"


def test_nested_mutants_stay_applied_below_each_other(monkeypatch):
    outer = payload("fixpkg.calc:admit", "return", value="True")
    monkeypatch.setenv(MUTANT_ENV, json.dumps(outer))
    env = child_environment(payload("fixpkg.calc:Ledger.pick", "swap", old="min", new="max"),
                            None, "t2")
    assert len(json.loads(env[MUTANT_ENV])) == 2
    assert run_python(env) == "clean True 2"


def test_payload_from_a_file(tmp_path, monkeypatch):
    monkeypatch.delenv(MUTANT_ENV, raising=False)
    path = tmp_path / "payload.json"
    path.write_text(json.dumps(payload("fixpkg.probe:marker", "return", value='"filed"')))
    env = child_environment(None, None, "t3")
    env[MUTANT_ENV] = f"@{path}"
    assert run_python(env) == "filed False 1"
