"""The DESK tier's environment: what every gloo rank gets set or removed. Configurable
(``[tool.deskcheck.desk_env]``, ``DESKCHECK_DESK_ENV``); by default it hides GPUs only where
the machine shows one, so a project's own test utilities that read CUDA_VISIBLE_DEVICES at
import (SGLang's test_utils.py indexes it) still import on a CPU machine."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from deskcheck.errors import ConfigError
from deskcheck.suites import apply_desk_env, describe_desk_env, desk_env_rules
from tests.pythonpath import extended

FIXTURES = Path(__file__).parent / "fixtures_desk_env"


def _project(tmp_path: Path, table: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent(table))
    return tmp_path


def test_default_hides_gpus_only_where_the_machine_shows_one(tmp_path):
    root = _project(tmp_path, "[tool.deskcheck]\n")
    assert desk_env_rules(root, environ={}, gpus=lambda: 0) == {}, \
        "a machine with no GPU: the DESK env must leave CUDA_VISIBLE_DEVICES as the caller has it"
    assert desk_env_rules(root, environ={}, gpus=lambda: 2) == {"CUDA_VISIBLE_DEVICES": ""}, \
        "a machine with GPUs: DESK ranks must have CUDA_VISIBLE_DEVICES='' (hermetic)"


def test_the_project_sets_and_removes_variables(tmp_path):
    root = _project(tmp_path, """
        [tool.deskcheck.desk_env]
        CUDA_VISIBLE_DEVICES = false
        OMP_NUM_THREADS = "1"
        """)
    rules = desk_env_rules(root, environ={}, gpus=lambda: 2)
    assert rules == {"CUDA_VISIBLE_DEVICES": None, "OMP_NUM_THREADS": "1"}, \
        f"false must remove the variable and a string set it: {rules}"
    env = {"CUDA_VISIBLE_DEVICES": "0,1", "KEEP": "x"}
    apply_desk_env(env, rules)
    assert env == {"KEEP": "x", "OMP_NUM_THREADS": "1"}, f"applied wrongly: {env}"
    assert describe_desk_env(rules) == "CUDA_VISIBLE_DEVICES unset, OMP_NUM_THREADS='1'", (
        "desk_env must be described as \"CUDA_VISIBLE_DEVICES unset, OMP_NUM_THREADS='1'\"; it is "
        f"{describe_desk_env(rules)!r}"
    )


def test_the_environment_variable_overrides_the_project(tmp_path):
    root = _project(tmp_path, """
        [tool.deskcheck.desk_env]
        CUDA_VISIBLE_DEVICES = ""
        """)
    rules = desk_env_rules(root, environ={"DESKCHECK_DESK_ENV": "-CUDA_VISIBLE_DEVICES A=1"},
                           gpus=lambda: 2)
    assert rules == {"CUDA_VISIBLE_DEVICES": None, "A": "1"}, \
        f"DESKCHECK_DESK_ENV ('-NAME' removes, 'NAME=VALUE' sets) must win: {rules}"


def test_bad_values_are_all_named_with_the_file_and_the_fix(tmp_path):
    root = _project(tmp_path, """
        [tool.deskcheck.desk_env]
        CUDA_VISIBLE_DEVICES = 0
        OMP_NUM_THREADS = ["1"]
        """)
    with pytest.raises(ConfigError) as info:
        desk_env_rules(root, environ={"DESKCHECK_DESK_ENV": "no_equals_sign"}, gpus=lambda: 0)
    text = str(info.value)
    assert "CUDA_VISIBLE_DEVICES = 0" in text and "OMP_NUM_THREADS" in text, \
        f"every bad entry of the table must be named in one pass: {text}"
    assert "DESKCHECK_DESK_ENV" in text and "'no_equals_sign'" in text, \
        f"the bad environment item must be named in the same pass: {text}"
    assert "pyproject.toml" in text and "NAME = false" in text, f"the file and the fix: {text}"


_RUN = """
import json, sys
from deskcheck.suites import RankPool
from uses_sglang_like_utils import port_and_visible
pool = RankPool(2, "gloo", start_method=sys.argv[1]).start()
try:
    print(json.dumps(pool.run(port_and_visible)))
finally:
    pool.close()
"""


def _ranks(tmp_path: Path, start_method: str, table: str, env_extra: dict[str, str]) -> str:
    _project(tmp_path, table)
    env = {k: v for k, v in os.environ.items() if k != "CUDA_VISIBLE_DEVICES"}
    env.update(env_extra)
    env["PYTHONPATH"] = extended(FIXTURES)
    proc = subprocess.run([sys.executable, "-c", _RUN, start_method], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=240)
    return proc.stdout + proc.stderr


@pytest.mark.xdist_group("deskcheck-suites")
@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_a_project_test_utility_that_reads_the_variable_imports_in_desk_ranks(
        tmp_path, start_method):
    """SGLang's case: CUDA_VISIBLE_DEVICES unset on a CPU machine; its test utilities index the
    variable at import. A DESK rank must not set it to '' there."""
    out = _ranks(tmp_path, start_method, "[tool.deskcheck]\n", {})
    assert "[[20000, null], [20000, null]]" in out, \
        f"a {start_method} rank set CUDA_VISIBLE_DEVICES on a machine with no GPU, and the " \
        f"project's utility failed to import: {out[-3000:]}"


@pytest.mark.xdist_group("deskcheck-suites")
def test_the_configured_desk_env_reaches_spawned_ranks(tmp_path):
    out = _ranks(tmp_path, "spawn", '[tool.deskcheck.desk_env]\nCUDA_VISIBLE_DEVICES = "3"\n', {})
    assert "[[23000, \"3\"], [23000, \"3\"]]" in out, \
        f"the configured CUDA_VISIBLE_DEVICES='3' did not reach the spawned ranks: {out[-3000:]}"
