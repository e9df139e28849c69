"""A name bound by unpacking a tuple takes the element at its own position (docs/uniformity.md
"What the audit follows": tuple positions): ``a, b = self._info()`` follows the ``b`` of each
tuple the helper returns, a field unpacked from a call (``(self.x, self.y) = worker.info()``)
likewise, and a starred or nested target is read where it really sits (from the end after a
star; the whole value where no position can be told)."""

from __future__ import annotations

from deskcheck.uniformity import Verdict, audit

ROOTS = '[tool.deskcheck.uniformity]\nroots = ["step"]\n'

HELPER = """
import time

LIMIT, A, B, C = 8, 1, 2, 3

class S:
    def _info(self):
        return time.monotonic(), LIMIT
"""


def _verdicts(make_pkg, src: str) -> dict[str, tuple[Verdict, str]]:
    """condition -> (verdict, why) of the audit of ``src`` rooted at ``step``."""
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    return {d.condition: (d.verdict, d.why) for d in report.decisions}


def _verdict(make_pkg, src: str, needle: str) -> tuple[Verdict, str]:
    report = audit("pkg.s:S", root=make_pkg({"s.py": src}, ROOTS))
    found = [d for d in report.decisions if needle in d.condition]
    assert found, f"the audit found no decision on `{needle}`: {report.decisions}"
    return found[0].verdict, found[0].why


def test_a_local_unpacked_from_a_calls_tuple_takes_only_its_own_element(make_pkg):
    src = HELPER + """
    def step(self):
        started, limit = self._info()
        if limit > 0:
            dist.barrier(group=self.tp_cpu_group)
"""
    verdict, why = _verdict(make_pkg, src, "limit > 0")
    assert verdict is Verdict.UNIFORM, (
        "`started, limit = self._info()` binds limit to the helper's second element (config); "
        "the clock in its first element must not reach the decision on limit; the audit said "
        f"{verdict.value}: {why}")


def test_the_element_at_the_clocks_position_is_still_rank_local(make_pkg):
    src = HELPER + """
    def step(self):
        started, limit = self._info()
        if started > 0:
            dist.barrier(group=self.tp_cpu_group)
"""
    verdict, why = _verdict(make_pkg, src, "started > 0")
    assert verdict is Verdict.RANK_LOCAL and "monotonic" in why, (
        "`started` is the helper's first element, a clock: the decision on it must be "
        f"RANK-LOCAL naming time.monotonic; the audit said {verdict.value}: {why}")


def test_a_field_unpacked_from_a_calls_tuple_takes_only_its_own_element(make_pkg):
    src = """
import time

LIMIT, A, B, C = 8, 1, 2, 3

class Worker:
    def info(self):
        return (time.monotonic(), 8)

class S:
    def __init__(self):
        self.worker = Worker()
        (self.started, self.limit) = self.worker.info()

    def step(self):
        if self.limit > 0:
            dist.barrier(group=self.tp_cpu_group)
        if self.started > 0:
            dist.barrier(group=self.tp_cpu_group)
"""
    verdicts = _verdicts(make_pkg, src)
    assert verdicts.get("self.limit > 0", (None,))[0] is Verdict.UNIFORM, (
        "`(self.started, self.limit) = self.worker.info()` sets limit from the second element, "
        f"a constant: the decision on it must be UNIFORM; the audit said {verdicts}")
    assert verdicts.get("self.started > 0", (None,))[0] is Verdict.RANK_LOCAL, (
        "self.started is the clock at the first position: the decision on it must stay "
        f"RANK-LOCAL; the audit said {verdicts}")


def test_a_helper_returning_a_tuple_through_a_local_keeps_the_positions(make_pkg):
    src = """
import time

LIMIT, A, B, C = 8, 1, 2, 3

class S:
    def _info(self):
        out = (LIMIT, time.monotonic())
        return out

    def step(self):
        limit, started = self._info()
        if limit > 0:
            dist.barrier(group=self.tp_cpu_group)
"""
    verdict, why = _verdict(make_pkg, src, "limit > 0")
    assert verdict is Verdict.UNIFORM, (
        "the helper returns a local holding (config, clock): `limit` is its first element and "
        f"must be UNIFORM; the audit said {verdict.value}: {why}")


def test_a_name_after_a_star_is_read_from_the_end(make_pkg):
    src = """
import time

LIMIT, A, B, C = 8, 1, 2, 3

class S:
    def step(self):
        first, *middle, last = (A, B, time.monotonic(), C)
        if last > 0:
            dist.barrier(group=self.tp_cpu_group)
        if middle[1] > 0:
            dist.barrier(group=self.tp_cpu_group)
"""
    verdicts = _verdicts(make_pkg, src)
    assert verdicts.get("last > 0", (None,))[0] is Verdict.UNIFORM, (
        "`first, *middle, last = (a, b, clock, c)` binds last to c (config), the last element, "
        f"not to the clock at index 2: the decision must be UNIFORM; the audit said {verdicts}")
    assert verdicts.get("middle[1] > 0", (None,))[0] is Verdict.RANK_LOCAL, (
        "the starred `middle` holds (b, clock): a decision on it must be RANK-LOCAL, it is not "
        f"the single element at its index; the audit said {verdicts}")


def test_a_name_after_a_star_is_not_read_from_the_start(make_pkg):
    src = """
import time

class S:
    def step(self):
        first, *middle, last = (A, time.monotonic(), B, C)
        if last > 0:
            dist.barrier(group=self.tp_cpu_group)
"""
    verdict, why = _verdict(make_pkg, src, "last > 0")
    assert verdict is Verdict.UNIFORM, (
        "`first, *middle, last = (A, clock, B, C)` binds last to C, element [-1]; counting "
        "its place from the start reads the clock at index 1: the decision must be UNIFORM; "
        f"the audit said {verdict.value}: {why}")


def test_a_nested_target_after_a_star_takes_its_element_from_the_end(make_pkg):
    src = """
import time

class S:
    def step(self):
        *rest, (b, c) = (A, B, (time.monotonic(), C))
        if b > 0:
            dist.barrier(group=self.tp_cpu_group)
"""
    verdict, why = _verdict(make_pkg, src, "b > 0")
    assert verdict is Verdict.RANK_LOCAL, (
        "`*rest, (b, c) = (A, B, (clock, C))` binds b inside the last element, (clock, C): "
        "reading the element at its index from the start (B) hides the clock: the decision "
        f"must be RANK-LOCAL; the audit said {verdict.value}: {why}")


def test_a_nested_target_takes_the_whole_element_at_its_outer_position(make_pkg):
    src = """
import time

class S:
    def step(self):
        started, (b, c) = time.monotonic(), (A, C)
        if b > 0:
            dist.barrier(group=self.tp_cpu_group)
"""
    verdict, why = _verdict(make_pkg, src, "b > 0")
    assert verdict is Verdict.UNIFORM, (
        "`started, (b, c) = clock, (A, C)` binds b inside element 1, (A, C): the clock at "
        f"element 0 must not reach it, the decision is UNIFORM; the audit said {verdict.value}: "
        f"{why}")


def test_a_nested_target_is_not_read_at_its_inner_index(make_pkg):
    src = """
import time

LIMIT, A, B, C = 8, 1, 2, 3

class S:
    def step(self):
        a, (b, c) = A, (time.monotonic(), C)
        if b > 0:
            dist.barrier(group=self.tp_cpu_group)
"""
    verdict, why = _verdict(make_pkg, src, "b > 0")
    assert verdict is Verdict.RANK_LOCAL, (
        "`a, (b, c) = cfg, (clock, cfg)` binds b to the clock; reading b at its inner index 0 "
        "of the outer tuple (A) hides it: the decision must be RANK-LOCAL; the audit "
        f"said {verdict.value}: {why}")


def test_a_field_in_a_nested_target_is_not_read_at_its_inner_index(make_pkg):
    src = """
import time

LIMIT, A, B, C = 8, 1, 2, 3

class S:
    def __init__(self):
        self.a, (self.b, self.c) = 8, (time.monotonic(), 4)

    def step(self):
        if self.b > 0:
            dist.barrier(group=self.tp_cpu_group)
"""
    verdict, why = _verdict(make_pkg, src, "self.b > 0")
    assert verdict is Verdict.RANK_LOCAL, (
        "`self.a, (self.b, self.c) = 8, (clock, 4)` sets self.b to the clock; reading it at "
        "its inner index 0 of the outer tuple (8) hides it: the decision must be RANK-LOCAL; "
        f"the audit said {verdict.value}: {why}")


def test_a_name_unpacked_from_a_filled_list_takes_whole_entries(make_pkg):
    src = """
import time

class S:
    def step(self):
        pairs = []
        pairs.append((LIMIT, time.monotonic()))
        limit, started = pairs
        if limit[1] > 0:
            dist.barrier(group=self.tp_cpu_group)
"""
    verdict, why = _verdict(make_pkg, src, "limit[1] > 0")
    assert verdict is Verdict.RANK_LOCAL, (
        "`limit, started = pairs` binds limit to the first entry appended, the whole tuple "
        "(LIMIT, clock), not to element 0 of each appended tuple: the decision on limit[1] must "
        f"be RANK-LOCAL; the audit said {verdict.value}: {why}")
