"""Reads through an element of a container field are touches of the pseudo-field ``[]``
(docs/drift.md, *A container of stand-ins*): ``self.queue[0].rid``, ``req = self.states.get(
rid); req.sent``, ``for req in self.queue: req.size`` (and ``.values()``, ``.items()``,
``enumerate``, ``list(...)``, comprehensions) read ``queue.[].rid``. A slice is a container,
not an element; a rebound local or a comprehension's variable stops aliasing."""

from __future__ import annotations

import ast
import textwrap

import pytest

from deskcheck.static._collect import clear_cache, first_param, function_facts


def _method(body: str, params: str = "self, key, other") -> str:
    """A class with one method ``run`` whose body is ``body`` (lines split on ``;``)."""
    lines = "\n".join("        " + line for line in body.split("; "))
    return f"class Pool:\n    def run({params}):\n{lines}\n"


def _touched(source: str) -> set[str]:
    text = textwrap.dedent(source)
    klass = next(n for n in ast.parse(text).body if isinstance(n, ast.ClassDef))
    func = next(n for n in klass.body if isinstance(n, ast.FunctionDef))
    clear_cache()
    return {a.name for a in function_facts(func, first_param(func)).accesses}


@pytest.mark.parametrize(("body", "shape"), [
    ("return self.queue[0].rid", "a subscript of the field"),
    ("req = self.queue[0]; return req.rid", "a local bound to a subscript"),
    ("req = self.states.get(key); return req.rid", "a local bound to .get(key)"),
    ("req = self.states.pop(key); return req.rid", "a local bound to .pop(key)"),
    ("return self.states.get(key).rid", "an attribute of .get(key)"),
    ("req = self.queue.pop(); return req.rid", "a local bound to a list's .pop()"),
    ("req = self.queue.popleft(); return req.rid", "a local bound to a deque's .popleft()"),
    ("req = None if other else self.states.get(key); return req.rid",
     "a ternary whose other arm is a constant"),
    ("for req in self.queue:;     req.rid", "a for loop over the field"),
    ("for req in self.states.values():;     req.rid", "a loop over .values()"),
    ("for key, req in self.states.items():;     req.rid", "a loop over .items()"),
    ("for i, req in enumerate(self.queue):;     req.rid", "enumerate"),
    ("for req in list(self.queue):;     req.rid", "a copy made with list()"),
    ("q = self.queue; for req in q:;     req.rid", "a local bound to the field"),
    ("return [r.rid for r in self.queue]", "a comprehension"),
    ("return self.queue[1:][0].rid", "an element of a slice (the same elements)"),
    ("for req in self.queue[::2]:;     req.rid", "a loop over a slice"),
])
def test_a_read_through_an_element_of_a_container_field_touches_its_elements(body, shape):
    touched = _touched(_method(body))
    container = "states" if "states" in body else "queue"
    assert f"{container}.[].rid" in touched, (
        f"{shape}: the read of `.rid` is on an element of self.{container}, a touch of "
        f"`{container}.[].rid` (the stand-in judge checks it on the elements the test put "
        f"there); got {sorted(touched)}")


def test_the_index_and_the_lookup_of_an_element_are_read_too():
    touched = _touched('''
        class Pool:
            def run(self):
                return self.queue[self.head].rid + self.states.get(self.key).size
    ''')
    assert {"head", "key", "states.get"} <= touched, (
        "self.queue[self.head].rid also reads self.head, and self.states.get(self.key).size "
        f"calls self.states.get with self.key: those touches must stay; got {sorted(touched)}")


@pytest.mark.parametrize(("body", "why"), [
    ("req = self.queue[1:]; return req.rid", "a slice is a container, not an element: "
     "`req.rid` reads the list"),
    ("req = self.queue[0]; req = other; return req.rid",
     "`req` was rebound to a parameter before the read"),
    ("for req in self.queue:;     pass; for req in other():;     req.rid",
     "the second loop rebinds `req` to the items a call returns"),
    ("names = [r for r in self.queue]; return r.rid",
     "a comprehension's variable does not outlive it"),
])
def test_no_element_read_where_the_value_is_not_an_element_of_the_field(body, why):
    touched = _touched(_method(body))
    assert not any(".[]" in name for name in touched), (
        f"{why}: nothing here is read on an element of a field; got {sorted(touched)}")


def test_a_class_attribute_read_through_type_self_stays_a_touch_of_the_field():
    touched = _touched(_method("return type(self).limit.rid + self.__class__.cap"))
    assert {"limit", "limit.rid", "cap"} <= touched and not any(".[]" in n for n in touched), (
        "type(self).limit.rid reads the class attribute `limit` (the value of a call to "
        "type() on self is the class, not an element of a container); got "
        f"{sorted(touched)}")


def _condition(body: str, line_text: str):
    """The condition the read on the line holding ``line_text`` sits under (innermost)."""
    from deskcheck.static._collect import function_facts as facts_of

    text = _method(body)
    klass = next(n for n in ast.parse(text).body if isinstance(n, ast.ClassDef))
    func = next(n for n in klass.body if isinstance(n, ast.FunctionDef))
    clear_cache()
    line = next(i for i, t in enumerate(text.splitlines(), 1) if line_text in t)
    found = [a for a in facts_of(func, first_param(func)).accesses if a.line == line]
    assert found and found[0].conds, f"no read under a condition on line {line} of:\n{text}"
    return found[0].conds[-1]


@pytest.mark.parametrize(("body", "key", "flag", "expected", "why"), [
    ("state = self.states.get(key); if state is not None:;     return state.sent",
     "r1", False, "LIVE", "the dict holds `r1`: .get gives the element, not None"),
    ("state = self.states.get(key); if state is not None:;     return state.sent",
     "r2", False, "DEAD", "the dict has no `r2`: .get gives None"),
    ("state = None if other else self.states.get(key); if state is not None:;"
     "     return state.sent", "r1", True, "DEAD", "the ternary's test is true: None"),
    ("state = None if other else self.states.get(key); if state is not None:;"
     "     return state.sent", "r1", False, "LIVE", "the ternary's test is false: the element"),
    ("state = self.states[key]; if state:;     return state.sent",
     "r1", False, "LIVE", "a subscript of the known dict: the element, truthy"),
    ("state = self.states.get(key, False); if state is not None:;     return state.sent",
     "r2", False, "LIVE", "the dict has no `r2`: .get gives its default False, which is not "
     "None"),
])
def test_a_condition_on_a_local_bound_to_an_element_is_decided_from_the_known_container(
        body, key, flag, expected, why):
    from deskcheck.static._conditions import DEAD, LIVE, explain
    from deskcheck.static._constants import Env, Something

    cond = _condition(body, "return state.sent")
    constants = {"states": {"r1": Something(True, "namespace")}}
    decision = explain(cond, constants, Env({"key": key, "other": flag}))
    words = {LIVE: "LIVE", DEAD: "DEAD"}
    assert words.get(decision.status) == expected, (
        f"`{cond.text}` with self.states = {{'r1': <object>}}, key={key!r}, other={flag}: "
        f"{why}, so the branch is {expected}; got {words.get(decision.status, 'UNKNOWN')} "
        f"({decision.why})")


@pytest.mark.parametrize(("body", "how"), [
    ("state = self.states.get(key); state = self.lookup(key); if state is not None:;"
     "     return self.sent_count", "rebound to a call's result"),
    ("state = self.states.get(key); for state in other:;     if state is not None:;"
     "         return self.sent_count", "rebound by a for loop"),
])
def test_a_local_rebound_after_the_lookup_is_not_decided_from_the_element(body, how):
    from deskcheck.static._conditions import UNKNOWN, explain
    from deskcheck.static._constants import Env, Something

    cond = _condition(body, "return self.sent_count")
    constants = {"states": {"r1": Something(True, "namespace")}}
    decision = explain(cond, constants, Env({"key": "r2", "other": [1]}))
    assert decision.status == UNKNOWN, (
        f"`state` was {how} after `state = self.states.get(key)`: `{cond.text}` can no "
        "longer be decided from the dict (the stale lookup would say None for `r2`); got "
        f"status {decision.status} ({decision.why})")
