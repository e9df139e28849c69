"""deskcheck's pytest plugin (``pytest11`` entry point): a thin dispatcher.

Like pytest's own built-ins, each concern is its own plugin module with its own hooks
(options via ``pytest_addoption``, markers with a help line); this module only registers
them. None of them imports torch at import time.
"""

from __future__ import annotations

import importlib
import sys

import pytest


def _mutant_hook_first() -> None:
    """pytest has put its assertion rewriter before deskcheck's mutant import hook by now."""
    if "deskcheck.mutants.process_hook" in sys.modules:  # loaded only under a mutant
        sys.modules["deskcheck.mutants.process_hook"].keep_first()


_mutant_hook_first()

PLUGIN_MODULES: tuple[str, ...] = (
    "deskcheck.drift_guard.pytest_hooks",
    "deskcheck.mutants.pytest_hooks",
    "deskcheck.suites.pytest_hooks",
    "deskcheck.gate.pytest_hooks",
)


def _load(module_name: str):
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:  # the part has no pytest hooks (yet)
            return None
        raise


@pytest.hookimpl
def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    for module_name in PLUGIN_MODULES:
        module = _load(module_name)
        if module is not None and not pluginmanager.is_registered(module):
            pluginmanager.register(module, name=module_name)
