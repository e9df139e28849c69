"""Rows a generator helper of the test yields (``for abort, expected in self.cases():``) bind
the loop's names once per row, as a literal loop's rows do (docs/drift.md, *Call-site
constants*): a helper whose body only loops over literal rows and yields literals or
production records built from them (``yield AbortReq(rid=rid, abort_all=flag), {...}``) is
walked statically; a column holding anything else in some row stays unknown, and a helper
doing anything else yields nothing known. A list the test builds by a comprehension over a
module-level literal (``[FakeReq(r) for r in RIDS]``) is known by its length, as a loop over
that name is (SGLang's ``test_abort_request_matching.py``, ``test_pd_decode_queues``, needs
both to reach ``send_abort_output``)."""

from __future__ import annotations

import textwrap

import pytest

from tests.drift_guard.standins.helpers import judge_one, names

PRODUCTION = '''
from dataclasses import dataclass


@dataclass(kw_only=True)
class AbortReq:
    rid: str = ""
    abort_all: bool = False


class Queue:
    def __init__(self):
        raise RuntimeError("needs a device")

    def close(self, recv_req):
        if recv_req.abort_all:
            self.notify.send()

    def abort(self, recv_req):
        to_del = []
        for i, req in enumerate(self.retracted):
            if recv_req.abort_all or req.rid.startswith(recv_req.rid):
                to_del.append(i)
        for i in reversed(to_del):
            self.notify.send(self.retracted.pop(i))

    def step(self, fast):
        if fast:
            return self.fast_path
        return self.slow_path

    def drain(self):
        if self.queue:
            return self.drained
'''

HEAD = ("import unittest\nfrom unittest.mock import Mock\nfrom qcore.queue import AbortReq, Queue"
        "\n\nRIDS = ['a', 'b']\n")


def _where(tmp_path, body: str, name: str) -> set[str]:
    report = judge_one(tmp_path, PRODUCTION, HEAD + textwrap.dedent(body), "Queue.__new__")
    return {c for c in ("drift", "unexercised", "unknown") if name in names(report, c)}


def _stepped(tmp_path, helper: str, loop: str, preset: str, read: str, arg: str = "fast"
             ) -> set[str]:
    """``helper`` (a generator's source, indented by 8) and a test that loops ``for LOOP:``
    and drives ``q.step(ARG)`` on a stand-in with ``preset`` set: where ``read`` lands."""
    return _where(tmp_path, helper + f"""
        def test_it():
            for {loop}:
                q = Queue.__new__(Queue)
                q.{preset} = 1
                q.step({arg})
    """, read)


REACHED = {
    "a TestCase method yielding (record, expected) rows": '''
        class TestClose(unittest.TestCase):
            def cases(self):
                for target, flag in [("a", False), ("", True)]:
                    yield (
                        AbortReq(rid=target, abort_all=flag),
                        {rid for rid in RIDS if flag or rid == target},
                    )

            def test_it(self):
                for abort, expected in self.cases():
                    q = Queue.__new__(Queue)
                    Queue.close(q, abort)
    ''',
    "a module-level generator yielding records": '''
        def aborts():
            yield AbortReq(rid="a")
            for flag in (False, True):
                yield AbortReq(abort_all=flag)

        def test_it():
            for abort in aborts():
                q = Queue.__new__(Queue)
                q.close(abort)
    ''',
}


@pytest.mark.parametrize("shape", sorted(REACHED))
def test_a_row_a_generator_yields_decides_the_branch(tmp_path, shape):
    got = _where(tmp_path, REACHED[shape], "notify")
    assert got == {"drift"}, (
        f"{shape}: one yielded row passes AbortReq(abort_all=True), so `Queue.close` reads "
        f"`self.notify`, which the stand-in lacks: drift; got {got}")


def test_a_generator_whose_rows_never_reach_the_read_is_not_drift(tmp_path):
    got = _stepped(tmp_path, """
        def flags():
            for fast in (True, 1):
                yield fast
    """, "fast in flags()", "fast_path", "slow_path")
    assert got == {"unexercised"}, (
        f"every row `flags()` yields is true, so `return self.slow_path` is never reached: "
        f"unexercised, not drift or undecided; got {got}")


UNDECIDED = {
    "a condition in the generator": """
        EXTRA = bool(RIDS)

        def flags():
            for fast in (True,):
                yield fast
            if EXTRA:
                yield False
    """,
    "a computed value yielded": """
        EXTRA = bool(RIDS)

        def flags():
            for fast in (True,):
                yield fast and EXTRA
    """,
    "a generator taking arguments": """
        def flags(extra=False):
            for fast in (True,):
                yield fast
            yield extra
    """,
}


@pytest.mark.parametrize("shape", sorted(UNDECIDED))
def test_a_generator_doing_more_than_yield_literal_rows_stays_unknown(tmp_path, shape):
    call = "flags(object())" if "arguments" in shape else "flags()"
    got = _stepped(tmp_path, UNDECIDED[shape], f"fast in {call}", "fast_path", "slow_path")
    assert got == {"unknown"}, (
        f"{shape}: some row's value is not known statically, so `fast` is not known in "
        f"every row and the read behind `if fast` stays undecided; got {got}")


def test_rows_and_a_queue_built_over_a_module_level_list_reach_the_abort_path(tmp_path):
    got = _where(tmp_path, '''
        class TestAbort(unittest.TestCase):
            def cases(self):
                for target, flag in [("a", False), ("", True)]:
                    yield AbortReq(rid=target, abort_all=flag), {r for r in RIDS if flag}

            def test_it(self):
                for abort, expected in self.cases():
                    q = Queue.__new__(Queue)
                    q.retracted = [Mock(rid=rid) for rid in RIDS]
                    q.abort(abort)
    ''', "notify")
    assert got == {"drift"}, (
        "q.retracted holds one element per name of the module-level RIDS (two), and the "
        "row AbortReq(abort_all=True) appends each index to `to_del`: `for i in "
        "reversed(to_del)` reads `self.notify`, which the stand-in lacks: drift; got "
        f"{got}")


def test_a_column_some_row_does_not_know_stays_unknown(tmp_path):
    got = _stepped(tmp_path, """
        def rows():
            for fast in (True, False):
                yield fast, len(RIDS) > 5
    """, "fast, slow in rows()", "fast_path", "slow_path", arg="slow")
    assert got == {"unknown"}, (
        f"the second column of every row `rows()` yields is computed (`len(RIDS) > 5`), not a "
        f"literal: `slow` is not known, so the read behind `if fast` stays undecided, not "
        f"taken for a known value; got {got}")


@pytest.mark.parametrize("count", [64, 65])
def test_a_generator_yields_at_most_64_known_rows(tmp_path, count):
    rids = ", ".join(f"'r{i}'" for i in range(count))
    got = _where(tmp_path, f"""
        def cases():
            for rid in ({rids},):
                yield rid

        def test_it():
            q = Queue.__new__(Queue)
            q.queue = [object() for r in cases()]
            q.drain()
    """, "drained")
    want = {"drift"} if count <= 64 else {"unknown"}
    assert got == want, (
        f"`cases()` yields {count} rows: a generator helper is known up to 64 rows, so the "
        f"queue built over them is {'known non-empty and `self.drained` is drift' if count <= 64 else 'not known and `self.drained` stays undecided'}; got {got}")


def test_nested_literal_loops_in_a_generator_keep_the_outer_column(tmp_path):
    got = _stepped(tmp_path, """
        def rows():
            for fast in (False,):
                for mode in ("a", "b"):
                    yield fast, mode
    """, "fast, mode in rows()", "slow_path", "fast_path")
    assert got == {"unexercised"}, (
        f"every row `rows()` yields has fast=False (bound by the outer loop, yielded from the "
        f"inner one): `return self.fast_path` is never reached, unexercised; got {got}")


def test_a_generator_loop_with_an_else_stays_unknown(tmp_path):
    got = _stepped(tmp_path, """
        def flags():
            for fast in (False,):
                yield fast
            else:
                yield True
    """, "fast in flags()", "slow_path", "fast_path")
    assert got == {"unknown"}, (
        f"`flags()` has a `for ... else:` (which yields True): a helper doing more than loop "
        f"over literal rows and yield is not walked, so `fast` is unknown and the read behind "
        f"`if fast` undecided, never unexercised; got {got}")


def test_a_comprehension_with_a_filter_is_not_known_by_its_length(tmp_path):
    got = _where(tmp_path, """
        def test_it():
            q = Queue.__new__(Queue)
            q.queue = [object() for r in RIDS if r == "r9"]
            q.drain()
    """, "drained")
    assert got == {"unknown"}, (
        f"`[object() for r in RIDS if r == 'r9']` keeps only the names the filter lets "
        f"through (none, here): its length is not RIDS's, so `if self.queue` is undecided "
        f"and `self.drained` unknown, not drift; got {got}")


def test_a_generator_loops_over_a_module_level_list_and_never_over_itself(tmp_path):
    got = _where(tmp_path, """
        FLAGS = [False, True]

        def aborts():
            for flag in FLAGS:
                yield AbortReq(abort_all=flag)

        def test_it():
            for abort in aborts():
                q = Queue.__new__(Queue)
                q.close(abort)
    """, "notify")
    assert got == {"drift"}, (
        f"`aborts()` loops over the module-level FLAGS = [False, True], as a test's own loop "
        f"may: its row AbortReq(abort_all=True) reads `self.notify`, drift; got {got}")
    got = _stepped(tmp_path / "self", """
        def flags():
            for fast in flags():
                yield fast
    """, "fast in flags()", "fast_path", "slow_path")
    assert got == {"unknown"}, (
        f"`flags()` loops over its own rows: it yields nothing known (and the walk must not "
        f"recurse into it forever); got {got}")
