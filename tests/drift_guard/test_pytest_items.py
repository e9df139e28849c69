"""The pytest plugin generates ``<Harness>::drift_guard`` and ``::can_fail`` for every
registered harness or stub, in the module that declares it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.pythonpath import extended

TESTS = '''
from dg_shop.scheduler import Scheduler
from deskcheck.harness import Harness, bind
from deskcheck.stubs import StubSpec
from dg_shop.mixins.budget import BudgetMixin


class Holds(Harness, model=Scheduler, roots=["get_num_allocatable_reqs"], adopt=["pool_limit"]):
    get_num_allocatable_reqs = bind(Scheduler.get_num_allocatable_reqs)


class Behind(Harness, model=Scheduler, roots=["run_once"]):
    run_once = bind(Scheduler.run_once)


BudgetStub = StubSpec(BudgetMixin, fields=["_budget_base"], roots=["budget"])


def test_ordinary():
    assert Holds().get_num_allocatable_reqs(2) == 6
'''


@pytest.mark.xdist_group("deskcheck_drift_subprocess")
def test_generated_items_pass_and_fail_with_the_drift_message(tmp_path, shop_root):
    shutil.copytree(shop_root / "dg_shop", tmp_path / "dg_shop",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "test_generated.py").write_text(TESTS)
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    env = {**os.environ, "PYTHONPATH": extended(tmp_path), "CUDA_VISIBLE_DEVICES": ""}
    result = subprocess.run([sys.executable, "-m", "pytest", "-rA", "-q", "-p", "no:xdist"],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    for node in ("Holds::drift_guard", "Holds::can_fail", "Behind::can_fail",
                 "BudgetStub::can_fail", "test_ordinary"):
        assert f"PASSED test_generated.py::{node}" in out, out
    for node in ("Behind::drift_guard", "BudgetStub::drift_guard"):
        assert f"FAILED test_generated.py::{node}" in out, out
    assert "Behind has drifted behind Scheduler.run_once: ['_budget_base', " in out, (
        "the generated drift_guard test of Behind must fail with the drift message; pytest "
        f"printed {out[-1500:]}"
    )
    assert "BudgetMixinStub has drifted behind BudgetMixin.budget: ['reserved_tokens']" in out, (
        "the generated drift_guard test of BudgetStub must fail with the drift message; pytest "
        f"printed {out[-1500:]}"
    )
    assert "Traceback" not in out, (
        "a generated drift-guard test must report the drift message, not a traceback; pytest "
        f"printed {out[-1500:]}"
    )  # the report is the drift message, not a stack


def test_the_marker_is_registered_with_a_help_line(pytestconfig):
    lines = [m for m in pytestconfig.getini("markers") if m.startswith("deskcheck_drift:")]
    assert lines and "generated drift-guard or can-fail test" in lines[0], (
        "the deskcheck_drift marker must be registered with the help 'generated drift-guard or "
        f"can-fail test'; markers: {lines}"
    )


@pytest.mark.xdist_group("deskcheck_drift_subprocess")
def test_the_drift_items_ini_option_switches_the_generated_items_off(tmp_path, shop_root):
    shutil.copytree(shop_root / "dg_shop", tmp_path / "dg_shop",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "test_generated.py").write_text(TESTS)
    env = {**os.environ, "PYTHONPATH": extended(tmp_path), "CUDA_VISIBLE_DEVICES": ""}
    collected = {}
    for value in ("true", "false"):
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist", "-p",
             "no:cacheprovider", "-o", f"deskcheck_drift_items={value}"],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        collected[value] = sorted(line.split("::", 1)[1] for line in result.stdout.splitlines()
                                  if line.startswith("test_generated.py::"))
    assert "Holds::drift_guard" in collected["true"] and collected["false"] == [
        "test_ordinary"], (
        "expected the generated drift_guard/can_fail items by default and none with "
        f"deskcheck_drift_items=false, got {collected}")
