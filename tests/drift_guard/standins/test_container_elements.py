"""A container of stand-ins held in a field of a stand-in is judged on its elements
(docs/drift.md, *A container of stand-ins*): ``obj.queue = [FakeReq("a")]``, a dict's values
(``{"r1": object()}``), a comprehension (``[FakeReq(r) for r in rids]``), handed through a
helper's parameter or a keyword of ``SimpleNamespace``. A name every element provides counts;
a read of one some element lacks is drift. A container the test adds to later, or one holding
a mock or anything unknown, lists nothing (its elements are not judged)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from deskcheck.drift_guard.standins import render
from tests.drift_guard.standins.helpers import QUEUE_TEST_HEAD, judge_one, names

QUEUE = '''
class Queue:
    def __init__(self):
        raise RuntimeError("needs a real device")

    def drain(self):
        total = 0
        for req in self.waiting:
            total += req.size
        return total

    def head(self):
        return self.waiting[0].rid

    def abort(self, rid):
        state = self.states[rid]
        state.sent = True
        return state.rid

    def lookup(self, rid):
        return self.states.get(rid).rid

    def cancel(self, rid, everything=False):
        state = None if everything else self.states.get(rid)
        if state is not None:
            return state.sent
        return None
'''


def _judge(tmp_path: Path, body: str, built: str = "Queue.__new__(Queue)"):
    """The verdict on the stand-in the test file builds where ``built`` is written."""
    return judge_one(tmp_path, QUEUE, QUEUE_TEST_HEAD + textwrap.dedent(body), built)


LACKING = {
    "list-of-plain": '''
        def test_it():
            q = Queue.__new__(Queue)
            q.waiting = [FakeReq("a"), FakeReq("b")]
            q.drain()
    ''',
    "comprehension": '''
        def test_it():
            q = Queue.__new__(Queue)
            q.waiting = [FakeReq(r) for r in ("a", "b")]
            q.drain()
    ''',
    "one-element-lacks": '''
        def test_it():
            q = Queue.__new__(Queue)
            q.waiting = [SimpleNamespace(rid="a", size=1), SimpleNamespace(rid="b")]
            q.drain()
    ''',
    "through-a-helper": '''
        def make(waiting):
            q = Queue.__new__(Queue)
            q.waiting = waiting
            return q

        def test_it():
            q = make(waiting=[FakeReq("a")])
            q.drain()
    ''',
    "a-local-list": '''
        def test_it():
            reqs = [FakeReq("a")]
            q = Queue.__new__(Queue)
            q.waiting = reqs
            q.drain()
    ''',
}


@pytest.mark.parametrize("shape", sorted(LACKING))
def test_a_name_an_element_lacks_is_drift(tmp_path, shape):
    report = _judge(tmp_path, LACKING[shape])
    drift = names(report, "drift")
    assert drift == {"waiting.[].size"}, (
        f"{shape}: drain reads `.size` on every element of self.waiting and an element the "
        f"test put there lacks it, so `waiting.[].size` is drift; got drift={drift}")


def test_a_dict_value_that_is_a_bare_object_lacks_every_name(tmp_path):
    report = _judge(tmp_path, '''
        def test_it():
            q = Queue.__new__(Queue)
            q.states = {"r1": object()}
            q.abort("r1")
    ''')
    assert names(report, "drift") == {"states.[].rid"}, (
        "abort reads self.states[rid].rid and the only value is a bare object(): "
        f"`states.[].rid` is drift; got drift={names(report, 'drift')}")


HOLDING = {
    "every-element-has-it": '''
        def test_it():
            q = Queue.__new__(Queue)
            q.waiting = [SimpleNamespace(rid="a", size=1), SimpleNamespace(rid="b", size=2)]
            q.drain()
    ''',
    "set-later-on-the-element": '''
        def test_it():
            req = FakeReq("a")
            q = Queue.__new__(Queue)
            q.waiting = [req]
            req.size = 4
            q.drain()
    ''',
    "class-provides-it": '''
        class SizedReq:
            size = 3

        def test_it():
            q = Queue.__new__(Queue)
            q.waiting = [SizedReq()]
            q.drain()
    ''',
    "appended-later": '''
        def test_it():
            q = Queue.__new__(Queue)
            q.waiting = [FakeReq("a")]
            q.waiting.append(MagicMock())
            q.drain()
    ''',
    "a-mock-element": '''
        def test_it():
            q = Queue.__new__(Queue)
            q.waiting = [FakeReq("a"), MagicMock()]
            q.drain()
    ''',
    "an-unknown-element": '''
        def test_it(make_req):
            q = Queue.__new__(Queue)
            q.waiting = [FakeReq("a"), make_req()]
            q.drain()
    ''',
    "empty": '''
        def test_it():
            q = Queue.__new__(Queue)
            q.waiting = []
            q.drain()
    ''',
    "item-replaced": '''
        def test_it():
            q = Queue.__new__(Queue)
            q.waiting = [FakeReq("a")]
            q.waiting[0] = MagicMock()
            q.drain()
    ''',
}


@pytest.mark.parametrize("shape", sorted(HOLDING))
def test_elements_that_provide_the_name_or_cannot_be_listed_hold(tmp_path, shape):
    report = _judge(tmp_path, HOLDING[shape])
    drift = names(report, "drift")
    assert not any(".[]" in name for name in drift), (
        f"{shape}: every element provides `size`, or the elements are not all known (a mock, "
        f"an unknown value, added or replaced later): no element read is drift; got {drift}")


def test_the_containers_own_methods_are_not_judged_against_the_element_listing(tmp_path):
    report = _judge(tmp_path, '''
        def test_it():
            q = Queue.__new__(Queue)
            q.states = {"a": FakeReq("a")}
            q.lookup("a")
    ''')
    assert not names(report, "drift"), (
        "lookup calls self.states.get(rid) (a method of the dict, not an element name) and "
        "reads `.rid`, which the FakeReq element has: listing the elements must not make "
        f"`states.get` drift; got drift={names(report, 'drift')}")


def test_a_read_through_an_index_is_judged_on_the_elements(tmp_path):
    report = _judge(tmp_path, '''
        def test_it():
            q = Queue.__new__(Queue)
            q.waiting = [SimpleNamespace(size=1)]
            q.head()
    ''')
    assert names(report, "drift") == {"waiting.[].rid"}, (
        "head reads self.waiting[0].rid and the only element is a namespace without `rid`: "
        f"`waiting.[].rid` is drift; got drift={names(report, 'drift')}")


def test_a_container_in_a_namespace_keyword_is_judged(tmp_path):
    report = _judge(tmp_path, '''
        def test_it():
            q = SimpleNamespace(waiting=[FakeReq("a")])
            Queue.drain(q)
    ''', built="SimpleNamespace(waiting=")
    assert names(report, "drift") == {"waiting.[].size"}, (
        "SimpleNamespace(waiting=[FakeReq('a')]) driven through Queue.drain: the element "
        f"lacks `size`, so `waiting.[].size` is drift; got drift={names(report, 'drift')}")


def test_element_names_are_neither_shown_as_set_nor_reverse(tmp_path):
    report = _judge(tmp_path, '''
        def test_it():
            q = Queue.__new__(Queue)
            q.waiting = [SimpleNamespace(rid="a", size=1, unused=2)]
            q.drain()
    ''')
    assert not any(".[]" in name for name in report.sets), (
        "the names the elements provide are a listing for the judge, not names set on the "
        f"stand-in: they must not be shown under `sets`; got {sorted(report.sets)}")
    assert not any(".[]" in name for name in names(report, "reverse")), (
        "an element's name production never reads (`unused`) is not a reverse finding on the "
        f"stand-in; got reverse={names(report, 'reverse')}")


def test_the_fix_line_names_the_container(tmp_path):
    report = _judge(tmp_path, LACKING["list-of-plain"])
    text = "\n".join(render._fixes(report, strict=False))
    assert "every element of the container" in text and "`waiting`" in text, (
        "the fix for `waiting.[].size` says to give `size` to every element of the "
        f"container held in `waiting`; got {text!r}")



@pytest.mark.parametrize(("name", "provided", "expected", "why"), [
    ("queue.[]", {"queue", "queue.append"}, None,
     "a container whose elements nobody listed: its element pseudo-field is not judged (a "
     "real list's own attributes are listed, its elements are not)"),
    ("queue.[].rid", {"queue", "queue.append"}, None,
     "a read through unlisted elements is not judged"),
    ("queue.[].rid", {"queue", "queue.[]", "queue.[]."}, False,
     "the elements are listed and none provides `rid`: missing"),
    ("queue.[].rid", {"queue", "queue.[]", "queue.[].", "queue.[].rid"}, True,
     "the elements are listed with `rid`: provided"),
    ("queue.get", {"queue", "queue.[]", "queue.[].", "queue.[].rid"}, None,
     "listing the elements says nothing of the container's own attributes (`get`)"),
])
def test_is_provided_judges_element_names_only_where_the_elements_are_listed(
        name, provided, expected, why):
    from deskcheck.drift_guard.paths import is_provided

    got = is_provided(name, provided)
    assert got is expected, f"is_provided({name!r}): {why}; expected {expected}, got {got}"


@pytest.mark.parametrize(("call", "verdict", "why"), [
    ('q.cancel("r1")', "drift", "the dict holds `r1`, so .get gives the bare object() and the "
     "read of `.sent` runs: drift"),
    ('q.cancel("r2")', "unexercised", "the dict has no `r2`: .get gives None and the read is "
     "on a branch this test does not enter"),
    ('q.cancel("r1", everything=True)', "unexercised", "the ternary gives None when "
     "`everything` is true: the read is off the path"),
])
def test_a_lookup_in_a_known_dict_decides_the_branch_statically(tmp_path, call, verdict, why):
    report = _judge(tmp_path, f'''
        def make(states):
            q = Queue.__new__(Queue)
            q.states = states
            return q

        def test_it():
            q = make({{"r1": object()}})
            {call}
    ''')
    assert names(report, verdict) == {"states.[].sent"}, (
        f"{call}: {why}; got drift={names(report, 'drift')}, "
        f"unexercised={names(report, 'unexercised')}, unknown={names(report, 'unknown')}")
