"""A production record the test builds and passes to the driven method (docs/drift.md,
"Call-site constants"): ``Queue.abort(q, AbortReq(abort_all=True))`` binds ``recv_req`` to an
object whose fields are known from the call and the class (a dataclass, ``msgspec.Struct``,
``NamedTuple``, attrs or pydantic model without an ``__init__`` of its own), so
``if recv_req.abort_all:`` is decided. A field a post-init hook or validator sets, a default
factory, or a class that is no record stays unknown, never a wrong verdict.

With a grow-only local (SGLang's abort path: ``to_del.append(i)`` under ``if
recv_req.abort_all or ...``, then ``for i in reversed(to_del)``) this decides the read behind
the second loop from the test's own arguments."""

from __future__ import annotations

import textwrap

import pytest

from tests.drift_guard.standins.helpers import judge_one, names

PRODUCTION = '''
import dataclasses
from dataclasses import KW_ONLY, dataclass, field
from typing import NamedTuple

from msgspec import Struct
from pydantic import BaseModel, field_validator


@dataclass(kw_only=True)
class AbortReq:
    rid: str = ""
    abort_all: bool = False


@dataclass
class Plain:
    rid: str
    abort_all: bool = False


class Base(Struct, kw_only=True):
    rid: str = ""


class Msg(Base, kw_only=True):
    abort_all: bool = False


@dataclass
class Fixed:
    abort_all: bool = False

    def __post_init__(self):
        self.abort_all = True


class Tup(NamedTuple):
    rid: str
    abort_all: bool = False


@dataclass
class Made:
    abort_all: bool = False

    def __init__(self, abort_all=False):
        self.abort_all = not abort_all


@dataclass
class Split:
    rid: str
    _: KW_ONLY
    abort_all: bool = False
    seen: int = field(default=0, init=False)


@dataclass
class Split2:
    rid: str
    _: dataclasses.KW_ONLY
    abort_all: bool = False


@dataclass(kw_only=True)
class Mixed:
    rid: str = field(default="", kw_only=False)
    abort_all: bool = False


@dataclass
class PBase:
    rid: str


@dataclass
class Child(PBase):
    abort_all: bool = False


@dataclass
class Listed:
    abort_all: list = field(default_factory=list)


class Checked(BaseModel):
    abort_all: bool = False

    @field_validator("abort_all")
    def flip(cls, v):
        return not v


class Queue:
    def __init__(self):
        raise RuntimeError("needs a device")

    def close(self, recv_req):
        if recv_req.abort_all:
            self.notify.send()

    def abort(self, recv_req):
        to_del = []
        for i, req in enumerate(self.waiting):
            if recv_req.abort_all or req.rid.startswith(recv_req.rid):
                to_del.append(i)
        for i in reversed(to_del):
            req = self.waiting.pop(i)
            self.notify.send(i)
'''

HEAD = ("from qcore.queue import (AbortReq, Checked, Child, Fixed, Listed, Made, Msg, Plain,"
        " Mixed, Queue, Split, Split2, Tup)\n\n\nclass FakeReq:\n    def __init__(self, rid):\n        self.rid = rid\n\n")


def _notify(tmp_path, method: str, argument: str, waiting: str = '[FakeReq("a")]'):
    test = HEAD + textwrap.dedent(f'''
        def test_it():
            q = Queue.__new__(Queue)
            q.waiting = {waiting}
            Queue.{method}(q, {argument})
    ''')
    report = judge_one(tmp_path, PRODUCTION, test, "Queue.__new__")
    return {c for c in ("drift", "unexercised", "unknown") if "notify" in names(report, c)}


@pytest.mark.parametrize(("argument", "expected", "why"), [
    ("AbortReq(abort_all=True)", "drift", "a keyword the call passes"),
    ("AbortReq(abort_all=False)", "unexercised", "a keyword the call passes"),
    ("AbortReq(rid='x')", "unexercised", "the field's literal default (False)"),
    ("Plain('x', True)", "drift", "a position of a dataclass that is not keyword-only"),
    ("Msg(abort_all=True)", "drift", "a field of a msgspec.Struct subclass"),
    ("Msg(rid='x')", "unexercised", "a Struct field's default"),
    ("Tup('x', True)", "drift", "a NamedTuple's position"),
    ("Fixed(abort_all=False)", "unknown", "__post_init__ sets the field again"),
    ("Made(abort_all=True)", "unknown", "a dataclass with its own __init__ is no record"),
    ("Child('x', False)", "unexercised", "positions in field order, the base's fields first"),
    ("Split('x', abort_all=True)", "drift", "a keyword after `_: KW_ONLY`"),
    ("Split('x', True)", "unknown", "a position for a field after `_: KW_ONLY` (a TypeError)"),
    ("Mixed('x', abort_all=True)", "drift",
     "a keyword, the position going to the one field `field(kw_only=False)` frees"),
    ("Listed()", "unknown", "a default factory is not a literal"),
    ("Checked(abort_all=True)", "unknown", "a pydantic validator names the field"),
    ("AbortReq(abort_all=True, nope=1)", "unknown", "a keyword that is no field"),
    ("AbortReq('x')", "unknown", "a position on a keyword-only dataclass"),
])
def test_a_record_the_test_builds_decides_the_branch_on_its_field(tmp_path, argument,
                                                                   expected, why):
    got = _notify(tmp_path, "close", argument)
    assert got == {expected}, (
        f"`Queue.close(q, {argument})` reads `self.notify` under `if recv_req.abort_all:`; "
        f"the field's value comes from {why}, so `notify` must be {expected}; got {got}")


@pytest.mark.parametrize(("argument", "waiting", "expected"), [
    ("AbortReq(abort_all=True)", '[FakeReq("a"), FakeReq("b")]', "drift"),
    ("AbortReq(abort_all=True)", "[]", "unexercised"),
    # pass by pass: FakeReq("a") holds rid "a" (its __init__ stores the literal passed)
    ("AbortReq(rid='a')", '[FakeReq("a")]', "drift"),
    ("AbortReq(rid='a')", '[FakeReq("b"), FakeReq("ba")]', "unexercised"),
    ("AbortReq(rid='a')", '[FakeReq("b"), FakeReq("ba"), FakeReq("a1")]', "drift"),
    ("AbortReq(rid='a')", '[FakeReq("b"), object()]', "unknown"),
])
def test_the_abort_path_is_decided_from_the_record_and_the_queue(tmp_path, argument, waiting,
                                                                expected):
    got = _notify(tmp_path, "abort", argument, waiting)
    assert got == {expected}, (
        f"`to_del` grows on a pass over q.waiting = {waiting} where `recv_req.abort_all or "
        f"req.rid.startswith(recv_req.rid)` holds ({argument}), and only then does `for i in "
        f"reversed(to_del)` reach `self.notify`: it must be {expected}; got {got}")


def _signature(tmp_path, argument: str) -> list[str]:
    test = HEAD + textwrap.dedent(f'''
        def test_it():
            q = Queue.__new__(Queue)
            q.waiting = [FakeReq("a")]
            Queue.close(q, {argument})
    ''')
    report = judge_one(tmp_path, PRODUCTION, test, "Queue.__new__")
    return [s.problem for s in report.signature]


@pytest.mark.parametrize(("argument", "shown"), [
    ("AbortReq(abort_all=True, nope=1)", "no field `nope`"),
    ("AbortReq('x')", "keyword"),
    ("Plain(abort_all=True)", "required field `rid`"),
    ("Plain('x', True, 3)", "at most 2"),
    ("Msg(prefix=True)", "no field `prefix`"),
    ("Split('x', True)", "at most 1"),
    ("Split('x', seen=1)", "no field `seen`"),
    ("Split2('x', True)", "at most 1"),
    ("Mixed('x', True)", "at most 1"),
])
def test_a_record_built_with_fields_it_no_longer_has_is_signature_drift(tmp_path, argument,
                                                                          shown):
    """SGLang's abort tests build `AbortReq(rid="A::", prefix=True)`, a field 0.5.23's
    AbortReq does not have: the test dies on a TypeError before the driven method runs."""
    problems = _signature(tmp_path, argument)
    assert any(shown in p for p in problems), (
        f"`{argument}` does not fit the record's fields ({shown}): the driving call fails "
        f"with a TypeError, which must be listed as signature drift; got {problems}")
    assert _signature(tmp_path / "fits", "AbortReq(abort_all=True)") == [], (
        "a record built with fields it has must not be listed as signature drift")


def test_a_record_that_fits_once_a_field_is_freed_by_field_kw_only_false_is_no_drift(tmp_path):
    assert _signature(tmp_path, "Mixed('x', abort_all=True)") == [], (
        "`rid: str = field(default='', kw_only=False)` takes a position though the dataclass "
        "is keyword-only: `Mixed('x', abort_all=True)` fits and is no signature drift")


def test_the_signature_drift_names_the_test_that_builds_the_record(tmp_path):
    test = HEAD + textwrap.dedent('''
        import pytest


        @pytest.fixture
        def q():
            return Queue.__new__(Queue)


        def test_good(q):
            Queue.close(q, AbortReq(abort_all=True))


        def test_bad(q):
            Queue.close(q, AbortReq(abort_all=True, prefix=True))
    ''')
    report = judge_one(tmp_path, PRODUCTION, test, "Queue.__new__")
    named = {s.test.rpartition("::")[2] for s in report.signature}
    assert named == {"test_bad"}, (
        f"only `test_bad` builds `AbortReq(prefix=True)`: the signature drift must name it, "
        f"not another test driving the same stand-in; it names {named}")
