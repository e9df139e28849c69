"""Property form of a congruence arm: hypothesis draws the per-rank inputs.

Uniformity and safety must hold for every drawn example; hypothesis shrinks a failure to a
minimal per-rank counterexample, printed rank by rank. The premise is a property of the
suite, not of each example: at least one example must diverge with the enforcer off, or the
arm is vacuous. A hang is never shrunk (each try would cost a process-group timeout): the
first example that hangs is reported as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from deskcheck.errors import CongruenceError, RankTimeoutError, VacuousPremiseError
from deskcheck.suites.congruence import (
    ArmResult,
    CongruenceArm,
    _label,
    _run,
    _shared,
    check_decisions,
    note_divergence,
)
from deskcheck.suites.registry import rank_pool

DEFAULT_SETTINGS = settings(
    max_examples=40,
    deadline=None,
    phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink),
    database=None,  # never write .hypothesis/ into the user's tree
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=False,
)


class _StopSearch(BaseException):
    """Carries a hang out of hypothesis without letting it shrink."""

    def __init__(self, error: RankTimeoutError, inputs: Any):
        super().__init__(str(error))
        self.error = error
        self.inputs = inputs


@dataclass
class PropertyTally:
    """How many examples ran and how many diverged with the enforcer off."""

    examples: int = 0
    premise_runs: int = 0
    premise_diverged: int = 0


def check_arm_property(arm: CongruenceArm, inputs: st.SearchStrategy[Sequence[Any]],
                       pool: Any = "gloo", *, premise: bool = True,
                       hypothesis_settings: settings | None = None) -> PropertyTally:
    """Check ``arm`` over drawn per-rank inputs.

    ``pool`` is a started pool (every draw must have ``pool.world`` entries) or a backend
    name, in which case each draw runs on the warm pool for its own length (world size).
    """
    __tracebackhide__ = True  # the user's test line, then the rank table
    tally = PropertyTally()
    chosen = hypothesis_settings or DEFAULT_SETTINGS

    def pool_for(drawn: Sequence[Any]) -> Any:
        if isinstance(pool, str):
            return rank_pool(len(drawn), pool)
        if len(drawn) != pool.world:
            raise ValueError(f"the strategy drew {len(drawn)} rank inputs for a world of "
                             f"{pool.world}; draw with world={pool.world}")
        return pool

    @settings(chosen)
    @given(drawn=inputs)
    def holds_for(drawn: Sequence[Any]) -> None:
        __tracebackhide__ = True
        tally.examples += 1
        target = pool_for(drawn)
        try:
            decisions = _run(arm, drawn, target, enforced=True)
        except RankTimeoutError as exc:
            raise _StopSearch(exc, drawn) from exc
        try:
            check_decisions(arm, drawn, decisions, _label(arm, target))
        except CongruenceError:
            failing.append((drawn, decisions, target))  # the last one is the shrunk example
            raise
        if premise and tally.premise_diverged == 0:
            tally.premise_runs += 1
            unenforced = _shared(arm, _run(arm, drawn, target, enforced=False))
            if ArmResult(arm.name, (), tuple(unenforced)).premise_diverged:
                tally.premise_diverged += 1

    failing: list[tuple[Sequence[Any], list[Any], Any]] = []
    try:
        holds_for()
    except CongruenceError as exc:
        if failing:  # the split of the minimal example only, not of every shrinking step
            drawn, decisions, target = failing[-1]
            note_divergence(arm, drawn, decisions, exc, target, None)
        raise
    except _StopSearch as stop:
        stop.error.add_note(f"hung on this example (not shrunk: every try costs a timeout):\n"
                            f"{stop.inputs!r}")
        raise stop.error from None
    if premise and tally.premise_diverged == 0:
        raise VacuousPremiseError(
            f"congruence arm {arm.name!r} is vacuous: in {tally.examples} drawn examples none "
            f"made the ranks diverge with the enforcer off ({arm.kill_switch.describe()})",
            location=arm.defined_at,
            fix="draw inputs that diverge without the enforcer (per-rank queue orders, absent "
                "rids, prefix-match lengths, free pools)")
    return tally
