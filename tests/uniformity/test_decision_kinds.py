"""The decisions the audit finds (docs/uniformity.md, "What the audit follows"): `if`, `while`,
a `for` loop's trip count, a `break` after a site in the loop, an early exit before a site,
`and`/`or` operands, ternaries, `except` handlers and the shape of a forward pass's
arguments, each reported with its kind and its condition as written."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from deskcheck.uniformity import audit

SOURCE = """
import torch.distributed as dist

class Scheduler:
    def event_loop(self):
        self.branch()
        self.loops()
        self.exits()
        self.ops()
        self.guarded()
        self.fwd()

    def branch(self):
        if self.a:
            dist.barrier(group=self.tp_group)

    def loops(self):
        while self.b:
            dist.barrier(group=self.tp_group)
        for q in self.c:
            dist.barrier(group=self.tp_group)
            if q.k:
                break

    def exits(self):
        if self.e:
            return
        dist.barrier(group=self.tp_group)

    def ops(self):
        self.f and dist.barrier(group=self.tp_group)
        x = dist.barrier(group=self.tp_group) if self.g else None

    def guarded(self):
        try:
            self.poll()
        except ValueError:
            dist.barrier(group=self.tp_group)

    def fwd(self):
        self.model_runner.forward(self.batch)
"""

CASES = [
    ("Scheduler.branch", "if", "self.a"),
    ("Scheduler.loops", "while", "while self.b"),
    ("Scheduler.loops", "for", "for ... in self.c"),
    ("Scheduler.loops", "break", "q.k"),
    ("Scheduler.exits", "exit", "self.e"),
    ("Scheduler.ops", "boolop", "self.f"),
    ("Scheduler.ops", "ternary", "self.g"),
    ("Scheduler.guarded", "except", "except ValueError"),
    ("Scheduler.fwd", "shape", "shape of self.model_runner.forward(self.batch)"),
]


@pytest.fixture(scope="module")
def found(tmp_path_factory) -> set[tuple[str, str, str]]:
    root: Path = tmp_path_factory.mktemp("kinds")
    (root / "mini").mkdir()
    (root / "mini" / "__init__.py").write_text("")
    (root / "mini" / "sched.py").write_text(textwrap.dedent(SOURCE))
    (root / "pyproject.toml").write_text(
        '[tool.deskcheck.uniformity]\n'
        'forward = [{ call = "self.model_runner.forward", group = "self.tp_group" }]\n')
    report = audit("mini.sched:Scheduler", root=root)
    return {(d.function, d.kind, d.condition) for d in report.decisions}


@pytest.mark.parametrize("function, kind, condition", CASES, ids=[c[1] for c in CASES])
def test_each_construct_that_gates_a_collective_is_a_decision_of_its_kind(
        found, function, kind, condition) -> None:
    assert (function, kind, condition) in found, (
        f"{function} has a `{kind}` decision on `{condition}` gating a collective "
        f"(docs/uniformity.md lists the kinds); the audit reported "
        f"{sorted(d for d in found if d[0] == function) or 'no decision there'}")
