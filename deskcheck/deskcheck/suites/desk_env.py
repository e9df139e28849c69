"""The environment of a DESK rank (gloo on CPU): the variables deskcheck sets or removes in
every rank it starts, before the rank imports the test's modules.

Default: ``CUDA_VISIBLE_DEVICES=""`` only where this machine shows a GPU (hermetic: a DESK rank
never sees one); on a machine without a GPU the variable stays as the caller has it, so a
project's own test utilities that read it at import keep working (SGLang's
``sglang/test/test_utils.py`` indexes it: ``os.environ.get("CUDA_VISIBLE_DEVICES", "0")[0]``
raises IndexError on ""). A project changes the rules in ``[tool.deskcheck.desk_env]``
(``NAME = "value"`` sets, ``NAME = false`` removes); ``DESKCHECK_DESK_ENV`` overrides both
for one run (``NAME=VALUE`` sets, ``-NAME`` removes; whitespace between items).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, MutableMapping
from pathlib import Path

from deskcheck.config import load_config
from deskcheck.errors import ConfigError

ENV_VAR = "DESKCHECK_DESK_ENV"
KEY = "desk_env"
HIDE_GPUS = {"CUDA_VISIBLE_DEVICES": ""}

Rules = dict[str, str | None]  # name -> value; None: removed


def _visible_gpus() -> int:
    from deskcheck.suites.backends import cuda_device_count

    try:
        return cuda_device_count()[0]
    except Exception:  # noqa: BLE001 - no torch, no driver: nothing to hide
        return 0


_PROJECT_FIX = 'quote the value (NAME = "0") to set it, or write NAME = false to remove it'
_ENV_FIX = f'write e.g. {ENV_VAR}="-CUDA_VISIBLE_DEVICES OMP_NUM_THREADS=1"'


def _from_project(root: Path | None) -> tuple[Rules, list[str], str]:
    """The project's rules, its problems, and where the table is."""
    config = load_config(root)
    table = config.get(KEY)
    where = f"{config.pyproject}: [tool.deskcheck.{KEY}]"
    if table is None:
        return {}, [], where
    if not isinstance(table, dict):
        return {}, [f"{where} must be a table of variables, not {table!r}"], where
    rules: Rules = {}
    bad = []
    for name, value in table.items():
        if value is False:
            rules[name] = None
        elif isinstance(value, str):
            rules[name] = value
        else:
            bad.append(f"{name} = {value!r}")
    problems = [f"{where}: values must be strings or false: " + "; ".join(bad)] if bad else []
    return rules, problems, where


def _from_environment(text: str) -> tuple[Rules, list[str]]:
    rules: Rules = {}
    bad = []
    for item in text.split():
        if item.startswith("-") and len(item) > 1 and "=" not in item:
            rules[item[1:]] = None
        elif "=" in item and not item.startswith("="):
            name, _, value = item.partition("=")
            rules[name] = value
        else:
            bad.append(repr(item))
    problems = [f"{ENV_VAR} has items that are neither NAME=VALUE nor -NAME: "
                + ", ".join(bad)] if bad else []
    return rules, problems


def desk_env_rules(root: Path | None = None, *, environ: Mapping[str, str] | None = None,
                   gpus: Callable[[], int] = _visible_gpus) -> Rules:
    """The DESK rules for the project at ``root`` (default: the current folder's): the default
    (hide GPUs where ``gpus()`` sees any), then the project's table, then ``DESKCHECK_DESK_ENV``.
    Every bad entry of both is named in one ConfigError."""
    environ = os.environ if environ is None else environ
    project, problems, where = _from_project(root)
    override, env_problems = _from_environment(environ.get(ENV_VAR, ""))
    if problems or env_problems:
        fixes = ([_PROJECT_FIX] if problems else []) + ([_ENV_FIX] if env_problems else [])
        raise ConfigError("; ".join(problems + env_problems),
                          location=where if problems else "environment",
                          fix="; ".join(fixes))
    rules: Rules = {}
    if "CUDA_VISIBLE_DEVICES" not in project and "CUDA_VISIBLE_DEVICES" not in override \
            and gpus() > 0:
        rules.update(HIDE_GPUS)
    rules.update(project)
    rules.update(override)
    return rules


def apply_desk_env(env: MutableMapping[str, str], rules: Mapping[str, str | None]) -> None:
    """Set or remove each variable of ``rules`` in ``env`` (``os.environ`` or a child's)."""
    for name, value in rules.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value


def describe_desk_env(rules: Mapping[str, str | None]) -> str:
    """``CUDA_VISIBLE_DEVICES=''``-style words for reports; "inherited" when empty."""
    if not rules:
        return "environment inherited"
    return ", ".join(f"{name} unset" if value is None else f"{name}={value!r}"
                     for name, value in rules.items())
