"""Grow-only locals (docs/drift.md, "Call-site constants"): an empty list, set or dict literal
that a function only reads and adds to is empty or not as its growth sites say. SGLang's
abort path: ``to_del = []``, ``to_del.append(i)`` under ``if recv_req.abort_all or ...``
inside ``for i, req in enumerate(self.waiting_queue)``, then ``for i in reversed(to_del)``:
with a non-empty queue and ``abort_all=True`` the second loop runs; with an empty queue, or
a test that can never hold, it does not; anything that may remove an item, or hand the list
on, keeps it undecided."""

from __future__ import annotations

import ast
import textwrap
from types import SimpleNamespace

import pytest

from deskcheck.static import (
    DEAD,
    LIVE,
    UNKNOWN,
    Env,
    Something,
    explain,
    function_constants,
    function_facts,
)

_WORDS = {DEAD: "DEAD", LIVE: "LIVE", UNKNOWN: "UNKNOWN"}


def _method(body: str) -> ast.FunctionDef:
    source = "class C:\n    def abort(self, recv_req):\n" + textwrap.indent(
        textwrap.dedent(body), " " * 8)
    return ast.parse(source).body[0].body[0]  # type: ignore[attr-defined]


def _send(body: str, queue: tuple, abort_all: bool | None = True) -> tuple[int, str]:
    """(status, reason) of the loop condition over the grow-only local, before ``self.send``."""
    node = _method(body)
    fields = {} if abort_all is None else {"abort_all": abort_all}
    env = Env({"recv_req": SimpleNamespace(**fields)}).with_locals(function_constants(node))
    access = next(a for a in function_facts(node, "self").accesses if a.name == "send")
    decision = explain(access.conds[-1], {"queue": queue}, env)
    return decision.status, decision.why


def _over_grown(body: str, constants: dict):
    """The decision on the last loop condition before ``self.send`` in ``body``, with
    ``recv_req`` an empty namespace and the stand-in's ``constants``."""
    node = _method(body)
    env = Env({"recv_req": SimpleNamespace()}).with_locals(function_constants(node))
    access = next(a for a in function_facts(node, "self").accesses if a.name == "send")
    return explain(access.conds[-1], constants, env)


_ABORT = """
to_del = []
for i, req in enumerate(self.queue):
    if recv_req.abort_all or req.rid.startswith(recv_req.rid):
        {grow}
for i in reversed(to_del):
    self.send(i)
"""

_GROWTHS = {
    "list append": ("to_del = []", "to_del.append(i)"),
    "list insert": ("to_del = []", "to_del.insert(0, i)"),
    "dict item": ("to_del = {}", "to_del[i] = req"),
    "dict setdefault": ("to_del = {}", "to_del.setdefault(i, req)"),
}

_ONE = (SimpleNamespace(),)


@pytest.mark.parametrize("form", ["list append", "list insert", "dict item", "dict setdefault"])
def test_a_local_that_surely_grows_is_iterated(form):
    first, grow = _GROWTHS[form]
    body = _ABORT.replace("to_del = []", first).replace("{grow}", grow)
    status, why = _send(body, _ONE)
    assert status == LIVE, (
        f"{form}: `{grow}` runs on the first pass over a one-item queue where "
        f"`recv_req.abort_all` is True, so the loop over `to_del` runs; got "
        f"{_WORDS[status]} ({why})")


@pytest.mark.parametrize(("queue", "abort_all", "why"), [
    ((), True, "the queue is empty: the growth site never runs"),
    (_ONE, False, "`abort_all` is False and the element's rid is unknown: undecided"),
])
def test_a_local_whose_growth_cannot_be_shown_is_not_iterated_for_sure(queue, abort_all, why):
    status, reason = _send(_ABORT.replace("{grow}", "to_del.append(i)"), queue, abort_all)
    expected = DEAD if not queue else UNKNOWN
    assert status == expected, f"{why}; got {_WORDS[status]} ({reason})"


def test_a_local_whose_every_growth_site_cannot_run_is_empty():
    body = """
    to_del = []
    for i, req in enumerate(self.queue):
        if recv_req.abort_all:
            to_del.append(i)
    for i in reversed(to_del):
        self.send(i)
    """
    status, why = _send(body, _ONE, abort_all=False)
    assert status == DEAD, (
        f"`to_del` grows only under `recv_req.abort_all`, which is False: it stays empty and "
        f"the loop over it never runs; got {_WORDS[status]} ({why})")


@pytest.mark.parametrize("around", [
    "while recv_req.abort_all:\n    {grow}\n    break",
    "try:\n    self.check()\n    {grow}\nexcept ValueError:\n    pass",
    "for j in self.queue:\n    if j is None:\n        continue\n    {grow}",
    "for j in self.queue:\n    pass\nelse:\n    {grow}",
    "push = lambda: {grow}\npush()",
    "to_del.extend([i])",
])
def test_a_growth_that_may_not_run_proves_neither_way(around):
    """A site under while, a try with handlers, a loop that may skip it, a for-else, a
    lambda, or an extend (which may add nothing): never proof that the list holds something,
    and no proof that it stays empty either."""
    grow = "to_del.append(i)"
    inner = around.format(grow=grow)
    body = ("to_del = []\nfor i, req in enumerate(self.queue):\n"
            + textwrap.indent(inner, "    ") + "\nfor i in reversed(to_del):\n    self.send(i)\n")
    for abort_all in (True, False):
        status, why = _send(body, _ONE, abort_all)
        assert status == UNKNOWN, (
            f"`{inner}` may or may not add to `to_del` (abort_all={abort_all}): the loop "
            f"over it must stay undecided; got {_WORDS[status]} ({why})")


@pytest.mark.parametrize("shrink", [
    "to_del.pop()", "to_del.remove(i)", "to_del.clear()", "del to_del[0]", "keep(to_del)",
    "other = to_del", "to_del[0] = i",
])
def test_a_local_that_may_lose_items_is_no_grow_only_local(shrink):
    body = (_ABORT.replace("{grow}", "to_del.append(i)")
            .replace("for i in reversed", f"{shrink}\nfor i in reversed"))
    facts = function_constants(_method(body))
    assert "to_del" not in facts.grows, (
        f"`{shrink}` may take items out of `to_del` (or hands it on): it is no grow-only "
        f"local, yet function_constants lists it: {facts.grows}")
    status, why = _send(body, _ONE)
    assert status == UNKNOWN, (
        f"after `{shrink}` the loop over `to_del` must stay undecided; got {_WORDS[status]}")


def test_a_truth_test_of_a_grow_only_local_is_decided_and_undecided_says_where_it_grows():
    body = """
    pending = []
    for req in self.queue:
        if recv_req.abort_all:
            pending.append(req)
    if pending:
        self.send(len(pending))
    """
    node = _method(body)
    access = next(a for a in function_facts(node, "self").accesses if a.name == "send")
    facts = function_constants(node)
    got = {}
    for abort_all in (True, False, None):
        fields = {} if abort_all is None else {"abort_all": abort_all}
        env = Env({"recv_req": SimpleNamespace(**fields)}).with_locals(facts)
        got[abort_all] = explain(access.conds[-1], {"queue": _ONE}, env)
    assert (got[True].status, got[False].status) == (LIVE, DEAD), (
        f"`if pending:` after a sure growth is entered, after none it is not; got "
        f"{_WORDS[got[True].status]} / {_WORDS[got[False].status]}")
    why = got[None].why
    assert got[None].status == UNKNOWN and "changes after it is bound" in why \
        and "whether it grows" in why and "abort_all" in why, (
        f"with `abort_all` unknown the reason must say the list changes, and what keeps its "
        f"growth undecided (`recv_req.abort_all`); it says: {why!r}")


def test_a_growth_in_an_else_arm_holds_where_the_test_does_not():
    body = """
    to_del = []
    for i, req in enumerate(self.queue):
        if recv_req.abort_all:
            pass
        else:
            to_del.append(i)
    for i in reversed(to_del):
        self.send(i)
    """
    got = {flag: _send(body, _ONE, flag)[0] for flag in (True, False)}
    assert got == {True: DEAD, False: LIVE}, (
        f"the growth sits in the `else` of `if recv_req.abort_all:`: it runs where abort_all is "
        f"False (LIVE) and never where it is True (DEAD); got "
        f"{ {k: _WORDS[v] for k, v in got.items()} }")


def test_a_local_bound_to_a_non_empty_literal_is_never_empty():
    body = """
    to_del = [0]
    for i, req in enumerate(self.queue):
        if recv_req.abort_all:
            to_del.append(i)
    for i in reversed(to_del):
        self.send(i)
    """
    status, why = _send(body, (), abort_all=False)
    assert status == LIVE, (
        f"`to_del = [0]` only grows: it holds something whatever its growth sites do, so the "
        f"loop over it runs; got {_WORDS[status]} ({why})")


def test_a_growth_guard_on_a_name_rebound_later_is_not_read_from_its_later_value():
    """`req` is the first loop's variable where `to_del` grows; before the second loop it is
    bound to `self.head`, which the stand-in knows: the guard must not be read from that."""
    body = """
    to_del = []
    for req in self.queue:
        if req:
            to_del.append(req)
    req = self.head
    for i in reversed(to_del):
        self.send(i)
    """
    unsure = _over_grown(body, {"queue": (Something(None),), "head": True})
    assert unsure.status == UNKNOWN, (
        f"where `to_del` grows, `req` is an element of the queue (an object of unknown truth), "
        f"not `self.head` (True): the loop over `to_del` must stay undecided; got "
        f"{_WORDS[unsure.status]} ({unsure.why})")
    falsy = _over_grown(body, {"queue": (0,), "head": True})
    assert falsy.status == DEAD, (
        f"where `to_del` grows, `req` is the queue's one element, 0 (false), not `self.head` "
        f"(True): `to_del` stays empty and the loop over it never runs; got "
        f"{_WORDS[falsy.status]} ({falsy.why})")


_BEHIND_A_FLAG = """
to_del = []
if self.mode:
    for req in self.queue:
        if req.rid == "a":
            to_del.append(req)
for i in to_del:
    self.send(i)
"""


@pytest.mark.parametrize(("mode", "rids", "expected"), [
    (None, ("a",), UNKNOWN),
    (True, ("a",), LIVE),
    (False, ("a",), DEAD),
    (None, ("b", "c"), DEAD),
    (True, ("b", "a"), LIVE),
])
def test_a_pass_that_holds_decides_only_once_the_guards_around_its_loop_hold(mode, rids,
                                                                             expected):
    constants: dict = {"queue": tuple(SimpleNamespace(rid=r) for r in rids)}
    if mode is not None:
        constants["mode"] = mode
    decision = _over_grown(_BEHIND_A_FLAG, constants)
    assert decision.status == expected, (
        f"`to_del` grows on a pass over rids {rids} whose rid is 'a', inside `if self.mode:` "
        f"(mode {'unknown' if mode is None else mode}): a holding pass decides only when the "
        f"flag holds, and no holding pass decides alone; the loop over `to_del` must be "
        f"{_WORDS[expected]}; got {_WORDS[decision.status]} ({decision.why})")


def test_a_growth_guard_on_a_local_rebound_later_is_not_read_from_its_later_value():
    """`flag` is bound from `recv_req.wanted` (unknown) where `to_del` grows, and again to
    `self.head` (True) before the loop over `to_del`: the guard must not read `self.head`."""
    body = """
    to_del = []
    flag = recv_req.wanted
    for req in self.queue:
        if flag:
            to_del.append(req)
    flag = self.head
    for i in reversed(to_del):
        self.send(i)
    """
    decision = _over_grown(body, {"queue": _ONE, "head": True})
    assert decision.status == UNKNOWN, (
        f"where `to_del` grows, `flag` holds `recv_req.wanted` (unknown), not `self.head` "
        f"(True): the loop over `to_del` must stay undecided; got {_WORDS[decision.status]} "
        f"({decision.why})")
