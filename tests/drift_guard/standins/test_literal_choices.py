"""A value the test passes from a literal loop or a parametrize table decides the driven
method's branches once per value (docs/drift.md, *Call-site constants*): ``for fast in (True,
False): Queue.step(q, fast)`` walks ``step`` with ``fast=True`` and with ``fast=False``, so a
read only the ``False`` side makes is drift, and one only a value the test never passes
reaches is not. Rows stay together: ``for mode, fast in [("a", True), ("b", False)]`` never
walks ``("a", False)``."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.drift_guard.standins.helpers import judge_one, names

QUEUE = '''
class Queue:
    def __init__(self):
        raise RuntimeError("needs a real device")

    def step(self, fast):
        if fast:
            return self.fast_path
        return self.slow_path

    def handle(self, req, fast):
        if fast:
            return req.fast_path
        return req.slow_path

    def step_flag(self):
        if self.flag is False:
            return self.slow_path
        return self.fast_path

    def pick(self, mode, fast):
        if mode == "a" and not fast:
            return self.never_together
        return self.fast_path
'''


def _judge(tmp_path: Path, body: str):
    source = ("import pytest\nfrom types import SimpleNamespace\n"
              "from qcore.queue import Queue\n\n" + textwrap.dedent(body))
    return judge_one(tmp_path, QUEUE, source, "SimpleNamespace(fast_path=1")


REACHES_SLOW = {
    "a literal loop": '''
        def test_it():
            q = SimpleNamespace(fast_path=1)
            for fast in (True, False):
                Queue.step(q, fast)
    ''',
    "a loop over a module-level list": '''
        FLAGS = [True, False]

        def test_it():
            q = SimpleNamespace(fast_path=1)
            for fast in FLAGS:
                Queue.step(q, fast)
    ''',
    "pytest.mark.parametrize": '''
        @pytest.mark.parametrize("fast", [True, False])
        def test_it(fast):
            q = SimpleNamespace(fast_path=1)
            Queue.step(q, fast)
    ''',
    "parametrize rows as pytest.param": '''
        @pytest.mark.parametrize("fast", [pytest.param(True, id="hot"), pytest.param(False)])
        def test_it(fast):
            q = SimpleNamespace(fast_path=1)
            Queue.step(q, fast=fast)
    ''',
    "parameterized.expand rows of a TestCase method": '''
        import unittest
        from parameterized import parameterized

        class TestStep(unittest.TestCase):
            @parameterized.expand([("hot", True), ("cold", False)])
            def test_it(self, name, fast):
                q = SimpleNamespace(fast_path=1)
                Queue.step(q, fast)
    ''',
    "a loop variable handed to a helper": '''
        def check(q, fast):
            Queue.step(q, fast)

        def test_it():
            q = SimpleNamespace(fast_path=1)
            for fast in (True, False):
                check(q, fast)
    ''',
}


@pytest.mark.parametrize("shape", sorted(REACHES_SLOW))
def test_a_value_from_a_literal_loop_or_table_decides_each_row(tmp_path, shape):
    report = _judge(tmp_path, REACHES_SLOW[shape])
    assert "slow_path" in names(report, "drift"), (
        f"{shape}: the test passes fast=False in one row, which returns self.slow_path, and "
        f"the stand-in lacks it: drift; got drift={names(report, 'drift')}, "
        f"unknown={names(report, 'unknown')}")


NEVER_SLOW = {
    "a literal loop of one value": '''
        def test_it():
            q = SimpleNamespace(fast_path=1)
            for fast in (True,):
                Queue.step(q, fast)
    ''',
    "a parametrize table whose rows are all true": '''
        @pytest.mark.parametrize("fast", [True, 1])
        def test_it(fast):
            q = SimpleNamespace(fast_path=1)
            Queue.step(q, fast)
    ''',
}


@pytest.mark.parametrize("shape", sorted(NEVER_SLOW))
def test_a_read_no_row_reaches_is_not_drift(tmp_path, shape):
    report = _judge(tmp_path, NEVER_SLOW[shape])
    assert "slow_path" not in names(report, "drift") | names(report, "unknown"), (
        f"{shape}: every value the test passes is true, so `return self.slow_path` is never "
        f"reached: not drift and not undecided; got drift={names(report, 'drift')}, "
        f"unknown={names(report, 'unknown')}")


@pytest.mark.parametrize("shape,body", [
    ("loop rows", '''
        def test_it():
            q = SimpleNamespace(fast_path=1)
            for mode, fast in [("a", True), ("b", False)]:
                Queue.pick(q, mode, fast)
    '''),
    ("parametrize rows", '''
        @pytest.mark.parametrize("mode, fast", [("a", True), ("b", False)])
        def test_it(mode, fast):
            q = SimpleNamespace(fast_path=1)
            Queue.pick(q, mode, fast)
    '''),
])
def test_the_values_of_one_row_stay_together(tmp_path, shape, body):
    report = _judge(tmp_path, body)
    seen = names(report, "drift") | names(report, "unknown")
    assert "never_together" not in seen, (
        f"{shape}: no row passes mode='a' with fast=False, so `self.never_together` is never "
        f"read; mixing values across rows would call it drift; got {seen}")


def test_stacked_parametrize_decorators_combine_every_row(tmp_path):
    report = _judge(tmp_path, '''
        @pytest.mark.parametrize("mode", ["a", "b"])
        @pytest.mark.parametrize("fast", [True, False])
        def test_it(mode, fast):
            q = SimpleNamespace(fast_path=1)
            Queue.pick(q, mode, fast)
    ''')
    assert "never_together" in names(report, "drift"), (
        "two stacked parametrize decorators run every combination, mode='a' with fast=False "
        f"among them: `never_together` is drift; got drift={names(report, 'drift')}, "
        f"unknown={names(report, 'unknown')}")


def test_a_value_not_literal_in_some_row_stays_undecided(tmp_path):
    report = _judge(tmp_path, '''
        def make():
            return True

        @pytest.mark.parametrize("fast", [True, make()])
        def test_it(fast):
            q = SimpleNamespace(fast_path=1)
            Queue.step(q, fast)
    ''')
    assert "slow_path" in names(report, "unknown"), (
        "one row's value is computed (`make()`): the read behind `if fast` must stay undecided, "
        f"not be called drift or dead; got drift={names(report, 'drift')}, "
        f"unknown={names(report, 'unknown')}")


def test_more_rows_than_the_cap_bind_nothing_known(tmp_path):
    report = _judge(tmp_path, '''
        @pytest.mark.parametrize("mode", ["a", "b", "c", "d", "e", "f", "g", "h", "i"])
        @pytest.mark.parametrize("fast", [True, False])
        def test_it(mode, fast):
            q = SimpleNamespace(fast_path=1)
            Queue.pick(q, mode, fast)
    ''')
    assert "never_together" in names(report, "unknown"), (
        "the call passes values from two stacked tables that make 18 rows, more than the 8 "
        "deskcheck walks: `mode` and `fast` are then not known and the read behind `if mode "
        f"== 'a' and not fast` stays undecided; got drift={names(report, 'drift')}, "
        f"unknown={names(report, 'unknown')}")


def test_a_loop_variable_used_after_its_loop_is_not_known(tmp_path):
    report = _judge(tmp_path, '''
        def test_it():
            q = SimpleNamespace(fast_path=1)
            for fast in (True, False):
                pass
            Queue.step(q, fast)
    ''')
    assert "slow_path" in names(report, "unknown"), (
        "after the loop `fast` holds its last row only; deskcheck does not follow which, so "
        "the read behind `if fast` must stay undecided there, not be judged once per row; "
        f"got drift={names(report, 'drift')}, unknown={names(report, 'unknown')}")


def test_a_field_set_from_a_loop_variable_is_not_one_constant(tmp_path):
    report = _judge(tmp_path, '''
        def test_it():
            for fast in (True, False):
                q = SimpleNamespace(fast_path=1, flag=fast)
                Queue.step_flag(q)
    ''')
    assert "slow_path" in names(report, "unknown"), (
        "`flag=fast` holds a different value in each row: it is not one constant of the "
        "stand-in, so `if self.flag is False` stays undecided (the rows taken as the "
        f"constant are not `False`, which would call slow_path dead); got drift={names(report, 'drift')}, "
        f"unknown={names(report, 'unknown')}, unexercised={names(report, 'unexercised')}")


def test_exactly_the_cap_of_rows_is_walked(tmp_path):
    report = _judge(tmp_path, '''
        @pytest.mark.parametrize("mode", ["a", "b", "c", "d"])
        @pytest.mark.parametrize("fast", [True, False])
        def test_it(mode, fast):
            q = SimpleNamespace(fast_path=1)
            Queue.pick(q, mode, fast)
    ''')
    assert "never_together" in names(report, "drift"), (
        "two stacked tables of 4 and 2 rows make 8 walks, exactly the cap, so each row is "
        "walked and mode='a' with fast=False reads `never_together`: drift (a cap that "
        f"counts 8 as too many is off by one); got drift={names(report, 'drift')}, "
        f"unknown={names(report, 'unknown')}")


def test_a_stand_in_passed_as_an_argument_is_judged_once_per_row(tmp_path):
    report = _judge(tmp_path, '''
        def test_it():
            q = SimpleNamespace()
            for fast in (True, False):
                req = SimpleNamespace(fast_path=1)
                Queue.handle(q, req, fast)
    ''')
    assert "slow_path" in names(report, "drift"), (
        "`req` is passed to Queue.handle with fast=True and with fast=False; the False row "
        "reads `req.slow_path`, which the stand-in lacks: drift (the row values taken as one "
        f"truthy object would call it dead); got drift={names(report, 'drift')}, "
        f"unknown={names(report, 'unknown')}, unexercised={names(report, 'unexercised')}")
