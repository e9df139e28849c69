"""The promise ledger (tests/promises.toml, docs/selfproof.md "The promise ledger"): every
option of every ``deskcheck ... --help``, every ``[tool.deskcheck]`` key and every option the
pytest plugin adds, with the tests that fail when that promise breaks.

The promises are read from the real code, never from a list kept here: the command line by
walking ``deskcheck.cli.build_parser()``, the keys from ``deskcheck.config_keys.KEYS`` and
``deskcheck.uniformity.config.TABLE_KEYS``, the pytest options by calling each plugin module's
``pytest_addoption`` on a recorder. A ledger's test ids are resolved statically (the file
exists and defines the function, or the class and its method), without collecting anything.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import tomllib
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
LEDGER = REPO / "tests" / "promises.toml"
SECTIONS = ("cli", "config", "pytest")
# Tests being folded into tests/<part>/ (issue 33): the ledger names the tests of a part there.
NOT_HERE = "tests/selfproof/"


def _option_name(action: argparse.Action) -> str:
    if action.option_strings:
        return max(action.option_strings, key=len)
    return f"<{action.dest}>"


def _walk(parser: argparse.ArgumentParser, words: tuple[str, ...]) -> Iterator[str]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, (*words, name))
        elif not isinstance(action, argparse._HelpAction):
            yield " ".join((*words, _option_name(action)))


def cli_promises() -> set[str]:
    """``deskcheck COMMAND [SUB] --option`` (positionals as ``<dest>``) for every ``--help``."""
    from deskcheck.cli import build_parser

    return set(_walk(build_parser(), ("deskcheck",)))


def config_promises() -> set[str]:
    """Every ``[tool.deskcheck]`` key; the keys of the ``uniformity`` table as ``uniformity.K``
    (``desk_env`` holds variable names of the project's choosing: it is one promise)."""
    from deskcheck.config_keys import KEYS
    from deskcheck.uniformity.config import TABLE_KEYS

    return set(KEYS) | {f"uniformity.{key}" for key in TABLE_KEYS}


class _OptionRecorder:
    """Stands in for pytest's parser: records what ``pytest_addoption`` adds."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def getgroup(self, *args: Any, **kwargs: Any) -> _OptionRecorder:
        return self

    def addoption(self, *names: str, **kwargs: Any) -> None:
        self.names.add(max(names, key=len))

    def addini(self, name: str, *args: Any, **kwargs: Any) -> None:
        self.names.add(f"ini {name}")


def pytest_promises() -> set[str]:
    """Every command-line option (``--name``) and ini key (``ini name``) of the plugin."""
    from deskcheck.pytest_plugin import PLUGIN_MODULES

    recorder = _OptionRecorder()
    for module_name in PLUGIN_MODULES:
        hook = getattr(importlib.import_module(module_name), "pytest_addoption", None)
        if hook is not None:
            hook(recorder)
    return recorder.names


def promises() -> dict[str, set[str]]:
    return {"cli": cli_promises(), "config": config_promises(), "pytest": pytest_promises()}


def load(path: Path = LEDGER) -> dict[str, dict[str, list[str]]]:
    with path.open("rb") as handle:
        data = tomllib.load(handle)
    return {section: data.get(section, {}) for section in SECTIONS}


@cache
def _definitions(path: Path) -> dict[str, set[str]]:
    """Top-level function names (key ``""``) and each class's method names."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: dict[str, set[str]] = {"": set()}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found[""].add(node.name)
        elif isinstance(node, ast.ClassDef):
            found[node.name] = {n.name for n in node.body
                                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    return found


def unresolved(node_id: str, repo: Path = REPO) -> str | None:
    """Why ``node_id`` names no test (``None``: it does), read from the file, not collected."""
    file, _, rest = node_id.partition("::")
    names = [n.split("[", 1)[0] for n in rest.split("::")] if rest else []
    if file.startswith(NOT_HERE):
        return f"is under {NOT_HERE}, whose tests are being folded into tests/<part>/"
    path = repo / file
    if not file.endswith(".py") or not path.is_file():
        return f"names a file that does not exist: {file}"
    if not names or len(names) > 2:
        return "is not FILE::function or FILE::Class::method"
    defined = _definitions(path)
    if len(names) == 1 and names[0] not in defined[""]:
        return f"{file} defines no function {names[0]}"
    if len(names) == 2 and names[1] not in defined.get(names[0], set()):
        return f"{file} defines no class {names[0]} with a method {names[1]}"
    return None


def problems(ledger: dict[str, dict[str, list[str]]], found: dict[str, set[str]],
             repo: Path = REPO) -> list[str]:
    """Every way the ledger and the code disagree, one line each."""
    out: list[str] = []
    for section in SECTIONS:
        entries = ledger.get(section, {})
        for name in sorted(found[section] - set(entries)):
            out.append(f"[{section}] {name!r} has no ledger entry: add it to tests/promises.toml "
                       "with the test(s) that fail when it is ignored")
        for name in sorted(set(entries) - found[section]):
            out.append(f"[{section}] {name!r} is in the ledger but no longer exists: remove "
                       "its entry")
        for name, tests in sorted(entries.items()):
            if not isinstance(tests, list) or not tests or not all(
                    isinstance(t, str) for t in tests):
                out.append(f"[{section}] {name!r} must list at least one test id")
                continue
            for test in tests:
                why = unresolved(test, repo)
                if why:
                    out.append(f"[{section}] {name!r}: {test} {why}")
    return out
