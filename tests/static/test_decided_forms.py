"""The decided forms of docs/drift.md ("Decided forms: ... `==`/`!=`/`<`..., `match` on a
known subject (value, singleton, `|`, ...), and loops: a `for` body is entered when its
iterable's length is known and > 0 (... `zip` ... of those)", and enum members "compared by
class and member name"): each decided the way Python would run it."""

from __future__ import annotations

import ast
import enum
import textwrap

import pytest

from deskcheck.static import DEAD, LIVE, UNKNOWN, Returns, Unknown, explain, function_facts, literal

_WORDS = {LIVE: "LIVE", DEAD: "DEAD", UNKNOWN: "UNKNOWN"}


class Mode(enum.Enum):
    NULL = 0


class Other(enum.Enum):
    NULL = 0


def _verdict(body: str, constants: dict) -> str:
    """LIVE/DEAD/UNKNOWN of the branch that reads ``self.x`` in ``def f(self): <body>``."""
    source = "def f(self):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    method = ast.parse(source).body[0]
    access = next(a for a in function_facts(method, "self").accesses if a.name == "x")
    return _WORDS[min(explain(c, constants).status for c in access.conds)]


def test_greater_or_equal_is_inclusive():
    got = _verdict("if self.n >= 3:\n    self.x\n", {"n": 3})
    assert got == "LIVE", (
        f"`self.n >= 3` with n == 3 must be decided LIVE (>= is inclusive); it was {got}")
    got = _verdict("if self.n >= 3:\n    self.x\n", {"n": 2})
    assert got == "DEAD", f"`self.n >= 3` with n == 2 must be decided DEAD; it was {got}"


def test_an_enum_member_is_compared_by_class_and_member_name():
    got = _verdict("if self.mode == Mode.NULL:\n    self.x\n", {"mode": Other.NULL})
    assert got == "DEAD", (
        "`self.mode == Mode.NULL` with mode == Other.NULL must be decided DEAD (enum members "
        f"are compared by class and member name; the classes differ); it was {got}")
    got = _verdict("if self.mode == Mode.NULL:\n    self.x\n", {"mode": Mode.NULL})
    assert got == "LIVE", f"`self.mode == Mode.NULL` with mode == Mode.NULL must be LIVE; got {got}"


def test_a_zip_is_as_long_as_its_shortest_iterable():
    got = _verdict("for a, b in zip((), (1, 2)):\n    self.x\n", {})
    assert got == "DEAD", (
        "`for a, b in zip((), (1, 2))` must be decided DEAD (zip stops at its shortest "
        f"iterable, here empty: the body is never entered); it was {got}")
    got = _verdict("for a, b in zip((1,), (1, 2)):\n    self.x\n", {})
    assert got == "LIVE", f"`for a, b in zip((1,), (1, 2))` enters its body once; it was {got}"


def test_a_zip_whose_later_iterable_is_the_shortest_stops_there():
    got = _verdict("for a, b in zip((1, 2), ()):\n    self.x\n", {})
    assert got == "DEAD", (
        "docs/drift.md:108: a `for` over `zip` of known containers is as long as the shortest "
        "one, whichever argument it is; `for a, b in zip((1, 2), ())` never enters its body, "
        f"yet it was decided {got}")


def test_a_match_or_pattern_matches_when_any_alternative_matches():
    got = _verdict("match self.mode:\n    case 1 | 2:\n        self.x\n", {"mode": 1})
    assert got == "LIVE", (
        "`match self.mode: case 1 | 2:` with mode == 1 must be decided LIVE (an `|` pattern "
        f"matches when any one alternative matches); it was {got}")
    got = _verdict("match self.mode:\n    case 1 | 2:\n        self.x\n", {"mode": 3})
    assert got == "DEAD", f"`case 1 | 2:` with mode == 3 must be decided DEAD; it was {got}"


def test_items_of_a_known_dict_is_as_long_as_the_dict():
    got = _verdict("for k, v in self.d.items():\n    self.x\n", {"d": {"a": 1}})
    assert got == "LIVE", (
        "`for k, v in self.d.items()` over a known dict of one entry must be decided LIVE (a for "
        "body is entered when its iterable's length is known and > 0, `.items()` of a known "
        f"dict: docs/drift.md:106); it was {got}")
    got = _verdict("for k, v in self.d.items():\n    self.x\n", {"d": {}})
    assert got == "DEAD", f"`for k, v in self.d.items()` over an empty dict is DEAD; it was {got}"


def test_range_is_as_long_as_its_bounds():
    for body, want in (("range(2)", "LIVE"), ("range(0)", "DEAD"), ("range(3, 3)", "DEAD"),
                       ("range(3, 4)", "LIVE")):
        got = _verdict(f"for i in {body}:\n    self.x\n", {})
        assert got == want, (
            f"`for i in {body}` must be decided {want} (a for body is entered when its "
            f"iterable's length is known and > 0; len({body}) == {len(eval(body))}); it was {got}")


@pytest.mark.parametrize("wrapper", ["enumerate", "reversed", "sorted"])
def test_a_wrapper_of_a_known_container_is_as_long_as_the_container(wrapper):
    got = _verdict(f"for v in {wrapper}(self.q):\n    self.x\n", {"q": [1]})
    assert got == "LIVE", (
        f"`for v in {wrapper}(self.q)` with q == [1] must be decided LIVE ({wrapper} of a known "
        f"container is as long as the container: docs/drift.md:107); it was {got}")
    got = _verdict(f"for v in {wrapper}(self.q):\n    self.x\n", {"q": []})
    assert got == "DEAD", f"`for v in {wrapper}(self.q)` with q == [] must be DEAD; it was {got}"


def test_len_of_a_known_container_is_compared():
    got = _verdict("if len(self.q) > 1:\n    self.x\n", {"q": [1]})
    assert got == "DEAD", f"`len(self.q) > 1` with q == [1] must be decided DEAD; it was {got}"
    got = _verdict("if len(self.q) > 1:\n    self.x\n", {"q": [1, 2]})
    assert got == "LIVE", f"`len(self.q) > 1` with q == [1, 2] must be decided LIVE; it was {got}"


def test_isinstance_with_a_builtin_type_is_decided():
    got = _verdict("if isinstance(self.n, int):\n    self.x\n", {"n": 1})
    assert got == "LIVE", f"`isinstance(self.n, int)` with n == 1 must be LIVE; it was {got}"
    got = _verdict("if isinstance(self.n, int):\n    self.x\n", {"n": "a"})
    assert got == "DEAD", f"`isinstance(self.n, int)` with n == 'a' must be DEAD; it was {got}"


def test_membership_in_a_known_container_is_decided_both_ways():
    for cond, n, want in (("self.n in (1, 2)", 1, "LIVE"), ("self.n in (1, 2)", 3, "DEAD"),
                          ("self.n not in (1, 2)", 1, "DEAD"),
                          ("self.n not in (1, 2)", 3, "LIVE")):
        got = _verdict(f"if {cond}:\n    self.x\n", {"n": n})
        assert got == want, f"`{cond}` with n == {n} must be decided {want}; it was {got}"


def test_a_decided_operand_short_circuits_and_or_but_an_undecided_one_does_not():
    for cond, a, want in (("self.a and self.unk", 0, "DEAD"), ("self.a or self.unk", 1, "LIVE"),
                          ("self.a and self.unk", 1, "UNKNOWN"),
                          ("self.a or self.unk", 0, "UNKNOWN")):
        got = _verdict(f"if {cond}:\n    self.x\n", {"a": a})
        assert got == want, (
            f"`{cond}` with a == {a} and unk unknown must be {want} (and/or short-circuit: a "
            f"decided operand decides only when it settles the result); it was {got}")


def test_a_negative_literal_is_a_known_value():
    got = _verdict("if self.n == -1:\n    self.x\n", {"n": -1})
    assert got == "LIVE", (
        f"`self.n == -1` with n == -1 must be decided LIVE (`==` against a literal, here a "
        f"negative one, is a decided form: docs/drift.md:102); it was {got}")
    got = _verdict("if self.n == -1:\n    self.x\n", {"n": 1})
    assert got == "DEAD", f"`self.n == -1` with n == 1 must be decided DEAD; it was {got}"
    got = _verdict("for i in range(4, 0, -1):\n    self.x\n", {})
    assert got == "LIVE", (
        f"`for i in range(4, 0, -1)` (four items) must be decided LIVE; it was {got}")


def test_a_stand_ins_lambda_false_is_a_call_that_returns_false():
    value = literal(ast.parse("lambda: False", mode="eval").body)
    assert value == Returns(False), (
        f"`lambda: False` set on a stand-in is a callable returning False (docs/drift.md:95); "
        f"its known value was {value!r}")
    taking = literal(ast.parse("lambda req: False", mode="eval").body)
    assert isinstance(taking, Unknown), (
        f"a lambda that takes arguments is not a known constant; it was read as {taking!r}")
    got = _verdict("if self.finished():\n    self.x\n", {"finished": Returns(False)})
    assert got == "DEAD", (
        f"`if self.finished()` where finished = lambda: False must be decided DEAD; it was {got}")
    got = _verdict("if not self.finished():\n    self.x\n", {"finished": Returns(False)})
    assert got == "LIVE", f"`if not self.finished()` with lambda: False must be LIVE; it was {got}"
