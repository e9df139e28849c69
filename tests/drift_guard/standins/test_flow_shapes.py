"""The shapes issue 26 names, each in a project of its own (production package ``flowcore``,
one test file): what the stand-in lacks is reported as drift when the driven path needs it,
and only then; drives are found through tuple factories, ``obj.m()``, nested ``async def``
run by ``asyncio.run`` and unittest ``setUp``; a driven call that no longer fits the
signature is signature drift; reverse drift is judged per driving group."""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.drift_guard.standins.helpers import discover_in, names, standin

MANAGER = '''
class Manager:
    def __init__(self, backend):
        self.backend = backend
        self.queue = []
        self.limit = 4
        raise RuntimeError("needs a real backend")

    def abort(self, rid=None, abort_all=False):
        if rid is None and not abort_all:
            return False
        self.dispatched += 1
        return True

    def wrap_all(self):
        for wrapper_id in range(2):
            self.wrapper_pool.append(wrapper_id)

    def wrap_none(self):
        for wrapper_id in range(0):
            self.wrapper_pool.append(wrapper_id)

    def drain(self):
        for item in self.queue:
            self.sink.append(item)
        self.queue = []

    async def drain_async(self):
        self.drain()

    def budget(self):
        return self.limit - self.used

    def release(self, req, force=False):
        if req.finished() and not force:
            return
        self.queue.remove(req.rid)
        if req.kv is not None:
            self.freed += req.kv.size

    def admit(self, req):
        if self.limit is not None and self.limit <= 0:
            return
        self.used += req.size

    def fits(self):
        limit = self.limit
        if limit is None or limit >= 8:
            return
        if self.mode == "decode":
            return
        raise ValueError(limit)

    def peek(self):
        if getattr(self, "audit", None) is not None:
            self.audit.append(1)
        return self.queue
'''


def _project(tmp_path: Path, test_source: str) -> Path:
    root = tmp_path / "proj"
    (root / "flowcore").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "flowcore" / "__init__.py").write_text("")
    (root / "flowcore" / "manager.py").write_text(MANAGER)
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    (root / "tests" / "test_shape.py").write_text(textwrap.dedent(test_source))
    return root


def test_a_read_inside_a_loop_over_a_literal_range_is_drift_not_unknown(tmp_path):
    root = _project(tmp_path, '''
        from types import SimpleNamespace
        from flowcore.manager import Manager

        def test_wrap():
            ns = SimpleNamespace(queue=[])
            Manager.wrap_all(ns)
    ''')
    report = standin(discover_in(root), "tests/test_shape.py:6")
    assert names(report, "drift") == {"wrapper_pool"}, (
        f"`for wrapper_id in range(2)` is always entered: wrapper_pool is drift, got "
        f"drift={names(report, 'drift')} unknown={names(report, 'unknown')}")


def test_a_loop_over_an_empty_literal_range_is_never_entered(tmp_path):
    root = _project(tmp_path, '''
        from types import SimpleNamespace
        from flowcore.manager import Manager

        def test_wrap():
            ns = SimpleNamespace(queue=[])
            Manager.wrap_none(ns)
    ''')
    report = standin(discover_in(root), "tests/test_shape.py:6")
    assert names(report, "unexercised") == {"wrapper_pool"} and report.holds, (
        f"range(0) is never entered: unexercised={names(report, 'unexercised')} "
        f"drift={names(report, 'drift')}")


def test_a_call_site_literal_decides_the_callees_early_return(tmp_path):
    root = _project(tmp_path, '''
        from types import SimpleNamespace
        from flowcore.manager import Manager

        def test_abort_one():
            ns = SimpleNamespace(queue=[])
            Manager.abort(ns, rid="r1")

        def test_abort_nothing():
            ns = SimpleNamespace(queue=[])
            Manager.abort(ns)
    ''')
    found = discover_in(root)
    one = standin(found, "tests/test_shape.py:6")
    nothing = standin(found, "tests/test_shape.py:10")
    assert names(one, "drift") == {"dispatched"}, (
        f"abort(rid='r1') passes `if rid is None and not abort_all: return`: dispatched is "
        f"drift, got drift={names(one, 'drift')} unknown={names(one, 'unknown')}")
    assert names(nothing, "unexercised") == {"dispatched"} and nothing.holds, (
        f"abort() returns early: dispatched is unexercised, got "
        f"unexercised={names(nothing, 'unexercised')} drift={names(nothing, 'drift')}")


def test_an_undecided_condition_names_the_unknown_argument_and_its_call_site(tmp_path):
    root = _project(tmp_path, '''
        from types import SimpleNamespace
        from flowcore.manager import Manager

        def test_abort_computed():
            ns = SimpleNamespace(queue=[])
            Manager.abort(ns, rid=make_rid())
    ''')
    report = standin(discover_in(root), "tests/test_shape.py:6")
    unknown = report.records("unknown")
    assert [r.name for r in unknown] == ["dispatched"], f"rid is not a literal: {unknown}"
    why = unknown[0].why
    assert "rid" in why and "make_rid()" in why and "tests/test_shape.py:7" in why, (
        f"the reason names the parameter, the value and the call site: {why!r}")
    assert report.undecided == ["dispatched"] and report.needed == 1, (
        f"judged on 0 of 1 needed names: needed={report.needed} undecided={report.undecided}")


def test_a_factory_returning_a_tuple_is_unpacked_into_driven_stand_ins(tmp_path):
    root = _project(tmp_path, '''
        from flowcore.manager import Manager

        def make():
            stub = Manager.__new__(Manager)
            stub.queue = [1]
            alloc = object()
            return stub, alloc

        def test_drain():
            stub, alloc = make()
            Manager.drain(stub)
    ''')
    report = standin(discover_in(root), "tests/test_shape.py:5")
    assert [d.method for d in report.driven] == ["drain"], (
        f"`stub, alloc = make()` then Manager.drain(stub) is a drive: {report.driven}")
    assert names(report, "drift") == {"sink"}, f"drain reads sink: {names(report, 'drift')}"


def test_obj_method_on_a_new_instance_is_a_drive_and_a_missing_method_is_reported(tmp_path):
    root = _project(tmp_path, '''
        from flowcore.manager import Manager

        def test_drain():
            stub = Manager.__new__(Manager)
            stub.queue = [1]
            stub.drain()
            stub.vanished()
    ''')
    found = discover_in(root)
    report = standin(found, "tests/test_shape.py:5")
    assert [(d.method, d.how) for d in report.driven] == [("drain", "obj.method()")], (
        f"stub.drain() drives Manager.drain: {[(d.method, d.how) for d in report.driven]}")
    missing = [p for p in found.problems if p.kind == "missing-method"]
    assert [p.where for p in missing] == ["tests/test_shape.py:8"] and "vanished" in \
        missing[0].message, f"Manager has no vanished(): {found.problems}"


def test_a_drive_inside_a_nested_async_def_run_by_asyncio_is_found(tmp_path):
    root = _project(tmp_path, '''
        import asyncio
        from flowcore.manager import Manager

        def test_drain_async():
            stub = Manager.__new__(Manager)
            stub.queue = [1]

            async def main():
                await Manager.drain_async(stub)

            asyncio.run(main())
    ''')
    report = standin(discover_in(root), "tests/test_shape.py:6")
    assert [d.method for d in report.driven] == ["drain_async"], (
        f"asyncio.run(main()) runs the nested drive: {report.driven}")
    assert names(report, "drift") == {"sink"}, names(report, "drift")


def test_a_stand_in_built_in_unittest_setup_is_driven_by_the_test_methods(tmp_path):
    root = _project(tmp_path, '''
        import unittest
        from flowcore.manager import Manager

        class TestDrain(unittest.TestCase):
            def setUp(self):
                self.stub = Manager.__new__(Manager)
                self.stub.queue = [1]

            def test_drain(self):
                Manager.drain(self.stub)
    ''')
    report = standin(discover_in(root), "tests/test_shape.py:7")
    assert [d.tests for d in report.driven] == [["tests/test_shape.py::TestDrain::test_drain"]], (
        f"setUp's self.stub is driven by test_drain: {report.driven}")
    assert names(report, "drift") == {"sink"}, names(report, "drift")


def test_a_driven_call_that_no_longer_fits_the_signature_is_signature_drift(tmp_path):
    root = _project(tmp_path, '''
        from types import SimpleNamespace
        from flowcore.manager import Manager

        def test_abort_forced():
            ns = SimpleNamespace(queue=[], dispatched=0)
            Manager.abort(ns, rid="r1", force=True)
    ''')
    report = standin(discover_in(root), "tests/test_shape.py:6")
    problems = [s.problem for s in report.signature]
    assert problems and "`force`" in problems[0], (
        f"Manager.abort takes no keyword force: signature drift expected, got {problems}")
    assert not report.holds, "a call that raises TypeError is drift: the stand-in fails"


def test_reverse_is_judged_per_driving_group_not_on_the_union(tmp_path):
    root = _project(tmp_path, '''
        from flowcore.manager import Manager

        def make():
            stub = Manager.__new__(Manager)
            stub.queue = []
            stub.limit = 3
            stub.used = 1
            stub.sink = []
            return stub

        def test_budget():
            stub = make()
            stub.extra = 1
            Manager.budget(stub)

        def test_drain():
            stub = make()
            Manager.drain(stub)
    ''')
    report = standin(discover_in(root), "tests/test_shape.py:5")
    assert len(report.judgments) == 2, "two driving groups (test_budget sets one name more)"
    reverse = names(report, "reverse")
    assert "limit" not in reverse and "queue" not in reverse, (
        f"limit is read by budget's group, queue by drain's: neither is reverse, got {reverse}")
    assert "extra" in reverse, f"extra is touched by no group: {reverse}"


def test_a_masked_read_of_a_name_production_never_sets_is_a_note_not_drift(tmp_path):
    root = _project(tmp_path, '''
        from types import SimpleNamespace
        from flowcore.manager import Manager

        def test_peek():
            ns = SimpleNamespace(queue=[])
            Manager.peek(ns)
    ''')
    report = standin(discover_in(root), "tests/test_shape.py:6")
    assert "audit" not in names(report, "silent_skips") and report.holds, (
        "Manager.__init__ never sets audit either: the getattr default is as faithful as "
        f"production, got silent_skips={names(report, 'silent_skips')}")
    notes = [n for j in report.judgments for n in j.verdict.notes]
    assert any("audit" in n and "__init__" in n for n in notes), f"said as a note: {notes}"


def test_the_report_fits_80_columns_with_one_line_conditions_and_a_fix_per_category(tmp_path):
    root = _project(tmp_path, '''
        from types import SimpleNamespace
        from flowcore.manager import Manager

        def test_abort_forced():
            ns = SimpleNamespace(queue=[])
            Manager.abort(ns, rid="r1", force=True)

        def test_abort_computed():
            ns = SimpleNamespace(queue=[])
            Manager.abort(ns, rid=make_a_request_id_with_a_long_name(1, 2, 3, 4, 5, 6, 7))
    ''')
    manager = root / "flowcore" / "manager.py"
    manager.write_text(manager.read_text().replace(
        "if rid is None and not abort_all:",
        "if rid is None and not abort_all and not self.queue and not self.limit_reached():"))
    from deskcheck.drift_guard.standins.render import render

    found = discover_in(root)
    text = render(found)
    wide = [line for line in text.splitlines() if len(line) > 80]
    assert not wide, f"every line fits 80 columns: {wide}"
    assert "fix (drift): set `dispatched`" in text and "fix (signature):" in text, (
        f"a fix line in the words of each failing category: {text}")
    unders = [line for line in text.splitlines() if line.strip().startswith("under:")]
    assert any("…" in u for u in unders) and all("(manager.py:" in u for u in unders), (
        f"the long condition is cut to one line that keeps its file:line: {unders}")
    assert text.count(" in tests/test_shape.py") == 2, (
        f"the test file is said once per stand-in's driving group: {text}")


def test_a_namespace_passed_as_an_argument_is_a_stand_in_for_that_parameter(tmp_path):
    root = _project(tmp_path, '''
        from types import SimpleNamespace
        from flowcore.manager import Manager

        def test_release():
            stub = Manager.__new__(Manager)
            stub.queue = ["a"]
            stub.freed = 0
            req = SimpleNamespace(rid="a", finished=lambda: False)
            stub.release(req)
    ''')
    found = discover_in(root)
    report = standin(found, "tests/test_shape.py:9")
    assert [(d.method, d.how) for d in report.driven] == [("Manager.release(req)", "argument")], (
        f"the namespace passed as req stands in for release's parameter: {report.driven}")
    assert names(report, "drift") == {"kv"}, (
        f"release reads req.kv on the driven path; the namespace lacks it: "
        f"drift={names(report, 'drift')} unknown={names(report, 'unknown')}")


def test_literals_a_test_passes_to_its_helper_decide_the_driven_branches(tmp_path):
    root = _project(tmp_path, '''
        from flowcore.manager import Manager

        def _check(limit):
            stub = Manager.__new__(Manager)
            stub.limit = limit
            stub.fits()

        def test_fits():
            _check(limit=16)
            _check(limit=None)
            _check(limit=4)
    ''')
    report = standin(discover_in(root), "tests/test_shape.py:5")
    assert names(report, "drift") == {"mode"}, (
        f"_check(limit=4) passes `limit is None or limit >= 8: return`, so fits() reads mode: "
        f"drift={names(report, 'drift')} unknown={names(report, 'unknown')} "
        f"unexercised={names(report, 'unexercised')}")


def test_an_argument_stand_in_is_judged_with_what_the_receiver_stand_in_holds(tmp_path):
    root = _project(tmp_path, '''
        from types import SimpleNamespace
        from flowcore.manager import Manager

        def test_admit_open():
            stub = Manager.__new__(Manager)
            stub.limit = None
            stub.used = 0
            stub.admit(SimpleNamespace(rid="a"))

        def test_admit_closed():
            stub = Manager.__new__(Manager)
            stub.limit = 0
            stub.used = 0
            stub.admit(SimpleNamespace(rid="b"))
    ''')
    found = discover_in(root)
    open_ = standin(found, "tests/test_shape.py:9")
    closed = standin(found, "tests/test_shape.py:15")
    assert names(open_, "drift") == {"size"}, (
        f"stub.limit is None: admit reads req.size, which the namespace lacks: "
        f"drift={names(open_, 'drift')} unknown={names(open_, 'unknown')}")
    assert names(closed, "unexercised") == {"size"} and closed.holds, (
        f"stub.limit == 0 returns early: size is unexercised, got "
        f"{names(closed, 'unexercised')} drift={names(closed, 'drift')}")
