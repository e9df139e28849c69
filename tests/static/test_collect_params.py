"""Touches through a parameter, and the self chains a ``self.m(...)`` call passes
(docs/drift.md, *Passed to a method*): ``def release(self, req): req.session`` touches
``@req.session`` (kept apart from the touches of ``self``); ``self.release(self.queue.pop())``
passes ``queue.[]`` as argument 0. A condition on a parameter is still decided from the
call's values, never from the stand-in's."""

from __future__ import annotations

import ast
import textwrap

import pytest

from deskcheck.static import LIVE, Env, explain
from deskcheck.static._collect import clear_cache, function_facts


def _facts(body: str, params: str = "self, req, flag=False"):
    lines = "\n".join("        " + line for line in body.split("; "))
    text = textwrap.dedent(f"class Pool:\n    def run({params}):\n{lines}\n")
    func = ast.parse(text).body[0].body[0]
    clear_cache()
    return function_facts(func, "self")


@pytest.mark.parametrize(("body", "expected", "shape"), [
    ("return req.session.close()", {"@req.session", "@req.session.close"}, "a chain"),
    ("kv = req.kv; return kv.holds", {"@req.kv", "@req.kv.holds"}, "a local bound to one"),
    ("for r in req: r.rid", {"@req.[]", "@req.[].rid"}, "an element of a parameter"),
    ("f = lambda req: 0; return req.session", {"@req.session"},
     "after a lambda whose own parameter had the same name"),
])
def test_a_read_through_a_parameter_is_a_touch_of_that_parameter(body, expected, shape):
    facts = _facts(body)
    got = {a.name for a in facts.param_accesses}
    assert got == expected, f"{shape}: `{body}` touches {expected} through `req`; got {got}"
    assert not {a.name for a in facts.accesses} & got, (
        "touches through a parameter must not be listed among the touches of self")


@pytest.mark.parametrize(("body", "shape"), [
    ("req = self.other; return req.session", "the parameter rebound first"),
    ("f = lambda req: req.session; return f", "a lambda's own parameter of the same name"),
    ("def g(req):; return req.session", "a nested def's own parameter"),
])
def test_a_read_of_a_name_that_no_longer_is_the_parameter_is_not_its_touch(body, shape):
    body = body.replace(":; ", ":\n            ")
    got = {a.name for a in _facts(body).param_accesses}
    assert "@req.session" not in got, (
        f"{shape}: `req.session` there does not read the parameter; got {got}")


@pytest.mark.parametrize(("body", "expected", "shape"), [
    ("self.release(self.queue.pop())", ((0, "queue.[]"),), "a popped element"),
    ("for r in self.queue:; self.release(r)", ((0, "queue.[]"),), "a loop element"),
    ("self.release(self.batch, key=self.states[k])", ((0, "batch"), ("key", "states.[]")),
     "a field and a keyword element"),
    ("self.release(req)", ((0, "@req"),), "the caller's own parameter"),
    ("self.release(*self.queue, self.batch)", (), "positions after *args are unknown"),
    ("self.release(len(self.queue))", (), "a value computed from a field"),
])
def test_a_self_method_call_records_the_self_chains_it_passes(body, expected, shape):
    body = body.replace(":; ", ":\n            ")
    facts = _facts(body, "self, req, k=None")
    calls = [a for a in facts.accesses if a.name == "release"]
    assert calls, f"{shape}: `{body}` calls self.release"
    assert calls[0].args == expected, (
        f"{shape}: `{body}` passes {expected}; recorded {calls[0].args}")


def test_a_condition_on_a_parameter_is_decided_from_the_call_not_the_stand_in():
    facts = _facts("if flag:\n            self.hot = 1")
    cond = next(a for a in facts.accesses if a.name == "hot").conds[0]
    got = explain(cond, {"flag": False}, Env({"flag": True})).status
    assert got == LIVE, (
        "`if flag:` with the call passing flag=True is entered, whatever a stand-in's own "
        f"field `flag` holds; the parameter must not read as a self chain (status {got})")
