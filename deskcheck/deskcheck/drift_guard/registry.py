"""Registered guards: every ``Harness`` subclass and stub spec adds itself here on creation."""

from __future__ import annotations

from typing import Any

_REGISTRY: dict[str, Any] = {}


def register(key: str, subject: Any) -> None:
    """Register ``subject`` (anything with ``__deskcheck_provision__``) under ``key``."""
    _REGISTRY[key] = subject


def unregister(key: str) -> None:
    _REGISTRY.pop(key, None)


def registered() -> dict[str, Any]:
    """Registered guards by ``module:Name`` key, in registration order."""
    return dict(_REGISTRY)
