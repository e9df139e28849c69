"""A stand-in a unittest ``setUpClass`` builds (``cls.stub = ...``) is found, and judged on
the methods the class's tests drive on ``self.stub``."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.drift_guard.standins.helpers import discover_in, names

QUEUE = '''
class Queue:
    def __init__(self):
        raise RuntimeError("needs a real backend")

    def drain(self):
        for item in self.items:
            self.sink.append(item)
'''


def test_a_stand_in_built_in_setupclass_is_driven_by_the_classes_tests(tmp_path: Path):
    root = tmp_path / "proj"
    (root / "queuecore").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "queuecore" / "__init__.py").write_text("")
    (root / "queuecore" / "queue.py").write_text(QUEUE)
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    (root / "tests" / "test_queue.py").write_text(textwrap.dedent('''
        import unittest
        from queuecore.queue import Queue

        class TestDrain(unittest.TestCase):
            @classmethod
            def setUpClass(cls):
                cls.stub = Queue.__new__(Queue)
                cls.stub.items = [1]

            def test_drain(self):
                Queue.drain(self.stub)
    '''))
    found = discover_in(root)
    built = {r.built_at: r for r in found.reports}
    assert "tests/test_queue.py:8" in built, (
        "the Queue.__new__ stand-in built in setUpClass (cls.stub) was not found: discovery "
        f"reported stand-ins at {sorted(built)}")
    report = built["tests/test_queue.py:8"]
    assert [d.tests for d in report.driven] == [["tests/test_queue.py::TestDrain::test_drain"]], (
        f"setUpClass's cls.stub is driven by test_drain through self.stub: {report.driven}")
    assert names(report, "drift") == {"sink"}, (
        f"drain reads self.sink, which the setUpClass stand-in lacks: {names(report, 'drift')}")
