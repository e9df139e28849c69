"""The three things a harness body may declare: ``bind``, ``stand_in`` and ``state``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from deskcheck.drift_guard.verdicts import MISSING, StandIn
from deskcheck.errors import HarnessError


@dataclass(frozen=True)
class Bind:
    """A real production function or property, bound as is."""

    obj: Any


@dataclass(frozen=True)
class StateField:
    """An instance attribute the harness sets up (``default`` copied, or ``factory()`` called)."""

    default: Any = MISSING
    factory: Callable[[], Any] | None = None

    def make(self) -> Any:
        import copy

        if self.factory is not None:
            return self.factory()
        return copy.copy(self.default)

    def sample(self) -> Any:
        if self.default is MISSING and self.factory is None:
            return MISSING
        return self.make()


def bind(obj: Any) -> Bind:
    """Bind the REAL production object: ``bind(Scheduler._update_uniform_pool_budget)``;
    a property is bound as a property: ``bind(PrefillAdder.rem_total_tokens)``."""
    return Bind(obj)


def stand_in(value: Any, *, reason: str) -> StandIn:
    """Replace a production name with ``value``; ``reason`` says why it is not the real one."""
    if not isinstance(reason, str) or not reason.strip():
        raise HarnessError("a stand-in needs a reason", fix="stand_in(value, reason='why not real')")
    return StandIn(value, reason.strip())


def state(default: Any = MISSING, *, factory: Callable[[], Any] | None = None) -> StateField:
    """An instance field: ``state(2)``, ``state(factory=list)``, or ``state()`` (required)."""
    return StateField(default, factory)
