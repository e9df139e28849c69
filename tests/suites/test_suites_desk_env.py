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


def test_a_bad_environment_item_alone_names_the_environment_and_its_own_fix(tmp_path):
    root = _project(tmp_path, "[tool.deskcheck]\n")
    with pytest.raises(ConfigError) as info:
        desk_env_rules(root, environ={"DESKCHECK_DESK_ENV": "A=1 B"}, gpus=lambda: 0)
    error = info.value
    assert error.location == "environment" and "'B'" in error.message, (
        "a bad DESKCHECK_DESK_ENV item with a clean project table must be located in the "
        f"environment and name the item 'B' (docs/suites.md:105); got location "
        f"{error.location!r}, message {error.message!r}")
    assert error.fix and "DESKCHECK_DESK_ENV=" in error.fix and "NAME = false" not in error.fix, (
        "the fix of a bad environment item must show how to write DESKCHECK_DESK_ENV, not the "
        f"pyproject table's fix; the fix is {error.fix!r}")
    assert error.exit_code == 2, f"a bad DESK entry is a configuration error (exit 2), not {error.exit_code}"


def test_a_bad_table_entry_alone_is_located_in_pyproject_with_the_table_fix(tmp_path):
    root = _project(tmp_path, """
        [tool.deskcheck.desk_env]
        OMP_NUM_THREADS = 1
        """)
    with pytest.raises(ConfigError) as info:
        desk_env_rules(root, environ={}, gpus=lambda: 0)
    error = info.value
    assert error.location and "pyproject.toml" in error.location \
        and "[tool.deskcheck.desk_env]" in error.location, (
            "a bad [tool.deskcheck.desk_env] entry must be located at the table in pyproject.toml; "
            f"located at {error.location!r}")
    assert "OMP_NUM_THREADS = 1" in error.message and error.fix \
        and "NAME = false" in error.fix and "DESKCHECK_DESK_ENV=" not in error.fix, (
            "the error must name the entry and give the table's fix (quote it or write false), "
            f"not the environment's; message {error.message!r}, fix {error.fix!r}")


def test_true_is_a_bad_entry_only_false_removes(tmp_path):
    root = _project(tmp_path, """
        [tool.deskcheck.desk_env]
        CUDA_VISIBLE_DEVICES = true
        """)
    try:
        rules = desk_env_rules(root, environ={}, gpus=lambda: 0)
    except ConfigError as exc:
        assert "CUDA_VISIBLE_DEVICES = True" in str(exc), f"the bad entry must be named: {exc}"
    else:
        pytest.fail("CUDA_VISIBLE_DEVICES = true in [tool.deskcheck.desk_env] must be a bad entry "
                    f"(only false removes, a string sets); it gave the rules {rules}")
    empty = _project(tmp_path, """
        [tool.deskcheck.desk_env]
        CUDA_VISIBLE_DEVICES = ""
        """)
    rules = desk_env_rules(empty, environ={}, gpus=lambda: 0)
    assert rules == {"CUDA_VISIBLE_DEVICES": ""}, (
        f'NAME = "" sets the variable to the empty string (a string sets it); got {rules}')


def test_a_desk_env_that_is_not_a_table_is_a_configuration_error(tmp_path):
    root = _project(tmp_path, """
        [tool.deskcheck]
        desk_env = "CUDA_VISIBLE_DEVICES="
        """)
    with pytest.raises(ConfigError) as info:
        desk_env_rules(root, environ={}, gpus=lambda: 0)
    text = str(info.value)
    assert "pyproject.toml:3" in text and "desk_env" in text and "table" in text, (
        "desk_env given as a string must be refused at its pyproject.toml line, naming desk_env "
        f"and the fix (write it as a table): {text}")


@pytest.mark.parametrize(("text", "expected"), [
    ("A=1\tB=x=y\n-C", {"A": "1", "B": "x=y", "C": None}),
    ("EMPTY=", {"EMPTY": ""}),
    ("", {}),
], ids=["whitespace-and-first-equals", "empty-value", "empty"])
def test_the_environment_items_are_whitespace_separated_name_value_or_minus_name(
        tmp_path, text, expected):
    root = _project(tmp_path, "[tool.deskcheck]\n")
    rules = desk_env_rules(root, environ={"DESKCHECK_DESK_ENV": text}, gpus=lambda: 0)
    assert rules == expected, (
        f"DESKCHECK_DESK_ENV={text!r}: items split on whitespace, NAME=VALUE sets (value after the "
        f"first '='), -NAME removes; expected {expected}, got {rules}")


@pytest.mark.parametrize("item", ["-", "=1", "NAME"])
def test_an_item_that_is_neither_name_value_nor_minus_name_is_refused(tmp_path, item):
    root = _project(tmp_path, "[tool.deskcheck]\n")
    try:
        rules = desk_env_rules(root, environ={"DESKCHECK_DESK_ENV": item}, gpus=lambda: 0)
    except ConfigError as exc:
        assert "neither NAME=VALUE nor -NAME" in str(exc) and repr(item) in str(exc), (
            f"the refusal of DESKCHECK_DESK_ENV={item!r} must name the item and the two forms: "
            f"{exc}")
    else:
        pytest.fail(f"DESKCHECK_DESK_ENV={item!r} is neither NAME=VALUE nor -NAME and must be a "
                    f"configuration error (docs/suites.md:105); it gave the rules {rules}")


def test_gpus_stay_hidden_beside_a_project_table_that_does_not_name_them(tmp_path):
    root = _project(tmp_path, """
        [tool.deskcheck.desk_env]
        OMP_NUM_THREADS = "1"
        """)
    rules = desk_env_rules(root, environ={"DESKCHECK_DESK_ENV": "B=2"}, gpus=lambda: 1)
    assert rules == {"CUDA_VISIBLE_DEVICES": "", "OMP_NUM_THREADS": "1", "B": "2"}, (
        "on a machine showing one GPU, a table and DESKCHECK_DESK_ENV that do not name "
        "CUDA_VISIBLE_DEVICES keep the default CUDA_VISIBLE_DEVICES='' beside their own "
        f"variables; got {rules}")
    override = desk_env_rules(root, environ={"DESKCHECK_DESK_ENV": "CUDA_VISIBLE_DEVICES=1"},
                              gpus=lambda: 1)
    assert override["CUDA_VISIBLE_DEVICES"] == "1", (
        "DESKCHECK_DESK_ENV naming CUDA_VISIBLE_DEVICES replaces the default; got "
        f"{override}")
