"""`deskcheck standins --run`: the driving tests run once under coverage; verdicts follow the
lines they executed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deskcheck.cli import main


def test_run_finds_the_same_standins_and_judges_on_executed_lines(proj, monkeypatch, capsys):
    engine = proj / "shopcore" / "engine.py"
    engine.write_text(engine.read_text().replace(
        "        self._log(f\"abort {rid}\")\n",
        "        self._log(f\"abort {rid}\")\n        self.abort_count += 1\n"))
    monkeypatch.chdir(proj)
    assert main(["standins", "--json"]) == 1, (
        "`deskcheck standins --json` must exit 1 on drift and bad inputs"
    )
    static = json.loads(capsys.readouterr().out)
    code = main(["standins", "--json", "--run"])
    ran = json.loads(capsys.readouterr().out)
    assert code == 1, "drift and the bad inputs make --run fall short too"
    assert ran["mode"] == "executed" and ran["run"]["tests"] == len(
        {t for s in static["standins"] for d in s["driven"] for t in d["tests"]}), (
        f"--run runs each driving test once: {ran['run']}")
    assert [s["built_at"] for s in ran["standins"]] == \
        [s["built_at"] for s in static["standins"]], "the same stand-ins, statically and with --run"
    by_site = {s["built_at"]: s for s in ran["standins"]}
    new = by_site["tests/test_new_form.py:8"]
    assert [r["name"] for r in new["drift"]] == ["abort_count"], (
        f"abort_count is read on a line test_abort_on_a_new_instance executed: {new['drift']}")
    assert [r["name"] for r in new["unexercised"]] == ["slow_queue"], (
        f"the SLOW branch never ran: {new['unexercised']}")
    assert all(v["mode"] == "executed" for v in new["verdicts"]), (
        "with --run every verdict must be judged on executed lines (mode executed); verdicts: "
        f"{new['verdicts']}"
    )
    factory = by_site["tests/test_factory_form.py:11"]
    assert "queue" in {r["name"] for r in factory["unexercised"]}, (
        "abort returns early when pending is None: queue is read only on lines that never ran")
    assert ran["run"]["not_run"] == ["tests/test_bad_inputs.py::test_still_judged"], (
        f"a driving test whose file cannot be imported is named as not run: {ran['run']}")
    assert not list(proj.rglob(".coverage*")), "the coverage pass leaves no data files behind"


def test_run_on_the_reference_targets_adhoc_tests(monkeypatch, capsys):
    root = Path(__file__).resolve().parents[3]
    monkeypatch.chdir(root)
    target = "examples/tp_scheduler/tests/test_adhoc_standins.py"
    assert main(["standins", "--json", target]) == 0, (
        f"`deskcheck standins --json {target}` must exit 0: the reference target's ad-hoc "
        "stand-ins hold"
    )
    static = json.loads(capsys.readouterr().out)
    code = main(["standins", "--json", "--run", target])
    ran = json.loads(capsys.readouterr().out)
    assert code == 0, f"the reference target's ad-hoc stand-ins hold with --run: {ran['standins']}"
    assert [s["built_at"] for s in ran["standins"]] == [s["built_at"] for s in static["standins"]], (
        "--run must find the same stand-ins as the static pass, in the same order, yet they differ"
    )
    assert len(ran["standins"]) == 5, f"all five found with --run: {[s['built_at'] for s in ran['standins']]}"
    assert ran["run"]["not_run"] == [] and ran["run"]["failed"] == [], ran["run"]
    modes = {v["mode"] for s in ran["standins"] for v in s["verdicts"]}
    assert modes == {"executed"}, f"every verdict is judged on executed lines: {modes}"


MINI = '''class Manager:
    def __init__(self, sender, ipc_name=None):
        self.states = {}
        self.sender = sender
        self.ipc_name = ipc_name

    def _dispatch(self, obj):
        if self.ipc_name is not None:
            obj = (self.ipc_name, obj)
        self.sender.send(obj)

    def abort(self, rid="", abort_all=False):
        if not abort_all and not rid:
            return
        state = None if abort_all else self.states.get(rid)
        if state is not None:
            if state.sent:
                return
            state.sent = True
        self._dispatch(rid)
'''

MINI_TESTS = '''from unittest.mock import MagicMock

import pytest

from mini.manager import Manager


def _make(states, enabled):
    m = Manager.__new__(Manager)
    m.states = states
    m.enabled = enabled
    m.sender = MagicMock()
    return m


def test_inflight():  # raises at `state.sent` (a bare object()) before ipc_name is read
    m = _make({"r1": object()}, True)
    m.abort(rid="r1")


def test_expects_the_raise():  # passes: the read is off its path
    m = _make({"r1": object()}, None)
    with pytest.raises(AttributeError):
        m.abort(rid="r1")


def test_empty_rid_ignored():  # the early return: the read is behind a branch not entered
    m = _make({}, 0)
    m.abort(rid="")


def test_empty_rid_then_fails():  # fails after the early return kept the read off its path
    m = _make({}, "off")
    m.abort(rid="")
    assert m.sender.send.called


def test_abort_all():  # reaches the read
    m = _make({}, False)
    m.abort(abort_all=True)
'''


def _mini(tmp_path: Path, tests: str) -> Path:
    (tmp_path / "src" / "mini").mkdir(parents=True)
    (tmp_path / "src" / "mini" / "__init__.py").write_text("")
    (tmp_path / "src" / "mini" / "manager.py").write_text(MINI)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_mini.py").write_text(tests)
    (tmp_path / "pytest.ini").write_text("[pytest]\npythonpath = src\n")
    return tmp_path


def _groups(ran: dict) -> dict[str, dict[str, list[str]]]:
    return {v["tests"][0].rpartition("::")[2]: {c: [r["name"] for r in v[c]]
                                                for c in ("drift", "unexercised")}
            for s in ran["standins"] for v in s["verdicts"]}


def test_run_a_read_cut_off_by_a_failing_test_is_drift_not_unexercised(tmp_path, monkeypatch,
                                                                        capsys):
    monkeypatch.chdir(_mini(tmp_path, MINI_TESTS))
    code = main(["standins", "--json", "--run", "--root", "src", "tests/test_mini.py"])
    ran = json.loads(capsys.readouterr().out)
    assert code == 1, (f"a stand-in lacking ipc_name, which test_abort_all really reads, "
                       f"must fail the run (exit 1); got {code}: {ran['standins']}")
    groups = _groups(ran)
    assert groups["test_inflight"] == {"drift": ["ipc_name", "states.[].sent"],
                                       "unexercised": []}, (
        f"test_inflight failed (AttributeError on `state.sent`, the bare object() in "
        f"self.states lacks it: drift on the element) before the read, and no branch keeps "
        f"ipc_name off its path: drift, not unexercised (a read cut off by a failing test "
        f"was called unexercised); groups: {groups}")
    assert groups["test_abort_all"]["drift"] == ["ipc_name"], (
        f"test_abort_all runs the read of the missing ipc_name: drift; groups: {groups}")
    assert groups["test_expects_the_raise"] == {"drift": ["states.[].sent"],
                                                "unexercised": ["ipc_name"]}, (
        f"a passing test that leaves the method by an expected raise (the element read "
        f"`state.sent` ran and raised: drift on the element) never needs ipc_name: "
        f"unexercised, not drift; groups: {groups}")
    assert groups["test_empty_rid_ignored"] == {"drift": [], "unexercised": ["ipc_name"]}, (
        f"the early return (`if not abort_all and not rid: return`) keeps the read off this "
        f"test's path: unexercised; groups: {groups}")
    assert groups["test_empty_rid_then_fails"] == {"drift": [], "unexercised": ["ipc_name"]}, (
        f"test_empty_rid_then_fails fails, but after the early return that keeps the read off "
        f"its path: a failing test makes a read drift only where no branch can keep it off; "
        f"groups: {groups}")
    stand_in = ran["standins"][0]
    assert [r["name"] for r in stand_in["drift"]] == ["ipc_name", "states.[].sent"], (
        f"the stand-in lists ipc_name (and the element read) once as drift; got "
        f"{stand_in['drift']}")
    assert stand_in["drift"][0]["detail"] == "", (
        f"of the stand-in's drift records for one read, the one whose line ran is shown, not "
        f"the one cut off by a failing test; got {stand_in['drift'][0]}")
    assert stand_in["unexercised"] == [], (
        f"a read drift in one group is not listed again as unexercised: {stand_in['unexercised']}")
    by_test = {v["tests"][0].rpartition("::")[2]: v for v in stand_in["verdicts"]}
    assert by_test["test_expects_the_raise"]["unexercised"][0]["condition"].startswith(
        "no branch"), (
        f"every branch on the way went the read's way: the record must not name one as "
        f"keeping it off; got {by_test['test_expects_the_raise']['unexercised'][0]}")
    assert by_test["test_empty_rid_ignored"]["unexercised"][0]["condition"].startswith(
        "past `if not abort_all and (not rid): return`"), (
        f"the record names the early return that kept the read off the path; got "
        f"{by_test['test_empty_rid_ignored']['unexercised'][0]}")


def test_run_measures_the_helper_modules_of_a_namespace_portion(tmp_path, monkeypatch, capsys):
    """``nspkg/srt/...`` has no ``__init__.py`` (SGLang's ``sglang/srt``): the decorator wrapper
    in a sibling folder runs on the driven path and must be measured, or its reads look
    unexercised and a drifted stand-in holds."""
    src = tmp_path / "src" / "nspkg"
    (src / "srt" / "core").mkdir(parents=True)
    (src / "srt" / "obs").mkdir()
    (src / "__init__.py").write_text("")
    (src / "srt" / "obs" / "metrics.py").write_text(
        "import functools\n\n\ndef soft_timed(fn):\n    @functools.wraps(fn)\n"
        "    def wrapper(self, *args, **kwargs):\n"
        "        recorder = getattr(self, 'stage_metrics', None)\n"
        "        out = fn(self, *args, **kwargs)\n"
        "        if recorder is not None:\n            recorder.append(fn.__name__)\n"
        "        return out\n    return wrapper\n")
    (src / "srt" / "core" / "engine.py").write_text(
        "from nspkg.srt.obs.metrics import soft_timed\n\n\nclass Engine:\n"
        "    def __init__(self):\n        self.queue = []\n        self.stage_metrics = []\n\n"
        "    @soft_timed\n    def peek(self):\n        return self.queue[0]\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_engine.py").write_text(
        "from nspkg.srt.core.engine import Engine\n\n\ndef test_peek():\n"
        "    e = Engine.__new__(Engine)\n    e.queue = [7]\n    assert e.peek() == 7\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\npythonpath = src\n")
    monkeypatch.chdir(tmp_path)
    code = main(["standins", "--json", "--run", "--root", "src", "tests/test_engine.py"])
    ran = json.loads(capsys.readouterr().out)
    assert ran["run"]["failed"] == [], f"test_peek passes on the stand-in: {ran['run']}"
    stand_in = ran["standins"][0]
    assert [r["name"] for r in stand_in["silent_skips"]] == ["stage_metrics"], (
        "the wrapper's getattr default ran (a silent skip), in a file of a namespace portion: "
        f"{ {c: stand_in[c] for c in ('silent_skips', 'unexercised')} }")
    assert code == 1, f"a silent skip fails the run (exit 1); got {code}"


def _package(tmp_path: Path, folders: tuple[str, ...], files: tuple[str, ...]) -> Path:
    """A regular package ``pkg`` whose sub-folders have no ``__init__.py`` (namespace
    portions, as SGLang's ``sglang/srt``), holding empty ``files``."""
    top = tmp_path / "pkg"
    for folder in folders:
        (top / folder).mkdir(parents=True)
    (top / "__init__.py").write_text("")
    for name in files:
        (top / name).write_text("")
    return top


def test_measured_files_finds_the_top_package_through_namespace_portions(tmp_path):
    from deskcheck.drift_guard.standins.run import measured_files

    top = _package(tmp_path, ("a/b", "c"), ("a/b/model.py", "c/helper.py", "a/sibling.py"))
    found = measured_files([str(top / "a" / "b" / "model.py")])
    assert found[0] == (top / "a" / "b" / "model.py").resolve(), (
        f"the model file is measured first (a cap drops the farthest files); got {found}")
    assert set(found) == {p.resolve() for p in top.rglob("*.py")}, (
        f"pkg/a and pkg/c have no __init__.py but lie inside the package pkg (namespace "
        f"portions): every file of pkg is measured; got {found}")


STOPPED = '''def boom(v):
    if v == 1:
        raise RuntimeError("boom")


class Sched:
    def run(self, flag):
        boom(self.a)
        x = self.b
        if flag:
            return self.c
        return x

    def other(self):
        return 1
'''

STOPPED_TESTS = '''from mini.manager import Sched


def make():
    obj = Sched.__new__(Sched)
    obj.a = 1
    return obj


def test_fail():  # fails in boom() before b or c is read
    obj = make()
    obj.run(len([]) > 5)


def test_other():  # passes: the same stand-in, so one driving group with test_fail
    obj = make()
    obj.other()
'''


def test_run_a_failed_test_cuts_off_only_reads_no_undecided_branch_guards(
        tmp_path, monkeypatch, capsys):
    root = _mini(tmp_path, STOPPED_TESTS)
    (root / "src" / "mini" / "manager.py").write_text(STOPPED)
    monkeypatch.chdir(root)
    code = main(["standins", "--json", "--run", "--root", "src", "tests/test_mini.py"])
    ran = json.loads(capsys.readouterr().out)
    stand_in = ran["standins"][0]
    found = {c: sorted(r["name"] for r in stand_in[c]) for c in ("drift", "unexercised")}
    assert "c" in found["unexercised"] and "c" not in found["drift"], (
        f"`return self.c` sits under `if flag`, which the test's `len([]) > 5` leaves "
        f"undecided: a branch that may keep it off, so c stays unexercised, not drift (an "
        f"undecided condition was counted as going the read's way); got {found}")
    assert found["drift"] == ["b"], (
        f"one test of the group (test_fail) failed before `x = self.b`, which no branch keeps "
        f"off the path: b is drift, even though the group's other test passed (a group counts "
        f"as stopped when any of its tests failed, not all); got {found}")
    assert code == 1, f"b is drift: the run fails (exit 1); got {code}"


def test_measured_files_keeps_the_nearest_files_under_the_cap(tmp_path, monkeypatch):
    from deskcheck.drift_guard.standins import run

    top = _package(tmp_path, ("aaa", "srt"), ("aaa/far.py", "srt/core.py", "srt/near.py"))
    monkeypatch.setattr(run, "MAX_FILES", 2)
    found = run.measured_files([str(top / "srt" / "core.py")])
    assert found == [(top / "srt" / "core.py").resolve(), (top / "srt" / "near.py").resolve()], (
        f"under a cap of 2 files the model and its nearest sibling are measured, the farthest "
        f"dropped (the cap was applied before ordering by distance); got {found}")


LOOPS = '''class Loop:
    def __init__(self):
        raise RuntimeError("needs a real device")

    def run_normal(self):
        return self.queue + self.budget

    def run_quiet(self):
        return self.queue

    def run_overlap(self):
        return self.queue + self.overlap_depth
'''

# The shape `parameterized.expand` gives a unittest class (a package of the same name in the
# fixture project, as the real one behaves): one generated method per row, named
# `<func>_<row>_<name>`, with `place_as` pointing at the decorated function, which pytest no
# longer collects (`__test__ = False`).
PARAMETERIZED = """import sys


class parameterized:
    @staticmethod
    def expand(rows):
        def decorate(func):
            frame = sys._getframe(1).f_locals
            for i, row in enumerate(rows):
                def case(self, row=row):
                    return func(self, *row)
                case.__name__ = f"{func.__name__}_{i}_{row[0]}"
                case.place_as = func
                frame[case.__name__] = case
            func.__test__ = False
            return func
        return decorate
"""

EXPAND = '''import unittest

from parameterized import parameterized

from loopcore.loop import Loop


class TestLoops(unittest.TestCase):
    @parameterized.expand([("normal", Loop.run_normal), ("quiet", Loop.run_quiet)])
    def test_loop(self, name, event_loop):
        obj = Loop.__new__(Loop)
        obj.queue = 1
        event_loop(obj)
'''

PARAMETRIZE = '''import pytest

from loopcore.loop import Loop


@pytest.mark.parametrize("loop", [Loop.run_normal, Loop.run_quiet])
def test_loop(loop):
    obj = Loop.__new__(Loop)
    obj.queue = 1
    loop(obj)
'''


@pytest.mark.parametrize(("test_source", "test_id"), [
    (PARAMETRIZE, "tests/test_loops.py::test_loop"),
    (EXPAND, "tests/test_loops.py::TestLoops::test_loop"),
], ids=["parametrize", "expand"])
def test_run_runs_each_item_of_a_parametrized_driving_test(tmp_path, monkeypatch, capsys,
                                                           test_source, test_id):
    root = tmp_path / "proj"
    (root / "loopcore").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "loopcore" / "__init__.py").write_text("")
    (root / "loopcore" / "loop.py").write_text(LOOPS)
    (root / "parameterized.py").write_text(PARAMETERIZED)
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    (root / "tests" / "test_loops.py").write_text(test_source)
    monkeypatch.chdir(root)
    code = main(["standins", "--json", "--run"])
    out = capsys.readouterr()
    assert out.out.lstrip().startswith("{"), (
        "--run printed no report: the parametrized test's items (one per row) must be kept "
        f"for the function's id, not all deselected; stderr ends: {out.err[-600:]}")
    ran = json.loads(out.out)
    assert ran["run"]["not_run"] == [], (
        "the parametrized test runs as one item per row, each kept for the function's id: "
        f"none may be reported as not run; got {ran['run']}")
    failed = ran["run"]["failed"]
    assert failed == [test_id], (
        "the row driving run_normal fails (self.budget is unset) and counts as a failure of "
        f"the parametrized test's own id {test_id}; got failed={failed}")
    (standin,) = ran["standins"]
    assert [r["name"] for r in standin["drift"]] == ["budget"], (
        "run_normal reads self.budget on a line its row executed: `budget` is drift, "
        f"judged on executed lines; got {standin['drift']}")
    assert {v["mode"] for v in standin["verdicts"]} == {"executed"}, (
        f"every verdict is judged on the lines the items executed: {standin['verdicts']}")
    assert "not reached" not in standin["drift"][0]["detail"], (
        "the run_normal row executed the line reading self.budget: its lines count for the "
        "test's id, so the read is drift because it ran, not a read a failure cut off; got "
        f"detail {standin['drift'][0]['detail']!r}")
    assert code == 1, "drift makes --run exit 1"
