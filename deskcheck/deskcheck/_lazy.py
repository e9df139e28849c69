"""Lazy public names for a package (PEP 562), so importing a part costs nothing until used.

The CLI, the pytest plugin and every process the tests start import deskcheck's packages;
resolving their public names on first use keeps torch, hypothesis, libcst and pytest out of
those start-ups.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """Return ``(__getattr__, __dir__, __all__)`` for ``package``.

    ``exports`` maps a public name to its defining module, relative (``"pool"``) or absolute.
    A resolved name is cached in ``namespace`` (the package's ``globals()``).
    """

    def module_of(name: str) -> str:
        module = exports[name]
        return module if module.startswith("deskcheck.") else f"{package}.{module}"

    def __getattr__(name: str) -> Any:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module_of(name)), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__, sorted(exports)
