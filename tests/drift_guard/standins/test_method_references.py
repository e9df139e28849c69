"""A production method held in a name drives the stand-in it is called with: a local bound
to ``Loop.run`` (``loop = Loop.run; loop(obj)``), a loop over a literal tuple of methods, a
helper's parameter (``self.check(obj, Loop.run)``) and the parameters of a parametrized test
(``pytest.mark.parametrize``, ``parameterized.expand``, a module-level table, ``pytest.param``).
Each method the name may hold is a drive of its own."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.drift_guard.standins.helpers import discover_in, names, standin

LOOP = '''
class Loop:
    def __init__(self):
        raise RuntimeError("needs a real device")

    def run_normal(self):
        return self.queue + self.budget

    def run_overlap(self):
        return self.queue + self.overlap_depth

    def run_quiet(self):
        return self.queue
'''


def _project(tmp_path: Path, test_source: str) -> Path:
    root = tmp_path / "proj"
    (root / "loopcore").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "loopcore" / "__init__.py").write_text("")
    (root / "loopcore" / "loop.py").write_text(LOOP)
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    (root / "tests" / "test_shape.py").write_text(textwrap.dedent(test_source))
    return root


def _judge(tmp_path: Path, body: str):
    """The verdict on the ``Loop.__new__`` stand-in the test file builds."""
    source = ("import pytest\nfrom parameterized import parameterized, param\n"
              "from loopcore.loop import Loop\n\n" + textwrap.dedent(body))
    root = _project(tmp_path, source)
    line = next(i for i, text in enumerate(source.splitlines(), 1)
                if "Loop.__new__(Loop)" in text)
    return standin(discover_in(root), f"tests/test_shape.py:{line}")


SHAPES = {
    "local": '''
        def test_it():
            obj = Loop.__new__(Loop)
            obj.queue = 1
            loop = Loop.run_normal
            loop(obj)
    ''',
    "literal-loop": '''
        def test_it():
            obj = Loop.__new__(Loop)
            obj.queue = 1
            for name, loop in [("normal", Loop.run_normal), ("quiet", Loop.run_quiet)]:
                loop(obj)
    ''',
    "helper-parameter": '''
        class TestLoops:
            def test_it(self):
                self.check(Loop.run_normal)

            def check(self, event_loop):
                obj = Loop.__new__(Loop)
                obj.queue = 1
                event_loop(obj)
    ''',
    "pytest-parametrize": '''
        @pytest.mark.parametrize("loop", [Loop.run_normal, Loop.run_quiet])
        def test_it(loop):
            obj = Loop.__new__(Loop)
            obj.queue = 1
            loop(obj)
    ''',
    "parameterized-expand": '''
        class TestLoops:
            @parameterized.expand([
                ("normal", Loop.run_normal, 1),
                ("quiet", Loop.run_quiet, 2),
            ])
            def test_it(self, name, event_loop, size):
                obj = Loop.__new__(Loop)
                obj.queue = size
                self.run_and_check(obj, event_loop)

            def run_and_check(self, obj, event_loop):
                event_loop(obj)
    ''',
    "argnames-string": '''
        @pytest.mark.parametrize("name, loop", [("a", Loop.run_normal), ("b", Loop.run_quiet)])
        def test_it(name, loop):
            obj = Loop.__new__(Loop)
            obj.queue = 1
            loop(obj)
    ''',
    "module-table": '''
        LOOPS = [pytest.param(Loop.run_quiet, id="quiet"), pytest.param(Loop.run_normal)]

        @pytest.mark.parametrize(("loop",), LOOPS)
        def test_it(loop):
            obj = Loop.__new__(Loop)
            obj.queue = 1
            loop(obj)
    ''',
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_method_held_in_a_name_drives_the_stand_in_it_is_called_with(tmp_path, shape):
    report = _judge(tmp_path, SHAPES[shape])
    drift = names(report, "drift")
    assert "budget" in drift, (
        f"{shape}: the name called with the stand-in holds Loop.run_normal, which reads "
        f"self.budget the stand-in never sets, so `budget` is drift; got drift={drift}")
    assert "overlap_depth" not in drift, (
        f"{shape}: no name holds Loop.run_overlap, so its read of self.overlap_depth is "
        f"not on a driven path; got drift={drift}")


def test_each_method_a_parametrized_name_may_hold_is_driven(tmp_path):
    report = _judge(tmp_path, '''
        @pytest.mark.parametrize("loop", [Loop.run_quiet, Loop.run_overlap, Loop.run_normal])
        def test_it(loop):
            obj = Loop.__new__(Loop)
            obj.queue = 1
            loop(obj)
    ''')
    drift = names(report, "drift")
    assert drift == {"budget", "overlap_depth"}, (
        "the parameter holds three methods in turn; run_overlap reads overlap_depth and "
        f"run_normal reads budget, both unset, so both are drift; got drift={drift}")


@pytest.mark.parametrize("rows", ["Loop.run_normal, print", "print, Loop.run_normal"])
def test_a_parameter_that_also_holds_a_non_method_drives_nothing(tmp_path, rows):
    report = _judge(tmp_path, f'''
        @pytest.mark.parametrize("loop", [{rows}])
        def test_it(loop):
            obj = Loop.__new__(Loop)
            obj.queue = 1
            loop(obj)
    ''')
    assert not names(report, "drift"), (
        "one row hands `print`, which deskcheck cannot judge: the name holds nothing known, "
        f"so no method is driven through it; got drift={names(report, 'drift')}")


def test_a_rebound_local_no_longer_drives_the_method(tmp_path):
    report = _judge(tmp_path, '''
        def other(obj):
            return obj

        def test_it():
            obj = Loop.__new__(Loop)
            obj.queue = 1
            loop = Loop.run_normal
            loop = other
            loop(obj)
    ''')
    assert "budget" not in names(report, "drift"), (
        "`loop` was bound to a test helper after Loop.run_normal: calling it drives "
        f"nothing of Loop; got drift={names(report, 'drift')}")


def test_a_method_reference_passed_through_methodtype_is_driven(tmp_path):
    report = _judge(tmp_path, '''
        import types

        @pytest.mark.parametrize("loop", [Loop.run_normal])
        def test_it(loop):
            obj = Loop.__new__(Loop)
            obj.queue = 1
            types.MethodType(loop, obj)()
    ''')
    assert "budget" in names(report, "drift"), (
        "MethodType(loop, obj) binds the method `loop` holds (Loop.run_normal) to the "
        f"stand-in: its read of self.budget is drift; got drift={names(report, 'drift')}")
