"""A ``match`` case's guard is a branch of its own (docs/drift.md, *decided forms*: ``match``
on a known subject, and the guard's condition like any ``if``): a read in a guarded case
body sits under ``if <guard>``, which the stand-in's constant state decides (a false guard:
the body is DEAD), with the guard's ``self`` recognised; a guarded body is a block like an
``if`` body (code after ``if c: return`` sits under ``not c``); and a case's own condition is
never an else side. Gaps mutmut found in static/_collector.py (the ``match`` statement)."""

from __future__ import annotations

import ast
import textwrap

from deskcheck.static._collect import Access, clear_cache, first_param, function_facts
from deskcheck.static._conditions import DEAD, LIVE, UNKNOWN, decide

_WORDS = {DEAD: "DEAD (never entered)", LIVE: "LIVE (entered)", UNKNOWN: "UNKNOWN"}

GUARDED = '''
class Engine:
    def run(self):
        match self.mode:
            case "fast" if self.allowed:
                if self.stop:
                    return
                self.past_stop
'''


def _access(source: str, name: str) -> Access:
    """``self.<name>``'s one read in the first method of ``source``, its facts made afresh."""
    cls = next(n for n in ast.parse(textwrap.dedent(source)).body if isinstance(n, ast.ClassDef))
    method = next(n for n in cls.body if isinstance(n, ast.FunctionDef))
    clear_cache()  # the cache is keyed by node id: a new tree may reuse an old id
    try:
        found = [a for a in function_facts(method, first_param(method)).accesses
                 if a.name == name and a.kind == "read"]
    finally:
        clear_cache()
    assert len(found) == 1, f"self.{name} must be read once in the test source; got {found}"
    return found[0]


def test_a_false_guard_makes_its_case_body_dead_and_a_true_one_live():
    conds = _access(GUARDED, "past_stop").conds
    guard = next((c for c in conds if c.kind == "if" and c.text == "if self.allowed"), None)
    assert guard is not None, (
        "a read in a guarded case body must sit under the guard `if self.allowed`; got "
        f"{[(c.kind, c.text) for c in conds]}")
    for allowed, expected in ((False, DEAD), (True, LIVE)):
        got = decide(guard, {"allowed": allowed})
        assert got == expected, (
            f"the case guard `if self.allowed` with the stand-in's allowed={allowed} must be "
            f"{_WORDS[expected]} (the guard is the body's own condition, read on `self`); "
            f"got {_WORDS[got]}")


def test_code_after_an_early_return_in_a_guarded_case_body_sits_under_its_negation():
    conds = _access(GUARDED, "past_stop").conds
    past = [c for c in conds if c.kind == "if" and c.negated]
    assert [c.text for c in past] == ["past `if self.stop: return`"], (
        "a guarded case body is a block like an if body: the code after `if self.stop: "
        f"return` must run under its negation; got {[(c.kind, c.text) for c in conds]}")
    assert decide(past[0], {"stop": True}) == DEAD, (
        "past `if self.stop: return` is never reached when the stand-in's stop is True")


def test_a_case_condition_is_never_an_else_side():
    conds = _access(GUARDED, "past_stop").conds
    case = next(c for c in conds if c.kind == "case")
    assert case.negated is False, (
        "a case body runs when its pattern matches: its condition must not be marked as an "
        f"else side (negated); got negated={case.negated!r}")
