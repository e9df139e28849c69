"""Caches keyed by a node's ``id()`` answer only for that very node: a node freed and its
id given to another (a later audit's tree, a test's fixture) must never get the first
node's facts (an audit that read another function's calls found no collective at all)."""

from __future__ import annotations

import ast

from deskcheck.static import _dataflow, _members, flow_facts
from deskcheck.static._members import class_members


def test_flow_facts_never_answer_for_another_node_under_the_same_id():
    first = ast.parse("def f(x):\n    return x\n").body[0]
    other = ast.parse("def g(y):\n    if y:\n        g(y)\n    return 2\n").body[0]
    stale = flow_facts(first)
    _dataflow._FLOW[id(other)] = (first, stale)  # as if `first`'s id had been reused
    try:
        facts = flow_facts(other)
    finally:
        _dataflow._FLOW.pop(id(other), None)
    assert facts is not stale and len(facts.calls) == 1, (
        "flow_facts answered for `g` with the facts cached under its id for another node "
        f"(`f`, no calls): a reused id must be re-read, got {len(facts.calls)} call(s)")


def test_class_members_never_answer_for_another_class_under_the_same_id():
    first = ast.parse("class A:\n    def a(self):\n        pass\n").body[0]
    other = ast.parse("class B:\n    def b(self):\n        pass\n").body[0]
    stale = class_members(first)
    _members._MEMBERS[id(other)] = (first, stale)  # as if `first`'s id had been reused
    try:
        members = class_members(other)
    finally:
        _members._MEMBERS.pop(id(other), None)
    assert "b" in members and "a" not in members, (
        "class_members answered for class B with the members cached under its id for class "
        f"A: a reused id must be re-read, got {sorted(members)}")
