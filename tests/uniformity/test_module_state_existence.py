"""A module-level name a function binds at run time (``global _WORLD; if _WORLD is None:
_WORLD = init_world_group(ranks, local_rank, backend)``) read for whether it exists (``if
_WORLD is None``, ``if not _WORLD``) reads whether a write ran, not what the object was
built with (docs/uniformity.md, "Module state"). The audit read every write's value whole:
vLLM's node count, written under ``if _WORLD is None:``, went RANK-LOCAL through the world
group's constructor argument ``local_rank``. Twins: an attribute of the object, and the
object itself, still read what it was built with."""

from __future__ import annotations

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

SOURCE = """
    _STATE = None


    class Holder:
        def __init__(self, rank):
            self.rank = rank


    def init_state():
        global _STATE
        if _STATE is None:
            _STATE = Holder(dist.get_rank())


    class S:
        def __init__(self, tp_group):
            self.tp_group = tp_group

        def step(self):
            init_state()
            if READ:
                dist.barrier(group=self.tp_group)
"""


def _verdict(make_pkg, read: str):
    report = audit("pkg.s:S", root=make_pkg({"s.py": SOURCE.replace("READ", read)}, ROOTS))
    return next(d for d in report.decisions if d.condition == read)


@pytest.mark.parametrize("read", ["_STATE is None", "_STATE is not None", "not _STATE"])
def test_a_module_objects_existence_does_not_read_its_constructor(make_pkg, read):
    d = _verdict(make_pkg, read)
    assert d.verdict is Verdict.UNIFORM, (
        f"`{read}` asks whether `init_state()` has bound `_STATE`, not which rank id "
        f"`Holder(dist.get_rank())` was built with: the decision must be UNIFORM; got "
        f"{d.verdict.value}: {d.why}")


@pytest.mark.parametrize("read", ["_STATE.rank > 0", "_STATE == 3"])
def test_a_module_objects_content_still_reads_its_constructor(make_pkg, read):
    d = _verdict(make_pkg, read)
    assert d.verdict is Verdict.RANK_LOCAL, (
        f"`{read}` reads the object `Holder(dist.get_rank())` (its rank id): the decision "
        f"must be RANK-LOCAL; got {d.verdict.value}: {d.why}")
