"""``Cls.method(None, ...)``: a test that passes ``None`` as ``self`` ("the hook never touches
self") builds a stand-in that provides nothing. What the driven path reads from ``self`` is
drift (``'NoneType' object has no attribute``), and a method the class no longer has is a
missing-method problem, as for every other ``Cls.method(obj)`` drive. Found on SGLang's
``test_ds_abort_path.py`` (``SchedulerBatchResultProcessor._maybe_abort_on_ds_error(None,
...)``, a method 0.5.23 does not have): nothing was discovered, exit 0."""

from __future__ import annotations

from tests.drift_guard.standins.helpers import discover_in, names, standin
from tests.drift_guard.standins.test_flow_shapes import _project


def test_none_as_self_is_a_stand_in_whose_self_reads_are_drift(tmp_path):
    root = _project(tmp_path, '''
        from flowcore.manager import Manager

        def test_budget():
            assert Manager.budget(None) == 0
    ''')
    report = standin(discover_in(root), "tests/test_shape.py:5")
    assert report.construction.kind == "none", (
        f"None passed as self is its own kind of stand-in, got {report.construction.kind!r}")
    assert names(report, "drift") == {"limit", "used"} and not report.holds, (
        f"budget() reads self.limit and self.used, which None lacks: "
        f"drift={names(report, 'drift')} unknown={names(report, 'unknown')}")


def test_none_as_self_in_a_helper_is_found_and_judged(tmp_path):
    root = _project(tmp_path, '''
        from flowcore.manager import Manager

        def _run(ns):
            return Manager.release(None, ns, force=True)

        def test_release():
            _run(None)
    ''')
    found = discover_in(root)
    report = standin(found, "tests/test_shape.py:5")
    assert report.driven and report.driven[0].method == "release", (
        f"the helper's Manager.release(None, ...) is a drive: {report.driven}")
    assert "queue" in names(report, "drift"), (
        f"release(force=True) reads self.queue, which None lacks: "
        f"drift={names(report, 'drift')} unknown={names(report, 'unknown')}")


def test_none_as_self_on_a_method_the_class_lacks_is_a_missing_method(tmp_path):
    root = _project(tmp_path, '''
        from flowcore.manager import Manager

        def test_gone():
            assert Manager.vanished(None, 1)
    ''')
    found = discover_in(root)
    missing = [p for p in found.problems if p.kind == "missing-method"]
    assert [p.where for p in missing] == ["tests/test_shape.py:5"] and "vanished" in \
        missing[0].message, f"Manager has no vanished(): problems={found.problems}"
