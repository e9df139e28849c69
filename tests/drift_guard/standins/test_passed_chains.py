"""A field of a stand-in, or an element of a container it holds, passed to one of the
production class's own methods is judged on what that method reads through its parameter
(docs/drift.md, *Passed to a method*): ``for req in self.waiting: self.release(req)`` with
``release`` reading ``req.session`` reads ``waiting.[].session``; ``self.finish(self.batch)``
with ``finish`` reading ``batch.done`` reads ``batch.done``. The chain is followed through
keywords, through the caller's own parameters (helper to helper), and into a method the test
binds by hand with a delegating lambda (``q.release = lambda req: Queue.release(q, req)``)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.drift_guard.standins.helpers import QUEUE_TEST_HEAD, judge_one, names

QUEUE = '''
class Queue:
    def __init__(self):
        raise RuntimeError("needs a real device")

    def abort_all(self):
        for req in self.waiting:
            self.release(req)

    def abort_by_keyword(self):
        for req in self.waiting:
            self.release(req=req)

    def abort_popped(self):
        req = self.waiting.pop()
        self.release(req)

    def abort_mixed(self):
        self.release(len(self.waiting))
        for req in self.waiting:
            self.release(req)

    def abort_deep(self):
        for req in self.waiting:
            self.hand_on(req)

    def hand_on(self, req):
        self.release(req)

    def release(self, req):
        if req.session is not None:
            return req.session.close()
        return None

    def finish_batch(self):
        self.finish(self.batch)

    def finish(self, batch):
        return batch.done

    def finish_by_keyword_only(self):
        self.finish_keyword_only(batch=self.batch)

    def finish_keyword_only(self, *, batch):
        return batch.done

    def abort_all_for(self):
        for req in self.waiting:
            self.release_for(req, "timeout")

    def release_for(self, req, reason):
        return req.session

    def abort_rebound(self, other):
        for req in self.waiting:
            self.release_rebound(req, other)

    def release_rebound(self, req, other):
        req = other
        return req.session

    def abort_shadowed(self):
        for req in self.waiting:
            self.release_shadowed(req)

    def release_shadowed(self, req):
        pick = lambda req: req.session  # noqa: E731 - its own req, not the caller's
        return pick

    def abort_static(self):
        for req in self.waiting:
            self.describe(req)

    @staticmethod
    def describe(req):
        return req.session
'''


def _judge(tmp_path: Path, body: str, built: str = "Queue.__new__(Queue)"):
    return judge_one(tmp_path, QUEUE, QUEUE_TEST_HEAD + textwrap.dedent(body), built)


PASSED = {
    "for-loop element, positional": ("abort_all", "", "waiting.[].session"),
    "for-loop element, keyword": ("abort_by_keyword", "", "waiting.[].session"),
    "popped element": ("abort_popped", "", "waiting.[].session"),
    "through a second helper's parameter": ("abort_deep", "", "waiting.[].session"),
    "the same method called before with something else": (
        "abort_mixed", "", "waiting.[].session"),
    "into a method bound by a delegating lambda": (
        "abort_all", "q.release = lambda req: Queue.release(q, req)\n",
        "waiting.[].session"),
}


@pytest.mark.parametrize("shape", sorted(PASSED))
def test_an_element_passed_to_a_method_is_judged_on_what_the_method_reads(tmp_path, shape):
    method, extra, expected = PASSED[shape]
    report = _judge(tmp_path, f'''
        def test_it():
            q = Queue.__new__(Queue)
            q.waiting = [FakeReq("a"), FakeReq("b")]
            {textwrap.indent(extra, "            ").strip()}
            q.{method}()
    ''')
    drift = names(report, "drift")
    assert expected in drift, (
        f"{shape}: `{method}` passes each element of self.waiting to a method that reads "
        f"`req.session`, and FakeReq has no `session`: `{expected}` must be drift; got "
        f"drift={drift}, unknown={names(report, 'unknown')}")


def test_a_field_passed_to_a_method_is_judged_on_what_the_method_reads(tmp_path):
    report = _judge(tmp_path, '''
        def test_it():
            q = Queue.__new__(Queue)
            q.batch = SimpleNamespace(reqs=[])
            q.finish_batch()
    ''')
    drift = names(report, "drift")
    assert "batch.done" in drift, (
        "finish_batch passes self.batch to finish, which reads `batch.done`; the namespace "
        f"the test set holds only `reqs`: `batch.done` must be drift; got drift={drift}")


def test_a_field_passed_to_a_keyword_only_parameter_is_followed(tmp_path):
    report = _judge(tmp_path, '''
        def test_it():
            q = Queue.__new__(Queue)
            q.batch = SimpleNamespace(reqs=[])
            q.finish_by_keyword_only()
    ''')
    drift = names(report, "drift")
    assert "batch.done" in drift, (
        "`self.finish_keyword_only(batch=self.batch)` passes the field to a keyword-only "
        "parameter (`def finish_keyword_only(self, *, batch)`), which reads `batch.done`: a "
        f"keyword-only parameter must be followed like any other; got drift={drift}")


def test_elements_that_provide_the_name_the_method_reads_hold(tmp_path):
    report = _judge(tmp_path, '''
        def test_it():
            q = Queue.__new__(Queue)
            q.waiting = [SimpleNamespace(rid="a", session=None)]
            q.abort_all()
    ''')
    assert not any(".[]" in n for n in names(report, "drift")), (
        "every element provides `session`: nothing the helper reads through its parameter "
        f"is drift; got drift={names(report, 'drift')}")


HELD = {
    "the method rebinds its parameter first": ("abort_rebound", ""),
    "a nested lambda's own parameter of the same name": ("abort_shadowed", ""),
    "a lambda that does not delegate replaces the method": (
        "abort_all", "q.release = lambda req: None"),
    "a lambda that passes something else replaces the method": (
        "abort_all", "q.release = lambda req: Queue.release(q, None)"),
    "a lambda that calls another class's method replaces it": (
        "abort_all", "q.release = lambda req: FakeReq.release(q, req)"),
    "a lambda that swaps its parameters replaces the method": (
        "abort_all_for", "q.release_for = lambda reason, req: Queue.release_for(q, req, reason)"),
}


@pytest.mark.parametrize("shape", sorted(HELD))
def test_a_read_not_through_the_passed_element_is_not_charged_to_it(tmp_path, shape):
    method, extra = HELD[shape]
    report = _judge(tmp_path, f'''
        def test_it():
            q = Queue.__new__(Queue)
            q.waiting = [FakeReq("a")]
            {extra}
            q.{method}({'"x"' if method == "abort_rebound" else ""})
    ''')
    found = {n for c in ("drift", "unknown", "unexercised") for n in names(report, c)
             if n.startswith("waiting.[].session")}
    assert not found, (
        f"{shape}: the `req.session` read is not a read of the element the caller passed, "
        f"so nothing may be charged to `waiting.[].session`; got {found}")


def test_a_static_methods_first_parameter_takes_the_first_argument(tmp_path):
    report = _judge(tmp_path, '''
        def test_it():
            q = Queue.__new__(Queue)
            q.waiting = [FakeReq("a")]
            q.abort_static()
    ''')
    drift = names(report, "drift")
    assert "waiting.[].session" in drift, (
        "self.describe(req) calls a staticmethod: its first parameter `req` is the element "
        f"passed (no self to skip), and it reads `req.session`; got drift={drift}")
