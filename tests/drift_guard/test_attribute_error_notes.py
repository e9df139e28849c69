"""In a normal pytest run an AttributeError raised on a stand-in is explained as drift: the
missing name, the production site and call path, where the stand-in was built. Words are
added (an exception note); the traceback stays whole."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from deskcheck.drift_guard.attribute_errors import drift_note
from tests.pythonpath import extended

PATHSRC = Path(__file__).parent / "fixtures" / "pathsrc"
if str(PATHSRC) not in sys.path:
    sys.path.insert(0, str(PATHSRC))

TESTS = '''
import unittest
from types import SimpleNamespace

import pytest

from dg_paths.engine import Engine


def test_namespace_lacks_a_name():
    ns = SimpleNamespace(chunked=SimpleNamespace(rid="r1"))
    assert Engine.abort_chunked(ns, "r1")


def make_engine():
    engine = Engine.__new__(Engine)
    engine.chunked = SimpleNamespace(rid="r1")
    engine.aborted = []
    return engine


def test_new_instance_lacks_a_name_its_class_sets():
    engine = make_engine()
    assert Engine.abort_chunked(engine, "r1")


def test_a_real_object_with_a_real_bug_is_left_alone():
    assert Engine().describe()


class TestAbort(unittest.TestCase):
    def setUp(self):
        self.engine = SimpleNamespace(chunked=SimpleNamespace(rid="r1"))

    def test_set_up_stand_in(self):
        assert Engine.abort_chunked(self.engine, "r1")


@pytest.fixture
def engine():
    standin = SimpleNamespace(chunked=SimpleNamespace(rid="r1"))
    return standin


def test_fixture_stand_in(engine):
    assert Engine.abort_chunked(engine, "r1")
'''


def _run(tmp_path: Path, *extra: str, test_text: str = TESTS) -> str:
    shutil.copytree(PATHSRC / "dg_paths", tmp_path / "dg_paths",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "test_standins.py").write_text(test_text)
    env = {**os.environ, "PYTHONPATH": extended(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider",
         "-q", "test_standins.py", *extra],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, f"the tests fail on their own: {proc.stdout[-3000:]}"
    return proc.stdout


def _section(out: str, test: str) -> str:
    start = out.index(f"_ {test} _")
    ends = [e for e in (out.find("\n____", start + 1), out.find("\n====", start + 1)) if e != -1]
    return out[start:min(ends) if ends else len(out)]  # the last one ends at the summary


@pytest.mark.xdist_group("deskcheck_drift_subprocess")
def test_the_failure_of_a_drifted_stand_in_names_the_drift_and_keeps_the_traceback(tmp_path):
    out = _run(tmp_path)
    ns = _section(out, "test_namespace_lacks_a_name")
    assert "AttributeError: 'types.SimpleNamespace' object has no attribute 'aborted'" in ns, \
        f"the real error stays: {ns}"
    assert "self.aborted.append(rid)" in ns, f"the traceback stays: {ns}"
    assert "deskcheck: stand-in drift: the SimpleNamespace standing in for Engine lacks " \
           "`aborted`" in ns, ns
    assert "needed at dg_paths/engine.py:34 (Engine.abort_chunked)" in ns, ns
    lines = TESTS.splitlines()

    def at(text: str) -> int:
        return next(i for i, line in enumerate(lines, 1) if text in line)

    built = at('ns = SimpleNamespace(chunked=SimpleNamespace(rid="r1"))')
    assert f"stand-in built at test_standins.py:{built}" in ns, f"the construction site: {ns}"
    assert "production sets it at dg_paths/engine.py:16" in ns, ns
    new = _section(out, "test_new_instance_lacks_a_name_its_class_sets")
    assert "lacks `pool`" in new and "call path: Engine.abort_chunked -> Engine._release" in new, \
        f"the call path runs through the real _release: {new}"
    made, called = at("engine = Engine.__new__(Engine)"), at("engine = make_engine()")
    assert f"stand-in built at test_standins.py:{made} (in make_engine(), called at " \
           f"test_standins.py:{called})" in new, f"the factory built it, the test called it: {new}"
    set_up, fixture = at("self.engine = SimpleNamespace"), at("standin = SimpleNamespace")
    unit = _section(out, "TestAbort.test_set_up_stand_in")
    assert f"stand-in built at test_standins.py:{set_up} (self.engine in TestAbort.setUp)" \
        in unit, f"a stand-in kept on the TestCase is traced to setUp: {unit}"
    fixed = _section(out, "test_fixture_stand_in")
    assert f"stand-in built at test_standins.py:{fixture} (fixture engine)" in fixed, \
        f"a fixture's stand-in is traced into the fixture: {fixed}"
    real = _section(out, "test_a_real_object_with_a_real_bug_is_left_alone")
    assert "has no attribute 'label'" in real and "deskcheck" not in real, \
        f"a class that never sets the name has a real bug, not a drifted stand-in: {real}"


@pytest.mark.xdist_group("deskcheck_drift_subprocess")
def test_the_note_can_be_switched_off(tmp_path):
    out = _run(tmp_path, "-o", "deskcheck_standin_notes=false")
    assert "has no attribute 'aborted'" in out, (
        "the inner run must still fail with the stand-in's AttributeError (has no attribute "
        f"'aborted'); its output:\n{out[-2000:]}")
    assert "stand-in drift" not in out, (
        "the stand-in drift note was still added although the notes were switched off with "
        f"-o deskcheck_standin_notes=false; the inner run's output:\n{out[-2000:]}")


def _raised(fn) -> AttributeError:
    try:
        fn()
    except AttributeError as exc:
        return exc
    raise AssertionError("the call was expected to raise AttributeError")


def test_drift_note_explains_a_namespace_and_leaves_a_real_bug_alone():
    from types import SimpleNamespace
    from unittest.mock import MagicMock

    from dg_paths.engine import Engine

    standin = SimpleNamespace(chunked=SimpleNamespace(rid="r1"))
    note = drift_note(_raised(lambda: Engine.abort_chunked(standin, "r1")))
    assert note is not None and "lacks `aborted`" in note, \
        f"a SimpleNamespace standing in for Engine lacks aborted: {note}"
    assert "call path: Engine.abort_chunked" in note and "stand-in built at" in note, note
    spec = MagicMock(spec=Engine)
    mocked = drift_note(_raised(lambda: Engine.abort_chunked(spec, "r1")))
    assert mocked is not None and "the spec'd MagicMock standing in for Engine lacks " \
        "`chunked`" in mocked, f"an instance attribute is not in a class spec: {mocked}"
    real = drift_note(_raised(lambda: Engine().describe()))
    assert real is None, f"Engine.__init__ never sets label: a real bug, not a drifted stand-in, " \
                         f"yet the note says: {real}"


class BudgetMixin:
    def budget(self):
        return self.limit - self.used


class MixedScheduler(BudgetMixin):
    """The production class the test drives through; the method lives in its mixin."""


def test_the_note_names_the_model_class_the_test_drives_not_the_mixin_defining_the_method():
    from types import SimpleNamespace

    standin = SimpleNamespace(limit=3)
    note = drift_note(_raised(lambda: MixedScheduler.budget(standin)))
    assert note is not None and "standing in for MixedScheduler lacks `used`" in note, (
        f"the test calls MixedScheduler.budget: the stand-in stands in for MixedScheduler, "
        f"not for BudgetMixin, which only defines the method: {note}")


CHAINED_TESTS = '''
import unittest
from types import SimpleNamespace

from dg_paths.engine import Engine


class RetryingTestCase(unittest.TestCase):
    """Like SGLang's CustomTestCase: a failure is re-raised as a plain Exception, the
    AttributeError only on its __context__."""

    def _callTestMethod(self, method):
        try:
            super()._callTestMethod(method)
        except Exception:
            raise Exception("retry() exceed maximum number of retries.")


class TestRetried(RetryingTestCase):
    def test_context_chained(self):
        standin = SimpleNamespace(chunked=SimpleNamespace(rid="r1"))
        assert Engine.abort_chunked(standin, "r1")


def test_cause_chained():
    standin = SimpleNamespace(chunked=SimpleNamespace(rid="r1"))
    try:
        Engine.abort_chunked(standin, "r1")
    except AttributeError as exc:
        raise RuntimeError("engine call failed") from exc


def test_unrelated_chain_is_left_alone():
    try:
        {}["missing"]
    except KeyError:
        raise RuntimeError("no stand-in anywhere in this chain")
'''


@pytest.mark.xdist_group("deskcheck_drift_subprocess")
def test_a_plain_exception_chained_from_a_stand_in_attribute_error_gets_the_note(tmp_path):
    """SGLang's CustomTestCase re-raises every failure as a plain Exception whose __context__
    is the AttributeError; `raise ... from` puts it on __cause__. The note follows the chain."""
    out = _run(tmp_path, test_text=CHAINED_TESTS)
    retried = _section(out, "TestRetried.test_context_chained")
    assert "Exception: retry() exceed maximum number of retries." in retried, \
        f"the re-raised Exception stays the reported error: {retried}"
    assert "deskcheck: stand-in drift: the SimpleNamespace standing in for Engine lacks " \
           "`aborted`" in retried, \
        f"the AttributeError on __context__ of the plain Exception got no drift note: {retried}"
    assert "needed at dg_paths/engine.py:34 (Engine.abort_chunked)" in retried, retried
    caused = _section(out, "test_cause_chained")
    assert "lacks `aborted`" in caused, \
        f"the AttributeError on __cause__ (raise ... from) got no drift note: {caused}"
    unrelated = _section(out, "test_unrelated_chain_is_left_alone")
    assert "deskcheck" not in unrelated, \
        f"a chain with no AttributeError on a stand-in got a note: {unrelated}"


def test_drift_note_follows_cause_and_context():
    from types import SimpleNamespace

    from dg_paths.engine import Engine

    standin = SimpleNamespace(chunked=SimpleNamespace(rid="r1"))
    inner = _raised(lambda: Engine.abort_chunked(standin, "r1"))
    for link in ("__cause__", "__context__"):
        outer = Exception("re-raised")
        setattr(outer, link, inner)
        note = drift_note(outer)
        assert note is not None and "lacks `aborted`" in note, \
            f"drift_note did not follow {link} to the stand-in's AttributeError: {note}"
    looped = Exception("a")
    looped.__context__ = Exception("b")
    looped.__context__.__context__ = looped
    assert drift_note(looped) is None, "a cyclic chain with no AttributeError must give None"


def test_drift_note_finds_a_name_set_by_a_helper_that_init_calls():
    """SGLang's TokenizerManager.__init__ calls init_ipc_channels(), which sets
    tokenizer_ipc_name: a __new__ instance lacking it has drifted, it is not a real bug."""
    from dg_delegating import Manager

    standin = Manager.__new__(Manager)
    note = drift_note(_raised(lambda: standin.abort("r1")))
    assert note is not None and "lacks `ipc_name`" in note, \
        f"a name set by a method __init__ calls (init_channels) was judged a real bug: {note}"
    assert "production sets it at" in note and "dg_delegating.py:12" in note, \
        f"the note must name where the helper sets it: {note}"
    standin.ipc_name = None
    deep = drift_note(_raised(lambda: standin.abort("r1")))
    assert deep is not None and "lacks `socket`" in deep and "dg_delegating.py:15" in deep, \
        f"a name set two calls away from __init__ (init_channels -> init_sockets): {deep}"
    real = drift_note(_raised(lambda: Manager(1).describe()))
    assert real is None, f"nothing sets label: a real bug, yet the note says: {real}"
