"""A tiny TP admitter whose decisions the recorder follows in real gloo ranks.

Module-level on purpose (tasks travel by reference). ``Admitter.admit`` gates an all_reduce
on ``self.free >= need``: with the group's MIN of ``free`` (the enforcer) every rank takes the
same way; with each rank's own ``free`` the ranks split at that line, and a rank that skips
the collective leaves its peers waiting in it.
"""

from __future__ import annotations

import torch
import torch.distributed as dist

from deskcheck.suites import CongruenceArm, KillSwitch, rank_context


class Admitter:
    def __init__(self, free: int, enforce: bool):
        self.free = free
        self.enforce = enforce
        self.rounds = 2

    @property
    def exploding(self) -> int:
        raise RuntimeError("the recorder ran a property")

    def agreed_free(self) -> int:
        if not self.enforce:
            return self.free
        t = torch.tensor([self.free])
        dist.all_reduce(t, op=dist.ReduceOp.MIN)
        return int(t.item())

    def admit(self, need: int) -> int:
        admitted = 0
        for _ in range(self.rounds):
            free = self.agreed_free() if self.enforce else self.free
            if free >= need:  # ADMIT-DECISION
                admitted += 1
        return admitted

    def admit_with_collective(self, need: int) -> int:
        if self.free >= need:  # GATE-DECISION
            t = torch.tensor([1])
            dist.all_reduce(t)
        return 1


def count_admitted(free: int, enforce: bool = True) -> int:
    return Admitter(free, enforce).admit(need=2)


def gated_collective(free: int) -> int:
    rank_context()
    return Admitter(free, enforce=False).admit_with_collective(need=2)


ADMIT = CongruenceArm("admit", count_admitted, KillSwitch.from_keyword("enforce", False))
def count_admitted_local(free: int, enforce: bool = True) -> int:
    return count_admitted(free, enforce=False)


ADMIT_LOCAL = CongruenceArm("admit", count_admitted_local, KillSwitch.from_keyword("enforce",
                                                                                  False))


def line_of(marker: str) -> int:
    """The line of this file that carries ``marker`` (tests name decisions by it)."""
    with open(__file__, encoding="utf-8") as handle:
        for number, text in enumerate(handle, 1):
            if marker in text and "def line_of" not in text and "marker in" not in text:
                return number
    raise LookupError(marker)


def rewritten_in_this_recording(_rank: int) -> list[str] | None:
    """What the recording this task runs in had to instrument at first use (None: the
    recorder does not say)."""
    import builtins

    from deskcheck.suites._instrument import HOOK

    return getattr(getattr(builtins, HOOK, None), "rewritten", None)
