"""What a test builds by value reaches production conditions (docs/drift.md, "call-site
constants"): the instances of a plain test class hold what their ``__init__`` stores
(``FakeReq("job-1")``: ``rid == "job-1"``), a helper's parameters left out hold their literal
defaults, ``list(reqs)`` / ``tuple(reqs)`` / ``deque(reqs)`` hold the same elements, a growth
site under a loop is decided pass by pass, and pure ``str`` methods are evaluated.

SGLang's own test (test_abort_rid_targeting.py) builds its Scheduler in a keyword-only helper
(``sched.waiting_queue = list(waiting_reqs)``) and drives ``abort_request(AbortReq(rid=
"job-1"))`` over ``_FakeReq("job-1")``: the read of ``beam_coordinator`` behind ``for i in
reversed(to_del)`` is decided only with all of these."""

from __future__ import annotations

import textwrap

import pytest

from tests.drift_guard.standins.helpers import judge_one, names

PRODUCTION = '''
from dataclasses import dataclass


@dataclass(kw_only=True)
class AbortReq:
    rid: str | None = None
    abort_all: bool = False

    def __post_init__(self):
        if self.rid is None:
            self.rid = ""


@dataclass(kw_only=True)
class Lowered:
    rid: str | None = None
    abort_all: bool = False

    def __post_init__(self):
        if self.rid is None:
            self.rid = ""
        else:
            self.rid = "lowered"


class Queue:
    def abort(self, recv_req):
        to_del = []
        for i, req in enumerate(self.waiting):
            if recv_req.abort_all or req.rid.startswith(recv_req.rid):
                to_del.append(i)
        for i in reversed(to_del):
            self.waiting.pop(i)
            self.notify.send(i)

    def flagged(self):
        if self.enabled:
            self.notify.send(0)

    def kinds(self):
        found = []
        for req in self.waiting:
            if req.kind == "fake":
                found.append(req)
        if found:
            self.notify.send(0)

    def truthy(self):
        found = []
        for req in self.waiting:
            if req:
                found.append(req)
        if found:
            self.notify.send(0)

    def suffixed(self, recv_req):
        hits = []
        for name in self.names:
            if name.lower().endswith((".py", recv_req.rid)):
                hits.append(name)
        if hits:
            self.notify.send(0)

    def headed(self):
        if self.head.rid == "a":
            self.notify.send(0)

    def paired(self):
        hits = []
        for i, (rid, other) in enumerate(self.pairs):
            if rid == other and i == 1:
                hits.append(i)
        if hits:
            self.notify.send(0)
'''

HEAD = "from collections import deque\n\nfrom qcore.queue import AbortReq, Lowered, Queue\n\n\n"

FAKE = '''
class FakeReq:
    def __init__(self, rid, kind="fake"):
        self.rid = rid
        self.kind = kind
'''


def _notify(tmp_path, body: str, classes: str = FAKE) -> set[str]:
    test = HEAD + textwrap.dedent(classes) + "\n\n" + textwrap.dedent(body)
    report = judge_one(tmp_path, PRODUCTION, test, "Queue.__new__")
    return {c for c in ("drift", "unexercised", "unknown") if "notify" in names(report, c)}


HELPER = '''
def make(*, waiting=(), enabled=False):
    q = Queue.__new__(Queue)
    q.waiting = list(waiting)
    q.enabled = enabled
    return q
'''


@pytest.mark.parametrize(("call", "expected", "why"), [
    ('make(waiting=[FakeReq("job-1"), FakeReq("job-10")]).abort(AbortReq(rid="job-1"))',
     "drift", "FakeReq('job-1').rid starts with 'job-1' on the first pass"),
    ('make(waiting=[FakeReq("x"), FakeReq("y")]).abort(AbortReq(rid="job-1"))',
     "unexercised", "no pass holds: neither 'x' nor 'y' starts with 'job-1'"),
    ('make().abort(AbortReq(abort_all=True))', "unexercised",
     "`waiting` is left at its default (): list(()) is empty, so no pass runs"),
    ('make(waiting=[FakeReq("x")]).abort(AbortReq(abort_all=True))', "drift",
     "list(waiting) has one element and abort_all holds"),
    ('make(waiting=(FakeReq("x"),)).abort(AbortReq())', "drift",
     "AbortReq() leaves rid None, its __post_init__ fills in '' and every string starts "
     "with ''"),
    ('make(waiting=[FakeReq("job-1")]).abort(Lowered(rid="job-1"))', "unknown",
     "Lowered's __post_init__ also sets rid in an `else`: rid is not known"),
    ('make().flagged()', "unexercised", "`enabled` is left at its literal default False"),
    ('make(enabled=True).flagged()', "drift", "`enabled` is passed True"),
])
def test_a_helper_built_stand_in_is_decided_from_each_call(tmp_path, call, expected, why):
    made, _, driven = call.partition(").")
    got = _notify(tmp_path, f"{HELPER}\n\ndef test_it():\n    q = {made})\n    q.{driven}\n")
    assert got == {expected}, (
        f"`{call}` reaches `self.notify` only where a growth site or flag holds; {why}, so "
        f"`notify` must be {expected}; got {got}")


@pytest.mark.parametrize("copy", ["list", "tuple", "deque"])
def test_a_copy_of_a_container_of_stand_ins_keeps_its_elements(tmp_path, copy):
    body = f'''
    def test_it():
        reqs = [FakeReq("job-1")]
        q = Queue.__new__(Queue)
        q.waiting = {copy}(reqs)
        q.abort(AbortReq(rid="job"))
    '''
    got = _notify(tmp_path, body)
    assert got == {"drift"}, (
        f"`q.waiting = {copy}(reqs)` holds the same FakeReq('job-1'), whose rid starts with "
        f"'job': `notify` is read; got {got}")


@pytest.mark.parametrize(("classes", "expected", "why"), [
    (FAKE, "drift", "__init__ stores the `kind` default 'fake'"),
    ('''
     class FakeReq:
         kind = "fake"

         def __init__(self, rid):
             self.rid = rid
     ''', "drift", "a class-level literal is an instance's value"),
    ('''
     class FakeReq:
         def __init__(self, rid):
             self.rid = rid
             self.kind = "fake"

         def retag(self):
             self.kind = "real"
     ''', "unknown", "another method stores `kind` too"),
    ('''
     class FakeReq:
         def __init__(self, rid, real=False):
             self.rid = rid
             if real:
                 self.kind = "real"
             else:
                 self.kind = "fake"
     ''', "unknown", "`kind` is stored in a branch of __init__"),
    ('''
     class FakeReq:
         def __init__(self, rid):
             self.rid = rid
             self.kind = "fake"
             setattr(self, "kind", "real")
     ''', "unknown", "the class stores attributes by name (setattr)"),
    ('''
     class FakeReq:
         def __init__(self, rid, kind):
             self.rid = rid
             self.kind = kind
     ''', "unexercised", "the call passes kind='real' by keyword"),
])
def test_what_a_test_class_stores_in_init_is_its_instances_value(tmp_path, classes, expected,
                                                                  why):
    call = 'FakeReq("a", kind="real")' if "rid, kind)" in classes else 'FakeReq("a")'
    body = f'''
    def test_it():
        q = Queue.__new__(Queue)
        q.waiting = [{call}]
        q.kinds()
    '''
    got = _notify(tmp_path, body, classes)
    assert got == {expected}, (
        f"`Queue.kinds` reads `self.notify` once some element's `kind == 'fake'`: {why}, so "
        f"`notify` must be {expected}; got {got}")


@pytest.mark.parametrize(("classes", "expected"), [
    (FAKE, "drift"),
    ('''
     class FakeReq:
         def __init__(self, rid):
             self.rid = rid

         def __len__(self):
             return 0
     ''', "unknown"),
])
def test_an_instance_of_a_class_without_bool_or_len_is_true(tmp_path, classes, expected):
    body = '''
    def test_it():
        q = Queue.__new__(Queue)
        q.waiting = [FakeReq("a")]
        q.truthy()
    '''
    got = _notify(tmp_path, body, classes)
    assert got == {expected}, (
        f"`if req:` over one FakeReq: an instance is true unless its class defines __bool__ "
        f"or __len__, so `notify` must be {expected}; got {got}")


@pytest.mark.parametrize(("names_", "rid", "expected"), [
    ('["A.PY"]', "x", "drift"),
    ('["Notes.TXT", "b.md"]', "x", "unexercised"),
    ('["Notes.TXT", "b.md"]', ".md", "drift"),
])
def test_pure_string_methods_are_evaluated(tmp_path, names_, rid, expected):
    body = f'''
    def test_it():
        q = Queue.__new__(Queue)
        q.names = {names_}
        q.suffixed(AbortReq(rid="{rid}"))
    '''
    got = _notify(tmp_path, body)
    assert got == {expected}, (
        f"`name.lower().endswith(('.py', {rid!r}))` over {names_}: `notify` must be "
        f"{expected}; got {got}")


@pytest.mark.parametrize(("pairs", "expected"), [
    ('[("a", "b"), ("c", "c")]', "drift"),
    ('[("c", "c"), ("a", "b")]', "unexercised"),
])
def test_a_nested_loop_target_binds_each_pass(tmp_path, pairs, expected):
    body = f'''
    def test_it():
        q = Queue.__new__(Queue)
        q.pairs = {pairs}
        q.paired()
    '''
    got = _notify(tmp_path, body)
    assert got == {expected}, (
        f"`for i, (rid, other) in enumerate(self.pairs)` grows only where rid == other on pass "
        f"1; over {pairs} `notify` must be {expected}; got {got}")


def test_a_value_shows_its_known_fields_and_only_them(tmp_path):
    body = '''
    def test_it():
        q = Queue.__new__(Queue)
        q.head = FakeReq("a")
        q.notify = object()
        q.waiting = []
        q.kinds()
    '''
    report = judge_one(tmp_path, PRODUCTION, HEAD + textwrap.dedent(FAKE) + "\n\n"
                       + textwrap.dedent(body), "Queue.__new__")
    values = {name: repr(item.value) for name, item in report.sets.items()}  # as --json shows
    assert "fields" not in values["notify"], (
        f"`object()` has no known field, so its value must not show an empty `fields=()`; got "
        f"{values['notify']}")
    assert "('rid', 'a')" in values["head"] and "('kind', 'fake')" in values["head"], (
        f"FakeReq('a') holds rid 'a' and kind 'fake': its value must show both; got "
        f"{values['head']}")


@pytest.mark.parametrize(("rid", "expected"), [("a", "drift"), ("b", "unexercised")])
def test_a_field_set_to_a_test_class_instance_holds_its_fields(tmp_path, rid, expected):
    body = f'''
    def test_it():
        q = Queue.__new__(Queue)
        q.head = FakeReq("{rid}")
        q.headed()
    '''
    got = _notify(tmp_path, body)
    assert got == {expected}, (
        f"`q.head = FakeReq({rid!r})`: `self.head.rid == 'a'` is decided from the instance's "
        f"rid, so `notify` must be {expected}; got {got}")
