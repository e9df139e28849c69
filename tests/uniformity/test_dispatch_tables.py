"""A call through a dispatch table calls every function the table holds (docs/uniformity.md
"Inputs": ``MethodType(self._MAP[type(cmd)], self)``, ``self._MAP[k](...)``, a table held in a
class attribute, a field or a module-level name). Found on DeepSpeed's pipeline engine, whose
whole schedule runs through ``_INSTRUCTION_MAP`` (a class attribute mapping instruction types
to the class's own ``_exec_*`` functions): the walk entered none of them, so 43 of the
engine's 51 collective sites, and every decision gating them, were unseen while the audit
said "holds". Each shape puts a clock-decided barrier in one handler: the decision must be
found, RANK-LOCAL; the twin's table holds functions with no collective."""

from __future__ import annotations

import re

import pytest

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

HANDLERS = """
    import time
    from types import MethodType

    import torch.distributed as dist


    def _free_sync(group):
        if time.time() > 5:
            dist.barrier(group=group)


    def _free_noop(group):
        return group
"""

SHAPES = {
    "a class attribute table bound by MethodType (DeepSpeed)": ("""
    class S:
        def _exec_sync(self):
            if time.time() > 5:
                dist.barrier(group=self.tp_cpu_group)

        def _exec_noop(self):
            pass

        _MAP = {int: _exec_sync, str: _exec_noop}

        def step(self):
            for cmd in self.server_args.cmds:
                self._exec_instr = MethodType(self._MAP[type(cmd)], self)
                self._exec_instr()
""", "S._exec_sync"),
    "a class attribute table called with self": ("""
    class S:
        def _exec_sync(self):
            if time.time() > 5:
                dist.barrier(group=self.tp_cpu_group)

        _MAP = {int: _exec_sync}

        def step(self):
            self._MAP[int](self)
""", "S._exec_sync"),
    "a table of bound methods built in __init__": ("""
    class S:
        def __init__(self):
            self._handlers = {"sync": self._sync, "noop": self._noop}

        def _sync(self):
            if time.time() > 5:
                dist.barrier(group=self.tp_cpu_group)

        def _noop(self):
            pass

        def step(self):
            self._handlers[self.server_args.kind]()
""", "S._sync"),
    "a module-level table of functions": ("""
    _TABLE = {"sync": _free_sync, "noop": _free_noop}


    class S:
        def step(self):
            _TABLE[self.server_args.kind](self.tp_cpu_group)
""", "_free_sync"),
}


def _ids(shapes) -> list[str]:
    return [re.sub(r"\W+", "_", k).strip("_") for k in sorted(shapes)]


@pytest.mark.parametrize("shape", sorted(SHAPES), ids=_ids(SHAPES))
def test_a_call_through_a_dispatch_table_calls_every_function_it_holds(make_pkg, shape):
    src, handler = SHAPES[shape]
    report = audit("pkg.s:S", root=make_pkg({"s.py": HANDLERS + src}, ROOTS))
    found = [d for d in report.decisions if d.function.endswith(handler)]
    assert found and found[0].verdict is Verdict.RANK_LOCAL, (
        f"{shape}: the table holds {handler}, whose barrier a clock decides; the walk must "
        f"enter it through the table and report that decision RANK-LOCAL; got "
        f"{[(d.function, d.condition, d.verdict.value) for d in report.decisions]}")


def test_a_table_of_values_that_are_no_functions_enters_nothing(make_pkg):
    src = """
    class S:
        _SIZES = {"a": 1, "b": 2}

        def step(self):
            n = self._SIZES[self.server_args.kind]
            if n > 1:
                dist.barrier(group=self.tp_cpu_group)
    """
    report = audit("pkg.s:S", root=make_pkg({"s.py": HANDLERS + src}, ROOTS))
    assert report.functions == 1 and [d.verdict for d in report.decisions] == [
        Verdict.UNIFORM], (
        "a dict of numbers indexed by configuration calls nothing and decides uniformly; got "
        f"{report.functions} functions, "
        f"{[(d.function, d.condition, d.verdict.value) for d in report.decisions]}")
