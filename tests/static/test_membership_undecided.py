"""`x in (a, b)`: an element deskcheck cannot equate with `x` keeps the condition UNKNOWN;
only a container whose every element is known to differ makes `in` False (DEAD)."""

from __future__ import annotations

import ast
import textwrap

from deskcheck.static import DEAD, LIVE, UNKNOWN, Env, Something, explain, function_facts

SOURCE = textwrap.dedent('''
    class Manager:
        def step(self):
            if self.mode in ("decode", self.peer):
                self.decoded = 1
''')


def _decision(constants: dict):
    method = ast.parse(SOURCE).body[0].body[0]
    access = next(a for a in function_facts(method, "self").accesses if a.name == "decoded")
    (cond,) = access.conds
    return explain(cond, constants, Env())


def test_an_element_that_cannot_be_equated_keeps_membership_unknown():
    got = _decision({"mode": "prefill", "peer": Something(True, "namespace")})
    assert got.status == UNKNOWN, (
        "`self.mode in ('decode', self.peer)` with self.peer an object deskcheck only knows "
        f"exists was decided {'DEAD' if got.status == DEAD else got.status}: an element that "
        "cannot be equated must leave `in` UNKNOWN, not False")
    assert "cannot equate" in got.why, f"the reason says why it is undecided: {got.why!r}"


def test_a_known_equal_element_decides_membership_true():
    got = _decision({"mode": "decode", "peer": Something(True, "namespace")})
    assert got.status == LIVE, f"'decode' in ('decode', ...) is True, got status {got.status}"


def test_every_element_known_to_differ_decides_membership_false():
    got = _decision({"mode": "prefill", "peer": "mixed"})
    assert got.status == DEAD, (
        f"'prefill' in ('decode', 'mixed') is False: the branch is DEAD, got {got.status}")
